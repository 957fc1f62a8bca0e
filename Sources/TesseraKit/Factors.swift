import Foundation
import TesseraCore

/// A factor supplied to `AuthenticationUserInformation.sign(factor:)`.
public protocol AuthenticationFactor: Sendable {
    var type: FactorType { get }
}

/// Possession of this installation's device key.
public struct DeviceFactor: AuthenticationFactor {
    public var type: FactorType { .device }
    public init() {}
}

/// The user's PIN. It is checked by the server only: a wrong PIN is noticed when the
/// attempt is finished, as a lockout result.
public struct PinFactor: AuthenticationFactor {
    public var type: FactorType { .pin }
    let pin: String
    public init(_ pin: String) { self.pin = pin }
}

/// Proof that the platform's biometrics released the biometric key. Create it with
/// `Authenticator.biometricFactor(for:reason:)`, which fails with
/// `TesseraKitError.biometricsChanged` when the enrolled biometrics changed.
public struct BiometricFactor: AuthenticationFactor {
    public var type: FactorType { .biometric }
    let activationID: ActivationID
    init(activationID: ActivationID) { self.activationID = activationID }
}

/// A TOTP code (RFC 6238) from the authenticator app the secret was enrolled in.
public struct OtpFactor: AuthenticationFactor {
    public var type: FactorType { .otp }
    let code: String
    public init(code: String) { self.code = code }
}

/// A claimed authentication request, to be confirmed and signed by the user.
public struct AuthenticationUserInformation: Sendable {
    public let requestID: RequestID
    public let purpose: AuthenticationPurpose
    /// The service of a login; nil for an account process.
    public let service: ServiceInformation?
    /// What an account process will do (the factor to add, the user to merge, the device to remove).
    public let process: ProcessDescription?
    public let requestedAttributes: [RequestedAttribute]
    /// The text of a service's backchannel (push) request: show it, so the user can
    /// check it matches what the service displays.
    public let bindingMessage: String?
    /// Alternatives of factor combinations: supply every factor of one of them.
    /// Filtered to what this activation has enrolled, or the whole policy if nothing fits.
    public let requestedAuthenticators: [[FactorType]]
    public let expiresAt: Date
    public let activation: Activation
    /// Where the browser that started this login is (address, network, browser, time):
    /// show it, so the user can deny a login someone else started with a copied QR code.
    public let origin: BrowserOrigin?
    /// Number matching: show these and let the user pick the one the sign-in page shows
    /// (`pickNumber(_:)`); empty when the service does not ask for it.
    public let numberChoices: [String]
    /// The number the user picked.
    public private(set) var pickedNumber: String?
    let challenge: Challenge
    let audience: String
    /// Started by `fetchInAppAuthenticationInitializationData`: ends in `serviceLogin`.
    var inApp = false

    /// The attributes the user agrees to release; all requested ones unless changed.
    public var confirmedAttributes: Set<String>
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
    public mutating func sign(factor: some AuthenticationFactor) throws {
        guard requestedAuthenticators.contains(where: { $0.contains(factor.type) }) else {
            throw TesseraKitError.factorsDoNotMatchPolicy("the service does not ask for the \(factor.type.rawValue) factor")
        }
        factors.removeAll { $0.type == factor.type }
        factors.append(factor)
    }

    /// Drops all supplied factors (after a lockout result they must be supplied again).
    public mutating func clearFactors() { factors.removeAll() }
}
