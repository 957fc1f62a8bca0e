import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLiteKit
import SQLiteNIO
import SQLKit
import Synchronization
import TesseraCore
import TesseraRecords
import TesseraSQLite

/// A result row of `SQLiteHandle`, readable through SQLKit.
struct DirectSQLiteRow: SQLRow {
    let columns: SQLiteColumns
    let values: [SQLiteData]
    /// The offset of the column read last. A record decodes its fields in order, each
    /// asked for up to three times (`contains`, `decodeNil`, `decode`), and the statements
    /// select them in that order: the column asked for is mostly this one or the next,
    /// found by comparing names instead of hashing each into `columns.offsets`. Not for a
    /// statement that repeats a name: there the table's answer (the first) must stand.
    private let last = Last()
    /// One decoder for every column of every row (each would otherwise make a JSONDecoder).
    private static let decoder = SQLiteDataDecoder()

    init(columns: SQLiteColumns, values: [SQLiteData]) {
        self.columns = columns
        self.values = values
    }

    var allColumns: [String] { columns.names }

    func contains(column: String) -> Bool { offset(of: column) != nil }

    func decodeNil(column: String) throws -> Bool {
        guard let offset = offset(of: column) else { return true }
        return values[offset] == .null
    }

    private func offset(of column: String) -> Int? {
        let names = columns.names
        guard columns.offsets.count == names.count else { return columns.offsets[column] }
        let guess = last.offset.load(ordering: .relaxed)
        if guess < names.count, names[guess] == column { return guess }
        if guess + 1 < names.count, names[guess + 1] == column {
            last.offset.store(guess + 1, ordering: .relaxed)
            return guess + 1
        }
        guard let offset = columns.offsets[column] else { return nil }
        last.offset.store(offset, ordering: .relaxed)
        return offset
    }

    private final class Last: Sendable {
        let offset = Atomic<Int>(0)
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let offset = offset(of: column) else {
            throw StoreError(.corrupt, "no column \(column) in the row")
        }
        // Text and integer columns read as String and Int64 directly: SQLiteDataDecoder's
        // dynamic casts per column were a visible part of a login's CPU.
        switch values[offset] {
        case .text(let text) where D.self == String.self: return unsafeBitCast(text, to: D.self)
        case .integer(let number) where D.self == Int64.self: return unsafeBitCast(Int64(number), to: D.self)
        case .integer(let number) where D.self == Int.self: return unsafeBitCast(Int(number), to: D.self)
        default: return try Self.decoder.decode(D.self, from: values[offset])
        }
    }
}

/// `SQLiteHandle` as an SQLKit database, with SQLite's dialect.
struct DirectSQLiteDatabase: SQLDatabase {
    let connection: SQLiteHandle
    let logger: Logger
    let eventLoop: any EventLoop
    var dialect: any SQLDialect { SQLiteDialect() }
    /// Queries are not logged: their binds hold digests and sealed secrets.
    var queryLogLevel: Logger.Level? { nil }
    /// One encoder for every bind (each would otherwise make a JSONEncoder).
    private static let encoder = SQLiteDataEncoder()

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        do {
            try run(query, onRow)
            return eventLoop.makeSucceededVoidFuture()
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try run(query, onRow)
    }

    private func run(_ query: any SQLExpression, _ onRow: (any SQLRow) -> Void) throws {
        StoreCall.current?.statement()
        let (sql, binds) = serialize(query)
        let values = try binds.map { bind in try Self.value(of: bind) }
        try connection.execute(sql, values) { columns, values in
            onRow(DirectSQLiteRow(columns: columns, values: values.map(SQLiteData.init)))
        }
    }
}

extension DirectSQLiteDatabase {
    /// A bind as SQLite takes it. The bind is opened as its own type `T`, and the types
    /// statements bind (text, integers, a flag, and those optional) are told apart by
    /// comparing `T` with each: a comparison of two metadata pointers, where a dynamic cast
    /// (`bind as? String`) walked the runtime's cast machinery once per type tried, about
    /// 0.7 % of a login's instructions. Anything else goes through `SQLiteDataEncoder`.
    static func value<T: Encodable>(of bind: T) throws -> SQLiteValue {
        if T.self == String.self { return .text(unsafeBitCast(bind, to: String.self)) }
        if T.self == Int.self { return .integer(unsafeBitCast(bind, to: Int.self)) }
        if T.self == Int64.self { return .integer(Int(unsafeBitCast(bind, to: Int64.self))) }
        if T.self == Bool.self { return .integer(unsafeBitCast(bind, to: Bool.self) ? 1 : 0) }
        if T.self == Double.self { return .float(unsafeBitCast(bind, to: Double.self)) }
        if T.self == String?.self { return unsafeBitCast(bind, to: String?.self).map { .text($0) } ?? .null }
        if T.self == Int?.self { return unsafeBitCast(bind, to: Int?.self).map { .integer($0) } ?? .null }
        if T.self == Int64?.self { return unsafeBitCast(bind, to: Int64?.self).map { .integer(Int($0)) } ?? .null }
        // Identifiers (`UserID`, `RequestID`, …) are most of the rest: one conformance
        // check of the type (the runtime keeps its answer) instead of the encoder's cast
        // and its single-value container.
        if let identifier = T.self as? any StringIdentifier.Type { return .text(rawValue(of: bind, as: identifier)) }
        return try encoded(bind)
    }

    /// `value`'s raw value, where `T` is `I`.
    private static func rawValue<T, I: StringIdentifier>(of value: T, as _: I.Type) -> String {
        unsafeBitCast(value, to: I.self).rawValue
    }

    /// What sqlite-kit's encoder makes of a bind: the way every bind went before.
    static func encoded(_ bind: any Encodable) throws -> SQLiteValue {
        SQLiteValue(try encoder.encode(bind))
    }
}

extension SQLiteValue {
    init(_ data: SQLiteData) {
        switch data {
        case .integer(let value): self = .integer(value)
        case .float(let value): self = .float(value)
        case .text(let value): self = .text(value)
        case .blob(let value): self = .blob(value)
        case .null: self = .null
        }
    }
}

extension SQLiteData {
    init(_ value: SQLiteValue) {
        switch value {
        case .integer(let value): self = .integer(value)
        case .float(let value): self = .float(value)
        case .text(let value): self = .text(value)
        case .blob(let value): self = .blob(value)
        case .null: self = .null
        }
    }
}

/// The SQLite side of `SQLStore`: the connection, its thread, the lock that gives one
/// transaction (or read) at a time the connection, and group commit.
///
/// Group commit: a transaction runs as a savepoint inside an open SQLite transaction,
/// and the transaction is committed (one WAL write, one fsync) when no one else is
/// waiting for the connection, or after `batchLimit` members or `batchAge`. Until that commit no
/// member answers: `transaction` and `read` return only once what they wrote, and
/// everything they read, is durable, so a crash loses nothing anyone was told. A
/// member that throws is rolled back to its savepoint and leaves the others alone.
/// Members still run one at a time, so counters and single-use checks stay exact.
final class SQLiteBackend: Sendable {
    let handle: SQLiteHandle
    let thread: SQLiteThread
    let mutex: AsyncMutex
    let database: DirectSQLiteDatabase
    /// Read-only connections, each on its own thread, for `read`: WAL gives each read
    /// transaction the last committed state without waiting for the writer, so reads
    /// neither queue behind transactions and their fsyncs nor take the one writer's time.
    private let readers = Mutex<[SQLiteReader]>([])
    private let nextReader = Atomic<Int>(0)
    private let path: String
    private let logger: Logger
    /// The open batch; only touched while `mutex` is held.
    private let open = Mutex<Batch?>(nil)
    /// Members, and time, after which a batch is committed even if others wait: they
    /// bound what the first member waits for (the bodies of those after it).
    static let batchLimit = 64
    static let batchAge: Duration = .milliseconds(5)
    /// How long a batch with no member queued stays open for the next one, when members
    /// arrive more often than that: a commit (WAL writes and an fsync) costs more CPU than
    /// the rest of a typical transaction, and under load most batches had one member.
    static let commitDelay: Duration = .milliseconds(1)
    /// How often members arrive; only touched while `mutex` is held.
    private let pace = Pace()

    init(path: String, logger: Logger) throws {
        self.path = path
        self.logger = logger
        handle = try SQLiteHandle(path: path)
        thread = SQLiteThread(name: "tessera-sqlite")
        mutex = AsyncMutex()
        database = DirectSQLiteDatabase(connection: handle, logger: logger, eventLoop: MultiThreadedEventLoopGroup.singleton.any())
    }

    /// Set once `close` has run; later calls fail instead of touching a closed handle.
    private let closed = Mutex(false)

    deinit { thread.stop() }

    /// Runs `body` as one all-or-nothing unit of a batch; returns after the batch commits.
    func transaction<R: Sendable>(isolation: isolated (any Actor)? = #isolation, _ body: (DirectSQLiteDatabase) async throws -> R) async throws -> R {
        try await member(savepoint: true, body)
    }

    /// Opens `count` read-only connections for `read` (after the migrations, so they
    /// start on the current schema). Only in WAL mode: otherwise a reader would hold
    /// the writer's COMMIT back.
    func openReaders(_ count: Int) async throws {
        var opened: [SQLiteReader] = []
        do {
            for index in 0..<count {
                let reader = try SQLiteReader(path: path, name: "tessera-read-\(index)", logger: logger)
                opened.append(reader)
                try await reader.prepare()
            }
        } catch {
            for reader in opened { await reader.close() }
            throw error
        }
        readers.withLock { $0 = opened }
    }

    /// Runs `body` in one read transaction on a reader connection: it sees what was
    /// committed (and so is on disk) when it began. Before the readers are open (the
    /// migrations), on the writer's connection.
    /// `inTransaction: false` runs `body` without BEGIN and COMMIT (a single statement,
    /// which is its own read transaction).
    func read<R: Sendable>(
        inTransaction: Bool = true, isolation: isolated (any Actor)? = #isolation, _ body: (DirectSQLiteDatabase) async throws -> R
    ) async throws -> R {
        let reader = readers.withLock { readers -> SQLiteReader? in
            guard !readers.isEmpty else { return nil }
            return readers[nextReader.wrappingAdd(1, ordering: .relaxed).oldValue % readers.count]
        }
        guard let reader else { return try await member(savepoint: false, body) }
        return try await reader.read(inTransaction: inTransaction, body)
    }

    /// Every way out of a member either leaves the batch for the next holder of the lock
    /// (who is already waiting), commits it, or fails it: no batch is left behind.
    private func member<R: Sendable>(
        savepoint: Bool, isolation: isolated (any Actor)? = #isolation, _ body: (DirectSQLiteDatabase) async throws -> R
    ) async throws -> R {
        let (result, pending) = try await exclusive { database -> (Result<R, any Error>, Batch?) in
            pace.arrived()
            var batch = try current()
            let result: Result<R, any Error>
            do {
                if batch == nil && savepoint {
                    try await database.raw("BEGIN IMMEDIATE").run()
                    batch = Batch()
                    open.withLock { $0 = batch }
                }
                if savepoint {
                    try await database.raw("SAVEPOINT member").run()
                    do {
                        let value = try await body(database)
                        try await database.raw("RELEASE member").run()
                        result = .success(value)
                    } catch let failure {
                        // Only this member's writes are undone; the batch goes on without them.
                        do {
                            try await database.raw("ROLLBACK TO member").run()
                            try await database.raw("RELEASE member").run()
                        } catch {
                            throw BatchLost(cause: failure)
                        }
                        result = .failure(failure)
                    }
                } else {
                    do { result = .success(try await body(database)) } catch { result = .failure(error) }
                }
                // SQLite ends a transaction by itself after a full disk or an I/O error.
                if batch != nil && !handle.inTransaction {
                    throw BatchLost(cause: result.failure ?? StoreError(.unavailable, "the database ended the open transaction"))
                }
            } catch {
                let cause = (error as? BatchLost)?.cause ?? error
                if let batch { try await abandon(batch, database, cause) }
                throw cause
            }
            guard let batch else { return (result, nil) }
            let members = batch.join()
            if members < Self.batchLimit && ContinuousClock.now - batch.opened < Self.batchAge {
                // Someone is waiting for the connection: they continue this batch.
                if mutex.hasWaiters { return (result, batch) }
                // No one yet, but under load someone will be within the commit delay: the
                // batch stays open that long for them (one commit, one fsync for all).
                if batch.hasCommitter || pace.expectsMember(within: Self.commitDelay) {
                    if batch.takeCommitter() { commitLater() }
                    return (result, batch)
                }
            }
            try await commit(batch, database)
            return (result, nil)
        }
        // Even a member that failed waits: what it saw may have been the batch's.
        if let pending { try await pending.committed() }
        return try result.get()
    }

    /// Commits whichever batch is open after the commit delay (the one that scheduled it,
    /// unless a member committed that one before). A member that found someone waiting
    /// (possibly this committer) left its batch open for them, so whoever takes the
    /// connection next must continue or commit the open batch: none is ever left behind.
    private func commitLater() {
        Task {
            try? await Task.sleep(for: Self.commitDelay)
            // A failed commit fails the members; a closed store committed it on closing.
            try? await exclusive { database in
                guard let open = try current() else { return }
                try await commit(open, database)
            }
        }
    }

    /// The open batch, or nil; a batch SQLite has ended by itself is failed first.
    private func current() throws -> Batch? {
        guard let batch = open.withLock({ $0 }) else { return nil }
        if handle.inTransaction { return batch }
        open.withLock { $0 = nil }
        batch.finish(.failure(StoreError(.unavailable, "the database ended the open transaction")))
        return nil
    }

    /// Commits the batch and tells its members; if the commit fails, the batch is
    /// abandoned and the error thrown.
    private func commit(_ batch: Batch, _ database: DirectSQLiteDatabase) async throws {
        open.withLock { $0 = nil }
        do {
            try await database.raw("COMMIT").run()
        } catch {
            try await abandon(batch, database, error)
            throw error
        }
        batch.finish(.success(()))
    }

    /// Rolls the batch back and fails its members with `cause`.
    private func abandon(_ batch: Batch, _ database: DirectSQLiteDatabase, _ cause: any Error) async throws {
        open.withLock { $0 = nil }
        if handle.inTransaction { try? await database.raw("ROLLBACK").run() }
        batch.finish(.failure(cause))
    }

    /// `body` with the connection to itself, on the connection's thread. Transactions and
    /// reads come through `member`; the only other caller, the migrations, runs at open,
    /// before any batch.
    func exclusive<R>(isolation: isolated (any Actor)? = #isolation, _ body: (DirectSQLiteDatabase) async throws -> R) async throws -> R {
        let result = try await withTaskExecutorPreference(thread) {
            try await mutex.withLock {
                guard !closed.withLock({ $0 }) else { throw StoreError(.unavailable, "the database is closed") }
                return try await body(database)
            }
        }
        // A caller on no actor would otherwise go on running here, on the connection's
        // thread, until its next suspension; the next transaction waits for this thread.
        if isolation == nil { await Task.yield() }
        return result
    }

    /// Commits an open batch (its members are waiting for it), then closes the connection;
    /// the store fails every later call. Closing twice does nothing more.
    func close() async {
        let readers = self.readers.withLock { readers in
            defer { readers = [] }
            return readers
        }
        for reader in readers { await reader.close() }
        try? await exclusive { database in
            // A failed commit fails the members; the connection closes all the same.
            if let batch = try current() { try? await commit(batch, database) }
            closed.withLock { $0 = true }
            handle.close()
        }
    }
}

/// A read-only connection to the SQLite file on its own thread, one read at a time.
final class SQLiteReader: Sendable {
    let handle: SQLiteHandle
    let thread: SQLiteThread
    let mutex = AsyncMutex()
    let database: DirectSQLiteDatabase
    private let closed = Mutex(false)

    init(path: String, name: String, logger: Logger) throws {
        handle = try SQLiteHandle(path: path)
        thread = SQLiteThread(name: name)
        database = DirectSQLiteDatabase(connection: handle, logger: logger, eventLoop: MultiThreadedEventLoopGroup.singleton.any())
    }

    deinit { thread.stop() }

    /// The connection's settings: it may not write, and it waits out a writer's lock.
    func prepare() async throws {
        try await read { database in
            try await database.raw("PRAGMA query_only = ON").run()
            try await database.raw("PRAGMA busy_timeout = 5000").run()
            try await database.raw("PRAGMA temp_store = MEMORY").run()
            try await database.raw("PRAGMA cache_size = -16384").run()
        }
    }

    /// `body` in one read transaction (one snapshot from its first statement on).
    func read<R>(
        inTransaction: Bool = true, isolation: isolated (any Actor)? = #isolation, _ body: (DirectSQLiteDatabase) async throws -> R
    ) async throws -> R {
        let result = try await withTaskExecutorPreference(thread) {
            try await mutex.withLock {
                guard !closed.withLock({ $0 }) else { throw StoreError(.unavailable, "the database is closed") }
                guard inTransaction else { return try await body(database) }
                try await database.raw("BEGIN").run()
                do {
                    let result = try await body(database)
                    try await database.raw("COMMIT").run()
                    return result
                } catch {
                    if handle.inTransaction { try? await database.raw("ROLLBACK").run() }
                    throw error
                }
            }
        }
        // As in `SQLiteBackend.exclusive`: off the connection's thread before going on.
        if isolation == nil { await Task.yield() }
        return result
    }

    func close() async {
        await withTaskExecutorPreference(thread) {
            await mutex.withLock {
                guard !closed.withLock({ $0 }) else { return }
                closed.withLock { $0 = true }
                handle.close()
            }
        }
    }
}

/// The open transaction cannot go on: its batch is rolled back and `cause` (the member's
/// own error, if it had one) is what the member reports.
private struct BatchLost: Error {
    let cause: any Error
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// How often members arrive at the connection: a moving average of the intervals
/// between them.
final class Pace: Sendable {
    private struct State {
        var last: ContinuousClock.Instant?
        var interval: Duration = .seconds(1)
    }

    private let state = Mutex(State())

    /// A member has arrived now.
    func arrived() {
        let now = ContinuousClock.now
        state.withLock { state in
            if let last = state.last {
                // The newest interval weighs a quarter; a lull counts as one second at most.
                let interval = min(now - last, .seconds(1))
                state.interval = (state.interval * 3 + interval) / 4
            }
            state.last = now
        }
    }

    /// Whether members have lately arrived more often than once per `delay`.
    func expectsMember(within delay: Duration) -> Bool {
        state.withLock { $0.interval < delay }
    }
}

/// Members of one SQLite transaction waiting for its commit.
final class Batch: Sendable {
    private struct State {
        var members = 0
        var committer = false
        var outcome: Result<Void, any Error>?
        var waiters: [CheckedContinuation<Void, any Error>] = []
    }

    /// Whether a delayed commit is scheduled for this batch.
    var hasCommitter: Bool { state.withLock { $0.committer } }

    /// Takes the one delayed commit of this batch; false when it is taken already.
    func takeCommitter() -> Bool {
        state.withLock { state in
            defer { state.committer = true }
            return !state.committer
        }
    }

    private let state = Mutex(State())
    let opened = ContinuousClock.now

    /// Counts one more member; returns how many the batch has now.
    func join() -> Int {
        state.withLock { state in
            state.members += 1
            return state.members
        }
    }

    /// Returns when the batch has committed; throws what the commit threw.
    func committed() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = state.withLock { state -> Result<Void, any Error>? in
                if state.outcome == nil { state.waiters.append(continuation) }
                return state.outcome
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    func finish(_ outcome: Result<Void, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.outcome = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(with: outcome) }
    }
}
