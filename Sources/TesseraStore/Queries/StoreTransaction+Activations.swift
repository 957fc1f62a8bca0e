import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Activations

    public func insertActivation(_ activation: ActivationRecord) async throws {
        try await insert("activations", activation)
    }

    public func activation(id: ActivationID) async throws -> ActivationRecord? {
        try await first("SELECT * FROM activations WHERE id = \(bind: id)", as: ActivationRecord.self)
    }

    public func activations(tenantID: TenantID, userID: UserID?) async throws -> [ActivationRecord] {
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

    /// Writes a failed attempt: the per-factor counts (the highest is the lock's count)
    /// and the lock they earned.
    public func recordFailure(
        activationID: ActivationID, failures: FactorFailures, lockedUntil: Int64?, permanentlyLocked: Bool
    ) async throws {
        try await db.raw(
            """
            UPDATE activations SET failed_attempts = \(bind: failures.highest), pin_failures = \(bind: failures.pin),
                otp_failures = \(bind: failures.otp), biometric_failures = \(bind: failures.biometric),
                security_key_failures = \(bind: failures.securityKey),
                locked_until = \(bind: lockedUntil), permanently_locked = \(bind: permanentlyLocked ? 1 : 0)
            WHERE id = \(bind: activationID)
            """
        ).run()
    }

    /// Writes a successful attempt: the counts it leaves (those of the factors it did not
    /// prove), the time, and the TOTP step it spent.
    public func recordSuccessfulUse(activationID: ActivationID, failures: FactorFailures, now: Int64, totpStep: Int64?) async throws {
        try await db.raw(Self.successfulUse(activationID: activationID, failures: failures, now: now, totpStep: totpStep)).run()
    }

    static func successfulUse(activationID: ActivationID, failures: FactorFailures, now: Int64, totpStep: Int64?) -> SQLQueryString {
        """
        UPDATE activations SET failed_attempts = \(bind: failures.highest), pin_failures = \(bind: failures.pin),
            otp_failures = \(bind: failures.otp), biometric_failures = \(bind: failures.biometric),
            security_key_failures = \(bind: failures.securityKey),
            locked_until = NULL, last_used_at = \(bind: now), totp_last_step = COALESCE(\(bind: totpStep), totp_last_step)
        WHERE id = \(bind: activationID)
        """
    }

    /// Records a TOTP step as spent even when the attempt failed on another factor.
    public func spendTOTPStep(activationID: ActivationID, step: Int64) async throws {
        try await db.raw(
            "UPDATE activations SET totp_last_step = \(bind: step) WHERE id = \(bind: activationID)"
        ).run()
    }

    // MARK: Device request tokens

    /// One call in this many clears the activation's expired token ids.
    static let expiredSweepOdds = 8

    /// Records a device token id; `false` when it was seen before (a replay).
    public func useDeviceTokenID(_ jti: String, activationID: ActivationID, expiresAt: Int64, now: Int64) async throws
        -> Bool
    {
        try await sweepDeviceTokenIDs(activationID: activationID, now: now)
        return try await db.raw(Self.tokenIDInsertion(jti, activationID: activationID, expiresAt: expiresAt)).all().count == 1
    }

    /// `useDeviceTokenID`, and the activation as it is now (nil when it is gone): in one
    /// statement on PostgreSQL, where each is a round trip, and two on SQLite.
    public func useDeviceTokenID(_ jti: String, reading activationID: ActivationID, expiresAt: Int64, now: Int64) async throws
        -> (fresh: Bool, activation: ActivationRecord?)
    {
        guard isPostgres else {
            let fresh = try await useDeviceTokenID(jti, activationID: activationID, expiresAt: expiresAt, now: now)
            return (fresh, try await activation(id: activationID))
        }
        try await sweepDeviceTokenIDs(activationID: activationID, now: now)
        // One row whether or not the activation exists: the id's fate is known either way.
        guard
            let row = try await db.raw(
                """
                WITH used AS (\(Self.tokenIDInsertion(jti, activationID: activationID, expiresAt: expiresAt)))
                SELECT (SELECT COUNT(*) FROM used) AS token_fresh, a.*
                FROM (SELECT 1) AS one LEFT JOIN activations a ON a.id = \(bind: activationID)
                """
            ).first()
        else { throw StoreError(.corrupt, "no row from a one-row query") }
        let fresh = try row.decode(column: "token_fresh", as: Int64.self) == 1
        guard try !row.decodeNil(column: "id") else { return (fresh, nil) }
        return (fresh, try ActivationRecord(from: RecordDecoder(row: row)))
    }

    /// What a device call reads as its token's id is spent: whether the id was fresh, the
    /// activation, its own user and the request the call is about (each nil when its row
    /// is gone), as they were before the call's spends, and whether the request's challenge
    /// was spent (it was the one the call named).
    public struct DeviceCallRead: Sendable {
        public let fresh: Bool
        public let activation: ActivationRecord?
        public let user: UserRecord?
        public internal(set) var request: AuthRequestRecord?
        public internal(set) var challengeSpent = false
    }

    /// `useDeviceTokenID(_:reading:…)`, also reading the activation's user and the request
    /// `requestID`, and with `spendingChallenge` spending the request's challenge if it is
    /// that one (`rotateChallenge` to none): one statement on PostgreSQL (the tables'
    /// columns side by side in one row), four or five on SQLite.
    public func useDeviceTokenID(
        _ jti: String, reading activationID: ActivationID, request requestID: RequestID, spendingChallenge challenge: String? = nil,
        expiresAt: Int64, now: Int64
    ) async throws -> DeviceCallRead {
        guard isPostgres else {
            let (fresh, activation) = try await useDeviceTokenID(jti, reading: activationID, expiresAt: expiresAt, now: now)
            var read = try await deviceCallRead(fresh: fresh, activation: activation, request: requestID)
            if let challenge { read.challengeSpent = try await rotateChallenge(requestID: requestID, expected: challenge, next: nil) }
            return read
        }
        try await sweepDeviceTokenIDs(activationID: activationID, now: now)
        return try await deviceCallRead(
            activationID, request: requestID, spending: Self.tokenIDInsertion(jti, activationID: activationID, expiresAt: expiresAt),
            challenge: challenge)
    }

    /// Its PostgreSQL statement: `token_fresh` says whether the id (`insertion`) went in,
    /// `challenge_spent` whether the challenge was spent. The rows are read as the
    /// statement found them: what it spends is not seen by its own reads.
    private func deviceCallRead(
        _ activationID: ActivationID, request requestID: RequestID, spending insertion: SQLQueryString, challenge: String?
    ) async throws -> DeviceCallRead {
        var statement: SQLQueryString = "WITH used AS ("
        statement += insertion
        statement.appendLiteral(")")
        if let challenge {
            statement.appendLiteral(", spent AS (")
            statement += Self.challengeRotation(requestID: requestID, expected: challenge, next: nil)
            statement.appendLiteral(")")
        }
        statement.appendLiteral(" SELECT (SELECT COUNT(*) FROM used) AS token_fresh, ")
        statement.appendLiteral(challenge == nil ? "0::bigint" : "(SELECT COUNT(*) FROM spent)")
        statement.appendLiteral(" AS challenge_spent,")
        // One row whether or not the rows exist: the id's fate is known either way.
        statement += """
             NULL AS "|activation", a.*, NULL AS "|user", u.*, NULL AS "|request", r.*
            FROM (SELECT 1) AS one
            LEFT JOIN activations a ON a.id = \(bind: activationID)
            LEFT JOIN users u ON u.id = a.user_id
            LEFT JOIN auth_requests r ON r.id = \(bind: requestID)
            """
        guard let row = try await db.raw(statement).first() else { throw StoreError(.corrupt, "no row from a one-row query") }
        let fresh = try row.decode(column: "token_fresh", as: Int64.self) == 1
        let challengeSpent = try row.decode(column: "challenge_spent", as: Int64.self) == 1
        func record<T: Decodable>(_ columns: any SQLRow, as type: T.Type) throws -> T? {
            try columns.decodeNil(column: "id") ? nil : T(from: RecordDecoder(row: columns))
        }
        guard let segments = (row as? PostgresStoreRow)?.segments(), let activation = segments["activation"], let user = segments["user"],
            let request = segments["request"]
        else {
            // A statement run unnamed (past the prepared statements' limit) comes as
            // PostgresKit's row, read by name: the activation's columns come first, and the
            // user and the request are read again (the request as it was: with the
            // challenge this statement spent).
            var read = try await deviceCallRead(fresh: fresh, activation: try record(row, as: ActivationRecord.self), request: requestID)
            read.challengeSpent = challengeSpent
            if challengeSpent { read.request?.challenge = challenge }
            return read
        }
        let read = DeviceCallRead(
            fresh: fresh, activation: try record(activation, as: ActivationRecord.self), user: try record(user, as: UserRecord.self),
            request: try record(request, as: AuthRequestRecord.self), challengeSpent: challengeSpent)
        RequestTrace.current?.continues(read.request?.traceParent)
        return read
    }

    /// The activation's user and the request read by statements of their own, after the
    /// token's id and the activation.
    private func deviceCallRead(fresh: Bool, activation: ActivationRecord?, request requestID: RequestID) async throws -> DeviceCallRead {
        var user: UserRecord?
        if let activation { user = try await self.user(id: activation.userID) }
        return DeviceCallRead(fresh: fresh, activation: activation, user: user, request: try await authRequest(id: requestID))
    }

    static func tokenIDInsertion(_ jti: String, activationID: ActivationID, expiresAt: Int64) -> SQLQueryString {
        """
        INSERT INTO device_token_ids (jti, activation_id, expires_at)
        VALUES (\(bind: jti), \(bind: activationID), \(bind: expiresAt))
        ON CONFLICT (jti) DO NOTHING RETURNING jti
        """
    }

    private func sweepDeviceTokenIDs(activationID: ActivationID, now: Int64) async throws {
        // Each activation clears its own expired ids: a table-wide sweep in every call
        // would make all device calls conflict with each other on PostgreSQL. Not in every
        // call but in one of `expiredSweepOdds` at random (the server's choice, not the
        // device's): an activation then keeps on average that many calls' expired ids
        // beyond its live ones, and most calls save a statement (a round trip on
        // PostgreSQL). The purge clears what is left behind by activations no longer used.
        if Int.random(in: 0..<Self.expiredSweepOdds) == 0 {
            try await db.raw(
                "DELETE FROM device_token_ids WHERE activation_id = \(bind: activationID) AND expires_at < \(bind: now)"
            ).run()
        }
    }

    // MARK: Account processes

    /// Moves an approved process of `purpose` owned by `activationID` to `completed`;
    /// `false` when it is not (any more) such a process, or has expired.
    public func completeProcess(id: RequestID, purpose: AuthenticationPurpose, activationID: ActivationID, now: Int64) async throws -> Bool {
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

    public func updateBiometricKey(activationID: ActivationID, key: String?) async throws {
        try await db.raw("UPDATE activations SET biometric_key = \(bind: key) WHERE id = \(bind: activationID)").run()
    }

    public func updateBackgroundKey(activationID: ActivationID, key: String?) async throws {
        try await db.raw("UPDATE activations SET background_key = \(bind: key) WHERE id = \(bind: activationID)").run()
    }

    public func updateTOTPSecret(activationID: ActivationID, sealed: String?) async throws {
        try await db.raw(
            "UPDATE activations SET sealed_totp_secret = \(bind: sealed), totp_last_step = NULL WHERE id = \(bind: activationID)"
        ).run()
    }

    public func updatePinKey(activationID: ActivationID, sealed: String) async throws {
        try await db.raw("UPDATE activations SET sealed_pin_key = \(bind: sealed) WHERE id = \(bind: activationID)").run()
    }

    public func unlock(activationID: ActivationID) async throws -> Bool {
        let rows = try await db.raw(
            """
            UPDATE activations SET failed_attempts = 0, pin_failures = 0, otp_failures = 0, biometric_failures = 0, security_key_failures = 0,
                locked_until = NULL, permanently_locked = 0
            WHERE id = \(bind: activationID) RETURNING id
            """
        ).all()
        return rows.count == 1
    }

    /// Removes an activation with its keys, merged users, history and pending requests, and
    /// the passkeys added from account-page sessions it opened, and ends every session its
    /// logins started; `false` when it did not exist.
    public func deleteActivation(id: ActivationID, at now: Int64) async throws -> Bool {
        struct Row: Decodable { let user_id: UserID }
        guard let row = try await first("DELETE FROM activations WHERE id = \(bind: id) RETURNING user_id", as: Row.self) else { return false }
        try await db.raw("DELETE FROM activation_users WHERE activation_id = \(bind: id)").run()
        // Its history goes with it, but for entries the webhooks have yet to hear of: the
        // dispatcher removes those once it has written their deliveries (`forgetRemovedHistory`).
        try await db.raw(
            """
            DELETE FROM authentication_history WHERE activation_id = \(bind: id)
                AND (NOT EXISTS (SELECT 1 FROM webhooks)
                    OR seq <= (SELECT value FROM feed_sequences WHERE name = 'dispatched:authentication_history'))
            """
        ).run()
        try await db.raw("DELETE FROM device_token_ids WHERE activation_id = \(bind: id)").run()
        try await removePushTarget(activationID: id)
        try await endSSOSessions(activationID: id)
        try await endSessions(.activation(id), reason: .deviceRemoved, at: now)
        // Sessions from before sessions recorded their device may be this one's: they end too.
        try await recordSessionEnds(where: "s.user_id = \(bind: row.user_id) AND s.activation_id IS NULL", reason: .deviceRemoved, at: now)
        try await db.raw(
            """
            UPDATE sessions SET ended_at = \(bind: now), end_reason = \(bind: SessionEndReason.deviceRemoved.rawValue)
            WHERE user_id = \(bind: row.user_id) AND activation_id IS NULL AND ended_at IS NULL
            """
        ).run()
        // A code its login earned but the service has not redeemed yet starts no session.
        try await db.raw(
            "UPDATE grants SET revoked = 1 WHERE activation_id = \(bind: id) AND kind = 'code' AND used_at IS NULL"
        ).run()
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
        // So are the passkeys added from an account page it signed in to.
        _ = try await deleteSecurityKeys(addedBy: .activation(id), at: now)
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
    public func removePushTarget(activationID: ActivationID, token: String? = nil) async throws {
        if let token {
            try await db.raw(
                "DELETE FROM push_targets WHERE activation_id = \(bind: activationID) AND token = \(bind: token)"
            ).run()
        } else {
            try await db.raw("DELETE FROM push_targets WHERE activation_id = \(bind: activationID)").run()
        }
    }

    public func pushTargets(activationIDs: [ActivationID]) async throws -> [PushTargetRecord] {
        guard !activationIDs.isEmpty else { return [] }
        return try await all(
            "SELECT * FROM push_targets WHERE activation_id IN (\(binds: activationIDs)) ORDER BY activation_id",
            as: PushTargetRecord.self)
    }
}
