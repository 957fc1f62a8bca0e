import Foundation
import TesseraCore

/// Everything the SDK throws.
public enum TesseraKitError: Error, Sendable, CustomStringConvertible {
    /// The link is not an activation or authentication link this SDK understands.
    case invalidLink(String)
    /// No activation on this device belongs to the link's issuer (or to the named user).
    case noActivation(issuer: String)
    /// Several activations fit; name the user.
    case severalActivations(usernames: [String])
    /// A lock from earlier failed attempts is running: wait until `lockedUntil`, or for
    /// an administrator when it is permanent (the *pending* lockout).
    case pendingLockout(LockoutInformation)
    /// The platform's enrolled biometrics changed since enrolment: the biometric key is
    /// no longer usable; use another combination or enrol biometrics again.
    case biometricsChanged
    /// No biometrics on this device, none enrolled for the activation, or no
    /// `BiometricGate` given. (A user who cancels the prompt is `cancelled`.)
    case biometricsUnavailable
    /// The user cancelled: the biometric prompt, or the web login's sheet. Nothing was
    /// signed or sent; ask again only if the user asks to.
    case cancelled
    /// The signed factors do not form one of the requested combinations.
    case factorsDoNotMatchPolicy(String)
    /// The PIN does not meet the enrolment rules (4 to 64 characters).
    case unacceptablePIN
    /// The server refused the call; `error` is its OAuth-style code.
    case server(status: Int, error: String, description: String)
    /// No usable answer from the server: no connection, not HTTP, a body that does not decode,
    /// or an answer that does not fit the request asked.
    case transport(String)
    /// The key store failed, or lacks what the call needs (a key, a TOTP secret, the
    /// activation's record), or holds it damaged. `TokenManager.logout` also throws it
    /// when tokens of several services or issuers fit: name one.
    case keyStore(String)
    /// The device is locked, and the key or item the call needs can be used only while it
    /// is unlocked (a device or biometric key: approving needs the unlocked phone).
    case deviceLocked
    /// An approved process was handed to the completion of another purpose.
    case wrongProcess(String)
    /// The login asks for the number its page shows (number matching): call `pickNumber(_:)`.
    case numberNotPicked(String)
    /// No single sign-on session stands behind the call (none, expired, ended, replaced,
    /// or short of the service's policy): log in with factors.
    case singleSignOnUnavailable(String)
    /// The security key refused or could not answer (no credential, no user verification, already registered).
    case securityKey(String)

    /// A short English description for logs, not meant to be shown to users.
    public var description: String {
        switch self {
        case .invalidLink(let reason): "invalid link: \(reason)"
        case .noActivation(let issuer): "no activation on this device for \(issuer)"
        case .severalActivations(let names): "several activations fit (\(names.joined(separator: ", "))); choose a user"
        case .pendingLockout(let info):
            info.isPermanent ? "the activation is locked permanently" : "the activation is locked until \(info.lockedUntil.map { "\($0)" } ?? "later")"
        case .biometricsChanged: "the device's biometrics changed since enrolment; enrol biometrics again"
        case .biometricsUnavailable: "biometrics are not available"
        case .cancelled: "cancelled by the user"
        case .factorsDoNotMatchPolicy(let reason): reason
        case .unacceptablePIN: "a PIN has 4 to 64 characters"
        case .server(let status, let error, let description): "server error \(status) \(error): \(description)"
        case .transport(let reason): "network: \(reason)"
        case .keyStore(let reason): "key store: \(reason)"
        case .deviceLocked: "the device is locked"
        case .wrongProcess(let reason): reason
        case .numberNotPicked(let reason): "number matching: \(reason)"
        case .singleSignOnUnavailable(let reason): "single sign-on: \(reason)"
        case .securityKey(let reason): "security key: \(reason)"
        }
    }
}

/// Sentences an app may show its users (in English; an app with its own languages maps the
/// cases to its own words). `description` stays the developers' version.
extension TesseraKitError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .invalidLink: "This link cannot be used to sign in."
        case .noActivation: "This device is not set up for this service yet."
        case .severalActivations: "Several accounts on this device can sign in here. Choose one."
        case .pendingLockout(let lockout):
            lockout.isPermanent ? "This device is locked after too many wrong attempts." : "This device is locked for a while after wrong attempts."
        case .biometricsChanged: "The fingerprints or faces on this device changed since you set it up."
        case .biometricsUnavailable: "Biometrics cannot be used for this sign-in."
        case .cancelled: "Cancelled."
        case .factorsDoNotMatchPolicy: "This service asks for other ways to confirm it is you."
        case .unacceptablePIN: "A PIN has 4 to 64 characters."
        case .server: "The sign-in service refused the request."
        case .transport: "The sign-in service cannot be reached."
        case .keyStore: "This device's secure storage could not be used."
        case .deviceLocked: "Unlock this device to go on."
        case .wrongProcess: "This step belongs to another process."
        case .numberNotPicked: "Pick the number the sign-in page shows."
        case .singleSignOnUnavailable: "Sign in again to go on."
        case .securityKey: "The security key did not answer as expected."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .pendingLockout(let lockout):
            lockout.isPermanent ? "Ask your administrator to unlock it." : "Try again later."
        case .biometricsChanged: "Use your PIN, or set up biometrics again."
        case .transport: "Check the connection and try again."
        case .noActivation: "Set up this device with an invitation first."
        default: nil
        }
    }
}
