import Foundation

// The wire protocol between TesseraKit and the server. Every device-side type is
// plain Codable data; the server and the SDK agree on these and nothing else.
// docs/PROTOCOL.md describes the exchanges.

/// Why an authentication request exists; decides the result case of `finish`.
public enum AuthenticationPurpose: String, Codable, Sendable, CaseIterable {
    /// A browser (OIDC) login started by a QR code or link.
    case login
    /// Enrol a further factor, or re-enrol biometrics after the platform's set changed.
    case addFactor = "add_factor"
    case changePin = "change_pin"
    /// Activation data (a link) for moving to a new device.
    case requestNewActivationData = "new_activation_data"
    /// Remove this activation.
    case delete
    /// Join an invitation to this activation instead of creating a second one.
    case merge
    /// List the activations of my account.
    case listDevices = "list_devices"
    /// Remove another activation of my account.
    case unregisterDevice = "unregister_device"
    /// Ten new single-use recovery codes for the account (the old ones stop working).
    case recoveryCodes = "recovery_codes"
    /// Register (or replace) the activation's background key, which only reads pending
    /// requests and their state, so that an app can look while the phone is locked.
    case backgroundKey = "background_key"

    /// Account processes are started by the device itself, not by a service.
    public var isAccountProcess: Bool { self != .login }
}

/// Where a request stands, as the browser page and the device see it.
public enum AuthenticationStatus: String, Codable, Sendable {
    case pending
    case claimed
    case approved
    case completed
    case denied
    case expired
    case locked
}

/// `POST {issuer}/device/activation/start`: look at an invitation before using it.
public struct ActivationStartRequest: Codable, Sendable {
    public let code: String
    public init(code: String) { self.code = code }
}

public struct ActivationOffer: Codable, Sendable {
    public let issuer: String
    public let tenant: String
    public let username: String
    /// The per-activation salt for the PIN key derivation (base64url).
    public let pinSalt: String
    public let expiresAt: Date
    /// False for activation data made for a new device: it cannot be merged into an
    /// existing activation.
    public let mergeable: Bool?

    public init(issuer: String, tenant: String, username: String, pinSalt: String, expiresAt: Date, mergeable: Bool? = nil) {
        self.mergeable = mergeable
        self.issuer = issuer
        self.tenant = tenant
        self.username = username
        self.pinSalt = pinSalt
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case issuer, tenant, username, mergeable
        case pinSalt = "pin_salt"
        case expiresAt = "expires_at"
    }
}

/// The claims of the registration JWS, signed by the new device key (and, when a
/// biometric key is enrolled, signed again by that key).
public struct ActivationRegistration: Codable, Sendable {
    public let code: String
    public let aud: String
    public let deviceKey: PublicJWK
    public let biometricKey: PublicJWK?
    /// A third key that signs only the reading of pending requests and their state
    /// (`tessera-background+jwt` tokens), kept where the app can use it while the phone
    /// is locked. The device key vouches for it by signing this registration.
    public let backgroundKey: PublicJWK?
    /// `K = PBKDF2(PIN, pin_salt)`, base64url; sent once, sealed by the server.
    public let pinKey: String
    /// A TOTP secret (base64url) when the device enrols the OTP factor.
    public let totpSecret: String?
    public let alias: String?
    public let iat: Int
    public let exp: Int

    public init(
        code: String, aud: String, deviceKey: PublicJWK, biometricKey: PublicJWK?, pinKey: String,
        totpSecret: String?, alias: String?, iat: Int, exp: Int, backgroundKey: PublicJWK? = nil
    ) {
        self.code = code
        self.aud = aud
        self.deviceKey = deviceKey
        self.biometricKey = biometricKey
        self.backgroundKey = backgroundKey
        self.pinKey = pinKey
        self.totpSecret = totpSecret
        self.alias = alias
        self.iat = iat
        self.exp = exp
    }

    enum CodingKeys: String, CodingKey {
        case code, aud, alias, iat, exp
        case deviceKey = "device_key"
        case biometricKey = "biometric_key"
        case backgroundKey = "background_key"
        case pinKey = "pin_key"
        case totpSecret = "totp_secret"
    }
}


/// `POST {issuer}/device/activation/complete`.
public struct ActivationCompleteRequest: Codable, Sendable {
    public let registration: String
    public let biometricRegistration: String?
    public init(registration: String, biometricRegistration: String?) {
        self.registration = registration
        self.biometricRegistration = biometricRegistration
    }
    enum CodingKeys: String, CodingKey {
        case registration
        case biometricRegistration = "biometric_registration"
    }
}

public struct ActivationReceipt: Codable, Sendable {
    public let activationID: ActivationID
    public let issuer: String
    public let tenant: String
    public let userID: UserID
    public let username: String
    public let factors: [FactorType]
    /// Whether the server registered the background key the registration carried (a
    /// server before background keys does not say so, and the device then keeps none).
    public let backgroundKey: Bool?

    public init(
        activationID: ActivationID, issuer: String, tenant: String, userID: UserID, username: String,
        factors: [FactorType], backgroundKey: Bool? = nil
    ) {
        self.backgroundKey = backgroundKey
        self.activationID = activationID
        self.issuer = issuer
        self.tenant = tenant
        self.userID = userID
        self.username = username
        self.factors = factors
    }

    enum CodingKeys: String, CodingKey {
        case issuer, tenant, username, factors
        case activationID = "activation_id"
        case userID = "user_id"
        case backgroundKey = "background_key"
    }
}

/// The claims of the short-lived token a device puts in `Authorization: Tessera-Device …`.
public struct DeviceRequestClaims: Codable, Sendable {
    /// The activation making the call.
    public let sub: String
    public let aud: String
    /// HTTP method and path the token is good for.
    public let htm: String
    public let htu: String
    public let iat: Int
    public let exp: Int
    public let jti: String

    public init(sub: String, aud: String, htm: String, htu: String, iat: Int, exp: Int, jti: String) {
        self.sub = sub
        self.aud = aud
        self.htm = htm
        self.htu = htu
        self.iat = iat
        self.exp = exp
        self.jti = jti
    }
}

public struct ServiceInformation: Codable, Hashable, Sendable {
    public let clientID: ClientID
    public let name: String
    public init(clientID: ClientID, name: String) {
        self.clientID = clientID
        self.name = name
    }
    enum CodingKeys: String, CodingKey {
        case name
        case clientID = "client_id"
    }
}

public struct RequestedAttribute: Codable, Hashable, Sendable {
    public let name: String
    /// The user's value, shown so the user knows what the service will receive.
    public let value: String?
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}

/// What a claimed request tells the device (the wire form of `AuthenticationUserInformation`).
public struct AuthenticationChallenge: Codable, Sendable {
    public let requestID: RequestID
    public let purpose: AuthenticationPurpose
    public let challenge: Challenge
    public let audience: String
    public let expiresAt: Date
    /// The service a login is for; nil for an account process.
    public let service: ServiceInformation?
    /// What an account process will do, for the user to read before approving.
    public let process: ProcessDescription?
    public let requestedAttributes: [RequestedAttribute]
    public let requestedAuthenticators: [FactorCombination]
    /// The text a service's backchannel request carries, to compare with what the service shows.
    public let bindingMessage: String?
    /// Where the browser that started a login is: for the user to refuse a login they
    /// did not start (a QR code shown on someone else's page).
    public let origin: BrowserOrigin?
    /// Number matching: the login page shows one of these; the user picks it on the
    /// device, and the pick is signed with the proof (`match`). Empty when not asked.
    public let numberChoices: [String]
    /// For the `securitykey` factor: the activation's security key, and how to ask it.
    public let securityKey: SecurityKeyRequest?

    public init(
        requestID: RequestID, purpose: AuthenticationPurpose, challenge: Challenge, audience: String,
        expiresAt: Date, service: ServiceInformation?, requestedAttributes: [RequestedAttribute],
        requestedAuthenticators: [FactorCombination], process: ProcessDescription? = nil, bindingMessage: String? = nil,
        origin: BrowserOrigin? = nil, numberChoices: [String] = [], securityKey: SecurityKeyRequest? = nil
    ) {
        self.securityKey = securityKey
        self.origin = origin
        self.numberChoices = numberChoices
        self.process = process
        self.bindingMessage = bindingMessage
        self.requestID = requestID
        self.purpose = purpose
        self.challenge = challenge
        self.audience = audience
        self.expiresAt = expiresAt
        self.service = service
        self.requestedAttributes = requestedAttributes
        self.requestedAuthenticators = requestedAuthenticators
    }

    enum CodingKeys: String, CodingKey {
        case purpose, challenge, audience, service, process
        case requestID = "request_id"
        case expiresAt = "expires_at"
        case bindingMessage = "binding_message"
        case requestedAttributes = "requested_attributes"
        case requestedAuthenticators = "requested_authenticators"
        case origin
        case numberChoices = "number_choices"
        case securityKey = "security_key"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        requestID = try c.decode(RequestID.self, forKey: .requestID)
        purpose = try c.decode(AuthenticationPurpose.self, forKey: .purpose)
        challenge = try c.decode(Challenge.self, forKey: .challenge)
        audience = try c.decode(String.self, forKey: .audience)
        expiresAt = try c.decode(Date.self, forKey: .expiresAt)
        service = try c.decodeIfPresent(ServiceInformation.self, forKey: .service)
        process = try c.decodeIfPresent(ProcessDescription.self, forKey: .process)
        requestedAttributes = try c.decode([RequestedAttribute].self, forKey: .requestedAttributes)
        requestedAuthenticators = try c.decode([FactorCombination].self, forKey: .requestedAuthenticators)
        bindingMessage = try c.decodeIfPresent(String.self, forKey: .bindingMessage)
        origin = try c.decodeIfPresent(BrowserOrigin.self, forKey: .origin)
        numberChoices = try c.decodeIfPresent([String].self, forKey: .numberChoices) ?? []
        securityKey = try c.decodeIfPresent(SecurityKeyRequest.self, forKey: .securityKey)
    }
}

/// What a device needs to ask its security key for the `securitykey` factor: the relying
/// party, the credential enrolled for the activation, and whether the key must verify
/// the user. The WebAuthn challenge is not sent: it is derived from the request
/// (`DeviceCeremony.assertionChallenge`).
public struct SecurityKeyRequest: Codable, Sendable, Hashable {
    public let rpID: String
    /// The enrolled credential's id, base64url.
    public let credentialID: String
    public let transports: [String]
    public let userVerification: String

    public init(rpID: String, credentialID: String, transports: [String], userVerification: String) {
        self.rpID = rpID
        self.credentialID = credentialID
        self.transports = transports
        self.userVerification = userVerification
    }

    enum CodingKeys: String, CodingKey {
        case transports
        case rpID = "rp_id"
        case credentialID = "credential_id"
        case userVerification = "user_verification"
    }
}

/// The browser a login was started from, as the server saw it: the device shows it so
/// that the user can refuse a login someone else started.
public struct BrowserOrigin: Codable, Sendable, Hashable {
    /// The source address (behind a trusted proxy, the one it forwarded).
    public let address: String
    /// The address's network: its /24 (IPv4) or /48 (IPv6), a coarse "where".
    public let network: String
    /// The browser's `User-Agent`, cut to 256 characters.
    public let userAgent: String?
    /// When the browser started the login.
    public let startedAt: Date

    public init(address: String, network: String, userAgent: String?, startedAt: Date) {
        self.address = address
        self.network = network
        self.userAgent = userAgent
        self.startedAt = startedAt
    }

    enum CodingKeys: String, CodingKey {
        case address, network
        case userAgent = "user_agent"
        case startedAt = "started_at"
    }

    /// The /24 of an IPv4 address or the /48 of an IPv6 one (`ipv6PrefixGroups` 16-bit
    /// groups); the address itself otherwise.
    public static func network(of address: String, ipv6PrefixGroups: Int = 3) -> String {
        let quads = address.split(separator: ".", omittingEmptySubsequences: false)
        if quads.count == 4, quads.allSatisfy({ UInt8($0) != nil }) {
            return quads.prefix(3).joined(separator: ".") + ".0/24"
        }
        if address.contains(":") {
            var groups = address.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            if let gap = groups.firstIndex(of: ""), address.contains("::") {
                let present = groups.filter { !$0.isEmpty }
                groups = Array(groups[..<gap]).filter { !$0.isEmpty } + Array(repeating: "0", count: max(0, 8 - present.count))
                    + Array(groups[(gap + 1)...]).filter { !$0.isEmpty }
            }
            return groups.prefix(ipv6PrefixGroups).joined(separator: ":") + "::/\(ipv6PrefixGroups * 16)"
        }
        return address
    }
}

/// The claims of the one signed submission that finishes an attempt.
public struct AuthenticationProofClaims: Codable, Sendable {
    public let rid: String
    public let chal: String
    public let aud: String
    public let sub: String
    public let comb: [FactorType]
    /// Attribute names the user agreed to release.
    public let attrs: [String]
    /// `HMAC-SHA256(K, rid ‖ 0 ‖ chal)`, base64url.
    public let pin: String?
    public let otp: String?
    /// The number the user picked among `number_choices` (number matching).
    public let match: String?
    /// The `securitykey` factor: the security key's assertion over the request's derived challenge.
    public let sk: WebAuthnJSON.AssertionCredential?
    public let iat: Int
    public let exp: Int
    public let jti: String

    public init(
        rid: String, chal: String, aud: String, sub: String, comb: [FactorType], attrs: [String], pin: String?,
        otp: String?, match: String? = nil, sk: WebAuthnJSON.AssertionCredential? = nil, iat: Int, exp: Int, jti: String
    ) {
        self.sk = sk
        self.match = match
        self.rid = rid
        self.chal = chal
        self.aud = aud
        self.sub = sub
        self.comb = comb
        self.attrs = attrs
        self.pin = pin
        self.otp = otp
        self.iat = iat
        self.exp = exp
        self.jti = jti
    }
}

/// `POST {issuer}/device/authentications/{id}/finish`.
public struct FinishRequest: Codable, Sendable {
    public let proof: String
    /// The same payload signed by the biometric key, when the combination has `biometric`.
    public let biometricProof: String?
    public init(proof: String, biometricProof: String?) {
        self.proof = proof
        self.biometricProof = biometricProof
    }
    enum CodingKeys: String, CodingKey {
        case proof
        case biometricProof = "biometric_proof"
    }
}

public enum FinishOutcome: String, Codable, Sendable {
    case userLogin
    /// An in-app login was approved: the app fetches its authorization code next.
    case serviceLogin
    case lockout
    case apiAccessAddFactor
    case apiAccessChangePin
    case apiAccessRequestNewActivationData
    case apiAccessDelete
    case apiAccessMergeComplete
    case apiAccessListDevices
    case apiAccessUnregisterDevice
    case apiAccessRecoveryCodes
    case apiAccessBackgroundKey

    /// The result case an approved request of this purpose answers.
    public init(approved purpose: AuthenticationPurpose) {
        switch purpose {
        case .login: self = .userLogin
        case .addFactor: self = .apiAccessAddFactor
        case .changePin: self = .apiAccessChangePin
        case .requestNewActivationData: self = .apiAccessRequestNewActivationData
        case .delete: self = .apiAccessDelete
        case .merge: self = .apiAccessMergeComplete
        case .listDevices: self = .apiAccessListDevices
        case .unregisterDevice: self = .apiAccessUnregisterDevice
        case .recoveryCodes: self = .apiAccessRecoveryCodes
        case .backgroundKey: self = .apiAccessBackgroundKey
        }
    }
}

public struct LoginSummary: Codable, Sendable {
    public let service: ServiceInformation
    public let username: String
    public let factors: [FactorType]
    public let authenticatedAt: Date
    /// The service role the factors were used in, when the service has roles.
    public let role: String?
    /// The user as the service knows them (`sub`: the user's id, or a pairwise id).
    public let subject: String?
    /// The attributes the user confirmed to the service, with their values.
    public let attributes: [String: String]?
    /// For a backchannel request of a service that allows it: an ID token asserting this
    /// step-up, for the app to hand to its server (verifiable with the issuer's JWKS).
    public var identityToken: String?
    /// After a full login that started the activation's single sign-on session: the
    /// token that, with the device's signature, gets codes for the tenant's other
    /// services until `sso_expires_at` (`POST {issuer}/device/sso/code`).
    public let ssoToken: String?
    public let ssoExpiresAt: Date?

    public init(
        service: ServiceInformation, username: String, factors: [FactorType], authenticatedAt: Date, role: String? = nil,
        subject: String? = nil, attributes: [String: String]? = nil, identityToken: String? = nil, ssoToken: String? = nil,
        ssoExpiresAt: Date? = nil
    ) {
        self.ssoToken = ssoToken
        self.ssoExpiresAt = ssoExpiresAt
        self.service = service
        self.username = username
        self.factors = factors
        self.authenticatedAt = authenticatedAt
        self.role = role
        self.subject = subject
        self.attributes = attributes
        self.identityToken = identityToken
    }
    enum CodingKeys: String, CodingKey {
        case service, username, factors, role, subject, attributes
        case authenticatedAt = "authenticated_at"
        case identityToken = "identity_token"
        case ssoToken = "sso_token"
        case ssoExpiresAt = "sso_expires_at"
    }
}

public struct FinishResponse: Codable, Sendable {
    public let result: FinishOutcome
    public var login: LoginSummary?
    public let lockout: LockoutInformation?
    /// After a failed attempt: the request with a fresh challenge, to sign again after the wait.
    public let userInformation: AuthenticationChallenge?
    /// For an approved account process: what the device completes it with.
    public let process: ProcessGrant?
    /// For a merge: the user the activation now also stands for.
    public let merged: MergeSummary?

    public init(
        result: FinishOutcome, login: LoginSummary? = nil, lockout: LockoutInformation? = nil,
        userInformation: AuthenticationChallenge? = nil, process: ProcessGrant? = nil, merged: MergeSummary? = nil
    ) {
        self.result = result
        self.login = login
        self.lockout = lockout
        self.userInformation = userInformation
        self.process = process
        self.merged = merged
    }

    enum CodingKeys: String, CodingKey {
        case result, login, lockout, process, merged
        case userInformation = "user_information"
    }
}

/// Every error body: OAuth style, plus the lock when the error is a pending lockout.
public struct ErrorBody: Codable, Sendable {
    public let error: String
    public let errorDescription: String
    public let lockout: LockoutInformation?

    public init(error: String, errorDescription: String, lockout: LockoutInformation? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.lockout = lockout
    }

    enum CodingKeys: String, CodingKey {
        case error, lockout
        case errorDescription = "error_description"
    }
}

/// JSON coding shared by both ends: dates as seconds since 1970.
public enum WireCoding {
    /// Whether a JSON text holds a NUL: raw, or escaped as `\u0000`.
    public static func containsNUL(json data: Data) -> Bool {
        // On the bytes in place: each device call's JSON passes here, and iterating `Data`
        // byte by byte (and copying it into an array) was a visible part of a login's CPU.
        data.withUnsafeBytes { bytes in
            if bytes.contains(0) { return true }
            let escape = Array(#"\u0000"#.utf8)
            guard bytes.count >= escape.count else { return false }
            var start = 0
            while start <= bytes.count - escape.count {
                if bytes[start] == UInt8(ascii: "\\") {
                    var same = true
                    for offset in 1..<escape.count {
                        let byte = bytes[start + offset]
                        if (byte | ((byte >= 0x41 && byte <= 0x5A) ? 0x20 : 0)) != escape[offset] {
                            same = false
                            break
                        }
                    }
                    if same { return true }
                }
                start += 1
            }
            return false
        }
    }

    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}

/// An external identity provider a tenant's users may sign in with (federation), as
/// `{issuer}/directory/kk_apps` lists it under the names gematik's directory uses.
public struct KKApp: Codable, Sendable, Hashable {
    /// The provider's short name (in the login page's links).
    public let id: String
    /// What users see.
    public let name: String
    public let logoURI: String?

    public init(id: String, name: String, logoURI: String?) {
        self.id = id
        self.name = name
        self.logoURI = logoURI
    }

    enum CodingKeys: String, CodingKey {
        case id = "kk_app_id"
        case name = "kk_app_name"
        case logoURI = "logo_uri"
    }
}
