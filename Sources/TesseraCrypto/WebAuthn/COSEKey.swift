import Crypto
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

/// The COSE key parameters (RFC 9052 §7.1, RFC 9053 §7) WebAuthn's keys use.
public enum COSEKeyParameter {
    public static let kty: Int64 = 1, alg: Int64 = 3
    public static let crv: Int64 = -1, x: Int64 = -2, y: Int64 = -3
    public static let rsaN: Int64 = -1, rsaE: Int64 = -2
}

extension AuthenticatorOutput {
    /// The COSE form of a P-256 key, as an authenticator writes it.
    public static func coseKey(p256 key: P256.Signing.PublicKey) -> [UInt8] {
        let point = Array(key.x963Representation)
        return CBOR.map([
            .init(.integer(COSEKeyParameter.kty), .integer(2)), .init(.integer(COSEKeyParameter.alg), .integer(COSEAlgorithm.es256.rawValue)),
            .init(.integer(COSEKeyParameter.crv), .integer(1)), .init(.integer(COSEKeyParameter.x), .bytes(Array(point[1...32]))),
            .init(.integer(COSEKeyParameter.y), .bytes(Array(point[33...64]))),
        ]).encoded
    }

    /// The COSE form of an Ed25519 key.
    public static func coseKey(ed25519 key: Curve25519.Signing.PublicKey) -> [UInt8] {
        CBOR.map([
            .init(.integer(COSEKeyParameter.kty), .integer(1)), .init(.integer(COSEKeyParameter.alg), .integer(COSEAlgorithm.eddsa.rawValue)),
            .init(.integer(COSEKeyParameter.crv), .integer(6)), .init(.integer(COSEKeyParameter.x), .bytes(Array(key.rawRepresentation))),
        ]).encoded
    }
}
