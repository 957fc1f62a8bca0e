import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

/// What a page of users is filtered by.
public struct UserFilter: Sendable {
    /// Exactly this username.
    public var username: String?
    /// Part of the username (case-insensitive).
    public var search: String?
    /// An attribute that must have exactly this value.
    public var attribute: (key: String, value: String)?
    /// Only usernames after this one (the cursor of the previous page).
    public var after: String?

    public init(username: String? = nil, search: String? = nil, attribute: (key: String, value: String)? = nil, after: String? = nil) {
        self.username = username
        self.search = search
        self.attribute = attribute
        self.after = after
    }
}

/// What a page of history is filtered by.
public struct HistoryFilter: Sendable {
    public var userID: UserID?
    public var activationID: ActivationID?
    /// The service's name, as history records it.
    public var service: String?
    public var outcome: AttemptOutcome?
    public var since: Int64?
    public var until: Int64?
    /// Only entries older than this one (the cursor of the previous page).
    public var before: (at: Int64, id: String)?

    public init(
        userID: UserID? = nil, activationID: ActivationID? = nil, service: String? = nil, outcome: AttemptOutcome? = nil,
        since: Int64? = nil, until: Int64? = nil, before: (at: Int64, id: String)? = nil
    ) {
        self.userID = userID
        self.activationID = activationID
        self.service = service
        self.outcome = outcome
        self.since = since
        self.until = until
        self.before = before
    }
}

extension StoreTransaction {
    // MARK: Tenants

    /// Writes a tenant's settings (its id and name never change).
    public func updateTenantSettings(_ tenant: TenantRecord) async throws {
        try await db.raw(
            """
            UPDATE tenants SET lockout_policy = \(bind: try JSONCoding.string(tenant.lockoutPolicy)),
                process_policy = \(bind: tenant.processPolicy), sso_lifetime = \(bind: tenant.ssoLifetime),
                sso_policy = \(bind: tenant.ssoPolicy), session_lifetime = \(bind: tenant.sessionLifetime),
                session_idle_lifetime = \(bind: tenant.sessionIdleLifetime), history_retention = \(bind: tenant.historyRetention),
                audit_retention = \(bind: tenant.auditRetention), access_token_lifetime = \(bind: tenant.accessTokenLifetime),
                app_links = \(bind: try tenant.appLinks.map { try JSONCoding.string($0) }),
                webauthn_trust_anchors = \(bind: tenant.webAuthnTrustAnchors), webauthn_rp_id = \(bind: tenant.webAuthnRPID),
                dynamic_registration = \(bind: tenant.dynamicRegistration ? 1 : 0),
                android_apps_host_wide = \(bind: tenant.androidAppsHostWide ? 1 : 0),
                invitations_by_email_only = \(bind: tenant.invitationsByEmailOnly ? 1 : 0),
                invite_provisioned_users = \(bind: tenant.inviteProvisionedUsers ? 1 : 0),
                recovery_codes = \(bind: tenant.recoveryCodes ? 1 : 0),
                notices = \(bind: try JSONCoding.string(tenant.notices)), default_language = \(bind: tenant.defaultLanguage),
                branding = \(bind: try tenant.branding.map { try JSONCoding.string($0) }), texts = \(bind: try JSONCoding.string(tenant.texts))
            WHERE id = \(bind: tenant.id)
            """
        ).run()
    }

    public func userCount(tenantID: TenantID) async throws -> Int {
        struct Row: Decodable { let count: Int64 }
        return Int(try await first("SELECT COUNT(*) AS count FROM users WHERE tenant_id = \(bind: tenantID)", as: Row.self)?.count ?? 0)
    }

    /// Removes a tenant and everything in it but its audit entries (which record the removal).
    public func deleteTenant(id: TenantID) async throws {
        let activations: SQLQueryString = "SELECT id FROM activations WHERE tenant_id = \(bind: id)"
        let users: SQLQueryString = "SELECT id FROM users WHERE tenant_id = \(bind: id)"
        var statements: [SQLQueryString] = []
        statements.append("DELETE FROM device_token_ids WHERE activation_id IN (" + activations + ")")
        statements.append("DELETE FROM activation_users WHERE user_id IN (" + users + ")")
        statements.append("DELETE FROM group_members WHERE group_id IN (SELECT id FROM user_groups WHERE tenant_id = \(bind: id))")
        statements.append("DELETE FROM recovery_codes WHERE user_id IN (" + users + ")")
        for table in [
            "grants", "auth_requests", "sessions", "sso_sessions", "push_targets", "authentication_history", "invitations",
            "activations", "security_keys", "webauthn_ceremonies", "federation_logins", "federated_identities", "identity_providers",
            "users", "services", "signing_keys", "web_sessions", "console_operators", "logout_notices", "pushed_requests",
            "registration_tokens", "user_groups", "recoveries", "tenant_logos",
        ] {
            statements.append("DELETE FROM \(ident: table) WHERE tenant_id = \(bind: id)")
        }
        statements.append("DELETE FROM console_operators WHERE scope_tenant_id = \(bind: id)")
        statements.append("DELETE FROM tenants WHERE id = \(bind: id)")
        // Its admin keys reach nothing any more: revoked, not deleted, so the audit's actors stay known.
        statements.append("UPDATE admin_keys SET revoked_at = created_at WHERE tenant_id = \(bind: id) AND revoked_at IS NULL")
        for statement in statements { try await db.raw(statement).run() }
    }

    // MARK: Services

    /// Writes the service's record over its row (its tenant, client id and creation time stay).
    public func updateService(_ service: ServiceRecord) async throws {
        try await update("services", service, key: "id", keeping: ["tenant_id", "client_id", "created_at"])
    }

    /// Removes a service with its codes, refresh tokens, requests and sessions (end them first).
    public func deleteService(id: ServiceID) async throws {
        for table in ["grants", "auth_requests", "sessions", "logout_notices"] {
            try await db.raw("DELETE FROM \(ident: table) WHERE service_id = \(bind: id)").run()
        }
        try await db.raw("DELETE FROM services WHERE id = \(bind: id)").run()
    }

    // MARK: Users

    /// A page of a tenant's users in username order.
    public func users(tenantID: TenantID, filter: UserFilter, limit: Int) async throws -> [UserRecord] {
        var query: SQLQueryString = "SELECT * FROM users WHERE tenant_id = \(bind: tenantID)"
        if let username = filter.username { query += " AND username = \(bind: username)" }
        if let search = filter.search {
            query += " AND LOWER(username) LIKE \(bind: "%" + Self.likeEscaped(search.lowercased()) + "%") ESCAPE '!'"
        }
        if let attribute = filter.attribute {
            // Attributes are JSON with sorted keys and no spaces: `"key":"value"` occurs in
            // the text exactly when the user has that value (quotes inside values are escaped).
            // REPLACE compares exactly on both databases (SQLite's LIKE ignores ASCII case).
            let pair = String(try JSONCoding.string([attribute.key: attribute.value]).dropFirst().dropLast())
            query += " AND REPLACE(attributes, \(bind: pair), '') <> attributes"
        }
        if let after = filter.after {
            query += " AND username > \(bind: after)"
        }
        query += " ORDER BY username LIMIT \(bind: limit)"
        return try await all(query, as: UserRecord.self)
    }

    static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "!", with: "!!").replacingOccurrences(of: "%", with: "!%").replacingOccurrences(of: "_", with: "!_")
    }

    public func updateUserAttributes(id: UserID, attributes: [String: String]) async throws {
        try await db.raw("UPDATE users SET attributes = \(bind: try JSONCoding.string(attributes)) WHERE id = \(bind: id)").run()
    }

    /// Disables (a time) or enables (nil) a user.
    public func setUserDisabled(id: UserID, at: Int64?) async throws {
        try await db.raw("UPDATE users SET disabled_at = \(bind: at) WHERE id = \(bind: id)").run()
    }

    /// Removes a user with its own activations (as `deleteActivation` does), its links to
    /// other activations, invitations, requests, sessions, tokens and history.
    public func deleteUser(id: UserID, now: Int64) async throws {
        struct Row: Decodable { let id: ActivationID }
        for activation in try await all("SELECT id FROM activations WHERE user_id = \(bind: id)", as: Row.self) {
            _ = try await deleteActivation(id: activation.id, at: now)
        }
        for table in [
            "activation_users", "invitations", "auth_requests", "sso_sessions", "grants", "sessions", "authentication_history",
            "web_sessions", "console_operators", "security_keys", "webauthn_ceremonies", "federated_identities", "group_members",
            "recovery_codes", "recoveries",
        ] {
            try await db.raw("DELETE FROM \(ident: table) WHERE user_id = \(bind: id)").run()
        }
        try await db.raw("DELETE FROM users WHERE id = \(bind: id)").run()
    }

    public func endSSOSessions(userID: UserID) async throws {
        try await db.raw("DELETE FROM sso_sessions WHERE user_id = \(bind: userID)").run()
    }

    /// Ends the requests still open for a user (a backchannel request, an account process).
    public func expireOpenRequests(userID: UserID) async throws {
        try await db.raw(
            """
            UPDATE auth_requests SET status = 'expired', challenge = NULL
            WHERE user_id = \(bind: userID) AND status IN ('pending', 'claimed', 'approved')
            """
        ).run()
    }

    // MARK: Invitations

    /// A tenant's invitations that can still be used, newest first.
    public func openInvitations(tenantID: TenantID, now: Int64) async throws -> [InvitationRecord] {
        try await all(
            """
            SELECT * FROM invitations WHERE tenant_id = \(bind: tenantID) AND used_at IS NULL AND expires_at > \(bind: now)
                AND failed_attempts < \(bind: InvitationRecord.maximumFailures)
            ORDER BY created_at DESC, id
            """, as: InvitationRecord.self)
    }

    public func invitation(id: String) async throws -> InvitationRecord? {
        try await first("SELECT * FROM invitations WHERE id = \(bind: id)", as: InvitationRecord.self)
    }

    /// Ends an open invitation now; `false` when it was used or had ended already.
    public func revokeInvitation(id: String, now: Int64) async throws -> Bool {
        try await db.raw(
            """
            UPDATE invitations SET expires_at = \(bind: now)
            WHERE id = \(bind: id) AND used_at IS NULL AND expires_at > \(bind: now) RETURNING id
            """
        ).all().count == 1
    }

    // MARK: Sessions and history

    /// A user's live sessions, newest first.
    public func liveSessions(userID: UserID, now: Int64) async throws -> [SessionRecord] {
        try await all(
            """
            SELECT * FROM sessions WHERE user_id = \(bind: userID) AND ended_at IS NULL AND expires_at > \(bind: now)
                AND last_refreshed_at + idle_lifetime > \(bind: now)
            ORDER BY created_at DESC, id
            """, as: SessionRecord.self)
    }

    /// A page of a tenant's history, newest first.
    public func history(tenantID: TenantID, filter: HistoryFilter, limit: Int) async throws -> [HistoryRecord] {
        var query: SQLQueryString = "SELECT * FROM authentication_history WHERE tenant_id = \(bind: tenantID)"
        if let userID = filter.userID { query += " AND user_id = \(bind: userID)" }
        if let activationID = filter.activationID { query += " AND activation_id = \(bind: activationID)" }
        if let service = filter.service { query += " AND service = \(bind: service)" }
        if let outcome = filter.outcome { query += " AND outcome = \(bind: outcome.rawValue)" }
        if let since = filter.since { query += " AND at >= \(bind: since)" }
        if let until = filter.until { query += " AND at < \(bind: until)" }
        if let before = filter.before {
            query += " AND (at < \(bind: before.at) OR (at = \(bind: before.at) AND id < \(bind: before.id)))"
        }
        query += " ORDER BY at DESC, id DESC LIMIT \(bind: limit)"
        return try await all(query, as: HistoryRecord.self)
    }
}
