import Foundation
import SQLKit
import TesseraCore

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

    /// Audit entries, newest first, optionally of one tenant and not older than `since`.
    public func audit(tenantID: TenantID?, since: Int64?, limit: Int) async throws -> [AuditRecord] {
        let floor = since ?? 0
        if let tenantID {
            return try await all(
                """
                SELECT * FROM audit_log WHERE tenant_id = \(bind: tenantID) AND at >= \(bind: floor)
                ORDER BY at DESC, id DESC LIMIT \(bind: limit)
                """, as: AuditRecord.self)
        }
        return try await all(
            "SELECT * FROM audit_log WHERE at >= \(bind: floor) ORDER BY at DESC, id DESC LIMIT \(bind: limit)",
            as: AuditRecord.self)
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
