import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Authentication requests

    public func insertAuthRequest(_ request: AuthRequestRecord) async throws {
        var request = request
        if request.traceParent == nil { request.traceParent = RequestTrace.current?.traceParent }
        try await insert("auth_requests", request)
    }

    public func authRequest(id: RequestID) async throws -> AuthRequestRecord? {
        let record = try await first("SELECT * FROM auth_requests WHERE id = \(bind: id)", as: AuthRequestRecord.self)
        RequestTrace.current?.continues(record?.traceParent)
        return record
    }

    /// Takes up an open request for an activation; `false` when another activation took
    /// it first or it was answered meanwhile (a condition, not a read, so that it holds
    /// with concurrent writers too).
    /// With `keys`, on PostgreSQL the same statement tells the other nodes (`notification`)
    /// at the commit, if the claim took: the caller's notice then says so (`RequestNotice.told`).
    public func claimAuthRequest(
        id: RequestID, activationID: ActivationID, userID: UserID, challenge: String, notifying keys: [String] = [], on channel: String = ""
    ) async throws -> Bool {
        let claim: SQLQueryString = """
            UPDATE auth_requests SET status = 'claimed', activation_id = \(bind: activationID),
                user_id = \(bind: userID), challenge = \(bind: challenge)
            WHERE id = \(bind: id) AND status IN ('pending', 'claimed')
                AND (activation_id IS NULL OR activation_id = \(bind: activationID)) RETURNING id
            """
        guard isPostgres, !keys.isEmpty else { return try await db.raw(claim).all().count == 1 }
        // A row per key when the claim took (each queues a notification for the commit);
        // none, and nothing queued, when it did not.
        return try await !db.raw("WITH claimed AS (\(claim)) \(Self.notification(keys, on: channel, after: "claimed"))").all().isEmpty
    }

    /// Replaces the challenge only if it is still `expected`; `false` when it was used already.
    public func rotateChallenge(requestID: RequestID, expected: String, next: String?) async throws -> Bool {
        try await db.raw(Self.challengeRotation(requestID: requestID, expected: expected, next: next)).all().count == 1
    }

    /// Its statement, which a device call's read also runs (`useDeviceTokenID(…, spendingChallenge:)`).
    static func challengeRotation(requestID: RequestID, expected: String, next: String?) -> SQLQueryString {
        """
        UPDATE auth_requests SET challenge = \(bind: next)
        WHERE id = \(bind: requestID) AND challenge = \(bind: expected) RETURNING id
        """
    }

    /// Gives a request whose challenge was spent a fresh one (after a failed attempt, in
    /// the transaction that spent it).
    public func replaceChallenge(requestID: RequestID, with next: String) async throws {
        try await db.raw("UPDATE auth_requests SET challenge = \(bind: next) WHERE id = \(bind: requestID)").run()
    }

    /// Moves a request's expiry later (a lockout wait outlasting it).
    public func extendAuthRequest(id: RequestID, expiresAt: Int64) async throws {
        try await db.raw(
            "UPDATE auth_requests SET expires_at = \(bind: expiresAt) WHERE id = \(bind: id) AND expires_at < \(bind: expiresAt)"
        ).run()
    }

    public func setAuthRequestStatus(id: RequestID, status: AuthenticationStatus) async throws {
        try await db.raw("UPDATE auth_requests SET status = \(bind: status.rawValue) WHERE id = \(bind: id)").run()
    }

    /// Approves a request with what was proved; `securityKeyID` names the security key a
    /// `securitykey` factor was proved with (its removal ends the sessions of the login).
    public func approveAuthRequest(
        id: RequestID, factors: [FactorType], confirmedAttributes: [String], authTime: Int64, securityKeyID: SecurityKeyID? = nil
    ) async throws {
        try await db.raw(
            try Self.approval(id: id, factors: factors, confirmedAttributes: confirmedAttributes, authTime: authTime, securityKeyID: securityKeyID)
        ).run()
    }

    /// A login proved on its device: the activation's successful use (`recordSuccessfulUse`),
    /// the request approved (`approveAuthRequest`) and the login's history entry, in one
    /// statement on PostgreSQL (`together`), which with `keys` also tells the other nodes.
    public func approveLogin(
        id: RequestID, factors: [FactorType], confirmedAttributes: [String], authTime: Int64, securityKeyID: SecurityKeyID?,
        activationID: ActivationID, failures: FactorFailures, now: Int64, totpStep: Int64?, history: HistoryRecord,
        notifying keys: [String] = [], on channel: String = ""
    ) async throws {
        try await together(
            [
                Self.successfulUse(activationID: activationID, failures: failures, now: now, totpStep: totpStep),
                try Self.approval(
                    id: id, factors: factors, confirmedAttributes: confirmedAttributes, authTime: authTime, securityKeyID: securityKeyID),
                try Self.insertion("authentication_history", history),
            ], notifying: keys, on: channel)
    }

    static func approval(id: RequestID, factors: [FactorType], confirmedAttributes: [String], authTime: Int64, securityKeyID: SecurityKeyID?)
        throws -> SQLQueryString
    {
        """
        UPDATE auth_requests SET status = 'approved', challenge = NULL, factors = \(bind: try JSONCoding.string(factors)),
            confirmed_attributes = \(bind: try JSONCoding.string(confirmedAttributes)), auth_time = \(bind: authTime),
            security_key_id = \(bind: securityKeyID)
        WHERE id = \(bind: id)
        """
    }

    /// Moves an approved request to `completed` (a backchannel request whose tokens are
    /// issued); `false` when it was not approved (or completed already).
    public func completeAuthRequest(id: RequestID) async throws -> Bool {
        try await db.raw(Self.completion(id)).all().count == 1
    }

    static func completion(_ id: RequestID) -> SQLQueryString {
        "UPDATE auth_requests SET status = 'completed' WHERE id = \(bind: id) AND status = 'approved' RETURNING id"
    }

    /// Completes an approved request and writes its authorization code (`code`), once:
    /// `false`, and nothing written, when it was completed already. One statement on
    /// PostgreSQL (`SQLStore.compoundWrite`), two on SQLite.
    public func completeAuthRequest(id: RequestID, issuing code: GrantRecord) async throws -> Bool {
        let complete = Self.completion(id)
        guard isPostgres else {
            guard try await db.raw(complete).all().count == 1 else { return false }
            try await insertGrant(code)
            return true
        }
        let statement: SQLQueryString = """
            WITH completed AS (\(complete)) \(try Self.insertion("grants", Self.traced(code), from: "completed")) RETURNING digest
            """
        return try await db.raw(statement).all().count == 1
    }

    // MARK: Backchannel (CIBA) requests

    /// The backchannel requests still open for any of `userIDs`: not answered and not expired.
    public func openBackchannelRequests(userIDs: [UserID], now: Int64) async throws -> [AuthRequestRecord] {
        guard !userIDs.isEmpty else { return [] }
        return try await all(
            """
            SELECT * FROM auth_requests
            WHERE user_id IN (\(binds: userIDs)) AND flow = 'ciba' AND status IN ('pending', 'claimed')
                AND expires_at > \(bind: now)
            ORDER BY created_at, id
            """, as: AuthRequestRecord.self)
    }

    /// How many backchannel requests are open now (for the metrics).
    public func openBackchannelRequestCount(now: Int64) async throws -> Int {
        try await db.raw(
            """
            SELECT COUNT(*) AS open FROM auth_requests
            WHERE flow = 'ciba' AND status IN ('pending', 'claimed') AND expires_at > \(bind: now)
            """
        ).first(decodingColumn: "open", as: Int.self) ?? 0
    }

    /// Records a client's token request for a backchannel request and the interval it
    /// must keep from now on.
    public func recordPoll(id: RequestID, at now: Int64, interval: Int) async throws {
        try await db.raw(
            """
            UPDATE auth_requests SET last_polled_at = \(bind: now), poll_interval = \(bind: interval)
            WHERE id = \(bind: id)
            """
        ).run()
    }

    /// The ids of the active activations that stand for a user: its own and those merged with it.
    public func activeActivationIDs(userID: UserID) async throws -> [ActivationID] {
        struct Row: Decodable { let id: ActivationID }
        return try await all(
            """
            SELECT id FROM activations WHERE user_id = \(bind: userID) AND status = 'active'
            UNION
            SELECT activations.id FROM activations JOIN activation_users ON activation_users.activation_id = activations.id
            WHERE activation_users.user_id = \(bind: userID) AND activations.status = 'active'
            """, as: Row.self
        ).map(\.id)
    }

    // MARK: Single sign-on

    /// Starts (or restarts) the activation's single sign-on session for a user.
    public func startSSOSession(_ session: SSOSessionRecord) async throws {
        try await db.raw(
            """
            INSERT INTO sso_sessions (activation_id, user_id, tenant_id, factors, auth_time, expires_at, token_digest)
            VALUES (\(bind: session.activationID), \(bind: session.userID), \(bind: session.tenantID), \(bind: try JSONCoding.string(session.factors)),
                \(bind: session.authTime), \(bind: session.expiresAt), \(bind: session.tokenDigest))
            ON CONFLICT (activation_id, user_id) DO UPDATE SET tenant_id = excluded.tenant_id, factors = excluded.factors,
                auth_time = excluded.auth_time, expires_at = excluded.expires_at, token_digest = excluded.token_digest
            """
        ).run()
    }

    /// The live session of an activation for a user, if any.
    public func ssoSession(activationID: ActivationID, userID: UserID, now: Int64) async throws -> SSOSessionRecord? {
        try await first(
            """
            SELECT * FROM sso_sessions WHERE activation_id = \(bind: activationID) AND user_id = \(bind: userID)
                AND expires_at > \(bind: now)
            """, as: SSOSessionRecord.self)
    }

    /// Ends every single sign-on session of an activation.
    public func endSSOSessions(activationID: ActivationID) async throws {
        try await db.raw("DELETE FROM sso_sessions WHERE activation_id = \(bind: activationID)").run()
    }
}

// MARK: Pushed authorization requests (RFC 9126)

extension StoreTransaction {
    public func insertPushedRequest(_ request: PushedRequestRecord) async throws { try await insert("pushed_requests", request) }

    /// Takes a pushed request of this client and tenant once: deleted as it is read, so a
    /// request_uri works once (and another client's attempt leaves it alone).
    public func takePushedRequest(digest: String, clientID: ClientID, tenantID: TenantID) async throws -> PushedRequestRecord? {
        try await first(
            """
            DELETE FROM pushed_requests WHERE digest = \(bind: digest) AND client_id = \(bind: clientID) AND tenant_id = \(bind: tenantID)
            RETURNING *
            """, as: PushedRequestRecord.self)
    }
}
