import Foundation
import SQLKit
import TesseraCore

extension StoreTransaction {
    // MARK: Codes and refresh tokens

    public func insertGrant(_ grant: GrantRecord) async throws { try await insert("grants", grant) }

    public func grant(digest: String) async throws -> GrantRecord? {
        try await first("SELECT * FROM grants WHERE digest = \(bind: digest)", as: GrantRecord.self)
    }

    /// Spends a single-use code or refresh token; `false` when it was spent already.
    public func spendGrant(digest: String, now: Int64) async throws -> Bool {
        let rows = try await db.raw(
            """
            UPDATE grants SET used_at = \(bind: now)
            WHERE digest = \(bind: digest) AND used_at IS NULL AND revoked = 0 RETURNING digest
            """
        ).all()
        return rows.count == 1
    }

    /// The newest grant of a family, and whether any of its members was revoked.
    public func family(_ familyID: String) async throws -> (latest: GrantRecord, revoked: Bool)? {
        let grants = try await all(
            "SELECT * FROM grants WHERE family_id = \(bind: familyID) ORDER BY expires_at DESC", as: GrantRecord.self)
        guard let latest = grants.first else { return nil }
        return (latest, grants.contains { $0.revoked })
    }

    /// Revokes every code and token of one family (after a reuse was detected).
    public func revokeFamily(_ familyID: String) async throws {
        try await db.raw("UPDATE grants SET revoked = 1 WHERE family_id = \(bind: familyID)").run()
    }
}
