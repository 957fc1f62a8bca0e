import Foundation
import SQLKit
import TesseraCore
import TesseraSQLite

/// The queries of the store, run inside one transaction or read.
public struct StoreTransaction: Sendable {
    let db: any SQLDatabase

    private func insert(_ table: String, _ model: some Encodable & Sendable) async throws {
        do {
            try await db.insert(into: table).model(model, keyEncodingStrategy: .useDefaultKeys).run()
        } catch {
            // Classified by result code (SQLite's extended code, PostgreSQL's SQLSTATE), never by message text.
            if PostgresErrors.isUniqueViolation(error) || (error as? SQLiteFailure)?.isUniqueViolation == true {
                throw StoreError(.conflict, "\(table): a row with this key exists")
            }
            throw error
        }
    }

    func first<T: Decodable>(_ query: SQLQueryString, as type: T.Type) async throws -> T? {
        try await db.raw(query).first()?.decode(model: T.self, keyDecodingStrategy: .useDefaultKeys)
    }

    private func all<T: Decodable>(_ query: SQLQueryString, as type: T.Type) async throws -> [T] {
        try await db.raw(query).all().map { try $0.decode(model: T.self, keyDecodingStrategy: .useDefaultKeys) }
    }

    // MARK: Tenants and keys

    public func insertTenant(_ tenant: TenantRecord) async throws { try await insert("tenants", tenant) }

    public func tenant(named name: String) async throws -> TenantRecord? {
        try await first("SELECT * FROM tenants WHERE name = \(bind: name)", as: TenantRecord.self)
    }

    public func tenant(id: String) async throws -> TenantRecord? {
        try await first("SELECT * FROM tenants WHERE id = \(bind: id)", as: TenantRecord.self)
    }

    public func tenants() async throws -> [TenantRecord] {
        try await all("SELECT * FROM tenants ORDER BY name", as: TenantRecord.self)
    }

    public func insertSigningKey(_ key: SigningKeyRecord) async throws { try await insert("signing_keys", key) }

    public func signingKeys(tenantID: String) async throws -> [SigningKeyRecord] {
        try await all(
            "SELECT * FROM signing_keys WHERE tenant_id = \(bind: tenantID) ORDER BY created_at",
            as: SigningKeyRecord.self)
    }

    // MARK: Services

    public func insertService(_ service: ServiceRecord) async throws { try await insert("services", service) }

    public func service(clientID: String) async throws -> ServiceRecord? {
        try await first("SELECT * FROM services WHERE client_id = \(bind: clientID)", as: ServiceRecord.self)
    }

    public func service(id: String) async throws -> ServiceRecord? {
        try await first("SELECT * FROM services WHERE id = \(bind: id)", as: ServiceRecord.self)
    }

    public func services(tenantID: String) async throws -> [ServiceRecord] {
        try await all("SELECT * FROM services WHERE tenant_id = \(bind: tenantID) ORDER BY name", as: ServiceRecord.self)
    }

    // MARK: Users and invitations

    public func insertUser(_ user: UserRecord) async throws { try await insert("users", user) }

    public func user(tenantID: String, username: String) async throws -> UserRecord? {
        try await first(
            "SELECT * FROM users WHERE tenant_id = \(bind: tenantID) AND username = \(bind: username)",
            as: UserRecord.self)
    }

    public func user(id: String) async throws -> UserRecord? {
        try await first("SELECT * FROM users WHERE id = \(bind: id)", as: UserRecord.self)
    }

    public func insertInvitation(_ invitation: InvitationRecord) async throws {
        try await insert("invitations", invitation)
    }

    public func invitation(codeDigest: String) async throws -> InvitationRecord? {
        try await first(
            "SELECT * FROM invitations WHERE code_digest = \(bind: codeDigest)", as: InvitationRecord.self)
    }

    /// Marks an unused, unexpired invitation used; `false` when another call got there first.
    public func consumeInvitation(id: String, now: Int64) async throws -> Bool {
        let rows = try await db.raw(
            """
            UPDATE invitations SET used_at = \(bind: now)
            WHERE id = \(bind: id) AND used_at IS NULL AND expires_at > \(bind: now)
                AND failed_attempts <= \(bind: InvitationRecord.maximumFailures) RETURNING id
            """
        ).all()
        return rows.count == 1
    }

    // MARK: Activations

    public func insertActivation(_ activation: ActivationRecord) async throws {
        try await insert("activations", activation)
    }

    public func activation(id: String) async throws -> ActivationRecord? {
        try await first("SELECT * FROM activations WHERE id = \(bind: id)", as: ActivationRecord.self)
    }

    public func activations(tenantID: String, userID: String?) async throws -> [ActivationRecord] {
        if let userID {
            return try await all(
                """
                SELECT * FROM activations WHERE tenant_id = \(bind: tenantID) AND user_id = \(bind: userID)
                ORDER BY created_at, id
                """, as: ActivationRecord.self)
        }
        return try await all(
            "SELECT * FROM activations WHERE tenant_id = \(bind: tenantID) ORDER BY created_at, id",
            as: ActivationRecord.self)
    }

    /// Writes the outcome of an attempt: the failure count and lock.
    public func updateLockout(
        activationID: String, failedAttempts: Int, lockedUntil: Int64?, permanentlyLocked: Bool
    ) async throws {
        try await db.raw(
            """
            UPDATE activations SET failed_attempts = \(bind: failedAttempts), locked_until = \(bind: lockedUntil),
                permanently_locked = \(bind: permanentlyLocked ? 1 : 0)
            WHERE id = \(bind: activationID)
            """
        ).run()
    }

    public func recordSuccessfulUse(activationID: String, now: Int64, totpStep: Int64?) async throws {
        try await db.raw(
            """
            UPDATE activations SET failed_attempts = 0, locked_until = NULL, last_used_at = \(bind: now),
                totp_last_step = COALESCE(\(bind: totpStep), totp_last_step)
            WHERE id = \(bind: activationID)
            """
        ).run()
    }

    /// Records a TOTP step as spent even when the attempt failed on another factor.
    public func spendTOTPStep(activationID: String, step: Int64) async throws {
        try await db.raw(
            "UPDATE activations SET totp_last_step = \(bind: step) WHERE id = \(bind: activationID)"
        ).run()
    }

    // MARK: Device request tokens

    /// Records a device token id; `false` when it was seen before (a replay).
    public func useDeviceTokenID(_ jti: String, activationID: String, expiresAt: Int64, now: Int64) async throws
        -> Bool
    {
        // Each activation clears its own expired ids: a table-wide sweep in every call
        // would make all device calls conflict with each other on PostgreSQL.
        try await db.raw(
            "DELETE FROM device_token_ids WHERE activation_id = \(bind: activationID) AND expires_at < \(bind: now)"
        ).run()
        let rows = try await db.raw(
            """
            INSERT INTO device_token_ids (jti, activation_id, expires_at)
            VALUES (\(bind: jti), \(bind: activationID), \(bind: expiresAt))
            ON CONFLICT (jti) DO NOTHING RETURNING jti
            """
        ).all()
        return rows.count == 1
    }

    // MARK: Authentication requests

    public func insertAuthRequest(_ request: AuthRequestRecord) async throws {
        try await insert("auth_requests", request)
    }

    public func authRequest(id: String) async throws -> AuthRequestRecord? {
        try await first("SELECT * FROM auth_requests WHERE id = \(bind: id)", as: AuthRequestRecord.self)
    }

    /// Takes up an open request for an activation; `false` when another activation took
    /// it first or it was answered meanwhile (a condition, not a read, so that it holds
    /// with concurrent writers too).
    public func claimAuthRequest(id: String, activationID: String, userID: String, challenge: String) async throws -> Bool {
        let rows = try await db.raw(
            """
            UPDATE auth_requests SET status = 'claimed', activation_id = \(bind: activationID),
                user_id = \(bind: userID), challenge = \(bind: challenge)
            WHERE id = \(bind: id) AND status IN ('pending', 'claimed')
                AND (activation_id IS NULL OR activation_id = \(bind: activationID)) RETURNING id
            """
        ).all()
        return rows.count == 1
    }

    /// Replaces the challenge only if it is still `expected`; `false` when it was used already.
    public func rotateChallenge(requestID: String, expected: String, next: String?) async throws -> Bool {
        let rows = try await db.raw(
            """
            UPDATE auth_requests SET challenge = \(bind: next)
            WHERE id = \(bind: requestID) AND challenge = \(bind: expected) RETURNING id
            """
        ).all()
        return rows.count == 1
    }

    public func setAuthRequestStatus(id: String, status: AuthenticationStatus) async throws {
        try await db.raw("UPDATE auth_requests SET status = \(bind: status.rawValue) WHERE id = \(bind: id)").run()
    }

    public func approveAuthRequest(id: String, factors: String, confirmedAttributes: String, authTime: Int64)
        async throws
    {
        try await db.raw(
            """
            UPDATE auth_requests SET status = 'approved', challenge = NULL, factors = \(bind: factors),
                confirmed_attributes = \(bind: confirmedAttributes), auth_time = \(bind: authTime)
            WHERE id = \(bind: id)
            """
        ).run()
    }

    /// Moves an approved request to `completed`; `false` when it was not approved (or completed already).
    public func completeAuthRequest(id: String) async throws -> Bool {
        let rows = try await db.raw(
            "UPDATE auth_requests SET status = 'completed' WHERE id = \(bind: id) AND status = 'approved' RETURNING id"
        ).all()
        return rows.count == 1
    }

    // MARK: Backchannel (CIBA) requests

    /// The backchannel requests still open for any of `userIDs`: not answered and not expired.
    public func openBackchannelRequests(userIDs: [String], now: Int64) async throws -> [AuthRequestRecord] {
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
    public func recordPoll(id: String, at now: Int64, interval: Int) async throws {
        try await db.raw(
            """
            UPDATE auth_requests SET last_polled_at = \(bind: now), poll_interval = \(bind: interval)
            WHERE id = \(bind: id)
            """
        ).run()
    }

    /// The ids of the active activations that stand for a user: its own and those merged with it.
    public func activeActivationIDs(userID: String) async throws -> [String] {
        struct Row: Decodable { let id: String }
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
            INSERT INTO sso_sessions (activation_id, user_id, tenant_id, factors, auth_time, expires_at)
            VALUES (\(bind: session.activationID), \(bind: session.userID), \(bind: session.tenantID), \(bind: session.factors),
                \(bind: session.authTime), \(bind: session.expiresAt))
            ON CONFLICT (activation_id, user_id) DO UPDATE SET tenant_id = excluded.tenant_id, factors = excluded.factors,
                auth_time = excluded.auth_time, expires_at = excluded.expires_at
            """
        ).run()
    }

    /// The live session of an activation for a user, if any.
    public func ssoSession(activationID: String, userID: String, now: Int64) async throws -> SSOSessionRecord? {
        try await first(
            """
            SELECT * FROM sso_sessions WHERE activation_id = \(bind: activationID) AND user_id = \(bind: userID)
                AND expires_at > \(bind: now)
            """, as: SSOSessionRecord.self)
    }

    /// Ends every single sign-on session of an activation.
    public func endSSOSessions(activationID: String) async throws {
        try await db.raw("DELETE FROM sso_sessions WHERE activation_id = \(bind: activationID)").run()
    }

    // MARK: Push targets

    /// Sets (or replaces) an activation's push target.
    public func setPushTarget(_ target: PushTargetRecord) async throws {
        try await db.raw(
            """
            INSERT INTO push_targets (activation_id, tenant_id, kind, token, created_at)
            VALUES (\(bind: target.activationID), \(bind: target.tenantID), \(bind: target.kind), \(bind: target.token),
                \(bind: target.createdAt))
            ON CONFLICT (activation_id) DO UPDATE SET tenant_id = excluded.tenant_id, kind = excluded.kind,
                token = excluded.token, created_at = excluded.created_at
            """
        ).run()
    }

    /// Removes an activation's push target; with `token`, only if it is still that token.
    public func removePushTarget(activationID: String, token: String? = nil) async throws {
        if let token {
            try await db.raw(
                "DELETE FROM push_targets WHERE activation_id = \(bind: activationID) AND token = \(bind: token)"
            ).run()
        } else {
            try await db.raw("DELETE FROM push_targets WHERE activation_id = \(bind: activationID)").run()
        }
    }

    public func pushTargets(activationIDs: [String]) async throws -> [PushTargetRecord] {
        guard !activationIDs.isEmpty else { return [] }
        return try await all(
            "SELECT * FROM push_targets WHERE activation_id IN (\(binds: activationIDs)) ORDER BY activation_id",
            as: PushTargetRecord.self)
    }

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

    // MARK: Account processes

    /// Moves an approved process of `purpose` owned by `activationID` to `completed`;
    /// `false` when it is not (any more) such a process, or has expired.
    public func completeProcess(id: String, purpose: AuthenticationPurpose, activationID: String, now: Int64) async throws -> Bool {
        let rows = try await db.raw(
            """
            UPDATE auth_requests SET status = 'completed'
            WHERE id = \(bind: id) AND status = 'approved' AND purpose = \(bind: purpose.rawValue)
                AND activation_id = \(bind: activationID) AND expires_at > \(bind: now)
            RETURNING id
            """
        ).all()
        return rows.count == 1
    }

    public func updateBiometricKey(activationID: String, key: String?) async throws {
        try await db.raw("UPDATE activations SET biometric_key = \(bind: key) WHERE id = \(bind: activationID)").run()
    }

    public func updateTOTPSecret(activationID: String, sealed: String?) async throws {
        try await db.raw(
            "UPDATE activations SET sealed_totp_secret = \(bind: sealed), totp_last_step = NULL WHERE id = \(bind: activationID)"
        ).run()
    }

    public func updatePinKey(activationID: String, sealed: String) async throws {
        try await db.raw("UPDATE activations SET sealed_pin_key = \(bind: sealed) WHERE id = \(bind: activationID)").run()
    }

    public func unlock(activationID: String) async throws -> Bool {
        let rows = try await db.raw(
            """
            UPDATE activations SET failed_attempts = 0, locked_until = NULL, permanently_locked = 0
            WHERE id = \(bind: activationID) RETURNING id
            """
        ).all()
        return rows.count == 1
    }

    /// Removes an activation with its keys, merged users, history and pending requests;
    /// `false` when it did not exist.
    public func deleteActivation(id: String) async throws -> Bool {
        let rows = try await db.raw("DELETE FROM activations WHERE id = \(bind: id) RETURNING id").all()
        guard rows.count == 1 else { return false }
        try await db.raw("DELETE FROM activation_users WHERE activation_id = \(bind: id)").run()
        try await db.raw("DELETE FROM authentication_history WHERE activation_id = \(bind: id)").run()
        try await db.raw("DELETE FROM device_token_ids WHERE activation_id = \(bind: id)").run()
        try await removePushTarget(activationID: id)
        try await endSSOSessions(activationID: id)
        // Activation data it made is void with it (a stolen device cannot leave a way back in).
        try await db.raw(
            """
            UPDATE invitations SET failed_attempts = \(bind: InvitationRecord.maximumFailures + 1)
            WHERE created_by_activation_id = \(bind: id) AND used_at IS NULL
            """
        ).run()
        try await db.raw(
            """
            UPDATE auth_requests SET status = 'expired', challenge = NULL
            WHERE activation_id = \(bind: id) AND status IN ('pending', 'claimed', 'approved')
            """
        ).run()
        return true
    }

    /// Takes one of an activation code's PIN attempts before the PIN is compared, so
    /// parallel guesses cannot all pass one read of the counter; `false` when none is left.
    public func reserveInvitationAttempt(id: String) async throws -> Bool {
        let rows = try await db.raw(
            """
            UPDATE invitations SET failed_attempts = failed_attempts + 1
            WHERE id = \(bind: id) AND used_at IS NULL AND failed_attempts < \(bind: InvitationRecord.maximumFailures)
            RETURNING id
            """
        ).all()
        return rows.count == 1
    }

    // MARK: Merged users

    /// Gives a new activation the merged users of the one it replaces.
    public func copyLinkedUsers(from source: String, to target: String) async throws {
        try await db.raw(
            """
            INSERT INTO activation_users (activation_id, user_id, created_at)
            SELECT \(bind: target), user_id, created_at FROM activation_users WHERE activation_id = \(bind: source)
            """
        ).run()
    }

    /// The activations that stand for a user by a merge.
    public func activationIDs(linkedTo userID: String) async throws -> [String] {
        struct Row: Decodable { let activation_id: String }
        return try await all(
            "SELECT activation_id FROM activation_users WHERE user_id = \(bind: userID)", as: Row.self
        ).map(\.activation_id)
    }

    public func linkUser(activationID: String, userID: String, now: Int64) async throws {
        try await insert("activation_users", LinkedUserRow(activationID: activationID, userID: userID, createdAt: now))
    }

    /// The users an activation was merged with (besides its own).
    public func linkedUsers(activationID: String) async throws -> [UserRecord] {
        try await all(
            """
            SELECT users.* FROM users JOIN activation_users ON activation_users.user_id = users.id
            WHERE activation_users.activation_id = \(bind: activationID) ORDER BY activation_users.created_at
            """, as: UserRecord.self)
    }

    // MARK: History and audit

    public func insertHistory(_ entry: HistoryRecord) async throws { try await insert("authentication_history", entry) }

    public func history(activationID: String, limit: Int) async throws -> [HistoryRecord] {
        try await all(
            """
            SELECT * FROM authentication_history WHERE activation_id = \(bind: activationID)
            ORDER BY at DESC, id DESC LIMIT \(bind: limit)
            """, as: HistoryRecord.self)
    }

    public func insertAudit(_ entry: AuditRecord) async throws { try await insert("audit_log", entry) }

    /// Audit entries, newest first, optionally of one tenant and not older than `since`.
    public func audit(tenantID: String?, since: Int64?, limit: Int) async throws -> [AuditRecord] {
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
    var activationID: String
    var userID: String
    var createdAt: Int64
    enum CodingKeys: String, CodingKey {
        case activationID = "activation_id"
        case userID = "user_id"
        case createdAt = "created_at"
    }
}
