import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    /// Inserts users and activations a few hundred rows per statement (for `tessera seed`,
    /// which fills a database to measure how it behaves when large).
    public func insertInBulk(users: [UserRecord], activations: [ActivationRecord]) async throws {
        // Rows per INSERT: under SQLite's 32,766 and PostgreSQL's 65,535 bind parameters.
        let rowsPerStatement = 500
        for start in stride(from: 0, to: users.count, by: rowsPerStatement) {
            let rows = Array(users[start..<min(start + rowsPerStatement, users.count)])
            try await db.insert(into: "users").models(rows, keyEncodingStrategy: .useDefaultKeys, nilEncodingStrategy: .asNil).run()
        }
        for start in stride(from: 0, to: activations.count, by: rowsPerStatement) {
            let rows = Array(activations[start..<min(start + rowsPerStatement, activations.count)])
            try await db.insert(into: "activations").models(rows, keyEncodingStrategy: .useDefaultKeys, nilEncodingStrategy: .asNil)
                .run()
        }
    }
}

extension StoreTransaction {
    /// Refreshes the planner's statistics of the tables a bulk insert grew (PostgreSQL
    /// would otherwise plan with the old sizes until autovacuum gets to them).
    public func analyzeBulkTables() async throws {
        try await db.raw("ANALYZE users").run()
        try await db.raw("ANALYZE activations").run()
    }

    /// How many activations a tenant has, in any state.
    public func activationCount(tenantID: TenantID) async throws -> Int {
        try await db.raw("SELECT COUNT(*) AS count FROM activations WHERE tenant_id = \(bind: tenantID)")
            .first(decodingColumn: "count", as: Int.self) ?? 0
    }
}
