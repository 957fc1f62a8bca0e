import SQLKit
import TesseraCore
import TesseraRecords

// Signing-key rotation: a tenant has exactly one active key per algorithm (it signs); the others stay
// published until they are retired, so tokens they signed still verify, and a key made
// ahead of time is published before it is activated.
extension StoreTransaction {
    /// Makes a tenant's signing keys of one algorithm inactive, before a new one is inserted active.
    public func deactivateSigningKeys(tenantID: TenantID, algorithm: SigningAlgorithm) async throws {
        try await db.raw(
            "UPDATE signing_keys SET active = 0 WHERE tenant_id = \(bind: tenantID) AND algorithm = \(bind: algorithm.rawValue)"
        ).run()
    }

    /// One signing key of any tenant (to check that the master key opens the database's).
    public func anySigningKey() async throws -> SigningKeyRecord? {
        try await first("SELECT * FROM signing_keys LIMIT 1", as: SigningKeyRecord.self)
    }

    /// Makes one of a tenant's keys active (after `deactivateSigningKeys`).
    public func activateSigningKey(kid: String, tenantID: TenantID) async throws {
        try await db.raw("UPDATE signing_keys SET active = 1 WHERE kid = \(bind: kid) AND tenant_id = \(bind: tenantID)").run()
    }

    /// Deletes one of a tenant's keys unless it is the active one; `false` when the tenant
    /// has no such inactive key (a condition, not a read, so that a concurrent rotation
    /// cannot slip the active key in between).
    public func deleteInactiveSigningKey(kid: String, tenantID: TenantID) async throws -> Bool {
        let rows = try await db.raw(
            """
            DELETE FROM signing_keys WHERE kid = \(bind: kid) AND tenant_id = \(bind: tenantID) AND active = 0
            RETURNING kid
            """
        ).all()
        return rows.count == 1
    }
}
