import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Admin API keys

    public func insertAdminKey(_ key: AdminKeyRecord) async throws { try await insert("admin_keys", key) }

    /// The live key with this digest.
    public func adminKey(digest: String) async throws -> AdminKeyRecord? {
        try await first("SELECT * FROM admin_keys WHERE digest = \(bind: digest) AND revoked_at IS NULL", as: AdminKeyRecord.self)
    }

    public func adminKey(id: String) async throws -> AdminKeyRecord? {
        try await first("SELECT * FROM admin_keys WHERE id = \(bind: id)", as: AdminKeyRecord.self)
    }

    /// Live keys, oldest first: all of them, or those of one tenant.
    public func adminKeys(tenantID: TenantID?) async throws -> [AdminKeyRecord] {
        if let tenantID {
            return try await all(
                "SELECT * FROM admin_keys WHERE revoked_at IS NULL AND tenant_id = \(bind: tenantID) ORDER BY created_at, id",
                as: AdminKeyRecord.self)
        }
        return try await all("SELECT * FROM admin_keys WHERE revoked_at IS NULL ORDER BY created_at, id", as: AdminKeyRecord.self)
    }

    /// Revokes a live key; `false` when it was revoked already.
    public func revokeAdminKey(id: String, at now: Int64) async throws -> Bool {
        try await db.raw(
            "UPDATE admin_keys SET revoked_at = \(bind: now) WHERE id = \(bind: id) AND revoked_at IS NULL RETURNING id"
        ).all().count == 1
    }
}
