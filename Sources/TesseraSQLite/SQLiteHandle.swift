import Foundation
import NIOCore
import Synchronization
internal import CSQLite

/// The thread the SQLite connection runs on, as a task executor.
///
/// A transaction prefers this executor (`withTaskExecutorPreference`), so its body runs
/// here from `BEGIN` to `COMMIT` and each statement is a plain function call. Going
/// through SQLiteNIO instead cost three thread hand-offs per statement (caller → thread
/// pool → event loop → caller); under load the caller's turn came back behind every
/// other request's work while the one writer was held, and that queueing, not SQLite,
/// bounded the whole server (see docs/PERFORMANCE.md).
public final class SQLiteThread: TaskExecutor, @unchecked Sendable {
    // `jobs` and `stopped` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    public init(name: String) {
        let thread = Thread { [self] in
            Thread.current.name = name
            run()
        }
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs queued now have run.
    public func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}

/// An error SQLite reported, with its extended result code and message.
public struct SQLiteFailure: Error, CustomStringConvertible, Sendable {
    /// The extended result code (https://sqlite.org/rescode.html).
    public let code: Int32
    public let message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The primary result code (the low byte of an extended one).
    public var primaryCode: Int32 { code & 0xFF }

    /// Primary result codes the store classifies by.
    public static let busy: Int32 = 5  // SQLITE_BUSY
    public static let locked: Int32 = 6  // SQLITE_LOCKED
    public static let ioError: Int32 = 10  // SQLITE_IOERR
    public static let corrupt: Int32 = 11  // SQLITE_CORRUPT
    public static let full: Int32 = 13  // SQLITE_FULL
    public static let cannotOpen: Int32 = 14  // SQLITE_CANTOPEN
    public static let constraint: Int32 = 19  // SQLITE_CONSTRAINT
    public static let notADatabase: Int32 = 26  // SQLITE_NOTADB
    /// Extended codes: a UNIQUE or PRIMARY KEY constraint failed.
    public static let uniqueConstraint: Int32 = 2067  // SQLITE_CONSTRAINT_UNIQUE
    public static let primaryKeyConstraint: Int32 = 1555  // SQLITE_CONSTRAINT_PRIMARYKEY

    /// A row with the same unique key exists.
    public var isUniqueViolation: Bool { code == Self.uniqueConstraint || code == Self.primaryKeyConstraint }

    public var description: String { "SQLite error \(code): \(message)" }
}

/// A value bound to a statement or read from a row.
public enum SQLiteValue: Sendable, Equatable {
    case integer(Int)
    case float(Double)
    case text(String)
    case blob(ByteBuffer)
    case null
}

/// One SQLite connection, called directly: prepared statements are kept and reused by
/// their SQL text (SQLKit writes the same text for the same query shape), so a hot
/// query is parsed once.
///
/// Not thread-safe by itself: `SQLiteBackend` holds its `AsyncMutex` around every use.
public final class SQLiteHandle: @unchecked Sendable {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    /// The result columns each statement last had: checked name by name before reuse (a
    /// statement SQLite re-prepared after another process changed the schema may differ),
    /// so the name-to-offset table is built once per statement, not per execution.
    private var columnCache: [OpaquePointer: SQLiteColumns] = [:]
    /// More distinct statements than this and the cache starts over (generated `IN (…)`
    /// lists could otherwise grow it without bound).
    private static let cacheLimit = 512
    private static let initialized = Mutex(false)

    public init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_EXRESCODE
        let status = Self.initialized.withLock { initialized in
            if !initialized {
                sqlite3_initialize()
                initialized = true
            }
            return sqlite3_open_v2(path, &handle, flags, nil)
        }
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteFailure(code: status, message: "cannot open \(path): \(message)")
        }
        self.handle = handle
    }

    /// Whether a transaction is open on the connection (SQLite ends one by itself after
    /// some errors: a full disk, an I/O error).
    public var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    public func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        columnCache.removeAll()
        sqlite3_close_v2(handle)
    }

    private func failure(_ code: Int32) -> SQLiteFailure {
        SQLiteFailure(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status) }
        if statements.count >= Self.cacheLimit {
            for old in statements.values { sqlite3_finalize(old) }
            statements.removeAll()
            columnCache.removeAll()
        }
        statements[sql] = statement
        return statement
    }

    /// Runs one statement, handing each result row's column names (the same array for
    /// every row of the statement) and values to `onRow`.
    public func execute(_ sql: String, _ binds: [SQLiteValue], _ onRow: (SQLiteColumns, [SQLiteValue]) throws -> Void) throws {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .integer(let number): status = sqlite3_bind_int64(statement, index, Int64(number))
            case .float(let number): status = sqlite3_bind_double(statement, index, number)
            case .null: status = sqlite3_bind_null(statement, index)
            case .text(let text):
                status = sqlite3_bind_text64(
                    statement, index, text, UInt64(text.utf8.count), SQLiteHandle.transient, UInt8(SQLITE_UTF8))
            case .blob(let buffer):
                status = buffer.withUnsafeReadableBytes {
                    sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), SQLiteHandle.transient)
                }
            }
            guard status == SQLITE_OK else { throw failure(status) }
        }
        var columns: SQLiteColumns?
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw failure(status) }
            let names = try columns ?? cachedColumns(of: statement)
            columns = names
            var values: [SQLiteValue] = []
            values.reserveCapacity(names.names.count)
            for index in 0..<Int32(names.names.count) { values.append(try Self.value(of: statement, at: index)) }
            try onRow(names, values)
        }
    }

    private func cachedColumns(of statement: OpaquePointer) throws -> SQLiteColumns {
        if let cached = columnCache[statement], Self.matches(cached, statement) { return cached }
        let columns = try Self.columns(of: statement)
        columnCache[statement] = columns
        return columns
    }

    private static func matches(_ columns: SQLiteColumns, _ statement: OpaquePointer) -> Bool {
        let count = Int(sqlite3_column_count(statement))
        guard count == columns.names.count else { return false }
        for index in 0..<count {
            guard let name = sqlite3_column_name(statement, Int32(index)) else { return false }
            var cachedName = columns.names[index]
            let same = cachedName.withUTF8 { cached in
                guard let bytes = cached.baseAddress else { return strlen(name) == 0 }
                return strlen(name) == cached.count && memcmp(name, bytes, cached.count) == 0
            }
            guard same else { return false }
        }
        return true
    }

    private static func columns(of statement: OpaquePointer) throws -> SQLiteColumns {
        let count = sqlite3_column_count(statement)
        var names: [String] = []
        for index in 0..<count {
            guard let name = sqlite3_column_name(statement, index) else {
                throw SQLiteFailure(code: SQLITE_NOMEM, message: "no name for column \(index)")
            }
            names.append(String(cString: name))
        }
        return SQLiteColumns(names: names)
    }

    private static func value(of statement: OpaquePointer, at index: Int32) throws -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            return .integer(Int(sqlite3_column_int64(statement, index)))
        case SQLITE_FLOAT:
            return .float(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, index) else {
                throw SQLiteFailure(code: SQLITE_NOMEM, message: "no text for column \(index)")
            }
            let length = Int(sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
        case SQLITE_BLOB:
            let length = Int(sqlite3_column_bytes(statement, index))
            var buffer = ByteBufferAllocator().buffer(capacity: length)
            if let bytes = sqlite3_column_blob(statement, index) {
                buffer.writeBytes(UnsafeRawBufferPointer(start: bytes, count: length))
            }
            return .blob(buffer)
        default:
            return .null
        }
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// The column names of a statement's rows, with a lookup by name.
public final class SQLiteColumns: Sendable {
    public let names: [String]
    public let offsets: [String: Int]

    public init(names: [String]) {
        self.names = names
        offsets = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
