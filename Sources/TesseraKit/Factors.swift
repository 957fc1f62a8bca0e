import Foundation
import TesseraCore

/// A factor supplied to `AuthenticationUserInformation.sign(factor:)`.
public protocol AuthenticationFactor: Sendable {
    /// Which factor this is; `sign(factor:)` checks it against the requested combinations.
    var type: FactorType { get }
}

/// Possession of this installation's device key.
public struct DeviceFactor: AuthenticationFactor {
    /// Always `.device`.
    public var type: FactorType { .device }
    /// The device factor. It carries nothing: the device key signs the proof of every
    /// request when it is finished.
    public init() {}
}

/// The user's PIN. It is checked by the server only: a wrong PIN is noticed when the
/// attempt is finished, as a lockout result.
public struct PinFactor: AuthenticationFactor {
    /// Always `.pin`.
    public var type: FactorType { .pin }
    let pin: String
    /// The PIN the user typed. It leaves the device only as a proof bound to this request's
    /// challenge, never in clear.
    public init(_ pin: String) { self.pin = pin }
}

/// Proof that the platform's biometrics released the biometric key. Create it with
/// `Authenticator.biometricFactor(for:reason:)`, which fails with
/// `TesseraKitError.biometricsChanged` when the enrolled biometrics changed.
public struct BiometricFactor: AuthenticationFactor {
    /// Always `.biometric`.
    public var type: FactorType { .biometric }
    let activationID: ActivationID
    /// The check that made the factor: the biometric key signs under it, so a login
    /// shows one biometric prompt.
    let evaluation: BiometricEvaluation?
    init(activationID: ActivationID, evaluation: BiometricEvaluation? = nil) {
        self.activationID = activationID
        self.evaluation = evaluation
    }
}

/// A TOTP code (RFC 6238) from the authenticator app the secret was enrolled in.
public struct OtpFactor: AuthenticationFactor {
    /// Always `.otp`.
    public var type: FactorType { .otp }
    let code: String
    /// The code the user read from their authenticator app; the server checks it.
    public init(code: String) { self.code = code }
}

/// A claimed authentication request, to be confirmed and signed by the user.
public struct AuthenticationUserInformation: Sendable {
    /// The request's id (for a pending request, the service's `auth_req_id`).
    public let requestID: RequestID
    /// A login, or the account process this request approves.
    public let purpose: AuthenticationPurpose
    /// The service of a login; nil for an account process.
    public let service: ServiceInformation?
    /// What an account process will do (the factor to add, the user to merge, the device to remove).
    public let process: ProcessDescription?
    /// The attributes the service asks for, with the user's values: show them, and remove
    /// any the user declines from `confirmedAttributes`.
    public let requestedAttributes: [RequestedAttribute]
    /// The text of a service's backchannel (push) request: show it, so the user can
    /// check it matches what the service displays.
    public let bindingMessage: String?
    /// Alternatives of factor combinations: supply every factor of one of them.
    /// Filtered to what this activation has enrolled, or the whole policy if nothing fits.
    public let requestedAuthenticators: [[FactorType]]
    /// Sign and finish before this time; the server refuses the request afterwards.
    public let expiresAt: Date
    /// The activation that claimed the request and signs it.
    public let activation: Activation
    /// Where the browser that started this login is (address, network, browser, time):
    /// show it, so the user can deny a login someone else started with a copied QR code.
    public let origin: BrowserOrigin?
    /// Number matching: show these and let the user pick the one the sign-in page shows
    /// (`pickNumber(_:)`); empty when the service does not ask for it.
    public let numberChoices: [String]
    /// The number the user picked.
    public private(set) var pickedNumber: String?
    /// For the `securitykey` factor: the enrolled credential and the relying party.
    let securityKey: SecurityKeyRequest?
    let challenge: Challenge
    let audience: String
    /// Started by `fetchInAppAuthenticationInitializationData`: ends in `serviceLogin`.
    var inApp = false

    /// The attributes the user agrees to release; all requested ones unless changed.
    public var confirmedAttributes: Set<String>
    /// The factors supplied so far with `sign(factor:)`.
    public private(set) var factors: [any AuthenticationFactor] = []

    init(_ wire: AuthenticationChallenge, activation: Activation) {
        requestID = wire.requestID
        purpose = wire.purpose
        service = wire.service
        process = wire.process
        requestedAttributes = wire.requestedAttributes
        bindingMessage = wire.bindingMessage
        requestedAuthenticators = wire.requestedAuthenticators.map(\.factors)
        expiresAt = wire.expiresAt
        challenge = wire.challenge
        audience = wire.audience
        confirmedAttributes = Set(wire.requestedAttributes.map(\.name))
        origin = wire.origin
        numberChoices = wire.numberChoices
        securityKey = wire.securityKey
        self.activation = activation
    }

    /// Records the number the user picked among `numberChoices`; it is signed with the
    /// proof. A pick that is not the page's number cancels the login on the server.
    public mutating func pickNumber(_ number: String) throws {
        guard numberChoices.contains(number) else {
            throw TesseraKitError.numberNotPicked("\(number) is not one of the numbers offered (\(numberChoices.joined(separator: ", ")))")
        }
        pickedNumber = number
    }

    /// Adds a factor; it must belong to one of the requested combinations.
    ///
    /// A second factor of the same type replaces the first. Throws `factorsDoNotMatchPolicy`
    /// for a factor no combination asks for; a wrong PIN is noticed only by `finish`.
    ///
    /// ```swift
    /// for type in info.requestedAuthenticators.first ?? [] {
    ///     switch type {
    ///     case .device: try info.sign(factor: DeviceFactor())
    ///     case .pin: try info.sign(factor: PinFactor(await askForPIN()))
    ///     case .biometric: try info.sign(factor: try await authenticator.biometricFactor(for: info, reason: "Sign in"))
    ///     case .otp: try info.sign(factor: OtpFactor(code: await askForOTP()))
    ///     case .securitykey: try info.sign(factor: try await authenticator.securityKeyFactor(for: info, using: key))
    ///     case .federation: break   // a sign-in at another provider: never asked of a device
    ///     }
    /// }
    /// ```
    public mutating func sign(factor: some AuthenticationFactor) throws {
        guard requestedAuthenticators.contains(where: { $0.contains(factor.type) }) else {
            throw TesseraKitError.factorsDoNotMatchPolicy("the service does not ask for the \(factor.type.rawValue) factor")
        }
        factors.removeAll { $0.type == factor.type }
        factors.append(factor)
    }

    /// Drops all supplied factors, to start over with another combination. (The fresh
    /// request a `.lockout` result carries has none to begin with.)
    public mutating func clearFactors() { factors.removeAll() }
}
