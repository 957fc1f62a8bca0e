import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Codes and refresh tokens

    public func insertGrant(_ grant: GrantRecord) async throws {
        var grant = grant
        if grant.kind == .code, grant.traceParent == nil { grant.traceParent = RequestTrace.current?.traceParent }
        try await insert("grants", grant)
    }

    public func grant(digest: String) async throws -> GrantRecord? {
        let grant = try await first("SELECT * FROM grants WHERE digest = \(bind: digest)", as: GrantRecord.self)
        RequestTrace.current?.continues(grant?.traceParent)
        return grant
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
}
