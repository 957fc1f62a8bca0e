import Foundation
import TesseraCore

// Rows as the store reads and writes them. Times are seconds since 1970; JSON
// columns hold arrays and objects; binary values are base64url text, so the same
// schema runs on SQLite and PostgreSQL.

public struct TenantRecord: Codable, Sendable, Equatable {
    public var id: TenantID
    public var name: String
    @JSONText public var lockoutPolicy: LockoutPolicy
    /// The factor combinations account processes need (`device+pin,device+biometric`).
    public var processPolicy: AuthenticatorPolicy
    /// Seconds a full login lets the same activation log in to other services with the
    /// `ssoPolicy` combinations (0: no single sign-on).
    public var ssoLifetime: Int
    public var ssoPolicy: AuthenticatorPolicy?
    /// Seconds a session (a refresh-token family) lives at most from its login, and
    /// without a refresh; a service may set its own.
    public var sessionLifetime: Int64
    public var sessionIdleLifetime: Int64
    /// Seconds authentication history is kept; audit entries are kept for
    /// `auditRetention` seconds, or for good when it is nil.
    public var historyRetention: Int64
    public var auditRetention: Int64?
    /// Seconds the tenant's access and ID tokens live.
    public var accessTokenLifetime: Int64
    /// The tenant's app, for links that open it on the phone showing them (nil: none).
    @OptionalJSONText public var appLinks: AppLinks?
    /// PEM certificates a security key's attestation must chain to (nil: any key).
    public var webAuthnTrustAnchors: String?
    /// The tenant's WebAuthn RP ID (nil: the server's, by default the public URL's host).
    public var webAuthnRPID: String?
    /// Services may register themselves (RFC 7591) with an initial access token.
    @IntegerFlag public var dynamicRegistration: Bool = false
    /// Whether the tenant's Android apps are listed in the issuer host's `assetlinks.json`
    /// (set only by an admin for every tenant, and only while the tenant has no link
    /// domain, whose own file lists them otherwise).
    @IntegerFlag public var androidAppsHostWide: Bool = false
    /// Invitations go to the user's e-mail only: no answer holds the link.
    @IntegerFlag public var invitationsByEmailOnly: Bool = false
    /// A user a directory creates over SCIM (active, with an e-mail address) is sent an
    /// invitation by e-mail.
    @IntegerFlag public var inviteProvisionedUsers: Bool = false
    /// Users may make recovery codes, and start a new activation with one.
    @IntegerFlag public var recoveryCodes: Bool = false
    /// The security notices its users get by e-mail (`NoticeKind`'s names).
    @JSONText public var notices: [String] = TenantRecord.allNotices
    /// The language of its pages when neither the service nor the browser names one, and
    /// of its e-mails (one of `languages`).
    public var defaultLanguage: String = "en"
    /// Its logo, colours, names and links (nil: Tessera's).
    @OptionalJSONText public var branding: Branding?
    /// Its own sentences in place of the catalog's: language → key → sentence.
    @JSONText public var texts: [String: [String: String]] = [:]
    public var createdAt: Int64

    /// Every security notice: a device added or removed, a passkey added, a permanent lock.
    public static let allNotices = ["device_added", "device_removed", "passkey_added", "locked"]
    /// The languages pages and e-mails are written in.
    public static let languages = ["en", "de", "fr"]

    /// A year of history, the default.
    public static let defaultHistoryRetention: Int64 = 365 * 86_400

    /// Thirty days, the refresh-token lifetime before sessions had settings.
    public static let defaultSessionLifetime: Int64 = 30 * 86_400

    public init(
        id: TenantID, name: String, lockoutPolicy: LockoutPolicy, processPolicy: AuthenticatorPolicy, ssoLifetime: Int = 0, ssoPolicy: AuthenticatorPolicy? = nil,
        sessionLifetime: Int64 = defaultSessionLifetime, sessionIdleLifetime: Int64 = defaultSessionLifetime,
        historyRetention: Int64 = defaultHistoryRetention, auditRetention: Int64? = nil, accessTokenLifetime: Int64 = 300,
        appLinks: AppLinks? = nil, createdAt: Int64
    ) {
        self.appLinks = appLinks
        self.accessTokenLifetime = accessTokenLifetime
        self.historyRetention = historyRetention
        self.auditRetention = auditRetention
        self.sessionLifetime = sessionLifetime
        self.sessionIdleLifetime = sessionIdleLifetime
        self.ssoLifetime = ssoLifetime
        self.ssoPolicy = ssoPolicy
        self.id = id
        self.name = name
        self.lockoutPolicy = lockoutPolicy
        self.processPolicy = processPolicy
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case lockoutPolicy = "lockout_policy"
        case processPolicy = "process_policy"
        case ssoLifetime = "sso_lifetime"
        case ssoPolicy = "sso_policy"
        case sessionLifetime = "session_lifetime"
        case sessionIdleLifetime = "session_idle_lifetime"
        case historyRetention = "history_retention"
        case auditRetention = "audit_retention"
        case accessTokenLifetime = "access_token_lifetime"
        case appLinks = "app_links"
        case webAuthnTrustAnchors = "webauthn_trust_anchors"
        case webAuthnRPID = "webauthn_rp_id"
        case dynamicRegistration = "dynamic_registration"
        case androidAppsHostWide = "android_apps_host_wide"
        case invitationsByEmailOnly = "invitations_by_email_only"
        case inviteProvisionedUsers = "invite_provisioned_users"
        case recoveryCodes = "recovery_codes"
        case notices
        case defaultLanguage = "default_language"
        case branding, texts
        case createdAt = "created_at"
    }
}

/// A single sign-on session: a full login of `userID` on `activationID` at `authTime`.
public struct SSOSessionRecord: Codable, Sendable {
    public var activationID: ActivationID
    public var userID: UserID
    public var tenantID: TenantID
    /// The factors of the full login (JSON), which later logins in the session stand on.
    @JSONText public var factors: [FactorType]
    public var authTime: Int64
    public var expiresAt: Int64
    /// The digest of the token the device got for native single sign-on.
    public var tokenDigest: String?

    public init(
        activationID: ActivationID, userID: UserID, tenantID: TenantID, factors: [FactorType], authTime: Int64, expiresAt: Int64,
        tokenDigest: String? = nil
    ) {
        self.tokenDigest = tokenDigest
        self.activationID = activationID
        self.userID = userID
        self.tenantID = tenantID
        self.factors = factors
        self.authTime = authTime
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case factors
        case activationID = "activation_id"
        case userID = "user_id"
        case tenantID = "tenant_id"
        case authTime = "auth_time"
        case expiresAt = "expires_at"
        case tokenDigest = "token_digest"
    }
}

public struct SigningKeyRecord: Codable, Sendable {
    public var kid: String
    public var tenantID: TenantID
    public var sealedKey: String
    @IntegerFlag public var active: Bool
    /// The JWS algorithm the key signs with: `ES256`, `RS256` or `EdDSA`. A tenant has
    /// one active key per algorithm.
    public var algorithm: SigningAlgorithm
    public var createdAt: Int64

    public init(kid: String, tenantID: TenantID, sealedKey: String, active: Bool, algorithm: SigningAlgorithm = .es256, createdAt: Int64) {
        self.algorithm = algorithm
        self.kid = kid
        self.tenantID = tenantID
        self.sealedKey = sealedKey
        self.active = active
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case kid, active, algorithm
        case tenantID = "tenant_id"
        case sealedKey = "sealed_key"
        case createdAt = "created_at"
    }
}

public struct ServiceRecord: Codable, Sendable {
    public var id: ServiceID
    public var tenantID: TenantID
    public var clientID: ClientID
    public var name: String
    public var secretDigest: String?
    @IntegerFlag public var isPublic: Bool
    @JSONText public var redirectURIs: [String]
    public var policy: AuthenticatorPolicy
    @JSONText public var attributes: [String]
    /// `poll` or `ping` when the service may start backchannel (CIBA) authentications.
    public var backchannelMode: BackchannelMode?
    /// Where ping-mode notifications go (`backchannel_client_notification_endpoint`).
    public var notificationEndpoint: String?
    /// The service's own session lifetimes (seconds), overriding the tenant's.
    public var sessionLifetime: Int64?
    public var sessionIdleLifetime: Int64?
    /// Browser logins show a number the user picks on the device.
    @IntegerFlag public var numberMatching: Bool
    /// Named sets of the policy's combinations; a login's role is named in its result.
    @OptionalJSONText public var roles: [ServiceRole]?
    /// `public` (the user's id) or `pairwise` (an id for this service alone) as `sub`.
    public var subjectType: SubjectType
    /// The key of the service's pairwise identifiers (base64url), made when it first turns
    /// pairwise and kept, so a user's identifier never changes.
    public var pairwiseSalt: String?
    /// A backchannel request answered on the phone also gives the app an identity token.
    @IntegerFlag public var appIdentityToken: Bool
    /// The algorithm of its ID tokens (`id_token_signed_response_alg`): ES256, RS256 or EdDSA.
    public var idTokenAlgorithm: SigningAlgorithm = .es256
    /// Where RP-initiated logout may send the browser back to, compared exactly.
    @OptionalJSONText public var postLogoutRedirectURIs: [String]? = nil
    /// Where a `logout_token` is posted when one of its sessions ends (back-channel logout).
    public var backchannelLogoutURI: String? = nil
    /// Its authorization requests must be pushed first (RFC 9126 `require_pushed_authorization_requests`).
    @IntegerFlag public var requirePushedAuthorizationRequests: Bool = false
    /// Its access tokens are always DPoP-bound: a token request without a proof is refused
    /// (RFC 9449 §5.2 `dpop_bound_access_tokens`).
    @IntegerFlag public var dpopBound: Bool = false
    /// The digest of its registration access token, for a service that registered itself (RFC 7592).
    public var registrationDigest: String? = nil
    /// Token requests carry a gematik `key_verifier`; the tokens go back encrypted under its `token_key`.
    @IntegerFlag public var gematikProfile: Bool = false
    /// The OAuth grants it may use (`grant_types`): `authorization_code`, `refresh_token`,
    /// `client_credentials`; nil: the first two. A backchannel mode allows the CIBA grant.
    @OptionalJSONText public var grantTypes: [String]? = nil
    /// The scopes its `client_credentials` tokens may carry (nil: none but an empty scope).
    @OptionalJSONText public var scopes: [String]? = nil
    /// The `aud` of its `client_credentials` access tokens (nil: the issuer).
    public var audience: String? = nil
    /// How long its access tokens live, in seconds (nil: the tenant's).
    public var accessTokenLifetime: Int64? = nil
    /// `private_key_jwt` when it authenticates with signed assertions (RFC 7523) only;
    /// nil: by its secret (confidential) or by its id alone (public).
    public var authMethod: String? = nil
    /// Its public keys for `private_key_jwt`: a JWK Set as JSON text, or where to fetch one.
    public var jwks: String? = nil
    public var jwksURI: String? = nil
    /// Its logo (fetched and served by the server), privacy policy and terms, for its login page.
    public var logoURI: String? = nil
    public var policyURI: String? = nil
    public var tosURI: String? = nil
    public var createdAt: Int64

    public init(
        id: ServiceID, tenantID: TenantID, clientID: ClientID, name: String, secretDigest: String?, isPublic: Bool,
        redirectURIs: [String], policy: AuthenticatorPolicy, attributes: [String], backchannelMode: BackchannelMode? = nil,
        notificationEndpoint: String? = nil, sessionLifetime: Int64? = nil, sessionIdleLifetime: Int64? = nil,
        numberMatching: Bool = false, roles: [ServiceRole]? = nil, subjectType: SubjectType = .public, pairwiseSalt: String? = nil,
        appIdentityToken: Bool = false, createdAt: Int64
    ) {
        self.roles = roles
        self.subjectType = subjectType
        self.pairwiseSalt = pairwiseSalt
        self.appIdentityToken = appIdentityToken
        self.numberMatching = numberMatching
        self.sessionLifetime = sessionLifetime
        self.sessionIdleLifetime = sessionIdleLifetime
        self.backchannelMode = backchannelMode
        self.notificationEndpoint = notificationEndpoint
        self.id = id
        self.tenantID = tenantID
        self.clientID = clientID
        self.name = name
        self.secretDigest = secretDigest
        self.isPublic = isPublic
        self.redirectURIs = redirectURIs
        self.policy = policy
        self.attributes = attributes
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, policy, attributes
        case tenantID = "tenant_id"
        case clientID = "client_id"
        case secretDigest = "secret_digest"
        case isPublic = "is_public"
        case redirectURIs = "redirect_uris"
        case backchannelMode = "backchannel_mode"
        case notificationEndpoint = "notification_endpoint"
        case sessionLifetime = "session_lifetime"
        case sessionIdleLifetime = "session_idle_lifetime"
        case numberMatching = "number_matching"
        case roles
        case subjectType = "subject_type"
        case pairwiseSalt = "pairwise_salt"
        case appIdentityToken = "app_identity_token"
        case idTokenAlgorithm = "id_token_alg"
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case backchannelLogoutURI = "backchannel_logout_uri"
        case requirePushedAuthorizationRequests = "require_par"
        case dpopBound = "dpop_bound"
        case registrationDigest = "registration_digest"
        case gematikProfile = "gematik_profile"
        case grantTypes = "grant_types"
        case scopes, audience
        case accessTokenLifetime = "access_token_lifetime"
        case authMethod = "auth_method"
        case jwks
        case jwksURI = "jwks_uri"
        case logoURI = "logo_uri"
        case policyURI = "policy_uri"
        case tosURI = "tos_uri"
        case createdAt = "created_at"
    }
}

public struct UserRecord: Codable, Sendable {
    public var id: UserID
    public var tenantID: TenantID
    public var username: String
    @JSONText public var attributes: [String: String]
    public var createdAt: Int64
    /// When an operator disabled the user: no login, no new session, until enabled again.
    public var disabledAt: Int64?
    /// The directory's id for the user (SCIM `externalId`).
    public var externalID: String? = nil
    /// The user as a directory provisioned them (SCIM `name`, `displayName`, `emails`,
    /// `phoneNumbers`, `active` as sent), JSON; the mapped attributes are kept in `attributes`.
    public var scimProfile: String? = nil
    /// When the user last changed (SCIM `meta.lastModified`); nil: not since they were made.
    public var updatedAt: Int64? = nil

    public init(
        id: UserID, tenantID: TenantID, username: String, attributes: [String: String], createdAt: Int64, disabledAt: Int64? = nil
    ) {
        self.disabledAt = disabledAt
        self.id = id
        self.tenantID = tenantID
        self.username = username
        self.attributes = attributes
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, username, attributes
        case tenantID = "tenant_id"
        case createdAt = "created_at"
        case disabledAt = "disabled_at"
        case externalID = "external_id"
        case scimProfile = "scim_profile"
        case updatedAt = "updated_at"
    }
}

public struct InvitationRecord: Codable, Sendable {
    public var id: String
    public var tenantID: TenantID
    public var userID: UserID
    public var codeDigest: String
    public var pinSalt: String
    public var expiresAt: Int64
    public var usedAt: Int64?
    public var createdAt: Int64
    /// Activation data made by an account process: the PIN key the new device must
    /// present (sealed), its alias, and the activation it replaces.
    public var sealedPinKey: String?
    public var alias: String?
    public var retiresActivationID: ActivationID?
    /// The activation whose process made this activation data; voided with it.
    public var createdByActivationID: ActivationID?
    /// PIN attempts made with this code (activation data only); at
    /// `InvitationRecord.maximumFailures` it is void.
    public var failedAttempts: Int

    public static let maximumFailures = 5

    public init(
        id: String, tenantID: TenantID, userID: UserID, codeDigest: String, pinSalt: String, expiresAt: Int64,
        usedAt: Int64?, createdAt: Int64, sealedPinKey: String? = nil, alias: String? = nil,
        retiresActivationID: ActivationID? = nil, createdByActivationID: ActivationID? = nil, failedAttempts: Int = 0
    ) {
        self.createdByActivationID = createdByActivationID
        self.sealedPinKey = sealedPinKey
        self.alias = alias
        self.retiresActivationID = retiresActivationID
        self.failedAttempts = failedAttempts
        self.id = id
        self.tenantID = tenantID
        self.userID = userID
        self.codeDigest = codeDigest
        self.pinSalt = pinSalt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id
        case tenantID = "tenant_id"
        case userID = "user_id"
        case alias
        case codeDigest = "code_digest"
        case sealedPinKey = "sealed_pin_key"
        case retiresActivationID = "retires_activation_id"
        case createdByActivationID = "created_by_activation_id"
        case failedAttempts = "failed_attempts"
        case pinSalt = "pin_salt"
        case expiresAt = "expires_at"
        case usedAt = "used_at"
        case createdAt = "created_at"
    }
}

public struct ActivationRecord: Codable, Sendable {
    public var id: ActivationID
    public var tenantID: TenantID
    public var userID: UserID
    public var alias: String?
    @JSONText public var deviceKey: PublicJWK
    @OptionalJSONText public var biometricKey: PublicJWK?
    /// The key of the activation's background tokens, which only read pending requests.
    @OptionalJSONText public var backgroundKey: PublicJWK?
    public var sealedPinKey: String
    public var sealedTOTPSecret: String?
    public var totpLastStep: Int64?
    /// The count the lock follows: the highest of the per-factor counts below.
    public var failedAttempts: Int
    /// Consecutive failed attempts per guessable factor (PIN, one-time code, biometric
    /// key): a success resets only the counts of the factors it proved.
    public var pinFailures: Int
    public var otpFailures: Int
    public var biometricFailures: Int
    public var securityKeyFailures: Int
    public var lockedUntil: Int64?
    @IntegerFlag public var permanentlyLocked: Bool
    public var status: ActivationStatus
    public var createdAt: Int64
    public var lastUsedAt: Int64?
    /// The security key enrolled as this activation's `securitykey` factor (one of the user's keys).
    public var securityKeyID: SecurityKeyID?

    public init(
        id: ActivationID, tenantID: TenantID, userID: UserID, alias: String?, deviceKey: PublicJWK, biometricKey: PublicJWK?,
        sealedPinKey: String, sealedTOTPSecret: String?, totpLastStep: Int64?, failedAttempts: Int,
        lockedUntil: Int64?, permanentlyLocked: Bool, status: ActivationStatus, createdAt: Int64, lastUsedAt: Int64?,
        failures: FactorFailures = FactorFailures(), backgroundKey: PublicJWK? = nil
    ) {
        self.backgroundKey = backgroundKey
        self.pinFailures = failures.pin
        self.otpFailures = failures.otp
        self.biometricFailures = failures.biometric
        self.securityKeyFailures = failures.securityKey
        self.id = id
        self.tenantID = tenantID
        self.userID = userID
        self.alias = alias
        self.deviceKey = deviceKey
        self.biometricKey = biometricKey
        self.sealedPinKey = sealedPinKey
        self.sealedTOTPSecret = sealedTOTPSecret
        self.totpLastStep = totpLastStep
        self.failedAttempts = failedAttempts
        self.lockedUntil = lockedUntil
        self.permanentlyLocked = permanentlyLocked
        self.status = status
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, alias, status
        case tenantID = "tenant_id"
        case userID = "user_id"
        case deviceKey = "device_key"
        case biometricKey = "biometric_key"
        case backgroundKey = "background_key"
        case sealedPinKey = "sealed_pin_key"
        case sealedTOTPSecret = "sealed_totp_secret"
        case totpLastStep = "totp_last_step"
        case failedAttempts = "failed_attempts"
        case pinFailures = "pin_failures"
        case otpFailures = "otp_failures"
        case biometricFailures = "biometric_failures"
        case securityKeyFailures = "security_key_failures"
        case securityKeyID = "security_key_id"
        case lockedUntil = "locked_until"
        case permanentlyLocked = "permanently_locked"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}

extension ActivationRecord {
    /// The per-factor failure counts.
    public var failures: FactorFailures {
        get { FactorFailures(pin: pinFailures, otp: otpFailures, biometric: biometricFailures, securityKey: securityKeyFailures) }
        set {
            pinFailures = newValue.pin
            otpFailures = newValue.otp
            biometricFailures = newValue.biometric
            securityKeyFailures = newValue.securityKey
            failedAttempts = newValue.highest
        }
    }

    /// The lock the activation is under at `now`, if any (the rule: TesseraCore's Lockout.swift).
    public func lock(at now: Int64) -> LockoutInformation? {
        LockoutInformation.current(permanentlyLocked: permanentlyLocked, lockedUntil: lockedUntil, now: now)
    }
}


public struct AuthRequestRecord: Codable, Sendable {
    public var id: RequestID
    public var tenantID: TenantID
    public var serviceID: ServiceID?
    public var purpose: AuthenticationPurpose
    public var status: AuthenticationStatus
    public var challenge: String?
    public var activationID: ActivationID?
    public var userID: UserID?
    public var redirectURI: String?
    public var state: String?
    public var nonce: String?
    public var codeChallenge: String?
    public var scope: String
    public var browserDigest: String?
    @OptionalJSONText public var confirmedAttributes: [String]?
    @OptionalJSONText public var factors: [FactorType]?
    public var authTime: Int64?
    /// An account process's parameters (JSON), e.g. the factor to add or the invitation to merge.
    @OptionalJSONText public var process: ProcessParameters?
    /// How the request was started: nil for a browser login or an account process,
    /// `ciba` for a service's backchannel request (bound to its user from the start).
    public var flow: RequestFlow?
    /// A backchannel request's text, shown on the device and by the service.
    public var bindingMessage: String?
    /// The factor combinations a backchannel request asked for (`acr_values`), as a policy.
    public var acrPolicy: AuthenticatorPolicy?
    /// A ping-mode client's `client_notification_token`, sealed under the master key.
    public var sealedNotificationToken: String?
    /// Seconds a backchannel client must wait between token requests, and its last one.
    public var pollInterval: Int?
    public var lastPolledAt: Int64?
    /// A browser login that may use a single sign-on session (no `prompt=login`, no
    /// `max_age=0`); false for every other request, which never uses one.
    @IntegerFlag public var ssoAllowed: Bool
    /// The request's `max_age`: a single sign-on session older than this does not count.
    public var maxAge: Int64?
    /// A browser login's source address and `User-Agent`, shown on the device.
    public var originAddress: String?
    public var originAgent: String?
    /// The number a browser login's page shows and the device must pick (number matching).
    public var matchCode: String?
    /// The security key a passkey login in the browser was made with.
    public var securityKeyID: SecurityKeyID?
    /// A browser login's `login_hint` (a username): only that user's devices and passkeys may answer.
    public var loginHint: String?
    /// A browser login's `ui_locales`, as the service asked.
    public var uiLocales: String?
    public var createdAt: Int64
    public var expiresAt: Int64
    /// The W3C `traceparent` of the request that made it: the later requests of the login
    /// link their spans to it (`RequestTrace`).
    public var traceParent: String?

    public init(
        id: RequestID, tenantID: TenantID, serviceID: ServiceID?, purpose: AuthenticationPurpose, status: AuthenticationStatus, challenge: String?,
        activationID: ActivationID?, userID: UserID?, redirectURI: String?, state: String?, nonce: String?,
        codeChallenge: String?, scope: String, browserDigest: String?, confirmedAttributes: [String]?, factors: [FactorType]?,
        authTime: Int64?, process: ProcessParameters? = nil, flow: RequestFlow? = nil, bindingMessage: String? = nil,
        acrPolicy: AuthenticatorPolicy? = nil, sealedNotificationToken: String? = nil, pollInterval: Int? = nil,
        lastPolledAt: Int64? = nil, ssoAllowed: Bool = false, maxAge: Int64? = nil, originAddress: String? = nil,
        originAgent: String? = nil, matchCode: String? = nil, createdAt: Int64, expiresAt: Int64
    ) {
        self.originAddress = originAddress
        self.originAgent = originAgent
        self.matchCode = matchCode
        self.ssoAllowed = ssoAllowed
        self.maxAge = maxAge
        self.process = process
        self.flow = flow
        self.bindingMessage = bindingMessage
        self.acrPolicy = acrPolicy
        self.sealedNotificationToken = sealedNotificationToken
        self.pollInterval = pollInterval
        self.lastPolledAt = lastPolledAt
        self.id = id
        self.tenantID = tenantID
        self.serviceID = serviceID
        self.purpose = purpose
        self.status = status
        self.challenge = challenge
        self.activationID = activationID
        self.userID = userID
        self.redirectURI = redirectURI
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.scope = scope
        self.browserDigest = browserDigest
        self.confirmedAttributes = confirmedAttributes
        self.factors = factors
        self.authTime = authTime
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case id, purpose, status, challenge, state, nonce, scope, factors, process, flow
        case bindingMessage = "binding_message"
        case acrPolicy = "acr_policy"
        case sealedNotificationToken = "sealed_notification_token"
        case pollInterval = "poll_interval"
        case lastPolledAt = "last_polled_at"
        case ssoAllowed = "sso_allowed"
        case maxAge = "max_age"
        case originAddress = "origin_address"
        case originAgent = "origin_agent"
        case matchCode = "match_code"
        case securityKeyID = "security_key_id"
        case loginHint = "login_hint"
        case uiLocales = "ui_locales"
        case tenantID = "tenant_id"
        case serviceID = "service_id"
        case activationID = "activation_id"
        case userID = "user_id"
        case redirectURI = "redirect_uri"
        case codeChallenge = "code_challenge"
        case browserDigest = "browser_digest"
        case confirmedAttributes = "confirmed_attributes"
        case authTime = "auth_time"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case traceParent = "trace_parent"
    }
}

/// What a code or refresh token stands for: the grant a token request redeems.
public struct GrantRecord: Codable, Sendable {
    public var digest: String
    public var kind: GrantKind
    /// The session the grant belongs to (a code's session starts when it is redeemed).
    public var familyID: SessionID
    public var tenantID: TenantID
    public var serviceID: ServiceID
    public var userID: UserID
    /// The device whose login the grant stands on.
    public var activationID: ActivationID?
    /// The security key a passkey login was made with (instead of a device).
    public var securityKeyID: SecurityKeyID?
    public var redirectURI: String?
    public var codeChallenge: String?
    public var nonce: String?
    public var scope: String
    @JSONText public var factors: [FactorType]
    @JSONText public var confirmedAttributes: [String]
    public var authTime: Int64
    public var expiresAt: Int64
    public var usedAt: Int64?
    @IntegerFlag public var revoked: Bool

    /// A code's: the `traceparent` of the login it ends (`RequestTrace`).
    public var traceParent: String?

    public init(
        digest: String, kind: GrantKind, familyID: SessionID, tenantID: TenantID, serviceID: ServiceID, userID: UserID,
        activationID: ActivationID?, redirectURI: String?, codeChallenge: String?, nonce: String?, scope: String, factors: [FactorType],
        confirmedAttributes: [String], authTime: Int64, expiresAt: Int64, usedAt: Int64?, revoked: Bool,
        securityKeyID: SecurityKeyID? = nil
    ) {
        self.securityKeyID = securityKeyID
        self.digest = digest
        self.kind = kind
        self.familyID = familyID
        self.tenantID = tenantID
        self.serviceID = serviceID
        self.userID = userID
        self.activationID = activationID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.nonce = nonce
        self.scope = scope
        self.factors = factors
        self.confirmedAttributes = confirmedAttributes
        self.authTime = authTime
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.revoked = revoked
    }

    enum CodingKeys: String, CodingKey {
        case digest, kind, nonce, scope, factors, revoked
        case familyID = "family_id"
        case tenantID = "tenant_id"
        case serviceID = "service_id"
        case userID = "user_id"
        case activationID = "activation_id"
        case securityKeyID = "security_key_id"
        case redirectURI = "redirect_uri"
        case codeChallenge = "code_challenge"
        case confirmedAttributes = "confirmed_attributes"
        case authTime = "auth_time"
        case expiresAt = "expires_at"
        case usedAt = "used_at"
        case traceParent = "trace_parent"
    }
}

/// One attempt or process step of an activation, for its owner's history.
public struct HistoryRecord: Codable, Sendable {
    public var id: String
    public var tenantID: TenantID
    public var activationID: ActivationID
    public var userID: UserID?
    public var requestID: RequestID
    public var service: String?
    public var purpose: AuthenticationPurpose
    public var outcome: AttemptOutcome
    @JSONText public var factors: [FactorType]
    public var at: Int64
    /// Its place in the history feed (commit order), once the feed has numbered it.
    public var seq: Int64?
    /// Where the request that wrote it came from (`RequestOrigin`); `requestID` is the login's.
    public var sourceAddress: String?
    public var userAgent: String?
    public var httpRequestID: String?

    /// `origin` is the request being served unless given.
    public init(
        id: String, tenantID: TenantID, activationID: ActivationID, userID: UserID?, requestID: RequestID, service: String?,
        purpose: AuthenticationPurpose, outcome: AttemptOutcome, factors: [FactorType], at: Int64,
        origin: RequestOrigin? = RequestOrigin.current
    ) {
        self.id = id
        self.tenantID = tenantID
        self.activationID = activationID
        self.userID = userID
        self.requestID = requestID
        self.service = service
        self.purpose = purpose
        self.outcome = outcome
        self.factors = factors
        self.at = at
        self.sourceAddress = origin?.address
        self.userAgent = origin?.userAgent
        self.httpRequestID = origin?.requestID
    }

    enum CodingKeys: String, CodingKey {
        case id, service, purpose, outcome, factors, at, seq
        case tenantID = "tenant_id"
        case activationID = "activation_id"
        case userID = "user_id"
        case requestID = "request_id"
        case sourceAddress = "source_address"
        case userAgent = "user_agent"
        case httpRequestID = "http_request_id"
    }
}

/// One administrative or account change: who did what to what, when.
public struct AuditRecord: Codable, Sendable {
    public var id: String
    public var tenantID: TenantID?
    /// `admin`, or `activation:{id}` for a change a device made.
    public var actor: String
    public var action: String
    public var target: String?
    /// A JSON object with the change's particulars (never a secret).
    @JSONText public var details: [String: String]
    public var at: Int64
    /// Its place in the audit feed (commit order), once the feed has numbered it.
    public var seq: Int64?
    /// Where the request that made the change came from (`RequestOrigin`).
    public var sourceAddress: String?
    public var userAgent: String?
    public var httpRequestID: String?

    /// `origin` is the request being served unless given.
    public init(
        id: String, tenantID: TenantID?, actor: String, action: String, target: String?, details: [String: String], at: Int64,
        origin: RequestOrigin? = RequestOrigin.current
    ) {
        self.id = id
        self.tenantID = tenantID
        self.actor = actor
        self.action = action
        self.target = target
        self.details = details
        self.at = at
        self.sourceAddress = origin?.address
        self.userAgent = origin?.userAgent
        self.httpRequestID = origin?.requestID
    }

    enum CodingKeys: String, CodingKey {
        case id, actor, action, target, details, at, seq
        case tenantID = "tenant_id"
        case sourceAddress = "source_address"
        case userAgent = "user_agent"
        case httpRequestID = "http_request_id"
    }
}

/// A device's push registration: the wake-up channel (`apns` or `webhook`) and its token.
public struct PushTargetRecord: Codable, Sendable {
    public var activationID: ActivationID
    public var tenantID: TenantID
    public var kind: String
    public var token: String
    public var createdAt: Int64

    public init(activationID: ActivationID, tenantID: TenantID, kind: String, token: String, createdAt: Int64) {
        self.activationID = activationID
        self.tenantID = tenantID
        self.kind = kind
        self.token = token
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case kind, token
        case activationID = "activation_id"
        case tenantID = "tenant_id"
        case createdAt = "created_at"
    }
}

/// A session: what one login gave one service, kept alive by rotating refresh tokens.
/// It ends at `expiresAt`, after `idleLifetime` seconds without a refresh, or when
/// something it stands on goes (`endedAt`, `endReason`).
public struct SessionRecord: Codable, Sendable {
    public var id: SessionID
    public var tenantID: TenantID
    public var serviceID: ServiceID
    public var userID: UserID
    /// The device whose login started it; nil only for sessions from before devices were recorded.
    public var activationID: ActivationID?
    /// The security key of a passkey login: removing the key ends the session.
    public var securityKeyID: SecurityKeyID?
    @JSONText public var factors: [FactorType]
    @JSONText public var confirmedAttributes: [String]
    public var authTime: Int64
    public var createdAt: Int64
    public var lastRefreshedAt: Int64
    public var expiresAt: Int64
    public var idleLifetime: Int64
    public var endedAt: Int64?
    public var endReason: SessionEndReason?
    /// The JWK thumbprint a public client's DPoP-bound session is bound to (RFC 9449 §5).
    public var dpopJKT: String? = nil

    public init(
        id: SessionID, tenantID: TenantID, serviceID: ServiceID, userID: UserID, activationID: ActivationID?, factors: [FactorType],
        confirmedAttributes: [String], authTime: Int64, createdAt: Int64, expiresAt: Int64, idleLifetime: Int64
    ) {
        self.id = id
        self.tenantID = tenantID
        self.serviceID = serviceID
        self.userID = userID
        self.activationID = activationID
        self.factors = factors
        self.confirmedAttributes = confirmedAttributes
        self.authTime = authTime
        self.createdAt = createdAt
        self.lastRefreshedAt = createdAt
        self.expiresAt = expiresAt
        self.idleLifetime = idleLifetime
    }

    /// Live at `now`: not ended, not past its lifetime, refreshed within its idle lifetime.
    public func isLive(at now: Int64) -> Bool {
        endedAt == nil && now < expiresAt && now < lastRefreshedAt + idleLifetime
    }

    enum CodingKeys: String, CodingKey {
        case id, factors
        case tenantID = "tenant_id"
        case serviceID = "service_id"
        case userID = "user_id"
        case activationID = "activation_id"
        case securityKeyID = "security_key_id"
        case confirmedAttributes = "confirmed_attributes"
        case authTime = "auth_time"
        case createdAt = "created_at"
        case lastRefreshedAt = "last_refreshed_at"
        case expiresAt = "expires_at"
        case idleLifetime = "idle_lifetime"
        case endedAt = "ended_at"
        case endReason = "end_reason"
        case dpopJKT = "dpop_jkt"
    }
}

/// An admin API key: its digest (the key itself is shown once), role and scope.
public struct AdminKeyRecord: Codable, Sendable {
    public var id: String
    public var name: String
    public var digest: String
    public var role: AdminRole
    /// The one tenant the key may reach; nil: every tenant.
    public var tenantID: TenantID?
    public var createdAt: Int64
    public var revokedAt: Int64?

    public init(id: String, name: String, digest: String, role: AdminRole, tenantID: TenantID?, createdAt: Int64) {
        self.id = id
        self.name = name
        self.digest = digest
        self.role = role
        self.tenantID = tenantID
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, digest, role
        case tenantID = "tenant_id"
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }
}
