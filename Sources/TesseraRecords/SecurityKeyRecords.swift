import TesseraCore

/// A user's WebAuthn credential: a security key or a passkey.
public struct SecurityKeyRecord: Codable, Sendable {
    public var id: SecurityKeyID
    public var tenantID: TenantID
    public var userID: UserID
    /// The authenticator's credential id, base64url; unique in a tenant.
    public var credentialID: String
    /// The COSE public key as registered, base64url.
    public var publicKey: String
    /// Its COSE algorithm (-7 ES256, -8 EdDSA, -257 RS256).
    public var algorithm: Int64
    public var signCount: Int64
    /// The authenticator model's AAGUID (all zeros when not disclosed), as a UUID string.
    public var aaguid: String
    @JSONText public var transports: [String]
    /// A multi-device credential (a synced passkey), and whether it is backed up now.
    @IntegerFlag public var backupEligible: Bool
    @IntegerFlag public var backedUp: Bool
    /// Whether the registration verified the user (PIN or biometrics on the authenticator).
    @IntegerFlag public var userVerified: Bool
    /// How far the registration's attestation was checked: none, self, certificate, trusted.
    public var attestation: String
    public var name: String
    /// When an assertion's counter went backwards: the credential may be cloned and is refused.
    public var suspiciousAt: Int64?
    public var createdAt: Int64
    public var lastUsedAt: Int64?
    /// What opened the account-page session the key was added from: the device that signed
    /// in, or the passkey. The key goes when that goes (nil for keys added otherwise).
    public var originActivationID: ActivationID?
    public var originSecurityKeyID: SecurityKeyID?

    public init(
        id: SecurityKeyID, tenantID: TenantID, userID: UserID, credentialID: String, publicKey: String, algorithm: Int64,
        signCount: Int64, aaguid: String, transports: [String], backupEligible: Bool, backedUp: Bool, userVerified: Bool,
        attestation: String, name: String, createdAt: Int64
    ) {
        self.id = id
        self.tenantID = tenantID
        self.userID = userID
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.aaguid = aaguid
        self.transports = transports
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.userVerified = userVerified
        self.attestation = attestation
        self.name = name
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, algorithm, aaguid, transports, attestation, name
        case tenantID = "tenant_id"
        case userID = "user_id"
        case credentialID = "credential_id"
        case publicKey = "public_key"
        case signCount = "sign_count"
        case backupEligible = "backup_eligible"
        case backedUp = "backed_up"
        case userVerified = "user_verified"
        case suspiciousAt = "suspicious_at"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case originActivationID = "origin_activation_id"
        case originSecurityKeyID = "origin_security_key_id"
    }
}

/// What a WebAuthn ceremony's challenge was given for.
public enum CeremonyKind: String, Codable, Sendable {
    /// Registering a credential for a known user (account page, invitation).
    case registration
    /// Signing in with a passkey on a login page.
    case authentication
}

/// One WebAuthn challenge: single use (taken by its answer), expiring, and bound to what it
/// was given for: a user, a login request, an invitation or an account-page session.
public struct CeremonyRecord: Codable, Sendable {
    /// The challenge, base64url: the browser's client data names it, so it is the key.
    public var challenge: String
    public var tenantID: TenantID
    public var kind: CeremonyKind
    public var userID: UserID?
    public var requestID: RequestID?
    public var invitationID: String?
    /// The digest of the account-page session that asked (registration there).
    public var webSession: String?
    public var userVerification: String
    public var createdAt: Int64
    public var expiresAt: Int64

    public init(
        challenge: String, tenantID: TenantID, kind: CeremonyKind, userID: UserID?, requestID: RequestID?, invitationID: String?,
        webSession: String?, userVerification: String, createdAt: Int64, expiresAt: Int64
    ) {
        self.challenge = challenge
        self.tenantID = tenantID
        self.kind = kind
        self.userID = userID
        self.requestID = requestID
        self.invitationID = invitationID
        self.webSession = webSession
        self.userVerification = userVerification
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case challenge, kind
        case tenantID = "tenant_id"
        case userID = "user_id"
        case requestID = "request_id"
        case invitationID = "invitation_id"
        case webSession = "web_session"
        case userVerification = "user_verification"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
    }
}
