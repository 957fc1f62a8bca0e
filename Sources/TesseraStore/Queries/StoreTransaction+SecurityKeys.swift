import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

/// What opened the account-page session a key was added from.
public enum SecurityKeyOrigin: Sendable {
    case activation(ActivationID)
    case securityKey(SecurityKeyID)
}

extension StoreTransaction {
    // MARK: Security keys

    /// Writes a new credential; a credential id already registered in the tenant is a
    /// uniqueness conflict (`StoreError.conflict`).
    public func insertSecurityKey(_ key: SecurityKeyRecord) async throws {
        try await insert("security_keys", key)
    }

    public func securityKey(id: SecurityKeyID) async throws -> SecurityKeyRecord? {
        try await first("SELECT * FROM security_keys WHERE id = \(bind: id)", as: SecurityKeyRecord.self)
    }

    public func securityKey(tenantID: TenantID, credentialID: String) async throws -> SecurityKeyRecord? {
        try await first(
            "SELECT * FROM security_keys WHERE tenant_id = \(bind: tenantID) AND credential_id = \(bind: credentialID)",
            as: SecurityKeyRecord.self)
    }

    /// A user's credentials, oldest first.
    public func securityKeys(userID: UserID) async throws -> [SecurityKeyRecord] {
        try await all(
            "SELECT * FROM security_keys WHERE user_id = \(bind: userID) ORDER BY created_at, id", as: SecurityKeyRecord.self)
    }

    /// Records a successful assertion: the counter it brought, its backup state and the time.
    public func recordSecurityKeyUse(id: SecurityKeyID, signCount: Int64, backedUp: Bool, at now: Int64) async throws {
        try await db.raw(
            """
            UPDATE security_keys SET sign_count = \(bind: signCount), backed_up = \(bind: backedUp ? 1 : 0), last_used_at = \(bind: now)
            WHERE id = \(bind: id)
            """
        ).run()
    }

    /// Marks a credential whose counter went backwards; it is refused from then on.
    public func markSecurityKeySuspicious(id: SecurityKeyID, at now: Int64) async throws {
        try await db.raw("UPDATE security_keys SET suspicious_at = \(bind: now) WHERE id = \(bind: id) AND suspicious_at IS NULL").run()
    }

    /// Removes a credential; false when there was none. An activation that had it as its
    /// factor has that factor no more.
    public func deleteSecurityKey(id: SecurityKeyID) async throws -> Bool {
        try await db.raw("UPDATE activations SET security_key_id = NULL WHERE security_key_id = \(bind: id)").run()
        return try await db.raw("DELETE FROM security_keys WHERE id = \(bind: id) RETURNING id").all().count > 0
    }

    /// Removes the keys added from account-page sessions that `origin` opened, and the keys
    /// added from sessions that those opened in turn, ending the sessions their logins
    /// started: a stolen device or passkey, once removed, leaves no way back in. The ids removed.
    public func deleteSecurityKeys(addedBy origin: SecurityKeyOrigin, at now: Int64) async throws -> [SecurityKeyID] {
        struct Row: Decodable { let id: SecurityKeyID }
        var removed: [SecurityKeyID] = []
        var pending = [origin]
        while let next = pending.popLast() {
            let rows: [Row]
            switch next {
            case .activation(let id):
                rows = try await all("SELECT id FROM security_keys WHERE origin_activation_id = \(bind: id)", as: Row.self)
            case .securityKey(let id):
                rows = try await all("SELECT id FROM security_keys WHERE origin_security_key_id = \(bind: id)", as: Row.self)
            }
            for row in rows where try await deleteSecurityKey(id: row.id) {
                _ = try await endSessions(.securityKey(row.id), reason: .securityKeyRemoved, at: now)
                removed.append(row.id)
                pending.append(.securityKey(row.id))
            }
        }
        return removed
    }

    /// Gives the keys a device's account-page sessions added to the device that replaces it.
    public func moveSecurityKeyOrigin(from retired: ActivationID, to successor: ActivationID) async throws {
        try await db.raw(
            "UPDATE security_keys SET origin_activation_id = \(bind: successor) WHERE origin_activation_id = \(bind: retired)"
        ).run()
    }

    /// Makes a key the activation's `securitykey` factor (replacing the one it had).
    public func setActivationSecurityKey(activationID: ActivationID, keyID: SecurityKeyID) async throws {
        try await db.raw(
            "UPDATE activations SET security_key_id = \(bind: keyID), security_key_failures = 0 WHERE id = \(bind: activationID)"
        ).run()
    }

    // MARK: Ceremonies

    public func insertCeremony(_ ceremony: CeremonyRecord) async throws {
        try await insert("webauthn_ceremonies", ceremony)
    }

    /// Takes a challenge for its answer: deleted in the same statement that reads it, so it
    /// answers once, whatever the outcome. Nil for an unknown, spent or expired challenge.
    public func takeCeremony(challenge: String, tenantID: TenantID, now: Int64) async throws -> CeremonyRecord? {
        guard
            let record = try await first(
                "DELETE FROM webauthn_ceremonies WHERE challenge = \(bind: challenge) AND tenant_id = \(bind: tenantID) RETURNING *",
                as: CeremonyRecord.self)
        else { return nil }
        return record.expiresAt > now ? record : nil
    }
}

extension StoreTransaction {
    /// Approves a pending browser login answered in the browser (a passkey, a sign-in at
    /// another provider): the user, the passkey if any, and what was proved; false when the
    /// request was no longer pending (a device took it up, or it was answered or expired).
    public func approveAuthRequest(
        id: RequestID, userID: UserID, securityKeyID: SecurityKeyID?, factors: [FactorType], confirmedAttributes: [String],
        authTime: Int64
    ) async throws -> Bool {
        try await db.raw(
            """
            UPDATE auth_requests SET status = 'approved', challenge = NULL, user_id = \(bind: userID),
                security_key_id = \(bind: securityKeyID), factors = \(bind: try JSONCoding.string(factors)),
                confirmed_attributes = \(bind: try JSONCoding.string(confirmedAttributes)), auth_time = \(bind: authTime)
            WHERE id = \(bind: id) AND status = 'pending' AND expires_at > \(bind: authTime) RETURNING id
            """
        ).all().count == 1
    }
}
