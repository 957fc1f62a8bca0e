import Crypto
import Foundation
import TesseraCore

/// A P-256 key as a JSON Web Key (RFC 7518 §6.2), and the RFC 7638 thumbprint of any key.
extension PublicJWK {
    public init(_ key: P256.Signing.PublicKey, kid: String? = nil, use: String? = nil, alg: String? = nil) {
        let raw = key.rawRepresentation
        self.init(
            kty: "EC", crv: "P-256", x: Base64URL.encode(raw.prefix(32)), y: Base64URL.encode(raw.suffix(32)), kid: kid, use: use, alg: alg)
    }

    /// The key this JWK describes; refuses anything but an uncompressed P-256 point on the curve.
    public func publicKey() throws(CryptoError) -> P256.Signing.PublicKey {
        guard kty == "EC", crv == "P-256", let x = x.flatMap(Base64URL.decode).flatMap(Self.fullSize),
            let y = y.flatMap(Base64URL.decode).flatMap(Self.fullSize)
        else { throw CryptoError(.invalidKey, "not a P-256 JWK") }
        do {
            return try P256.Signing.PublicKey(rawRepresentation: x + y)
        } catch {
            throw CryptoError(.invalidKey, "the JWK's point is not on P-256")
        }
    }

    /// A P-256 coordinate of 1 to 32 bytes as the 32 bytes it stands for, left-padded with
    /// zeros; nil for any other length. RFC 7518 §6.2.1.2 asks for the full size, but some
    /// libraries (joserfc 1.5, for about one key in 150) drop leading zero bytes, and the
    /// point is the same.
    public static func fullSize(_ coordinate: Data) -> Data? {
        guard (1...32).contains(coordinate.count) else { return nil }
        return Data(repeating: 0, count: 32 - coordinate.count) + coordinate
    }

    /// The RFC 7638 thumbprint: SHA-256 of the required members, in lexicographic order, as given.
    public var thumbprint: String {
        let canonical =
            switch kty {
            case "RSA": #"{"e":"\#(e ?? "")","kty":"RSA","n":"\#(n ?? "")"}"#
            case "OKP": #"{"crv":"\#(crv ?? "")","kty":"OKP","x":"\#(x ?? "")"}"#
            default: #"{"crv":"\#(crv ?? "")","kty":"\#(kty)","x":"\#(x ?? "")","y":"\#(y ?? "")"}"#
            }
        return Base64URL.encode(SHA256.hash(data: Data(canonical.utf8)))
    }
}

/// Something that signs with a P-256 key: a software key, or a Secure Enclave key on Apple.
public protocol P256Signer: Sendable {
    var publicKey: P256.Signing.PublicKey { get }
    /// The raw `r ‖ s` ES256 signature (64 bytes) over `data`.
    func es256Signature(for data: Data) throws -> Data
}

extension P256.Signing.PrivateKey: P256Signer {
    public func es256Signature(for data: Data) throws -> Data {
        try signature(for: data).rawRepresentation
    }
}

/// The protected header of a device JWS. Only ES256 exists: `none`, HMAC and
/// every other algorithm are refused before any key is looked at.
public struct JWSHeader: Codable, Sendable, Equatable {
    public var alg: String
    public var typ: String?
    public var kid: String?
    public var jwk: PublicJWK?

    public init(typ: String? = nil, kid: String? = nil, jwk: PublicJWK? = nil) {
        alg = "ES256"
        self.typ = typ
        self.kid = kid
        self.jwk = jwk
    }
}

/// JWS compact serialization (RFC 7515 §7.1) with ES256, for what devices sign.
///
/// Devices sign with keys a JWT library cannot hold (Secure Enclave keys), so the
/// compact form is assembled here; the server's own tokens are signed with jwt-kit.
public enum CompactJWS {
    public static func sign(payload: Data, header: JWSHeader, signer: some P256Signer) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let signingInput = Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(payload)
        let signature = try signer.es256Signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    public static func sign(claims: some Encodable, header: JWSHeader, signer: some P256Signer) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try sign(payload: encoder.encode(claims), header: header, signer: signer)
    }

    /// Splits and decodes a compact JWS without trusting anything in it yet.
    ///
    /// Refused before any key is looked at: another algorithm than ES256; a `crit` header
    /// (no extension is understood here, RFC 7515 §4.1.11) or `b64` (RFC 7797, which would
    /// change what the signature covers); and, with `type`, any other `typ` (RFC 8725
    /// §3.11: a token of one kind cannot be passed off as another).
    public static func parse(_ token: String, type: String? = nil) throws(CryptoError) -> UnverifiedJWS {
        guard token.utf8.count <= 16_384 else { throw CryptoError(.malformed, "JWS too large") }
        // Split on the UTF-8 bytes: String.split by Character (grapheme by grapheme) was
        // most of this function's cost.
        let utf8 = token.utf8
        let dot = UInt8(ascii: ".")
        guard let first = utf8.firstIndex(of: dot), let second = utf8[utf8.index(after: first)...].firstIndex(of: dot),
            !utf8[utf8.index(after: second)...].contains(dot),
            let headerData = Base64URL.decode(Substring(utf8[..<first])),
            let payload = Base64URL.decode(Substring(utf8[utf8.index(after: first)..<second])),
            let signature = Base64URL.decode(Substring(utf8[utf8.index(after: second)...]))
        else { throw CryptoError(.malformed, "not a compact JWS") }
        let parsed: ParsedHeader
        do {
            parsed = try JSONDecoder().decode(ParsedHeader.self, from: headerData)
        } catch {
            throw CryptoError(.malformed, "JWS header is not valid JSON")
        }
        let header = parsed.header
        guard !parsed.hasExtensions else {
            throw CryptoError(.malformed, "JWS header extensions (crit, b64) are not supported")
        }
        if let type, header.typ?.lowercased() != type.lowercased() {
            throw CryptoError(.malformed, "the JWS is not a \(type)")
        }
        // [REQ:RFC8725-3.1] the algorithm is fixed by the key type, never taken from the token.
        guard header.alg == "ES256" else { throw CryptoError(.unsupportedAlgorithm, "only ES256 is accepted") }
        return UnverifiedJWS(
            header: header, unverifiedPayload: payload,
            signingInput: Data(utf8[..<second]), signature: signature)
    }
}

/// A JWS header as sent, and whether it names an extension (`crit`, or `b64`), in one
/// decoding pass.
private struct ParsedHeader: Decodable {
    let header: JWSHeader
    let hasExtensions: Bool

    private struct Member: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        header = try JWSHeader(from: decoder)
        let members = try decoder.container(keyedBy: Member.self)
        hasExtensions = members.contains(Member(stringValue: "crit")) || members.contains(Member(stringValue: "b64"))
    }
}

/// A parsed JWS whose signature has not been checked: read `unverifiedPayload` only to
/// find which key to check it with.
public struct UnverifiedJWS: Sendable {
    public let header: JWSHeader
    public let unverifiedPayload: Data
    let signingInput: Data
    let signature: Data

    /// The payload, once the signature verifies under `key`.
    public func verifiedPayload(with key: P256.Signing.PublicKey) throws(CryptoError) -> Data {
        guard signature.count == 64,
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: signingInput)
        else { throw CryptoError(.invalidSignature, "signature does not verify") }
        return unverifiedPayload
    }

    /// The claims as sent, to find the key that must have signed them (the activation a
    /// `sub` names, the key a registration carries) and to refuse a malformed message
    /// early. Once the key is known, `verified(with:as:)` is the way to read them.
    public func unverifiedClaims<Claims: Decodable>(as type: Claims.Type) throws(CryptoError) -> Claims {
        // No claim of any kind holds a NUL (and PostgreSQL could not store one).
        guard !WireCoding.containsNUL(json: unverifiedPayload) else { throw CryptoError(.malformed, "JWS claims hold a NUL character") }
        do {
            return try JSONDecoder().decode(Claims.self, from: unverifiedPayload)
        } catch {
            throw CryptoError(.malformed, "JWS payload does not have the expected claims")
        }
    }
}

extension UnverifiedJWS {
    /// The message as `key` signed it: its claims decoded only once the signature verifies.
    public func verified<Claims: Decodable & Sendable>(with key: P256.Signing.PublicKey, as type: Claims.Type) throws(CryptoError)
        -> VerifiedJWS<Claims>
    {
        let payload = try verifiedPayload(with: key)
        return VerifiedJWS(header: header, payload: payload, claims: try unverifiedClaims(as: Claims.self))
    }
}

/// A JWS whose signature verified under the key it had to be signed with, and its claims:
/// the only way to read the claims of a device's signed message once it has been checked
/// (`UnverifiedJWS.verified(with:as:)` makes one).
public struct VerifiedJWS<Claims: Decodable & Sendable>: Sendable {
    public let header: JWSHeader
    /// The signed payload, byte for byte (a second signature over the same payload is
    /// compared with it).
    public let payload: Data
    public let claims: Claims
}
