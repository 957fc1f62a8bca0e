import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

/// What a set of sessions to end stands on.
public enum SessionScope: Sendable {
    case session(SessionID)
    case activation(ActivationID)
    case user(UserID)
    case service(ServiceID)
    case securityKey(SecurityKeyID)

    var column: String {
        switch self {
        case .session: "id"
        case .activation: "activation_id"
        case .user: "user_id"
        case .service: "service_id"
        case .securityKey: "security_key_id"
        }
    }

    var key: String {
        switch self {
        case .session(let id): id.rawValue
        case .activation(let id): id.rawValue
        case .user(let id): id.rawValue
        case .service(let id): id.rawValue
        case .securityKey(let id): id.rawValue
        }
    }
}

extension StoreTransaction {
    // MARK: Sessions

    public func insertSession(_ session: SessionRecord) async throws { try await insert("sessions", session) }

    public func session(id: SessionID) async throws -> SessionRecord? {
        try await first("SELECT * FROM sessions WHERE id = \(bind: id)", as: SessionRecord.self)
    }

    /// Records a refresh: the idle lifetime counts from now.
    /// `false` when the session has ended (or is gone): checked by the update itself, so
    /// an end committed after the session was read in this transaction is still seen
    /// (on PostgreSQL the update waits for the ending transaction and reads its result).
    @discardableResult
    public func touchSession(id: SessionID, at now: Int64) async throws -> Bool {
        try await db.raw(
            "UPDATE sessions SET last_refreshed_at = \(bind: now) WHERE id = \(bind: id) AND ended_at IS NULL RETURNING id"
        ).all().count == 1
    }

    /// Ends the live sessions in `scope`; returns how many ended. One statement over an
    /// index, whatever the number of refreshes each had. Every session whose service has a
    /// back-channel logout URI leaves a logout notice, written in the same transaction,
    /// which the server delivers afterwards (OpenID Connect Back-Channel Logout 1.0): an
    /// end that commits is announced, however the server fares after the commit.
    @discardableResult
    public func endSessions(_ scope: SessionScope, reason: SessionEndReason, at now: Int64) async throws -> Int {
        if reason != .serviceRemoved {
            try await db.raw(
                """
                INSERT INTO logout_notices (id, tenant_id, service_id, session_id, user_id, attempts, next_attempt_at, created_at, trace_parent)
                SELECT s.id, s.tenant_id, s.service_id, s.id, s.user_id, 0, \(bind: now), \(bind: now), \(bind: RequestTrace.current?.own)
                FROM sessions s JOIN services v ON v.id = s.service_id
                WHERE s.\(ident: scope.column) = \(bind: scope.key) AND s.ended_at IS NULL AND v.backchannel_logout_uri IS NOT NULL
                ON CONFLICT (id) DO NOTHING
                """
            ).run()
        }
        try await recordSessionEnds(where: "s.\(ident: scope.column) = \(bind: scope.key)", reason: reason, at: now)
        return try await db.raw(
            """
            UPDATE sessions SET ended_at = \(bind: now), end_reason = \(bind: reason.rawValue)
            WHERE \(ident: scope.column) = \(bind: scope.key) AND ended_at IS NULL RETURNING id
            """
        ).all().count
    }

    /// A `session.ended` event (for the webhooks) for each live session `condition` (on
    /// `sessions s`) names, written before they end. The data holds server-made ids only,
    /// so the JSON is built by the database.
    func recordSessionEnds(where condition: SQLQueryString, reason: SessionEndReason, at now: Int64) async throws {
        var query: SQLQueryString = """
            INSERT INTO events (id, tenant_id, type, data, at)
            SELECT 'evs_' || s.id, s.tenant_id, 'session.ended',
                '{"reason":"\(unsafeRaw: reason.rawValue)","service_id":"' || s.service_id || '","session_id":"' || s.id
                    || '","user_id":"' || s.user_id || '"}',
                \(bind: now)
            FROM sessions s WHERE
            """
        query += " "
        query += condition
        query += " AND s.ended_at IS NULL ON CONFLICT (id) DO NOTHING"
        try await db.raw(query).run()
    }

    // MARK: Back-channel logout notices

    /// Up to `limit` notices due at `now`, each taken for `lease` seconds (`takeLeased`).
    public func takeDueLogoutNotices(now: Int64, lease: Int64, limit: Int) async throws -> [LogoutNoticeRecord] {
        try await takeLeased("logout_notices", now: now, lease: lease, limit: limit)
    }

    /// Whether any notice is due: a read, so that looking costs no write lock.
    public func hasDueLogoutNotices(now: Int64) async throws -> Bool {
        try await hasDue("logout_notices", now: now)
    }

    // MARK: Outboxes

    /// Up to `limit` rows of an outbox due at `now`, oldest first, each taken for `lease`
    /// seconds (its next attempt moves past the lease, its attempt counted): a condition on
    /// the row, so that of several nodes only one takes it, and a taker that dies leaves it
    /// to the others once the lease is over.
    func takeLeased<Row: LeasedRow>(_ table: String, now: Int64, lease: Int64, limit: Int) async throws -> [Row] {
        let due = try await all(
            """
            SELECT * FROM \(ident: table) WHERE next_attempt_at <= \(bind: now) ORDER BY next_attempt_at, id LIMIT \(literal: limit)
            """, as: Row.self)
        var taken: [Row] = []
        for row in due {
            let updated = try await db.raw(
                """
                UPDATE \(ident: table) SET next_attempt_at = \(bind: now + lease), attempts = attempts + 1
                WHERE id = \(bind: row.id) AND next_attempt_at = \(bind: row.nextAttemptAt) RETURNING id
                """
            ).all()
            if updated.count == 1 {
                var mine = row
                mine.attempts += 1
                taken.append(mine)
            }
        }
        return taken
    }

    /// Whether any row of an outbox is due: a read, so that an idle look costs no write lock.
    func hasDue(_ table: String, now: Int64) async throws -> Bool {
        try await db.raw("SELECT id FROM \(ident: table) WHERE next_attempt_at <= \(bind: now) LIMIT 1").first() != nil
    }

    /// A notice delivered (or given up): gone.
    public func deleteLogoutNotice(id: String) async throws {
        try await db.raw("DELETE FROM logout_notices WHERE id = \(bind: id)").run()
    }

    /// A failed delivery waits until `at` for its next try.
    public func postponeLogoutNotice(id: String, until at: Int64) async throws {
        try await db.raw("UPDATE logout_notices SET next_attempt_at = \(bind: at) WHERE id = \(bind: id)").run()
    }

    /// How many notices wait (the admin stats and the tests).
    public func pendingLogoutNotices(tenantID: TenantID) async throws -> [LogoutNoticeRecord] {
        try await all("SELECT * FROM logout_notices WHERE tenant_id = \(bind: tenantID) ORDER BY created_at", as: LogoutNoticeRecord.self)
    }

    /// Records a DPoP proof as seen; false when it was seen already (a replay).
    public func recordDPoPProof(digest: String, expiresAt: Int64) async throws -> Bool {
        // A condition, not a caught error: on PostgreSQL a failed statement would abort the transaction.
        try await db.raw(
            """
            INSERT INTO dpop_proofs (digest, expires_at) VALUES (\(bind: digest), \(bind: expiresAt))
            ON CONFLICT (digest) DO NOTHING RETURNING digest
            """
        ).all().count == 1
    }

    /// Spends an id that may be presented once until `expiresAt` (a client assertion's
    /// `jti`, a revoked token's): false when it was spent already, on any node.
    public func spendSingleUseID(digest: String, expiresAt: Int64) async throws -> Bool {
        try await db.raw(
            """
            INSERT INTO single_use_ids (digest, expires_at) VALUES (\(bind: digest), \(bind: expiresAt))
            ON CONFLICT (digest) DO NOTHING RETURNING digest
            """
        ).all().count == 1
    }

    /// Whether an id was spent (and has not expired yet).
    public func isSpent(digest: String, now: Int64) async throws -> Bool {
        try await db.raw("SELECT 1 FROM single_use_ids WHERE digest = \(bind: digest) AND expires_at >= \(bind: now)").all().count == 1
    }

    /// Binds a public client's session to a DPoP key, once (RFC 9449 §5).
    public func bindSessionDPoP(id: SessionID, jkt: String) async throws {
        try await db.raw("UPDATE sessions SET dpop_jkt = \(bind: jkt) WHERE id = \(bind: id) AND dpop_jkt IS NULL").run()
    }

    /// Ends the single sign-on session of one user on one device (logout).
    public func endSSOSession(activationID: ActivationID, userID: UserID) async throws {
        try await db.raw(
            "DELETE FROM sso_sessions WHERE activation_id = \(bind: activationID) AND user_id = \(bind: userID)"
        ).run()
    }
}

/// A row of an outbox whose attempts are leased (`StoreTransaction.takeLeased`).
protocol LeasedRow: Decodable, Sendable {
    var id: String { get }
    var nextAttemptAt: Int64 { get }
    var attempts: Int { get set }
}

extension LogoutNoticeRecord: LeasedRow {}
extension MessageRecord: LeasedRow {}
