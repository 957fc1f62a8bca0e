import Crypto
import Foundation
import JWTKit
import TesseraCrypto

/// A tenant's ES256 signing key for the tokens the server issues.
public struct ServerSigningKey: Sendable {
    public let kid: String
    public let privateKey: P256.Signing.PrivateKey

    public init(kid: String, privateKey: P256.Signing.PrivateKey) {
        self.kid = kid
        self.privateKey = privateKey
    }

    public static func generate() -> ServerSigningKey {
        let key = P256.Signing.PrivateKey()
        return ServerSigningKey(kid: PublicJWK(key.publicKey).thumbprint, privateKey: key)
    }

    public var publicJWK: PublicJWK { PublicJWK(privateKey.publicKey, kid: kid, use: "sig", alg: "ES256") }
}

/// Signs and verifies a tenant's JWTs with jwt-kit, the algorithm pinned to ES256 by the key type.
public struct TokenIssuer: Sendable {
    private let keys: JWTKeyCollection
    public let activeKid: String
    /// The public halves of every key, as the tenant's JWKS publishes them.
    public let publicJWKs: [PublicJWK]

    public init(keys: [ServerSigningKey], activeKid: String) async throws {
        publicJWKs = keys.map(\.publicJWK)
        let collection = JWTKeyCollection()
        for key in keys {
            await collection.add(ecdsa: try ES256PrivateKey(backing: key.privateKey), kid: JWKIdentifier(string: key.kid))
        }
        self.keys = collection
        self.activeKid = activeKid
    }

    public func sign(_ claims: some JWTPayload, type: String = "JWT") async throws -> String {
        var header = JWTHeader()
        header.typ = type
        return try await keys.sign(claims, kid: JWKIdentifier(string: activeKid), header: header)
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
}

extension TokenIssuer {
    /// Three non-empty parts of the base64url alphabet (RFC 7515 §2: no padding), joined by dots.
    static func isCompactSerialization(_ token: String) -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { !$0.isEmpty && Base64URL.isURLSafe($0) }
    }
}

/// An OpenID Connect ID token.
public struct IDTokenClaims: JWTPayload, Equatable {
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

    static let registered: Set<String> = ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "sid", "role", "auth_req_id"]

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try ExpirationClaim(value: Date(timeIntervalSince1970: TimeInterval(exp))).verifyNotExpired()
    }

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
    }
}

/// A JWT access token (RFC 9068).
public struct AccessTokenClaims: JWTPayload, Equatable {
    public var iss: String
    public var sub: String
    public var aud: String
    public var clientID: String
    public var exp: Int
    public var iat: Int
    public var jti: String
    public var scope: String
    public var authTime: Int
    public var amr: [String]
    public var acr: String
    /// The grant family (the login session) the token belongs to.
    public var sid: String

    public init(
        iss: String, sub: String, aud: String, clientID: String, exp: Int, iat: Int, jti: String, scope: String,
        authTime: Int, amr: [String], acr: String, sid: String
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
        case iss, sub, aud, exp, iat, jti, scope, amr, acr, sid
        case clientID = "client_id"
        case authTime = "auth_time"
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try ExpirationClaim(value: Date(timeIntervalSince1970: TimeInterval(exp))).verifyNotExpired()
    }
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
