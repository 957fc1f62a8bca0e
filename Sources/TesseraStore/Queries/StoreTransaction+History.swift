import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: History and audit

    public func insertHistory(_ entry: HistoryRecord) async throws { try await insert("authentication_history", entry) }

    public func history(activationID: ActivationID, limit: Int) async throws -> [HistoryRecord] {
        try await all(
            """
            SELECT * FROM authentication_history WHERE activation_id = \(bind: activationID)
            ORDER BY at DESC, id DESC LIMIT \(bind: limit)
            """, as: HistoryRecord.self)
    }

    public func insertAudit(_ entry: AuditRecord) async throws { try await insert("audit_log", entry) }

    /// Audit entries, newest first: optionally of one tenant, not older than `since`,
    /// with an action beginning with `actionPrefix`, by one `actor`.
    public func audit(tenantID: TenantID?, since: Int64?, actionPrefix: String? = nil, actor: String? = nil, limit: Int) async throws
        -> [AuditRecord]
    {
        var query: SQLQueryString = "SELECT * FROM audit_log WHERE at >= \(bind: since ?? 0)"
        if let tenantID { query += " AND tenant_id = \(bind: tenantID)" }
        // A prefix by its length, not LIKE: `_` is in action names and a wildcard to LIKE. The
        // length is the database's (an integer to both; a bound Swift Int is a bigint to PostgreSQL).
        if let actionPrefix { query += " AND substr(action, 1, length(\(bind: actionPrefix))) = \(bind: actionPrefix)" }
        if let actor { query += " AND actor = \(bind: actor)" }
        query += " ORDER BY at DESC, id DESC LIMIT \(bind: limit)"
        return try await all(query, as: AuditRecord.self)
    }
}

struct LinkedUserRow: Codable, Sendable {
    var activationID: ActivationID
    var userID: UserID
    var createdAt: Int64
    enum CodingKeys: String, CodingKey {
        case activationID = "activation_id"
        case userID = "user_id"
        case createdAt = "created_at"
    }
}
