import Foundation
import Logging
import SQLKit
import SQLiteKit

/// The one error type of TesseraStore.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case unavailable
        case conflict
        case corrupt
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// The SQL store. On SQLite one connection does all the work, one transaction at a
/// time (`BEGIN IMMEDIATE`), which is what keeps lockout counters and single-use
/// codes exact: two writers on one file only trade `SQLITE_BUSY` errors.
public final class SQLStore: Sendable {
    private let connection: SQLiteConnection
    private let database: any SQLDatabase
    private let mutex = AsyncMutex()

    private init(connection: SQLiteConnection) {
        self.connection = connection
        self.database = connection.sql()
    }

    /// Opens (creating if needed) the SQLite file and brings its schema up to date.
    public static func openSQLite(path: String, logger: Logger) async throws -> SQLStore {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        let store = SQLStore(connection: connection)
        let db = store.database
        // WAL keeps readers off the writer's back; FULL makes every commit durable.
        try await db.raw("PRAGMA journal_mode = WAL").run()
        try await db.raw("PRAGMA synchronous = FULL").run()
        try await db.raw("PRAGMA busy_timeout = 5000").run()
        try await db.raw("PRAGMA foreign_keys = ON").run()
        try await store.migrate(logger: logger)
        return store
    }

    public func close() async throws {
        try await connection.close()
    }

    /// The newest schema version this build knows.
    public static var latestSchemaVersion: Int { Schema.migrations.map(\.version).max() ?? 0 }

    /// The newest schema version applied.
    public func schemaVersion() async throws -> Int {
        try await read { tx in
            try await tx.db.raw("SELECT MAX(version) AS version FROM schema_migrations")
                .first(decodingColumn: "version", as: Int?.self) ?? nil
        } ?? 0
    }

    private func migrate(logger: Logger) async throws {
        try await database.raw(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)"
        ).run()
        let applied = Set(
            try await database.raw("SELECT version FROM schema_migrations").all().map {
                try $0.decode(column: "version", as: Int.self)
            })
        for migration in Schema.migrations where !applied.contains(migration.version) {
            try await transaction { tx in
                for statement in migration.statements {
                    try await tx.db.raw(SQLQueryString(statement)).run()
                }
                let now = Int64(Date().timeIntervalSince1970)
                try await tx.db.raw(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (\(bind: migration.version), \(bind: now))"
                ).run()
            }
            logger.info("applied schema migration", metadata: ["version": "\(migration.version)"])
        }
    }

    /// Runs `body` in one write transaction: all of it commits, or none of it.
    public func transaction<R: Sendable>(_ body: (StoreTransaction) async throws -> R) async throws -> R {
        try await mutex.withLock {
            try await database.raw("BEGIN IMMEDIATE").run()
            do {
                let result = try await body(StoreTransaction(db: database))
                try await database.raw("COMMIT").run()
                return result
            } catch {
                try? await database.raw("ROLLBACK").run()
                throw error
            }
        }
    }

    /// Runs `body` for reading; it sees one consistent snapshot.
    public func read<R: Sendable>(_ body: (StoreTransaction) async throws -> R) async throws -> R {
        try await mutex.withLock {
            try await body(StoreTransaction(db: database))
        }
    }
}
