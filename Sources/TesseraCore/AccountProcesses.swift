import Foundation

// Account processes on the wire: an authentication the device starts for a purpose,
// finished like a login, then completed with the object the result carried.
// docs/PROTOCOL.md has the exchanges.

/// `POST {issuer}/device/processes`: starts an account process for the calling activation.
public struct ProcessStartRequest: Codable, Sendable {
    public let purpose: AuthenticationPurpose
    /// For `add_factor`: the factor to enrol (`biometric` or `otp`).
    public let factor: FactorType?
    /// For `merge`: the invitation's code.
    public let code: String?
    /// For `unregister_device`: the activation to remove.
    public let target: ActivationID?

    public init(purpose: AuthenticationPurpose, factor: FactorType? = nil, code: String? = nil, target: ActivationID? = nil) {
        self.purpose = purpose
        self.factor = factor
        self.code = code
        self.target = target
    }
}

/// What an account process is about, shown to the user before they approve it.
public struct ProcessDescription: Codable, Hashable, Sendable {
    public let factor: FactorType?
    /// For `merge`: the invited user.
    public let username: String?
    /// For `unregister_device`: the activation to remove, and its alias.
    public let target: ActivationID?
    public let targetAlias: String?

    public init(factor: FactorType? = nil, username: String? = nil, target: ActivationID? = nil, targetAlias: String? = nil) {
        self.factor = factor
        self.username = username
        self.target = target
        self.targetAlias = targetAlias
    }

    enum CodingKeys: String, CodingKey {
        case factor, username, target
        case targetAlias = "target_alias"
    }
}

/// The approval of an account process: the device completes it with this before
/// `expiresAt`, once.
public struct ProcessGrant: Codable, Hashable, Sendable {
    public let requestID: RequestID
    public let purpose: AuthenticationPurpose
    public let expiresAt: Date
    /// For `change_pin` and `new_activation_data`: the salt the new PIN key is derived with.
    public let pinSalt: String?
    public let description: ProcessDescription?
    /// For `add_factor` `securitykey`: what to create the credential with (its challenge is
    /// `DeviceCeremony.registrationChallenge` of the process).
    public let securityKey: WebAuthnJSON.CreationOptions?

    public init(
        requestID: RequestID, purpose: AuthenticationPurpose, expiresAt: Date, pinSalt: String?, description: ProcessDescription?,
        securityKey: WebAuthnJSON.CreationOptions? = nil
    ) {
        self.securityKey = securityKey
        self.requestID = requestID
        self.purpose = purpose
        self.expiresAt = expiresAt
        self.pinSalt = pinSalt
        self.description = description
    }

    enum CodingKeys: String, CodingKey {
        case purpose, description
        case requestID = "request_id"
        case expiresAt = "expires_at"
        case pinSalt = "pin_salt"
        case securityKey = "security_key"
    }
}

/// The user an activation was merged into.
public struct MergeSummary: Codable, Hashable, Sendable {
    /// The invited user's identifier in the identity store (the `sub` of its tokens).
    public let idmIdentifier: UserID
    public let username: String

    public init(idmIdentifier: UserID, username: String) {
        self.idmIdentifier = idmIdentifier
        self.username = username
    }

    enum CodingKeys: String, CodingKey {
        case username
        case idmIdentifier = "idm_identifier"
    }
}

/// `POST {issuer}/device/processes/{request}/complete`: the new data of an approved process.
public struct ProcessCompletionRequest: Codable, Sendable {
    /// `add_factor` biometric: the new biometric public key and a `ProcessKeyClaims`
    /// JWS signed with it (proof of possession).
    public let biometricKey: PublicJWK?
    public let biometricRegistration: String?
    /// `add_factor` otp: the new TOTP secret (base64url, 16–64 bytes).
    public let totpSecret: String?
    /// `change_pin` and `new_activation_data`: PBKDF2(new PIN, `pin_salt`), base64url.
    public let pinKey: String?
    /// `new_activation_data`: the new device's alias, and whether this activation is to
    /// be removed once the new device has activated.
    public let alias: String?
    public let retire: Bool?
    /// `add_factor` securitykey: the new credential (WebAuthn's `RegistrationResponseJSON`)
    /// and the name to list it by.
    public let securityKey: WebAuthnJSON.RegistrationCredential?
    public let securityKeyName: String?
    /// `background_key`: the activation's new background key (it replaces any before it).
    public let backgroundKey: PublicJWK?

    public init(
        biometricKey: PublicJWK? = nil, biometricRegistration: String? = nil, totpSecret: String? = nil, pinKey: String? = nil,
        alias: String? = nil, retire: Bool? = nil, securityKey: WebAuthnJSON.RegistrationCredential? = nil, securityKeyName: String? = nil,
        backgroundKey: PublicJWK? = nil
    ) {
        self.backgroundKey = backgroundKey
        self.securityKey = securityKey
        self.securityKeyName = securityKeyName
        self.biometricKey = biometricKey
        self.biometricRegistration = biometricRegistration
        self.totpSecret = totpSecret
        self.pinKey = pinKey
        self.alias = alias
        self.retire = retire
    }

    enum CodingKeys: String, CodingKey {
        case alias, retire
        case biometricKey = "biometric_key"
        case biometricRegistration = "biometric_registration"
        case totpSecret = "totp_secret"
        case pinKey = "pin_key"
        case securityKey = "security_key"
        case securityKeyName = "security_key_name"
        case backgroundKey = "background_key"
    }
}

/// Signed by a newly enrolled key to prove the device holds it: names the process,
/// the activation and the audience.
public struct ProcessKeyClaims: Codable, Sendable {
    public let rid: String
    public let sub: String
    public let aud: String
    public let iat: Int
    public let exp: Int

    public init(rid: String, sub: String, aud: String, iat: Int, exp: Int) {
        self.rid = rid
        self.sub = sub
        self.aud = aud
        self.iat = iat
        self.exp = exp
    }
}

/// What completing a process produced.
public struct ProcessCompletion: Codable, Sendable {
    public let purpose: AuthenticationPurpose
    /// The activation's factors afterwards (`add_factor`).
    public let factors: [FactorType]?
    /// `new_activation_data`: the link for the new device and when it expires.
    public let url: String?
    public let expiresAt: Date?
    /// `list_devices`: the activations of the account.
    public let devices: [DeviceSummary]?
    /// `delete` and `unregister_device`: the activation that was removed.
    public let removed: ActivationID?
    /// `recovery_codes`: the ten new codes, shown this once (the server keeps digests).
    public let recoveryCodes: [String]?

    public init(
        purpose: AuthenticationPurpose, factors: [FactorType]? = nil, url: String? = nil, expiresAt: Date? = nil,
        devices: [DeviceSummary]? = nil, removed: ActivationID? = nil, recoveryCodes: [String]? = nil
    ) {
        self.recoveryCodes = recoveryCodes
        self.purpose = purpose
        self.factors = factors
        self.url = url
        self.expiresAt = expiresAt
        self.devices = devices
        self.removed = removed
    }

    enum CodingKeys: String, CodingKey {
        case purpose, factors, url, devices, removed
        case expiresAt = "expires_at"
        case recoveryCodes = "recovery_codes"
    }
}

/// `POST {issuer}/recover`: a user who lost every device asks for a new activation with a
/// recovery code.
public struct RecoveryRequest: Codable, Sendable {
    public let username: String
    public let code: String

    public init(username: String, code: String) {
        self.username = username
        self.code = code
    }
}

/// Where a recovery stands: the activation link went by e-mail (`emailed`), an operator
/// is to approve it (`awaiting_approval`, with the handle to ask again with), the link is
/// here (`approved`, once), or it ended (`expired`, `used`).
public struct RecoveryStatus: Codable, Sendable, Equatable {
    public let recoveryID: String
    public let status: String
    /// The secret to ask for the outcome with (`POST {issuer}/recover/{id}`), in the first answer only.
    public let handle: String?
    /// The activation link, once approved (given once).
    public let url: String?
    public let expiresAt: Date

    public init(recoveryID: String, status: String, handle: String? = nil, url: String? = nil, expiresAt: Date) {
        self.recoveryID = recoveryID
        self.status = status
        self.handle = handle
        self.url = url
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case status, handle, url
        case recoveryID = "recovery_id"
        case expiresAt = "expires_at"
    }
}

/// One activation of an account, as its owner sees it.
public struct DeviceSummary: Codable, Hashable, Sendable {
    public let activationID: ActivationID
    public let alias: String?
    public let factors: [FactorType]
    public let createdAt: Date
    public let lastUsedAt: Date?
    /// True for the activation that asked.
    public let current: Bool

    public init(activationID: ActivationID, alias: String?, factors: [FactorType], createdAt: Date, lastUsedAt: Date?, current: Bool) {
        self.activationID = activationID
        self.alias = alias
        self.factors = factors
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.current = current
    }

    enum CodingKeys: String, CodingKey {
        case alias, factors, current
        case activationID = "activation_id"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}

/// One entry of an activation's authentication history.
public struct HistoryEntry: Codable, Hashable, Sendable {
    public let requestID: RequestID
    /// The service's name for a login; nil for an account process.
    public let service: String?
    public let purpose: AuthenticationPurpose
    /// `approved`, `failed`, `denied`, `locked` or `completed`.
    public let outcome: String
    public let factors: [FactorType]
    public let username: String?
    public let at: Date

    public init(
        requestID: RequestID, service: String?, purpose: AuthenticationPurpose, outcome: String, factors: [FactorType],
        username: String?, at: Date
    ) {
        self.requestID = requestID
        self.service = service
        self.purpose = purpose
        self.outcome = outcome
        self.factors = factors
        self.username = username
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case service, purpose, outcome, factors, username, at
        case requestID = "request_id"
    }
}

/// `GET {issuer}/device/history`.
public struct HistoryResponse: Codable, Sendable {
    public let entries: [HistoryEntry]
    public init(entries: [HistoryEntry]) { self.entries = entries }
}

/// `POST {issuer}/device/authentications/{request}/claim`: which of the activation's
/// users signs in (an activation merged with an invitation stands for several).
public struct ClaimRequest: Codable, Sendable {
    public let userID: UserID?
    public init(userID: UserID?) { self.userID = userID }
    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
    }
}
