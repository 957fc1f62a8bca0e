import Crypto
import CryptoExtras
import Foundation
import TesseraCrypto

// The relying party's reading of what authenticators write (WebAuthn §6.1, RFC 9052):
// here, beside the relying party's checks, so that TesseraKit (an authenticator, which
// only writes them: `AuthenticatorOutput`) links neither RSA nor this parser.

/// Authenticator data (WebAuthn §6.1): the relying party's id hash, the flags, the
/// signature counter, and at registration the new credential.
public struct AuthenticatorData: Sendable {
    public typealias Flags = AuthenticatorFlags

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
}

/// A credential public key in COSE form (RFC 9052 §7), as authenticator data carries it.
/// Its algorithm is fixed by the key itself: a signature is only ever checked with the
/// algorithm the key was registered with.
public struct COSEPublicKey: Sendable {
    public let algorithm: COSEAlgorithm
    let key: Key
    /// The key's COSE encoding as the authenticator sent it, which is what is stored.
    public let encoded: [UInt8]

    enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    private typealias Parameter = COSEKeyParameter

    /// Reads a COSE key from its encoding; refuses key types, curves and algorithms other
    /// than ES256 (EC2, P-256), EdDSA (OKP, Ed25519) and RS256 (RSA, 2048 bits or more).
    public init(encoded: [UInt8]) throws(WebAuthnError) {
        let item: CBOR
        do {
            item = try CBOR.decode(encoded)
        } catch {
            throw WebAuthnError(.malformed, "the credential public key is not CBOR: \(error)")
        }
        try self.init(item, encoded: encoded)
    }

    init(_ item: CBOR, encoded: [UInt8]) throws(WebAuthnError) {
        guard item.mapValue != nil else { throw WebAuthnError(.malformed, "the credential public key is not a COSE key") }
        guard let algorithmValue = item[Parameter.alg]?.integerValue, let algorithm = COSEAlgorithm(rawValue: algorithmValue) else {
            throw WebAuthnError(.unsupportedAlgorithm, "the credential's algorithm is not supported (ES256, EdDSA, RS256 are)")
        }
        let keyType = item[Parameter.kty]?.integerValue
        do {
            switch algorithm {
            case .es256:
                guard keyType == 2, item[Parameter.crv]?.integerValue == 1, let x = item[Parameter.x]?.bytesValue, let y = item[Parameter.y]?.bytesValue,
                    x.count == 32, y.count == 32
                else { throw WebAuthnError(.malformed, "an ES256 key must be an EC2 key on P-256") }
                key = .p256(try P256.Signing.PublicKey(x963Representation: [0x04] + x + y))
            case .eddsa:
                guard keyType == 1, item[Parameter.crv]?.integerValue == 6, let x = item[Parameter.x]?.bytesValue, x.count == 32 else {
                    throw WebAuthnError(.malformed, "an EdDSA key must be an OKP key on Ed25519")
                }
                key = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x))
            case .rs256:
                guard keyType == 3, let n = item[Parameter.rsaN]?.bytesValue, let e = item[Parameter.rsaE]?.bytesValue,
                    n.drop(while: { $0 == 0 }).count >= 256, (1...8).contains(e.count)
                else { throw WebAuthnError(.malformed, "an RS256 key must be an RSA key of 2048 bits or more") }
                key = .rsa(try _RSA.Signing.PublicKey(n: n, e: e))
            }
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw WebAuthnError(.malformed, "the credential public key is not a valid key")
        }
        self.algorithm = algorithm
        self.encoded = encoded
    }

    /// Whether `signature` (as WebAuthn carries it: DER for ECDSA, raw for EdDSA and RSA)
    /// signs `data` under this key with the key's own algorithm.
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch key {
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: data)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        case .rsa(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        }
    }
}
