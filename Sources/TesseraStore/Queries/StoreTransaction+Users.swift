import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Users and invitations

    public func insertUser(_ user: UserRecord) async throws { try await insert("users", user) }

    /// Inserts the user unless the tenant has the username (or the id is taken): false then.
    /// Two imports at once skip each other's users instead of failing.
    public func insertUserUnlessPresent(_ user: UserRecord) async throws -> Bool {
        try await insert("users", user, skippingConflicts: true)
    }

    public func user(tenantID: TenantID, username: String) async throws -> UserRecord? {
        try await first(
            "SELECT * FROM users WHERE tenant_id = \(bind: tenantID) AND username = \(bind: username)",
            as: UserRecord.self)
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await first("SELECT * FROM users WHERE id = \(bind: id)", as: UserRecord.self)
    }

    /// A tenant's users a directory knows by this `externalId`.
    public func users(tenantID: TenantID, externalID: String) async throws -> [UserRecord] {
        try await all(
            "SELECT * FROM users WHERE tenant_id = \(bind: tenantID) AND external_id = \(bind: externalID) ORDER BY username",
            as: UserRecord.self)
    }

    /// Up to `limit` of a tenant's users in username order (a SCIM list or search).
    public func users(tenantID: TenantID, limit: Int) async throws -> [UserRecord] {
        try await all("SELECT * FROM users WHERE tenant_id = \(bind: tenantID) ORDER BY username LIMIT \(bind: limit)", as: UserRecord.self)
    }

    /// Writes what a directory changed: username, attributes, external id, profile, the
    /// time of the change and whether the user is disabled.
    public func updateProvisionedUser(_ user: UserRecord) async throws {
        try await db.raw(
            """
            UPDATE users SET username = \(bind: user.username), attributes = \(bind: try JSONCoding.string(user.attributes)),
                external_id = \(bind: user.externalID), scim_profile = \(bind: user.scimProfile), updated_at = \(bind: user.updatedAt),
                disabled_at = \(bind: user.disabledAt)
            WHERE id = \(bind: user.id)
            """
        ).run()
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

    // MARK: Merged users

    /// Gives a new activation the merged users of the one it replaces.
    public func copyLinkedUsers(from source: ActivationID, to target: ActivationID) async throws {
        try await db.raw(
            """
            INSERT INTO activation_users (activation_id, user_id, created_at)
            SELECT \(bind: target), user_id, created_at FROM activation_users WHERE activation_id = \(bind: source)
            """
        ).run()
    }

    /// The activations that stand for a user by a merge.
    public func activationIDs(linkedTo userID: UserID) async throws -> [ActivationID] {
        struct Row: Decodable { let activation_id: ActivationID }
        return try await all(
            "SELECT activation_id FROM activation_users WHERE user_id = \(bind: userID)", as: Row.self
        ).map(\.activation_id)
    }

    public func linkUser(activationID: ActivationID, userID: UserID, now: Int64) async throws {
        try await insert("activation_users", LinkedUserRow(activationID: activationID, userID: userID, createdAt: now))
    }

    /// The users an activation was merged with (besides its own).
    public func linkedUsers(activationID: ActivationID) async throws -> [UserRecord] {
        try await all(
            """
            SELECT users.* FROM users JOIN activation_users ON activation_users.user_id = users.id
            WHERE activation_users.activation_id = \(bind: activationID) ORDER BY activation_users.created_at
            """, as: UserRecord.self)
    }
}
