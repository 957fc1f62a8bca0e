import Crypto
import Foundation

/// Why a WebAuthn response is refused. The code is stable; the message says what was
/// wrong without echoing secrets (challenges and signatures are never in it).
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Not the CBOR, JSON or byte layout WebAuthn defines.
        case malformed
        case unsupportedAlgorithm
        case unsupportedAttestation
        /// The attestation statement does not verify or does not chain to a trust anchor.
        case invalidAttestation
        /// The client data is for another ceremony, challenge or origin.
        case invalidClientData
        /// The authenticator data is for another relying party, or its flags fall short.
        case invalidAuthenticatorData
        case invalidSignature
        /// The signature counter went backwards: the credential may have been cloned.
        case counterRegression
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// The flags byte of authenticator data (WebAuthn §6.1).
public struct AuthenticatorFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// User present (UP).
    public static let userPresent = AuthenticatorFlags(rawValue: 0x01)
    /// User verified (UV): a PIN, biometrics or the like on the authenticator.
    public static let userVerified = AuthenticatorFlags(rawValue: 0x04)
    /// Backup eligible (BE): a multi-device credential, e.g. a synced passkey.
    public static let backupEligible = AuthenticatorFlags(rawValue: 0x08)
    /// Backed up (BS).
    public static let backedUp = AuthenticatorFlags(rawValue: 0x10)
    /// Attested credential data included (AT).
    public static let attestedCredentialData = AuthenticatorFlags(rawValue: 0x40)
    /// Extension data included (ED).
    public static let extensionData = AuthenticatorFlags(rawValue: 0x80)
}

/// What an authenticator writes: authenticator data and its credential public keys in
/// COSE form. Reading them, the relying party's side, is TesseraWebAuthn's, so that an app
/// (an authenticator) does not link it.
public enum AuthenticatorOutput {
    /// Writes authenticator data, as an authenticator does.
    public static func authenticatorData(
        rpID: String, flags: AuthenticatorFlags, signCount: UInt32, credential: (aaguid: [UInt8], id: [UInt8], publicKey: [UInt8])? = nil
    ) -> [UInt8] {
        var flags = flags
        if credential != nil { flags.insert(.attestedCredentialData) }
        var bytes = Array(SHA256.hash(data: Data(rpID.utf8)))
        bytes.append(flags.rawValue)
        bytes += [UInt8(signCount >> 24), UInt8(signCount >> 16 & 0xFF), UInt8(signCount >> 8 & 0xFF), UInt8(signCount & 0xFF)]
        if let credential {
            bytes += credential.aaguid
            bytes += [UInt8(credential.id.count >> 8), UInt8(credential.id.count & 0xFF)]
            bytes += credential.id
            bytes += credential.publicKey
        }
        return bytes
    }
}
