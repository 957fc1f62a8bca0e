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

/// Authenticator data (WebAuthn §6.1): the relying party's id hash, the flags, the
/// signature counter, and at registration the new credential.
public struct AuthenticatorData: Sendable {
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// User present (UP).
        public static let userPresent = Flags(rawValue: 0x01)
        /// User verified (UV): a PIN, biometrics or the like on the authenticator.
        public static let userVerified = Flags(rawValue: 0x04)
        /// Backup eligible (BE): a multi-device credential, e.g. a synced passkey.
        public static let backupEligible = Flags(rawValue: 0x08)
        /// Backed up (BS).
        public static let backedUp = Flags(rawValue: 0x10)
        /// Attested credential data included (AT).
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// Extension data included (ED).
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// A new credential, present at registration (WebAuthn §6.5.1).
    public struct AttestedCredential: Sendable {
        public let aaguid: [UInt8]
        public let credentialID: [UInt8]
        public let publicKey: COSEPublicKey
    }

    /// The bytes as received: they are what signatures cover.
    public let raw: [UInt8]
    public let rpIDHash: [UInt8]
    public let flags: Flags
    public let signCount: UInt32
    public let attestedCredential: AttestedCredential?
    public let extensions: CBOR?

    /// Credential ids are at most 1023 bytes (WebAuthn §5.8.3's limit for credential ids).
    public static let maximumCredentialIDLength = 1023

    public init(_ raw: [UInt8]) throws(WebAuthnError) {
        guard raw.count >= 37 else { throw WebAuthnError(.malformed, "authenticator data is shorter than 37 bytes") }
        self.raw = raw
        rpIDHash = Array(raw[0..<32])
        flags = Flags(rawValue: raw[32])
        signCount = raw[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            guard raw.count >= offset + 18 else { throw WebAuthnError(.malformed, "attested credential data is cut short") }
            let aaguid = Array(raw[offset..<offset + 16])
            let idLength = Int(raw[offset + 16]) << 8 | Int(raw[offset + 17])
            offset += 18
            guard idLength > 0, idLength <= Self.maximumCredentialIDLength, raw.count >= offset + idLength else {
                throw WebAuthnError(.malformed, "the credential id's length is out of range")
            }
            let credentialID = Array(raw[offset..<offset + idLength])
            offset += idLength
            let key: (item: CBOR, length: Int)
            do {
                key = try CBOR.decodePrefix(raw[offset...])
            } catch {
                throw WebAuthnError(.malformed, "the credential public key is not CBOR: \(error)")
            }
            let publicKey = try COSEPublicKey(key.item, encoded: Array(raw[offset..<offset + key.length]))
            offset += key.length
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialID: credentialID, publicKey: publicKey)
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            do {
                let (item, length) = try CBOR.decodePrefix(raw[offset...])
                guard item.mapValue != nil else { throw CBORError("extensions are not a map") }
                extensions = item
                offset += length
            } catch {
                throw WebAuthnError(.malformed, "the extension data is not a CBOR map: \(error)")
            }
        } else {
            extensions = nil
        }
        guard offset == raw.count else { throw WebAuthnError(.malformed, "\(raw.count - offset) bytes after the authenticator data") }
        // [REQ:WebAuthn-L3 §6.1] BS may only be set with BE.
        guard flags.contains(.backupEligible) || !flags.contains(.backedUp) else {
            throw WebAuthnError(.invalidAuthenticatorData, "the backed-up flag is set on a credential that is not backup eligible")
        }
    }

    /// Writes authenticator data, as an authenticator does.
    public static func encode(
        rpID: String, flags: Flags, signCount: UInt32, credential: (aaguid: [UInt8], id: [UInt8], publicKey: [UInt8])? = nil
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
