import Crypto
import CryptoExtras
import Foundation
import JWTKit
import SwiftASN1
import X509
import TesseraCore
import TesseraCrypto

/// One of a tenant's signing keys for the tokens the server issues.
public struct ServerSigningKey: Sendable {
    public enum Material: Sendable {
        case p256(P256.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
    }

    public let kid: String
    public let material: Material

    public var algorithm: SigningAlgorithm {
        switch material {
        case .p256: .es256
        case .rsa: .rs256
        case .ed25519: .eddsa
        }
    }

    public init(kid: String, material: Material) {
        self.kid = kid
        self.material = material
    }

    /// The key as it was sealed (`privateBytes`): P-256 and Ed25519 raw, RSA as PKCS#1 DER.
    public init(kid: String, algorithm: SigningAlgorithm, privateBytes: Data) throws {
        self.kid = kid
        switch algorithm {
        case .es256: material = .p256(try P256.Signing.PrivateKey(rawRepresentation: privateBytes))
        case .rs256: material = .rsa(try _RSA.Signing.PrivateKey(derRepresentation: privateBytes))
        case .eddsa: material = .ed25519(try Curve25519.Signing.PrivateKey(rawRepresentation: privateBytes))
        }
    }

    /// A new key; its kid is its JWK thumbprint (RFC 7638). RSA keys have 2048 bits.
    public static func generate(_ algorithm: SigningAlgorithm = .es256) throws -> ServerSigningKey {
        let material: Material =
            switch algorithm {
            case .es256: .p256(P256.Signing.PrivateKey())
            case .rs256: .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048))
            case .eddsa: .ed25519(Curve25519.Signing.PrivateKey())
            }
        let key = ServerSigningKey(kid: "", material: material)
        return ServerSigningKey(kid: try key.publicJWK.thumbprint, material: material)
    }

    public var privateBytes: Data {
        switch material {
        case .p256(let key): key.rawRepresentation
        case .rsa(let key): key.derRepresentation
        case .ed25519(let key): key.rawRepresentation
        }
    }

    public var publicJWK: PublicJWK {
        get throws {
            switch material {
            case .p256(let key):
                let raw = key.publicKey.rawRepresentation
                return PublicJWK(
                    kty: "EC", crv: "P-256", x: Base64URL.encode(raw.prefix(32)), y: Base64URL.encode(raw.suffix(32)), kid: kid, use: "sig", alg: "ES256")
            case .rsa(let key):
                let primitives = try key.publicKey.getKeyPrimitives()
                return PublicJWK(
                    kty: "RSA", n: Base64URL.encode(primitives.modulus.drop { $0 == 0 }), e: Base64URL.encode(primitives.publicExponent.drop { $0 == 0 }),
                    kid: kid, use: "sig", alg: "RS256")
            case .ed25519(let key):
                return PublicJWK(kty: "OKP", crv: "Ed25519", x: Base64URL.encode(key.publicKey.rawRepresentation), kid: kid, use: "sig", alg: "EdDSA")
            }
        }
    }
}

/// Signs and verifies a tenant's JWTs with jwt-kit. Each key is added under its kid with
/// its own algorithm, so a token verifies only with the algorithm of the key it names.
public struct TokenIssuer: Sendable {
    private let keys: JWTKeyCollection
    /// The key that signs, per algorithm (a tenant may not have one of each yet).
    public let activeKids: [SigningAlgorithm: String]
    /// The public halves of every key, as the tenant's JWKS publishes them.
    public let publicJWKs: [PublicJWK]
    /// The active ES256 key, whose certificate signs the discovery document.
    private let activeES256: (kid: String, key: P256.Signing.PrivateKey)?
    private let tenantName: String

    public init(keys: [ServerSigningKey], activeKids: [SigningAlgorithm: String], tenantName: String = "tenant") async throws {
        publicJWKs = try keys.map { try $0.publicJWK }
        self.tenantName = tenantName
        activeES256 = keys.first { $0.kid == activeKids[.es256] }.flatMap { key in
            guard case .p256(let privateKey) = key.material else { return nil }
            return (key.kid, privateKey)
        }
        let collection = JWTKeyCollection()
        for key in keys {
            let kid = JWKIdentifier(string: key.kid)
            switch key.material {
            case .p256(let privateKey): await collection.add(ecdsa: try ES256PrivateKey(backing: privateKey), kid: kid)
            case .rsa(let privateKey): await collection.add(rsa: try Insecure.RSA.PrivateKey(backing: privateKey), digestAlgorithm: .sha256, kid: kid)
            case .ed25519(let privateKey): await collection.add(eddsa: EdDSA.PrivateKey(backing: privateKey), kid: kid)
            }
        }
        self.keys = collection
        self.activeKids = activeKids
    }

    /// A self-signed end-entity certificate for a signing key: subject and issuer name the
    /// tenant, the serial is derived from the kid, valid from an hour ago for a year.
    static func selfSignedCertificate(_ key: P256.Signing.PrivateKey, kid: String, tenantName: String) throws -> [UInt8] {
        let name = try DistinguishedName {
            OrganizationName("Tessera")
            CommonName("\(tenantName.prefix(48)) signing key")
        }
        let now = Date()
        // A positive INTEGER in its shortest form: the first byte 0x40…0x7F.
        var serial = Array(SHA256.hash(data: Data(kid.utf8)).prefix(16))
        serial[0] = (serial[0] & 0x3F) | 0x40
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(bytes: serial[...]),
            publicKey: .init(key.publicKey), notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(365 * 86_400),
            issuer: name, subject: name,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
            }, issuerPrivateKey: .init(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// Signs with the active ES256 key and its self-signed certificate in `x5c` (RFC 7515
    /// §4.1.6; made for each signature, from an hour ago for a year).
    public func signWithCertificate(_ claims: some JWTPayload, type: String = "JWT") async throws -> String {
        guard let (kid, key) = activeES256 else { throw TesseraCrypto.CryptoError(.invalidKey, "the tenant has no active ES256 key") }
        let certificate = try Self.selfSignedCertificate(key, kid: kid, tenantName: tenantName)
        var header = JWTHeader()
        header.typ = type
        // jwt-kit takes PEM here, checks the chain (a self-signed certificate is its own
        // root) and writes base64 DER into the header, as RFC 7515 §4.1.6 has it.
        header.x5c = [try Certificate(derEncoded: certificate).serializeAsPEM().pemString]
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid), header: header)
    }

    /// Whether the tenant has an active key for `algorithm`.
    public func signs(with algorithm: SigningAlgorithm) -> Bool { activeKids[algorithm] != nil }

    public func sign(_ claims: some JWTPayload, type: String = "JWT", algorithm: SigningAlgorithm = .es256) async throws -> String {
        guard let kid = activeKids[algorithm] else {
            throw TesseraCrypto.CryptoError(.invalidKey, "the tenant has no active \(algorithm.rawValue) key")
        }
        var header = JWTHeader()
        header.typ = type
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid), header: header)
    }

    /// The claims of a token this tenant signed, after signature and claim checks.
    public func verify<Claims: JWTPayload>(_ token: String, as type: Claims.Type) async throws(TesseraCrypto.CryptoError) -> Claims {
        // The token as this issuer spells it, and no other spelling: three base64url parts
        // without padding (a `=` added to a signature must not make the same token new).
        guard Self.isCompactSerialization(token) else { throw TesseraCrypto.CryptoError(.malformed, "not a compact JWS") }
        do {
            return try await keys.verify(token, as: Claims.self)
        } catch {
            throw TesseraCrypto.CryptoError(.invalidSignature, "token does not verify")
        }
    }

    /// A token this issuer signed that has not expired at `now`, by the domain's clock
    /// (not the library's, which is the machine's: a server run on another clock, as
    /// tests do, must see its own tokens as it issued them).
    public func verify<Claims: ExpiringClaims>(_ token: String, as type: Claims.Type, now: Int64) async throws(TesseraCrypto.CryptoError)
        -> Claims
    {
        let claims = try await verify(token, as: type)
        guard Int64(claims.exp) > now else { throw TesseraCrypto.CryptoError(.expired, "token has expired") }
        return claims
    }
}

/// Claims whose expiry the domain checks with its clock (`TokenIssuer.verify(_:as:now:)`).
public protocol ExpiringClaims: JWTPayload {
    var exp: Int { get }
}

extension TokenIssuer {
    /// Three non-empty parts of the base64url alphabet (RFC 7515 §2: no padding), joined by dots.
    static func isCompactSerialization(_ token: String) -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { !$0.isEmpty && Base64URL.isURLSafe($0) }
    }
}

/// An OpenID Connect ID token.
public struct IDTokenClaims: ExpiringClaims, Equatable {
    public var iss: String
    public var sub: String
    public var aud: String
    public var exp: Int
    public var iat: Int
    public var authTime: Int
    public var nonce: String?
    public var amr: [String]
    public var acr: String
    public var sid: String?
    /// The service role the login's factors were used in (`role`).
    public var role: String?
    /// In an identity token given to the app: the backchannel request it answered.
    public var authRequestID: String?
    /// The attributes the user confirmed, as top-level claims.
    public var attributes: [String: String]
    /// The names of the user's groups, under the `groups` scope.
    public var groups: [String]?

    public init(
        iss: String, sub: String, aud: String, exp: Int, iat: Int, authTime: Int, nonce: String?, amr: [String],
        acr: String, attributes: [String: String]
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.authTime = authTime
        self.nonce = nonce
        self.amr = amr
        self.acr = acr
        self.attributes = attributes
    }

    static let registered: Set<String> = [
        "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "sid", "role", "auth_req_id", "groups",
    ]

    /// The expiry is checked against the domain's clock (`TokenIssuer.verify(_:as:now:)`).
    public func verify(using algorithm: some JWTAlgorithm) async throws {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        iss = try c.decode(String.self, forKey: AnyKey("iss"))
        sub = try c.decode(String.self, forKey: AnyKey("sub"))
        aud = try c.decode(String.self, forKey: AnyKey("aud"))
        exp = try c.decode(Int.self, forKey: AnyKey("exp"))
        iat = try c.decode(Int.self, forKey: AnyKey("iat"))
        authTime = try c.decode(Int.self, forKey: AnyKey("auth_time"))
        nonce = try c.decodeIfPresent(String.self, forKey: AnyKey("nonce"))
        amr = try c.decode([String].self, forKey: AnyKey("amr"))
        acr = try c.decode(String.self, forKey: AnyKey("acr"))
        sid = try c.decodeIfPresent(String.self, forKey: AnyKey("sid"))
        role = try c.decodeIfPresent(String.self, forKey: AnyKey("role"))
        authRequestID = try c.decodeIfPresent(String.self, forKey: AnyKey("auth_req_id"))
        groups = try c.decodeIfPresent([String].self, forKey: AnyKey("groups"))
        var attributes: [String: String] = [:]
        for key in c.allKeys where !Self.registered.contains(key.stringValue) {
            if let value = try? c.decode(String.self, forKey: key) { attributes[key.stringValue] = value }
        }
        self.attributes = attributes
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        for (name, value) in attributes where !Self.registered.contains(name) {
            try c.encode(value, forKey: AnyKey(name))
        }
        try c.encode(iss, forKey: AnyKey("iss"))
        try c.encode(sub, forKey: AnyKey("sub"))
        try c.encode(aud, forKey: AnyKey("aud"))
        try c.encode(exp, forKey: AnyKey("exp"))
        try c.encode(iat, forKey: AnyKey("iat"))
        try c.encode(authTime, forKey: AnyKey("auth_time"))
        try c.encodeIfPresent(nonce, forKey: AnyKey("nonce"))
        try c.encode(amr, forKey: AnyKey("amr"))
        try c.encode(acr, forKey: AnyKey("acr"))
        try c.encodeIfPresent(sid, forKey: AnyKey("sid"))
        try c.encodeIfPresent(role, forKey: AnyKey("role"))
        try c.encodeIfPresent(authRequestID, forKey: AnyKey("auth_req_id"))
        try c.encodeIfPresent(groups, forKey: AnyKey("groups"))
    }
}

/// A JWT access token (RFC 9068).
public struct AccessTokenClaims: ExpiringClaims, Equatable {
    public var iss: String
    public var sub: String
    public var aud: String
    public var clientID: String
    public var exp: Int
    public var iat: Int
    public var jti: String
    public var scope: String
    /// A user's login: when, how, and its session (the grant family). A client-credentials
    /// token (RFC 9068 §2.2: `sub` is the client) has none of these.
    public var authTime: Int?
    public var amr: [String]?
    public var acr: String?
    public var sid: String?
    /// The DPoP key the token is bound to (RFC 9449 §6: `{"jkt": thumbprint}`).
    public var cnf: Confirmation?

    public struct Confirmation: Codable, Sendable, Equatable {
        public var jkt: String
    }

    public init(
        iss: String, sub: String, aud: String, clientID: String, exp: Int, iat: Int, jti: String, scope: String,
        authTime: Int?, amr: [String]?, acr: String?, sid: String?
    ) {
        self.sid = sid
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.clientID = clientID
        self.exp = exp
        self.iat = iat
        self.jti = jti
        self.scope = scope
        self.authTime = authTime
        self.amr = amr
        self.acr = acr
    }

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, jti, scope, amr, acr, sid, cnf
        case clientID = "client_id"
        case authTime = "auth_time"
    }

    /// The expiry is checked against the domain's clock (`TokenIssuer.verify(_:as:now:)`).
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

struct AnyKey: CodingKey {
    let stringValue: String
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

/// An ID token presented back as a hint (`id_token_hint`): only who issued it and whom
/// it names matter. Its signature is checked; its expiry is not, since a hint names a
/// user the issuer once authenticated, however long ago (OpenID CIBA §7.1).
public struct IDTokenHintClaims: JWTPayload {
    public let iss: String
    public let sub: String
    /// The audience (one client id or several).
    public let aud: [String]
    /// The session the token was issued in: how a pairwise `sub` leads back to its user.
    public let sid: String?

    enum CodingKeys: String, CodingKey { case iss, sub, aud, sid }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decode(String.self, forKey: .iss)
        sub = try container.decode(String.self, forKey: .sub)
        sid = try container.decodeIfPresent(String.self, forKey: .sid)
        if let single = try? container.decode(String.self, forKey: .aud) {
            aud = [single]
        } else {
            aud = try container.decode([String].self, forKey: .aud)
        }
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
