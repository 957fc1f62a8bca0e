import Foundation
import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import _ConnectionPoolModule
import ServiceLifecycle
import SQLiteKit
import SQLKit
import Synchronization
import TesseraBuildInfo
import TesseraRecords
import Tracing

/// The SQL store: SQLite (one file, the zero-set-up default) or PostgreSQL (several
/// server processes on one database), with the same queries and migrations.
///
/// On SQLite one connection, on its own thread (`SQLiteBackend`), does all the work,
/// one transaction at a time (`BEGIN
/// IMMEDIATE`), which is what keeps lockout counters and single-use codes exact: two
/// writers on one file only trade `SQLITE_BUSY` errors. On PostgreSQL transactions run
/// at READ COMMITTED on pooled connections, and the same guarantees come from how the
/// queries are written: everything single-use is spent by a conditional `UPDATE …
/// RETURNING` or `INSERT … ON CONFLICT`, which a concurrent transaction waits for and
/// then re-checks; existence checks stand on unique keys; and a hot counter (an
/// activation's failures) is read and written under an advisory lock the transaction
/// takes first (`queue`). A deadlock or serialization failure runs the
/// transaction again.
public final class SQLStore: Sendable {
    private enum Backend: Sendable {
        case sqlite(SQLiteBackend)
        case postgres(PostgresHosts)
    }

    private let backend: Backend
    private let logger: Logger
    /// Who hears what each call cost (the server's metrics).
    public let observers = StoreObservers()
    private let inUse = Atomic<Int>(0)
    private let connectionLimit: Int
    /// On PostgreSQL: at most two transactions of one queue on a connection at once (one
    /// holding the advisory lock, one next in line); the rest wait in memory, 5 s at most.
    private let queueGate = QueueGate(perQueue: 2, maximumWait: .seconds(5))
    /// The statements PostgreSQL prepares once per connection.
    private let statements = PostgresStatements()
    /// How long a queued transaction waits for the advisory lock a transaction on another
    /// node holds, before it fails as busy.
    static let queueLockTimeout = "5s"
    /// How often a transaction is tried when PostgreSQL reports a deadlock or serialization failure.
    static let serializationAttempts = 30

    private init(backend: Backend, logger: Logger, connectionLimit: Int) {
        self.backend = backend
        self.logger = logger
        self.connectionLimit = connectionLimit
    }

    /// Connections in use now, and the most there may be (for the metrics).
    public func connectionUse() -> (inUse: Int, limit: Int) {
        (inUse.load(ordering: .relaxed), connectionLimit)
    }


    public var kind: String {
        switch backend {
        case .sqlite: "sqlite"
        case .postgres: "postgres"
        }
    }

    /// Opens (creating if needed) the SQLite file and brings its schema up to date.
    public static func openSQLite(path: String, logger: Logger) async throws -> SQLStore {
        let sqlite = try SQLiteBackend(path: path, logger: logger)
        let store = SQLStore(backend: .sqlite(sqlite), logger: logger, connectionLimit: 1)
        let db = sqlite.database
        do {
            // WAL keeps readers off the writer's back; FULL makes every commit durable.
            let mode = try await db.raw("PRAGMA journal_mode = WAL").first()?.decode(column: "journal_mode", as: String.self)
            try await db.raw("PRAGMA synchronous = FULL").run()
            try await db.raw("PRAGMA busy_timeout = 5000").run()
            try await db.raw("PRAGMA foreign_keys = ON").run()
            // A member's savepoint journal stays in memory (it only serves ROLLBACK TO, and
            // was written to a temporary file once a batch grew past 64 KiB), and recently
            // used pages stay in the connection's cache, not behind a read call each.
            try await db.raw("PRAGMA temp_store = MEMORY").run()
            try await db.raw("PRAGMA cache_size = -65536").run()
            try await store.migrate()
            // Reads beside the writer need WAL (a file system without shared memory
            // keeps the rollback journal: reads then stay on the writer's connection).
            if mode?.lowercased() == "wal" {
                try await sqlite.openReaders(2)
            } else {
                logger.warning("the database is not in WAL mode: reads share the writer's connection", metadata: ["journal_mode": "\(mode ?? "?")"])
            }
        } catch {
            await sqlite.close()
            throw error
        }
        return store
    }

    /// A store on PostgreSQL (`postgres://user:password@host:port[,host:port…]/database`,
    /// with `sslmode` and `target_session_attrs`: `PostgresURL`) whose connections open
    /// once its `service` runs: in the server's service group, which ends it last (after
    /// the requests that use it). Nothing connects yet; the host is chosen and the schema
    /// brought up to date by `prepare` (or `withPostgres`, for a store used in one scope).
    public static func postgres(url: String, logger: Logger, maximumConnections: Int = 20) throws -> SQLStore {
        let hosts = try PostgresHosts(url: PostgresURL(url), maximumConnections: maximumConnections, logger: logger)
        return SQLStore(backend: .postgres(hosts), logger: logger, connectionLimit: maximumConnections)
    }

    /// What keeps the store's connections open while it runs: on PostgreSQL the pool
    /// (it closes the connections when it ends, at graceful shutdown or cancellation);
    /// nil on SQLite, whose file stays open until `close`.
    public var service: (any Service)? {
        guard case .postgres(let hosts) = backend else { return nil }
        return hosts.service
    }

    /// `body` with a PostgreSQL store that is connected (its pool runs beside `body`, in
    /// this scope) and up to date (`prepare`); the connections close when `body` ends.
    /// For the commands and tests that use a store for one task.
    public static func withPostgres<R: Sendable>(
        url: String, logger: Logger, maximumConnections: Int = 20, _ body: (SQLStore) async throws -> R
    ) async throws -> R {
        let store = try postgres(url: url, logger: logger, maximumConnections: maximumConnections)
        guard case .postgres(let hosts) = store.backend else { preconditionFailure("a PostgreSQL store") }
        return try await withThrowingTaskGroup(of: Void.self, returning: R.self) { group in
            group.addTask { await hosts.service.run() }
            defer { group.cancelAll() }
            try await store.prepare()
            return try await body(store)
        }
    }

    /// On PostgreSQL: fails unless the database answers within 15 seconds, then applies
    /// the migrations it lacks (several nodes may do this at once). Needs the pool
    /// running (`service`). Nothing to do on SQLite, which `openSQLite` brought up to date.
    public func prepare() async throws {
        guard case .postgres = backend else { return }
        try await chooseHost()
        try await reachable(within: .seconds(15))
        try await migrate()
    }

    /// On PostgreSQL with several hosts, or one that must accept writes
    /// (`target_session_attrs=read-write`): picks the first that qualifies, waiting up to
    /// 15 seconds for one, on connections of its own (the pool need not run yet). `prepare`
    /// does it; a store that skips `prepare` (the server's, after its start-up store
    /// migrated) does it before it is used.
    public func chooseHost() async throws {
        guard case .postgres(let hosts) = backend, hosts.choosesFirst else { return }
        try await hosts.choose(within: .seconds(15))
    }

    /// Fails unless the database answers within `limit` (a wrong host must not hang the start).
    private func reachable(within limit: Duration) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = try await self.read { tx in try await tx.db.raw("SELECT 1 AS one").first() }
                return true
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return false
            }
            let answered = try await group.next() ?? false
            group.cancelAll()
            guard answered else { throw StoreError(.unavailable, "the database did not answer within \(limit)") }
        }
    }

    /// Closes the SQLite file. On PostgreSQL there is nothing to do: the pool closes when
    /// its `service` (or `withPostgres`'s scope) ends.
    public func close() async throws {
        switch backend {
        case .sqlite(let sqlite):
            await sqlite.close()
        case .postgres:
            // The pool closes when its `service` ends.
            break
        }
    }

    /// Sends each payload on a PostgreSQL notification channel (nothing on SQLite, where
    /// there is one process). A notification that cannot be sent is dropped: listeners
    /// only wake up sooner with it.
    public func notify(_ channel: String, _ payloads: [String]) async {
        guard case .postgres(let hosts) = backend, !payloads.isEmpty else { return }
        do {
            // One statement for all of them: one round trip.
            try await hosts.client().withConnection { connection in
                try await PreparingPostgresDatabase(connection, statements: statements).raw(
                    StoreTransaction.notification(payloads, on: channel)
                ).run()
            }
        } catch {
            logger.warning("notification not sent", metadata: ["channel": "\(channel)", "error": "\(type(of: error))"])
        }
    }

    /// Why a `serve` task ended.
    public enum ServingEnd: Sendable {
        /// Cancelled: the node stops.
        case stopped
        /// After a lost connection a `tessera rekey` held the serving lock, or the `check`
        /// failed once the lock was taken again (a rekey ran meanwhile): this node, with
        /// the old master key, must stop.
        case rekeyed
    }

    /// On PostgreSQL: takes the serving lock shared, runs `check` under it, and lets it go.
    /// A node's start-up check, before it serves (`serving` then holds the lock for as
    /// long as the node runs): throws when a rekey holds the lock, `check` fails or the
    /// database does not answer. On SQLite (one process; the data directory's lock file,
    /// which the caller holds, is the lock) it runs `check`.
    public func checkServing(_ check: @Sendable () async throws -> Void) async throws {
        guard case .postgres(let hosts) = backend else { return try await check() }
        try await hosts.client().withConnection { connection in
            let db = PreparingPostgresDatabase(connection, statements: statements)
            let held = try await db.raw("SELECT pg_try_advisory_lock_shared(\(literal: Self.servingLock)) AS held")
                .first(decodingColumn: "held", as: Bool.self)
            guard held == true else {
                throw StoreError(.conflict, "a tessera rekey is running on this database: start the node when it has finished")
            }
            let unlock: SQLQueryString = "SELECT pg_advisory_unlock_shared(\(literal: Self.servingLock))"
            do {
                try await check()
                try await db.raw(unlock).run()
            } catch {
                try? await db.raw(unlock).run()
                throw error
            }
        }
    }

    /// What `serving` hands its handler when it listens again after a lost connection:
    /// the notifications sent meanwhile were missed (no channel payload is ever `*`).
    public static let notificationsMissed = "*"

    /// On PostgreSQL: holds the serving lock shared on a connection of its own, and on
    /// that connection hands every payload on `channel` to `handler`, until the task is
    /// cancelled (`.stopped`). `tessera rekey` takes the lock alone, so it refuses while
    /// any node serves, and a node does not start while a rekey runs. The lock goes with
    /// its connection, which the pool keeps until it closes, after in-flight requests.
    ///
    /// `check` runs each time the lock has been taken (so no rekey can run meanwhile):
    /// the caller's master key must still open the data. `ready` is called once the lock
    /// is first held, `check` passed and the LISTEN is in place; before that, a rekey
    /// holding the lock, a failed `check` or a database that does not answer is thrown.
    /// Later a lost connection is opened again and the lock taken again without waiting;
    /// if a rekey holds it or ran meanwhile, this returns `.rekeyed`. On SQLite it runs
    /// `check`, calls `ready` and returns `.stopped`: there is nothing to listen to.
    public func serving(
        listeningOn channel: String, check: @escaping @Sendable () async throws -> Void, ready: @escaping @Sendable () -> Void,
        _ handler: @escaping @Sendable (String) async -> Void
    ) async throws -> ServingEnd {
        guard case .postgres(let hosts) = backend else {
            try await check()
            ready()
            return .stopped
        }
        let listening = Atomic<Bool>(false)
        while !Task.isCancelled {
            do {
                // The host in use now: after a switch-over, the new primary's.
                try await hosts.client().withConnection { connection in
                    let db = PreparingPostgresDatabase(connection, statements: statements)
                    let held = try await db.raw("SELECT pg_try_advisory_lock_shared(\(literal: Self.servingLock)) AS held")
                        .first(decodingColumn: "held", as: Bool.self)
                    guard held == true else {
                        throw Rekeyed(StoreError(.conflict, "a tessera rekey is running on this database: start the node when it has finished"))
                    }
                    do {
                        try await check()
                    } catch {
                        throw Rekeyed(error)
                    }
                    try await connection.listen(on: channel) { notifications in
                        if !listening.exchange(true, ordering: .relaxed) {
                            ready()
                        } else {
                            // Listening again: what was sent while the connection was
                            // lost was not heard.
                            await handler(Self.notificationsMissed)
                        }
                        for try await notification in notifications { await handler(notification.payload) }
                    }
                }
            } catch let rekeyed as Rekeyed {
                guard listening.load(ordering: .relaxed) else { throw rekeyed.reason }
                return .rekeyed
            } catch {
                if Task.isCancelled { return .stopped }
                guard listening.load(ordering: .relaxed) else { throw error }
                logger.warning("listening again", metadata: ["channel": "\(channel)", "error": "\(type(of: error))"])
                // Which host now (the same, or a promoted standby), then a second's pause.
                _ = await hosts.recover()
                try? await Task.sleep(for: .seconds(1))
            }
        }
        return .stopped
    }

    /// `body` while this process holds the serving lock (`serving`, beside it in this
    /// scope), with how the holding ended: `.rekeyed` when a rekey took the lock while
    /// the connection was lost, so that what `body` wrote meanwhile needs the old key.
    /// Throws, before `body` runs, what the first `serving` attempt threw.
    public func withServing<R: Sendable>(
        listeningOn channel: String, check: @escaping @Sendable () async throws -> Void, _ body: () async throws -> R
    ) async throws -> (result: R, end: ServingEnd) {
        let (ready, isReady) = AsyncStream<Void>.makeStream()
        return try await withThrowingTaskGroup(of: ServingEnd.self, returning: (result: R, end: ServingEnd).self) { group in
            group.addTask {
                defer { isReady.finish() }
                return try await self.serving(listeningOn: channel, check: check, ready: { isReady.yield() }) { _ in }
            }
            var held = false
            for await _ in ready {
                held = true
                break
            }
            // Not held: `serving` threw (or, on SQLite, returned after its check).
            if !held { _ = try await group.next() }
            let result = try await body()
            group.cancelAll()
            let end = try await group.next() ?? .stopped
            return (result, end)
        }
    }

    /// The serving lock is held by a rekey, or the master key no longer opens the data.
    private struct Rekeyed: Error {
        let reason: any Error
        init(_ reason: any Error) { self.reason = reason }
    }


    /// A later release migrated the database past what this build can run on: its
    /// compatibility marker names a schema newer than this build's.
    public struct SchemaNewerThanBuild: Error, CustomStringConvertible {
        public let state: SchemaState
        public let build: Int
        public var description: String {
            "the database's schema is version \(state.version) and needs a build of schema \(state.compatibleFrom) or later"
                + (state.markedBy.map { " (\($0) or later)" } ?? "") + "; this build, \(BuildInfo.version), knows schema \(build): "
                + "run the release that migrated it, or restore a backup taken before the upgrade"
        }
    }

    /// Where a database's schema stands: the newest version applied, and its compatibility
    /// marker (the oldest schema whose build can still run on it), with the release that
    /// applied the migration which set the marker, where known.
    public struct SchemaState: Sendable, Equatable {
        public let version: Int
        public let compatibleFrom: Int
        public let markedBy: String?

        /// Whether a build of schema `build` may serve it: every migration it knows applied,
        /// and none applied since that it cannot run beside.
        public func servable(by build: Int = SQLStore.latestSchemaVersion) -> Bool {
            version >= build && compatibleFrom <= build
        }
    }

    /// The newest schema version this build knows.
    public static var latestSchemaVersion: Int { Schema.migrations.map(\.version).max() ?? 0 }

    /// The newest schema version applied.
    public func schemaVersion() async throws -> Int {
        try await schemaState().version
    }

    /// The schema's version and compatibility marker (for `/ready`).
    public func schemaState() async throws -> SchemaState {
        try await read { tx in try await Self.schemaState(tx.db) }
    }

    /// Rows per table, by name: what a backup's manifest records and a restore checks.
    public func rowCounts() async throws -> [String: Int] {
        let catalog: SQLQueryString =
            switch backend {
            case .sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            case .postgres: "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()"
            }
        return try await read { tx in
            var counts: [String: Int] = [:]
            for row in try await tx.db.raw(catalog).all() {
                let name = try row.decode(column: "name", as: String.self)
                counts[name] = try await tx.db.raw("SELECT COUNT(*) AS n FROM \(ident: name)").first(decodingColumn: "n", as: Int.self) ?? 0
            }
            return counts
        }
    }

    /// Reads `schema_migrations`: rows before the markers (schema 21 and older) each need
    /// their own version; later ones say what they need.
    static func schemaState(_ db: any SQLDatabase) async throws -> SchemaState {
        func number(_ query: SQLQueryString) async throws -> Int? {
            try await db.raw(query).first(decodingColumn: "n", as: Int?.self) ?? nil
        }
        let version = try await number("SELECT MAX(version) AS n FROM schema_migrations") ?? 0
        guard version >= Schema.markedFrom else { return SchemaState(version: version, compatibleFrom: version, markedBy: nil) }
        let compatibleFrom = try await number("SELECT MAX(compatible_from) AS n FROM schema_migrations") ?? version
        // The release that applied the migration of the marker's own version.
        let markedBy = try await db.raw(
            "SELECT applied_by FROM schema_migrations WHERE version = \(bind: compatibleFrom)"
        ).first(decodingColumn: "applied_by", as: String?.self) ?? nil
        return SchemaState(version: version, compatibleFrom: compatibleFrom, markedBy: markedBy)
    }

    /// Applies the migrations this database lacks, each in its own transaction. On
    /// PostgreSQL a session advisory lock makes nodes that start together take turns,
    /// and each turn reads what the one before committed. A database whose compatibility
    /// marker is past this build's schema is refused (`SchemaNewerThanBuild`); one a newer
    /// release migrated additively is served as it is.
    private func migrate() async throws {
        try await withMigrationConnection { db in
            try await db.raw(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)"
            ).run()
            let state = try await Self.schemaState(db)
            guard state.compatibleFrom <= Self.latestSchemaVersion else {
                throw SchemaNewerThanBuild(state: state, build: Self.latestSchemaVersion)
            }
            let applied = Set(
                try await db.raw("SELECT version FROM schema_migrations").all().map { try $0.decode(column: "version", as: Int.self) })
            for migration in Schema.migrations where !applied.contains(migration.version) {
                try await Self.inTransaction(db, begin: "BEGIN") { tx in
                    for statement in migration.statements {
                        try await tx.db.raw(SQLQueryString(statement)).run()
                    }
                    let now = Int64(Date().timeIntervalSince1970)
                    if migration.version >= Schema.markedFrom {
                        try await tx.db.raw(
                            """
                            INSERT INTO schema_migrations (version, applied_at, compatible_from, applied_by)
                            VALUES (\(bind: migration.version), \(bind: now), \(bind: migration.compatibleFrom), \(bind: BuildInfo.version))
                            """
                        ).run()
                    } else {
                        try await tx.db.raw(
                            "INSERT INTO schema_migrations (version, applied_at) VALUES (\(bind: migration.version), \(bind: now))"
                        ).run()
                    }
                }
                logger.info("applied schema migration", metadata: ["version": "\(migration.version)"])
            }
        }
    }

    /// One connection for the migrations: SQLite's, or a PostgreSQL one holding the lock.
    private func withMigrationConnection(_ body: (any SQLDatabase) async throws -> Void) async throws {
        switch backend {
        case .sqlite(let sqlite):
            try await sqlite.exclusive { try await body($0) }
        case .postgres(let hosts):
            try await hosts.client().withConnection { connection in
                let db = PreparingPostgresDatabase(connection, statements: statements)
                try await Self.holding(
                    db, lock: "SELECT pg_advisory_lock(\(literal: Self.migrationLock))",
                    unlock: "SELECT pg_advisory_unlock(\(literal: Self.migrationLock))"
                ) { try await body(db) }
            }
        }
    }

    /// The advisory lock key of migrations (any constant; "tessera" in ASCII).
    static let migrationLock: Int64 = 0x74_6573_7365_7261

    /// The advisory lock key every serving node holds shared on PostgreSQL and `tessera
    /// rekey` takes alone ("tesserv" in ASCII).
    public static let servingLock: Int64 = 0x74_6573_7365_7276

    /// Runs `body` in one write transaction: all of it commits, or none of it.
    ///
    /// `queue` names a hot row many transactions read and then write (an activation's
    /// failure counter): on PostgreSQL they take turns on an advisory lock each takes as
    /// its first statement and holds until it ends, so each one reads (at READ COMMITTED)
    /// what the previous one committed.
    public func transaction<R: Sendable>(queue: String? = nil, _ body: (StoreTransaction) async throws -> R) async throws -> R {
        try await observed(.transaction) { try await transactionUnobserved(queue: queue, body) }
    }

    private func transactionUnobserved<R: Sendable>(
        queue: String?, isolation: isolated (any Actor)? = #isolation, _ body: (StoreTransaction) async throws -> R
    ) async throws -> R {
        switch backend {
        case .sqlite(let sqlite):
            return try await sqlite.transaction { database in
                try await counted { try await body(StoreTransaction(db: database)) }
            }
        case .postgres(let hosts):
            guard let queue else { return try await postgresTransaction(hosts, queue: nil, body) }
            // A burst on one queue waits here, not on pooled connections.
            try await queueGate.enter(queue)
            do {
                let result = try await postgresTransaction(hosts, queue: queue, body)
                await queueGate.leave(queue)
                return result
            } catch {
                await queueGate.leave(queue)
                throw error
            }
        }
    }

    private func postgresTransaction<R: Sendable>(
        _ hosts: PostgresHosts, queue: String?, isolation: isolated (any Actor)? = #isolation,
        _ body: (StoreTransaction) async throws -> R
    ) async throws -> R {
        try await resilient(hosts, retryable: true) { try await postgresTransactionAttempts(hosts, queue: queue, body) }
    }

    /// A transaction, run again after a deadlock, a serialization failure or a stale plan.
    private func postgresTransactionAttempts<R: Sendable>(
        _ hosts: PostgresHosts, queue: String?, isolation: isolated (any Actor)? = #isolation,
        _ body: (StoreTransaction) async throws -> R
    ) async throws -> R {
        var attempt = 1
        while true {
            do {
                return try await Self.onLoop(of: hosts) { connection in
                    try await counted {
                        let database = PreparingPostgresDatabase(connection, statements: statements)
                        guard let queue else { return try await Self.inTransaction(database, begin: "BEGIN", body) }
                        // A wait past the transaction's lock timeout, for the queue's lock
                        // or a row lock in `body`, is `busy`.
                        do {
                            return try await Self.inTransaction(database, begin: "BEGIN") { tx in
                                try await Self.takeQueueLock(queue, on: database)
                                return try await body(tx)
                            }
                        } catch where PostgresErrors.isLockTimeout(error) {
                            throw StoreError.busy(queue: queue)
                        }
                    }
                }
            } catch where (PostgresErrors.mustRetry(error) || PostgresErrors.isStalePlan(error)) && attempt < Self.serializationAttempts {
                // A deadlock (or serialization failure): run again on what the other
                // committed. A statement prepared before the schema changed: run again,
                // prepared anew.
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(2 * attempt))))
            }
        }
    }

    /// Takes a queue's advisory lock as the transaction's first statement, waiting no
    /// longer than `queueLockTimeout` for the transaction (on this node or another) that
    /// holds it. The lock is the transaction's own: released when it commits or rolls
    /// back, after which the next one's statements (READ COMMITTED) see what it wrote.
    /// The timeout is the transaction's (`set_config(…, true)`), so it bounds a row lock
    /// its body waits on too.
    private static func takeQueueLock(
        _ queue: String, on database: any SQLDatabase, isolation: isolated (any Actor)? = #isolation
    ) async throws {
        try await database.raw(
            "SELECT set_config('lock_timeout', \(bind: queueLockTimeout), true), pg_advisory_xact_lock(hashtext(\(bind: queue)))"
        ).run()
    }

    /// Runs `body` for reading; it sees one consistent snapshot.
    public func read<R: Sendable>(_ body: (StoreTransaction) async throws -> R) async throws -> R {
        try await observed(.read) { try await readUnobserved(body) }
    }

    private func readUnobserved<R: Sendable>(isolation: isolated (any Actor)? = #isolation, _ body: (StoreTransaction) async throws -> R) async throws -> R {
        switch backend {
        case .sqlite(let sqlite):
            return try await sqlite.read { database in
                try await counted { try await body(StoreTransaction(db: database)) }
            }
        case .postgres(let hosts):
            return try await resilient(hosts, retryable: true) {
                try await Self.againAfterStalePlan {
                    try await Self.onLoop(of: hosts) { connection in
                        try await counted {
                            try await Self.inTransaction(
                                PreparingPostgresDatabase(connection, statements: statements),
                                begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
                        }
                    }
                }
            }
        }
    }

    /// Runs `body`, which reads one record (or row set) with exactly one statement:
    /// without a transaction around it, since one statement sees one snapshot by itself
    /// (on PostgreSQL two round trips fewer than `read`; on SQLite, on a reader
    /// connection). A second statement in `body` fails, so `read` is the one for more.
    public func lookup<R: Sendable>(_ body: (StoreTransaction) async throws -> R) async throws -> R {
        try await observed(.lookup) { try await lookupUnobserved(body) }
    }

    private func lookupUnobserved<R: Sendable>(isolation: isolated (any Actor)? = #isolation, _ body: (StoreTransaction) async throws -> R) async throws -> R {
        switch backend {
        case .sqlite(let sqlite):
            return try await sqlite.read(inTransaction: false) { database in
                try await counted { try await body(StoreTransaction(db: OneStatement(database))) }
            }
        case .postgres(let hosts):
            return try await oneStatement(on: hosts, retryable: true, body)
        }
    }

    /// Runs `body`, which writes with exactly one statement: on PostgreSQL without BEGIN and
    /// COMMIT around it, since a statement outside a transaction block commits by itself, as
    /// durably (two round trips fewer than `transaction`); on SQLite in a write transaction
    /// like any other. A second statement in `body` fails before it runs (on PostgreSQL the
    /// first one has committed by then), so `transaction` is the one for more.
    public func write<R: Sendable>(_ body: (StoreTransaction) async throws -> R) async throws -> R {
        try await observed(.write) { try await writeUnobserved(body) }
    }

    private func writeUnobserved<R: Sendable>(isolation: isolated (any Actor)? = #isolation, _ body: (StoreTransaction) async throws -> R) async throws -> R {
        switch backend {
        case .sqlite(let sqlite):
            return try await sqlite.transaction { database in
                try await counted { try await body(StoreTransaction(db: OneStatement(database))) }
            }
        case .postgres(let hosts):
            // The statement commits by itself: after a connection failure it may have.
            return try await oneStatement(on: hosts, retryable: false, body)
        }
    }

    /// Runs `body`, one write of several rows that PostgreSQL does in one statement (a
    /// data-modifying `WITH`, through `write`: no BEGIN and COMMIT, and not run again after
    /// a lost connection) and SQLite, which has no data-modifying `WITH`, as the same rule in
    /// a few statements of one transaction. `body` picks its spelling by the dialect
    /// (`StoreTransaction.isPostgres`); on PostgreSQL a second statement fails as in `write`.
    public func compoundWrite<R: Sendable>(_ body: (StoreTransaction) async throws -> R) async throws -> R {
        switch backend {
        case .sqlite: try await transaction(body)
        case .postgres: try await write(body)
        }
    }

    /// `lookup` and `write` on PostgreSQL: `body`'s one statement on a pooled connection,
    /// outside a transaction block. A statement that failed on a stale plan read or wrote
    /// nothing: it runs again, prepared anew.
    private func oneStatement<R: Sendable>(
        on hosts: PostgresHosts, retryable: Bool, isolation: isolated (any Actor)? = #isolation,
        _ body: (StoreTransaction) async throws -> R
    ) async throws -> R {
        try await resilient(hosts, retryable: retryable) {
            try await Self.againAfterStalePlan {
                try await Self.onLoop(of: hosts) { connection in
                    try await counted {
                        try await body(StoreTransaction(db: OneStatement(PreparingPostgresDatabase(connection, statements: statements))))
                    }
                }
            }
        }
    }

    /// Runs a read once more after a statement prepared before a schema change failed
    /// (`PostgresErrors.isStalePlan`): it wrote nothing, and now runs prepared anew.
    private static func againAfterStalePlan<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async throws -> R {
        do {
            return try await body()
        } catch where PostgresErrors.isStalePlan(error) {
            return try await body()
        }
    }

    /// Runs `body` on a pooled connection with that connection's event loop as task
    /// executor: each answer from PostgreSQL resumes the transaction right there, instead
    /// of queueing it behind every other request on the cooperative pool while it holds
    /// its connection (and its row locks). Afterwards, whatever the outcome, the task
    /// yields to leave the event loop (for the request's own, `LoopBoundConnections`, or
    /// the cooperative pool).
    private static func onLoop<R: Sendable>(
        of hosts: PostgresHosts, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> R
    ) async throws -> R {
        do {
            let result = try await hosts.client().withConnection { connection in
                try await withTaskExecutorPreference(EventLoopTaskExecutor(connection.eventLoop)) { try await body(connection) }
            }
            await Task.yield()
            return result
        } catch {
            await Task.yield()
            throw error
        }
    }

    /// A connection's COMMIT failed with the connection: the transaction may or may not
    /// have committed, so it is never run again.
    struct CommitOutcomeUnknown: Error {
        let cause: any Error
    }

    /// Runs `attempt`; after a connection failure, or on a host that no longer accepts
    /// writes (a demoted primary), looks for a host again (`PostgresHosts.recover`: the
    /// same one back, or after a switch-over the promoted standby). When one qualifies,
    /// `attempt` runs once more on a fresh connection if the failure came before a COMMIT
    /// was sent and it is `retryable` (a transaction that never committed, a read) or was
    /// refused as read-only (it did nothing); otherwise, or when that fails too, the
    /// database is unavailable (503 `temporarily_unavailable`).
    private func resilient<R>(
        _ hosts: PostgresHosts, retryable: Bool, isolation: isolated (any Actor)? = #isolation, _ attempt: () async throws -> R
    ) async throws -> R {
        do {
            return try await attempt()
        } catch where PostgresErrors.needsAnotherLook(error) {
            let found = await hosts.recover()
            guard found, retryable || PostgresErrors.isReadOnly(error), !(error is CommitOutcomeUnknown) else { throw unavailable(error) }
            logger.warning("a database connection failed; running the statement again on another", metadata: ["error": "\(Self.kind(of: error))"])
            do {
                return try await attempt()
            } catch where PostgresErrors.needsAnotherLook(error) {
                throw unavailable(error)
            }
        }
    }

    private func unavailable(_ error: any Error) -> StoreError {
        StoreError(.unavailable, "the database could not be reached (\(Self.kind(of: error)))")
    }

    /// What kind of connection failure: a PostgresNIO code or SQLSTATE, never a message
    /// (which may quote a statement's values).
    private static func kind(of error: any Error) -> String {
        switch error {
        case is CommitOutcomeUnknown: "the connection failed at COMMIT"
        case let error as PSQLError: error.serverInfo?[.sqlState].map { "SQLSTATE \($0)" } ?? "\(error.code)"
        default: String(describing: type(of: error))
        }
    }

    /// `begin`, `body`, then COMMIT; ROLLBACK when anything throws.
    private static func inTransaction<R>(
        _ database: any SQLDatabase, begin: SQLQueryString, isolation: isolated (any Actor)? = #isolation,
        _ body: (StoreTransaction) async throws -> R
    ) async throws -> R {
        try await database.raw(begin).run()
        let result: R
        do {
            result = try await body(StoreTransaction(db: database))
        } catch {
            try? await database.raw("ROLLBACK").run()
            throw error
        }
        do {
            try await database.raw("COMMIT").run()
        } catch where PostgresErrors.isConnectionFailure(error) {
            // Sent, perhaps committed: never run again.
            throw CommitOutcomeUnknown(cause: error)
        } catch {
            try? await database.raw("ROLLBACK").run()
            throw error
        }
        return result
    }

    /// `body` between `lock` and `unlock` on one connection; unlocked whatever happens.
    private static func holding<R>(
        _ database: any SQLDatabase, lock: SQLQueryString, unlock: SQLQueryString, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> R
    ) async throws -> R {
        try await database.raw(lock).run()
        do {
            let result = try await body()
            try await database.raw(unlock).run()
            return result
        } catch {
            try? await database.raw(unlock).run()
            throw error
        }
    }

    /// Counts a connection as in use while `body` runs (for the metrics).
    private func counted<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async rethrows -> R {
        inUse.add(1, ordering: .relaxed)
        defer { inUse.subtract(1, ordering: .relaxed) }
        let call = StoreCall.current
        call?.bodyBegins()
        defer { call?.bodyEnds() }
        return try await body()
    }

    /// `sqlite` or `postgresql`, as OpenTelemetry names them (`db.system.name`).
    public var backendName: String {
        switch backend {
        case .sqlite: "sqlite"
        case .postgres: "postgresql"
        }
    }

    /// Runs a store call measured (`StoreCallReport`): a client span under the request's
    /// (with the backend, the queue wait, the statements and the commit wait), and a
    /// report to the observers.
    private func observed<R>(
        _ kind: StoreCallReport.Kind, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async throws -> R {
        let call = StoreCall()
        // Below a recorded (sampled) request's span only: the background loops' looks every
        // second would otherwise each be a trace of their own, and an unsampled request's
        // calls would cost spans nobody sees.
        let span: any Span = RequestTrace.current?.isRecording == true
            ? InstrumentationSystem.tracer.startSpan("db \(kind.rawValue)", ofKind: .client) : NoOpTracer.NoOpSpan(context: .topLevel)
        do {
            let result = try await StoreCall.$current.withValue(call) { try await body() }
            finish(call.report(kind, backend: backendName, failed: false), span: span)
            return result
        } catch {
            // The type only: a body's error may quote what it was given; spans leave the server.
            if span.isRecording { span.attributes["error.type"] = String(reflecting: type(of: error)) }
            span.setStatus(SpanStatus(code: .error))
            finish(call.report(kind, backend: backendName, failed: true), span: span)
            throw error
        }
    }

    private func finish(_ report: StoreCallReport, span: any Span) {
        if span.isRecording {
            span.attributes["db.system.name"] = report.backend
            span.attributes["tessera.db.call"] = report.kind.rawValue
            span.attributes["tessera.db.queue_ms"] = Self.milliseconds(report.queue)
            span.attributes["tessera.db.statements"] = report.statements
            span.attributes["tessera.db.commit_wait_ms"] = Self.milliseconds(report.commitWait)
        }
        span.end()
        observers.tell(report)
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

/// What PostgreSQL's errors mean to the store.
enum PostgresErrors {
    /// A statement not sent: its connection had closed. (PostgresNIO 1.33 writes a
    /// statement to a closed connection without failing it, and its answer is awaited for
    /// ever: a request that met a restart hung, and a graceful stop with it.)
    struct ConnectionClosed: Error {}

    /// A serialization failure or deadlock: the transaction may simply be run again.
    static func mustRetry(_ error: any Error) -> Bool {
        guard let state = (error as? PSQLError)?.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    /// `lock_not_available`: a lock wait ran past `lock_timeout`.
    static func isLockTimeout(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "55P03"
    }

    /// `read_only_sql_transaction`: a write on a host that is (now) a standby.
    static func isReadOnly(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "25006"
    }

    /// The host failed, or takes no more writes: which host to use is looked at again.
    static func needsAnotherLook(_ error: any Error) -> Bool {
        isConnectionFailure(error) || isReadOnly(error)
    }

    static func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "23505"
    }

    /// `feature_not_supported` from a prepared statement whose result columns the
    /// schema changed ("cached plan must not change result type", raised by the routine
    /// that revalidates cached plans; its name, unlike the message, is never translated):
    /// prepared again under a new name, the statement runs.
    static func isStalePlan(_ error: any Error) -> Bool {
        guard let info = (error as? PSQLError)?.serverInfo else { return false }
        return info[.sqlState] == "0A000" && info[.routine] == "RevalidateCachedQuery"
    }

    /// The connection to the database failed or was refused (a restart, a switch-over, a
    /// network fault), as opposed to anything the statement did: PostgresNIO's connection
    /// errors, the server's connection exceptions (class 08) and shutdown states (57P01
    /// admin, 57P02 crash, 57P03 starting up), or a pool that gave up connecting (its
    /// circuit breaker, after a minute without any connection).
    static func isConnectionFailure(_ error: any Error) -> Bool {
        switch error {
        case is SQLStore.CommitOutcomeUnknown, is ConnectionClosed:
            return true
        case let error as PSQLError:
            // clientClosedConnection: PostgresNIO closes a connection itself once the server
            // has said it is ending it (a restart's 57P01), failing what was queued on it.
            if [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed].contains(error.code) {
                return true
            }
            guard let state = error.serverInfo?[.sqlState] else { return false }
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
        case is _ConnectionPoolModule.ConnectionPoolError:
            return true
        default:
            return false
        }
    }

    /// A failure that may not happen again: a transaction rollback (deadlock,
    /// serialization), a lock not available in time, a cancelled statement or shut-down
    /// server, insufficient resources, or a statement in a transaction already failed.
    static func mayPass(_ error: any Error) -> Bool {
        guard let state = (error as? PSQLError)?.serverInfo?[.sqlState] else { return false }
        return state.hasPrefix("40") || state.hasPrefix("57") || state.hasPrefix("53") || state == "55P03" || state == "25P02"
    }
}

/// An event loop as a task executor (swift-nio offers it as a serial executor only).
public final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    public init(_ loop: any EventLoop) { self.loop = loop }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A database that runs one statement and refuses a second (`SQLStore.lookup`, `SQLStore.write`).
final class OneStatement: SQLDatabase, Sendable {
    private let base: any SQLDatabase
    private let used = Atomic<Bool>(false)

    init(_ base: any SQLDatabase) { self.base = base }

    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { base.queryLogLevel }

    private func take() throws {
        guard !used.exchange(true, ordering: .relaxed) else {
            throw StoreError(.corrupt, "lookup and write run one statement: use read or transaction for more")
        }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        do { try take() } catch { return eventLoop.makeFailedFuture(error) }
        return base.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try take()
        try await base.execute(sql: query, onRow)
    }
}
