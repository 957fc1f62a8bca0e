import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Codes and refresh tokens

    public func insertGrant(_ grant: GrantRecord) async throws {
        try await insert("grants", Self.traced(grant))
    }

    /// A code carries the `traceparent` of the login it ends (`RequestTrace`).
    static func traced(_ grant: GrantRecord) -> GrantRecord {
        var grant = grant
        if grant.kind == .code, grant.traceParent == nil { grant.traceParent = RequestTrace.current?.traceParent }
        return grant
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

    /// Spends an unspent code whose user is still enabled, and starts its session with the
    /// session's first refresh token: the user, or nil with nothing written (spent already,
    /// or the user disabled or gone). One statement on PostgreSQL
    /// (`SQLStore.compoundWrite`), four on SQLite.
    public func redeemCode(digest: String, at now: Int64, userID: UserID, session: SessionRecord, refresh: GrantRecord) async throws
        -> UserRecord?
    {
        let spend: SQLQueryString = """
            UPDATE grants SET used_at = \(bind: now)
            WHERE digest = \(bind: digest) AND used_at IS NULL AND revoked = 0
                AND EXISTS (SELECT 1 FROM users WHERE id = \(bind: userID) AND disabled_at IS NULL)
            RETURNING digest
            """
        guard isPostgres else {
            guard try await db.raw(spend).all().count == 1 else { return nil }
            try await insertSession(session)
            try await insertGrant(refresh)
            return try await user(id: userID)
        }
        return try await first(
            """
            WITH spent AS (\(spend)),
                opened AS (\(try Self.insertion("sessions", session, from: "spent")) RETURNING id),
                issued AS (\(try Self.insertion("grants", refresh, from: "spent")) RETURNING digest)
            SELECT u.* FROM users u, spent WHERE u.id = \(bind: userID)
            """, as: UserRecord.self)
    }
}
