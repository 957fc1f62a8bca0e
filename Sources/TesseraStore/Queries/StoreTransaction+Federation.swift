import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Identity providers

    public func insertIdentityProvider(_ provider: IdentityProviderRecord) async throws { try await insert("identity_providers", provider) }

    public func identityProviders(tenantID: TenantID) async throws -> [IdentityProviderRecord] {
        try await all("SELECT * FROM identity_providers WHERE tenant_id = \(bind: tenantID) ORDER BY name", as: IdentityProviderRecord.self)
    }

    public func identityProvider(tenantID: TenantID, name: String) async throws -> IdentityProviderRecord? {
        try await first(
            "SELECT * FROM identity_providers WHERE tenant_id = \(bind: tenantID) AND name = \(bind: name)", as: IdentityProviderRecord.self)
    }

    public func identityProvider(id: String) async throws -> IdentityProviderRecord? {
        try await first("SELECT * FROM identity_providers WHERE id = \(bind: id)", as: IdentityProviderRecord.self)
    }

    /// Writes a provider's new settings (its id, tenant, name and links stay).
    public func updateIdentityProvider(_ provider: IdentityProviderRecord) async throws {
        try await update("identity_providers", provider, key: "id", keeping: ["tenant_id", "name", "created_at"])
    }

    /// Removes a provider's links to users and its logins under way (its subjects are
    /// another issuer's once its address or client changes); returns how many links went.
    @discardableResult
    public func deleteFederationLinks(providerID id: String) async throws -> Int {
        try await db.raw("DELETE FROM federation_logins WHERE provider_id = \(bind: id)").run()
        return try await db.raw("DELETE FROM federated_identities WHERE provider_id = \(bind: id) RETURNING 1").all().count
    }

    /// Removes a provider with its links and its logins under way; false when there was none.
    public func deleteIdentityProvider(id: String) async throws -> Bool {
        try await deleteFederationLinks(providerID: id)
        return try await db.raw("DELETE FROM identity_providers WHERE id = \(bind: id) RETURNING id").all().count == 1
    }

    // MARK: Links

    public func federatedIdentity(providerID: String, subject: String) async throws -> FederatedIdentityRecord? {
        try await first(
            "SELECT * FROM federated_identities WHERE provider_id = \(bind: providerID) AND subject = \(bind: subject)",
            as: FederatedIdentityRecord.self)
    }

    public func federatedIdentities(userID: UserID) async throws -> [FederatedIdentityRecord] {
        try await all(
            "SELECT * FROM federated_identities WHERE user_id = \(bind: userID) ORDER BY created_at", as: FederatedIdentityRecord.self)
    }

    public func insertFederatedIdentity(_ identity: FederatedIdentityRecord) async throws { try await insert("federated_identities", identity) }

    public func recordFederatedLogin(providerID: String, subject: String, at now: Int64) async throws {
        try await db.raw(
            "UPDATE federated_identities SET last_login_at = \(bind: now) WHERE provider_id = \(bind: providerID) AND subject = \(bind: subject)"
        ).run()
    }

    // MARK: Logins under way

    public func insertFederationLogin(_ login: FederationLoginRecord) async throws { try await insert("federation_logins", login) }

    /// Takes the login a callback's `state` stands for: at most once, and only before it expires.
    public func takeFederationLogin(stateDigest: String, tenantID: TenantID, now: Int64) async throws -> FederationLoginRecord? {
        guard
            let login = try await first(
                "DELETE FROM federation_logins WHERE state_digest = \(bind: stateDigest) AND tenant_id = \(bind: tenantID) RETURNING *",
                as: FederationLoginRecord.self)
        else { return nil }
        return login.expiresAt > now ? login : nil
    }
}
