import Foundation
import TesseraCore

/// An operator of the web console: a user of the operators' tenant with a role, and
/// perhaps one tenant it is limited to (as an admin API key is).
public struct ConsoleOperatorRecord: Codable, Sendable {
    public var userID: UserID
    public var tenantID: TenantID
    public var role: AdminRole
    public var scopeTenantID: TenantID?
    public var createdAt: Int64

    public init(userID: UserID, tenantID: TenantID, role: AdminRole, scopeTenantID: TenantID?, createdAt: Int64) {
        self.userID = userID
        self.tenantID = tenantID
        self.role = role
        self.scopeTenantID = scopeTenantID
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case role
        case userID = "user_id"
        case tenantID = "tenant_id"
        case scopeTenantID = "scope_tenant_id"
        case createdAt = "created_at"
    }
}

/// Which pages a browser session opens.
public enum WebSessionKind: String, Codable, Sendable {
    /// The operators' console at `/console`.
    case console
    /// A user's account page at `/t/{tenant}/account`.
    case account
}

/// A browser's session of the console or the account page. The cookie holds a secret;
/// the row its digest. It lives while its own lifetimes last and the OpenID Connect
/// session of the device login that opened it (`session_id`) does.
public struct WebSessionRecord: Codable, Sendable {
    public var digest: String
    public var kind: WebSessionKind
    public var tenantID: TenantID
    public var userID: UserID
    public var activationID: ActivationID?
    public var sessionID: SessionID
    /// The token every form of the session carries.
    public var csrf: String
    public var createdAt: Int64
    public var lastSeenAt: Int64
    public var expiresAt: Int64
    public var idleLifetime: Int64
    public var endedAt: Int64?

    public init(
        digest: String, kind: WebSessionKind, tenantID: TenantID, userID: UserID, activationID: ActivationID?, sessionID: SessionID,
        csrf: String, createdAt: Int64, expiresAt: Int64, idleLifetime: Int64
    ) {
        self.digest = digest
        self.kind = kind
        self.tenantID = tenantID
        self.userID = userID
        self.activationID = activationID
        self.sessionID = sessionID
        self.csrf = csrf
        self.createdAt = createdAt
        self.lastSeenAt = createdAt
        self.expiresAt = expiresAt
        self.idleLifetime = idleLifetime
    }

    enum CodingKeys: String, CodingKey {
        case digest, kind, csrf
        case tenantID = "tenant_id"
        case userID = "user_id"
        case activationID = "activation_id"
        case sessionID = "session_id"
        case createdAt = "created_at"
        case lastSeenAt = "last_seen_at"
        case expiresAt = "expires_at"
        case idleLifetime = "idle_lifetime"
        case endedAt = "ended_at"
    }
}
