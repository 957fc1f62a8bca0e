import Foundation
import Logging
import PostgresNIO
import TesseraRecords
import TesseraSQLite
import TesseraStore
import TesseraTestSupport

/// The database a test server uses: its SQLite file, or — when
/// `TESSERA_TEST_DATABASE_URL` names a PostgreSQL server (as `.ci/run` does) — a fresh
/// database of its own on that server, so tests never see each other's rows.
public enum TestDatabase {
    public static var postgresURL: String? {
        ProcessInfo.processInfo.environment["TESSERA_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A URL of a new, empty PostgreSQL database, or nil to use SQLite.
    public static func fresh() async throws -> String? {
        guard let base = postgresURL, var url = URLComponents(string: base) else { return nil }
        let name = "tessera_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        try await administer(base, "CREATE DATABASE \(name)")
        url.path = "/" + name
        return url.string
    }

    /// `body` with the store at `location` (a PostgreSQL URL or a SQLite file), closed
    /// afterwards whatever happens; on PostgreSQL its pool runs in this scope.
    public static func withStore<R: Sendable>(at location: String, _ body: (SQLStore) async throws -> R) async throws -> R {
        let logger = Logger(label: "test")
        if location.hasPrefix("postgres") { return try await SQLStore.withPostgres(url: location, logger: logger) { try await body($0) } }
        let store = try await SQLStore.openSQLite(path: location, logger: logger)
        do {
            let result = try await body(store)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// Drops a database `fresh()` made once its server has stopped, so a run against a
    /// long-lived server does not leave hundreds of databases behind. Best effort: a
    /// database that cannot be dropped now is left for the server's owner.
    public static func drop(_ databaseURL: String?) async {
        guard let databaseURL, let base = postgresURL, let url = URLComponents(string: databaseURL) else { return }
        let name = String(url.path.drop(while: { $0 == "/" }))
        guard name.hasPrefix("tessera_test_"), name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
        else { return }
        try? await administer(base, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// Runs `body` while holding the serving lock alone on the database `databaseURL`
    /// names, as `tessera rekey` does.
    public static func holdingServingLock<R>(
        on databaseURL: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async throws -> R {
        try await session(databaseURL) { connection, logger in
            _ = try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_lock(\(SQLStore.servingLock))"), logger: logger)
            return try await body()
        }
    }

    /// Runs `body` while a session of its own holds the advisory lock of a store queue
    /// (`activation:ID`), as a transaction on another node would.
    public static func holdingQueueLock<R>(
        _ queue: String, on databaseURL: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async throws -> R {
        try await session(databaseURL) { connection, logger in
            _ = try await connection.query("SELECT pg_advisory_lock(hashtext(\(queue)))", logger: logger)
            return try await body()
        }
    }

    /// Runs one statement on a test store's database (a PostgreSQL URL or a SQLite file)
    /// from a connection of its own, as another node or an operator would.
    public static func runOutside(_ sql: String, on location: String) async throws {
        if location.hasPrefix("postgres") { return try await administer(location, sql) }
        let handle = try SQLiteHandle(path: location)
        defer { handle.close() }
        try handle.execute(sql, []) { _, _ in }
    }

    /// The integer in the first column of `sql`'s first row (a `SELECT COUNT(*) …`), read
    /// on a connection of its own beside the server's, from its SQLite file or PostgreSQL
    /// database (`TestServer.databaseLocation`).
    public static func integer(_ sql: String, on location: String) async throws -> Int {
        if location.hasPrefix("postgres") {
            return try await session(location) { connection, logger in
                for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int.self) {
                    return value
                }
                throw TestSupportError("no row: \(sql)")
            }
        }
        let handle = try SQLiteHandle(path: location)
        defer { handle.close() }
        var first: Int?
        try handle.execute(sql, []) { _, values in
            if first == nil, case .integer(let value) = values.first { first = value }
        }
        guard let first else { throw TestSupportError("no integer row: \(sql)") }
        return first
    }

    /// Runs one statement on the database `base` names.
    private static func administer(_ base: String, _ sql: String) async throws {
        try await session(base) { connection, logger in
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        }
    }

    /// A connection of its own to the database `databaseURL` names, for `body`.
    private static func session<R>(
        _ databaseURL: String, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection, Logger) async throws -> R
    ) async throws -> R {
        guard let url = URLComponents(string: databaseURL), let host = url.host, let user = url.user else {
            throw TestSupportError("TESSERA_TEST_DATABASE_URL is not a postgres://user:password@host/database URL")
        }
        let logger = Logger(label: "tessera-test-database")
        let configuration = PostgresConnection.Configuration(
            host: host, port: url.port ?? 5432, username: user, password: url.password,
            database: String(url.path.drop(while: { $0 == "/" })), tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            let result = try await body(connection, logger)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
