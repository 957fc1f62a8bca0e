import Foundation
import Logging
import PostgresNIO

/// The database a test server uses: its SQLite file, or — when
/// `TESSERA_TEST_DATABASE_URL` names a PostgreSQL server (as `.ci/run` does) — a fresh
/// database of its own on that server, so tests never see each other's rows.
public enum TestDatabase {
    public static var postgresURL: String? {
        ProcessInfo.processInfo.environment["TESSERA_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A URL of a new, empty PostgreSQL database, or nil to use SQLite.
    public static func fresh() async throws -> String? {
        guard let base = postgresURL, var url = URLComponents(string: base), let host = url.host, let user = url.user else {
            return nil
        }
        let name = "tessera_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        let configuration = PostgresConnection.Configuration(
            host: host, port: url.port ?? 5432, username: user, password: url.password,
            database: String(url.path.drop(while: { $0 == "/" })), tls: .disable)
        let connection = try await PostgresConnection.connect(
            configuration: configuration, id: 1, logger: Logger(label: "tessera-test-database"))
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "tessera-test-database"))
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
        url.path = "/" + name
        return url.string
    }
}
