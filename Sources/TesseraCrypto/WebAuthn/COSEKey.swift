import Crypto
import CryptoExtras
import Foundation

/// The COSE algorithms (RFC 9053, IANA's COSE registry) a WebAuthn credential may use here.
public enum COSEAlgorithm: Int64, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// ECDSA with P-256 and SHA-256.
    case es256 = -7
    /// EdDSA with Ed25519.
    case eddsa = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = -257

    public var description: String {
        switch self {
        case .es256: "ES256"
        case .eddsa: "EdDSA"
        case .rs256: "RS256"
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

    // COSE key parameters (RFC 9052 §7.1, RFC 9053 §7).
    private static let kty: Int64 = 1, alg: Int64 = 3
    private static let crv: Int64 = -1, x: Int64 = -2, y: Int64 = -3
    private static let rsaN: Int64 = -1, rsaE: Int64 = -2

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
        guard let algorithmValue = item[Self.alg]?.integerValue, let algorithm = COSEAlgorithm(rawValue: algorithmValue) else {
            throw WebAuthnError(.unsupportedAlgorithm, "the credential's algorithm is not supported (ES256, EdDSA, RS256 are)")
        }
        let keyType = item[Self.kty]?.integerValue
        do {
            switch algorithm {
            case .es256:
                guard keyType == 2, item[Self.crv]?.integerValue == 1, let x = item[Self.x]?.bytesValue, let y = item[Self.y]?.bytesValue,
                    x.count == 32, y.count == 32
                else { throw WebAuthnError(.malformed, "an ES256 key must be an EC2 key on P-256") }
                key = .p256(try P256.Signing.PublicKey(x963Representation: [0x04] + x + y))
            case .eddsa:
                guard keyType == 1, item[Self.crv]?.integerValue == 6, let x = item[Self.x]?.bytesValue, x.count == 32 else {
                    throw WebAuthnError(.malformed, "an EdDSA key must be an OKP key on Ed25519")
                }
                key = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x))
            case .rs256:
                guard keyType == 3, let n = item[Self.rsaN]?.bytesValue, let e = item[Self.rsaE]?.bytesValue,
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

    /// The COSE form of a P-256 key, as an authenticator writes it.
    public static func encode(p256 key: P256.Signing.PublicKey) -> [UInt8] {
        let point = Array(key.x963Representation)
        return CBOR.map([
            .init(.integer(kty), .integer(2)), .init(.integer(alg), .integer(COSEAlgorithm.es256.rawValue)),
            .init(.integer(crv), .integer(1)), .init(.integer(x), .bytes(Array(point[1...32]))),
            .init(.integer(y), .bytes(Array(point[33...64]))),
        ]).encoded
    }

    /// The COSE form of an Ed25519 key.
    public static func encode(ed25519 key: Curve25519.Signing.PublicKey) -> [UInt8] {
        CBOR.map([
            .init(.integer(kty), .integer(1)), .init(.integer(alg), .integer(COSEAlgorithm.eddsa.rawValue)),
            .init(.integer(crv), .integer(6)), .init(.integer(x), .bytes(Array(key.rawRepresentation))),
        ]).encoded
    }
}
