import Foundation
import TesseraCore

/// An external OpenID provider a tenant lets its users sign in with (federation): where
/// to find it, how Tessera is its client, and how its users are matched to Tessera's.
public struct IdentityProviderRecord: Codable, Sendable {
    public var id: String
    public var tenantID: TenantID
    /// The short name in URLs and the directory (`kk_app_id`).
    public var name: String
    /// What the login page and the directory show (`kk_app_name`).
    public var displayName: String
    public var logoURI: String?
    /// Its OpenID discovery document's URL.
    public var discoveryURL: String
    public var clientID: String
    /// The client secret, sealed under the master key; nil for a public client (PKCE only).
    public var sealedClientSecret: String?
    public var scope: String
    /// The claim of its ID token that finds the Tessera user on a first login, and the
    /// user field it is compared with (`username` or an attribute's name); nil: only an
    /// invitation links.
    public var linkClaim: String?
    public var linkField: String?
    /// Claims copied into the user's attributes at each login: claim → attribute.
    @JSONText public var claimMapping: [String: String]
    public var createdAt: Int64

    public init(
        id: String, tenantID: TenantID, name: String, displayName: String, logoURI: String?, discoveryURL: String, clientID: String,
        sealedClientSecret: String?, scope: String, linkClaim: String?, linkField: String?, claimMapping: [String: String], createdAt: Int64
    ) {
        self.id = id
        self.tenantID = tenantID
        self.name = name
        self.displayName = displayName
        self.logoURI = logoURI
        self.discoveryURL = discoveryURL
        self.clientID = clientID
        self.sealedClientSecret = sealedClientSecret
        self.scope = scope
        self.linkClaim = linkClaim
        self.linkField = linkField
        self.claimMapping = claimMapping
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, scope
        case tenantID = "tenant_id"
        case displayName = "display_name"
        case logoURI = "logo_uri"
        case discoveryURL = "discovery_url"
        case clientID = "client_id"
        case sealedClientSecret = "sealed_client_secret"
        case linkClaim = "link_claim"
        case linkField = "link_field"
        case claimMapping = "claim_mapping"
        case createdAt = "created_at"
    }
}

/// A user's identity at an external provider: its `sub` there, linked to the Tessera user.
public struct FederatedIdentityRecord: Codable, Sendable {
    public var providerID: String
    public var subject: String
    public var tenantID: TenantID
    public var userID: UserID
    public var createdAt: Int64
    public var lastLoginAt: Int64?

    public init(providerID: String, subject: String, tenantID: TenantID, userID: UserID, createdAt: Int64, lastLoginAt: Int64?) {
        self.providerID = providerID
        self.subject = subject
        self.tenantID = tenantID
        self.userID = userID
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
    }

    enum CodingKeys: String, CodingKey {
        case subject
        case providerID = "provider_id"
        case tenantID = "tenant_id"
        case userID = "user_id"
        case createdAt = "created_at"
        case lastLoginAt = "last_login_at"
    }
}

/// A login under way at an external provider: what its `state` stands for (a browser's
/// login request, or an invitation to link) and the nonce it was sent with. Taken once,
/// by the callback.
public struct FederationLoginRecord: Codable, Sendable {
    public var stateDigest: String
    public var tenantID: TenantID
    public var providerID: String
    public var requestID: RequestID?
    public var invitationID: String?
    /// The digest of the cookie given to the browser that started it: only that browser finishes it.
    public var browserDigest: String
    public var nonce: String
    public var expiresAt: Int64

    public init(
        stateDigest: String, tenantID: TenantID, providerID: String, requestID: RequestID?, invitationID: String?, browserDigest: String,
        nonce: String, expiresAt: Int64
    ) {
        self.stateDigest = stateDigest
        self.tenantID = tenantID
        self.providerID = providerID
        self.requestID = requestID
        self.invitationID = invitationID
        self.browserDigest = browserDigest
        self.nonce = nonce
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case nonce
        case stateDigest = "state_digest"
        case tenantID = "tenant_id"
        case providerID = "provider_id"
        case requestID = "request_id"
        case invitationID = "invitation_id"
        case browserDigest = "browser_digest"
        case expiresAt = "expires_at"
    }
}
