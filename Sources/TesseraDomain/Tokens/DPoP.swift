import Crypto
import Foundation
import JWTKit
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// DPoP (RFC 9449): a client proves, with each request, that it holds the private key its
/// tokens are bound to. A proof is a JWT (`typ` `dpop+jwt`) signed with that key, the
/// public key in its header, naming the request's method and URL, with a fresh `jti`, the
/// server's current nonce, and at a resource the hash of the access token (`ath`).
/// Signatures are checked by jwt-kit with the header's key; this type checks the rest.
public struct DPoP: Sendable {
    let domain: Domain

    public static let algorithms = ["ES256", "EdDSA", "RS256"]
    public static let invalidProof = DomainError.Code("invalid_dpop_proof")
    public static let useNonce = DomainError.Code("use_dpop_nonce")
    /// How old a proof may be, and how far ahead of this server's clock.
    static let maximumAge: Int64 = 300
    static let maximumSkew: Int64 = 60
    /// A nonce lives for its window of 5 minutes and the next.
    static let nonceWindow: Int64 = 300

    /// A checked proof: the thumbprint (RFC 7638) of the key it was signed with.
    public struct Proof: Sendable, Equatable {
        public let jkt: String
    }

    /// The server's current nonce: its time window and a MAC over it under a key derived
    /// from the master key, so every node makes and accepts the same nonces.
    public func nonce(at now: Int64? = nil) -> String {
        Self.nonce(window: (now ?? domain.epochNow()) / Self.nonceWindow, key: nonceKey)
    }

    var nonceKey: SymmetricKey { domain.box.derivedKey(label: "tessera dpop nonce") }

    static func nonce(window: Int64, key: SymmetricKey) -> String {
        var bytes = Data()
        withUnsafeBytes(of: window.bigEndian) { bytes.append(contentsOf: $0) }
        let mac = HMAC<SHA256>.authenticationCode(for: bytes, using: key)
        return Base64URL.encode(bytes + Data(mac).prefix(16))
    }

    func isCurrentNonce(_ nonce: String, now: Int64) -> Bool {
        let window = now / Self.nonceWindow
        let key = nonceKey
        return [window, window - 1].contains { Secrets.constantTimeEquals(Self.nonce(window: $0, key: key), nonce) }
    }

    static func failure(_ message: String) -> DomainError { DomainError(.invalid, invalidProof, message) }

    /// Checks the `DPoP` header of one request: its signature, `typ`, `alg`, public `jwk`,
    /// `htm`, `htu` (query and fragment ignored), `iat`, the server's nonce (`use_dpop_nonce`
    /// when missing or stale: the answer carries a fresh one), `ath` when an access token
    /// goes with it, and its `jti` once (a replay is refused).
    public func check(_ proof: String, method: String, url: String, accessToken: String? = nil) async throws -> Proof {
        guard proof.utf8.count <= 8192 else { throw Self.failure("the DPoP proof is too long") }
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && Base64URL.isURLSafe($0) }),
            let headerData = Base64URL.decode(String(parts[0])),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any]
        else { throw Self.failure("the DPoP proof is not a compact JWS") }
        guard header["typ"] as? String == "dpop+jwt" else { throw Self.failure("the DPoP proof's typ is not dpop+jwt") }
        guard let alg = header["alg"] as? String, Self.algorithms.contains(alg) else {
            throw Self.failure("the DPoP proof's alg is not one of \(Self.algorithms.joined(separator: ", "))")
        }
        guard let jwkObject = header["jwk"] as? [String: Any],
            let jwkData = try? JSONSerialization.data(withJSONObject: Self.fullSizeCoordinates(jwkObject))
        else {
            throw Self.failure("the DPoP proof has no jwk")
        }
        // A public key only: a header that carries private members is refused, not used.
        guard PublicJWK.privateMembers.isDisjoint(with: jwkObject.keys) else { throw Self.failure("the DPoP proof's jwk holds a private key") }
        // Over the members as the client sent them: its own thumbprint is of those.
        let thumbprint = try Self.thumbprint(jwkObject, alg: alg)
        var jwk: JWK
        do {
            jwk = try JSONDecoder().decode(JWK.self, from: jwkData)
        } catch {
            throw Self.failure("the DPoP proof's jwk is not a public key")
        }
        jwk.keyIdentifier = JWKIdentifier(string: "dpop")
        jwk.algorithm = JWK.Algorithm(rawValue: alg)
        let claims: DPoPClaims
        do {
            let keys = try await JWTKeyCollection().add(jwk: jwk, isDefault: true)
            claims = try await keys.verify(proof, as: DPoPClaims.self)
        } catch {
            throw Self.failure("the DPoP proof's signature does not verify with its jwk")
        }
        let now = domain.epochNow()
        guard claims.htm == method else { throw Self.failure("the DPoP proof is for another method (htm)") }
        guard let htu = Self.normalized(claims.htu), htu == Self.normalized(url) else {
            throw Self.failure("the DPoP proof is for another URL (htu)")
        }
        guard claims.iat <= now + Self.maximumSkew, claims.iat >= now - Self.maximumAge else {
            throw Self.failure("the DPoP proof's iat is too old or in the future")
        }
        guard (1...256).contains(claims.jti.count) else { throw Self.failure("the DPoP proof needs a jti of at most 256 characters") }
        if let accessToken {
            let expected = Secrets.digest(accessToken)  // base64url(SHA-256(token)), RFC 9449 §4.2
            guard let ath = claims.ath, Secrets.constantTimeEquals(ath, expected) else {
                throw Self.failure("the DPoP proof's ath is not the access token's hash")
            }
        }
        guard let nonce = claims.nonce, isCurrentNonce(nonce, now: now) else {
            throw DomainError(.invalid, Self.useNonce, "use the server's DPoP nonce (DPoP-Nonce)")
        }
        let digest = Secrets.digest("\(thumbprint):\(claims.jti)")
        let fresh = try await domain.store.transaction { tx in
            try await tx.recordDPoPProof(digest: digest, expiresAt: now + Self.maximumAge + Self.maximumSkew + 60)
        }
        guard fresh else { throw Self.failure("the DPoP proof was used already (jti)") }
        return Proof(jkt: thumbprint)
    }

    /// A P-256 key's coordinates at their full 32 bytes (`PublicJWK.fullSize`), for the
    /// JWT library; anything else is left as it is.
    static func fullSizeCoordinates(_ jwk: [String: Any]) -> [String: Any] {
        guard jwk["kty"] as? String == "EC", jwk["crv"] as? String == "P-256" else { return jwk }
        var padded = jwk
        for name in ["x", "y"] {
            guard let text = jwk[name] as? String, let value = Base64URL.decode(text).flatMap(PublicJWK.fullSize) else { continue }
            padded[name] = Base64URL.encode(value)
        }
        return padded
    }

    /// RFC 7638: SHA-256 over the required members in lexicographic order, for the key
    /// types the algorithms use.
    static func thumbprint(_ jwk: [String: Any], alg: String) throws -> String {
        func member(_ name: String) throws -> String {
            guard let value = jwk[name] as? String, !value.isEmpty, Base64URL.isURLSafe(value) || name == "crv" || name == "kty" else {
                throw failure("the DPoP proof's jwk lacks \(name)")
            }
            return value
        }
        let kty = try member("kty")
        let expected = ["ES256": "EC", "EdDSA": "OKP", "RS256": "RSA"][alg]
        guard kty == expected else { throw failure("the DPoP proof's jwk is not a key for \(alg)") }
        let key: PublicJWK
        switch kty {
        case "EC":
            guard try member("crv") == "P-256" else { throw failure("ES256 needs a P-256 key") }
            key = PublicJWK(kty: "EC", crv: "P-256", x: try member("x"), y: try member("y"))
        case "OKP":
            guard try member("crv") == "Ed25519" else { throw failure("EdDSA needs an Ed25519 key") }
            key = PublicJWK(kty: "OKP", crv: "Ed25519", x: try member("x"))
        default:
            guard let modulus = Base64URL.decode(try member("n")), modulus.drop(while: { $0 == 0 }).count >= 256 else {
                throw failure("RS256 needs a key of 2048 bits or more")
            }
            key = PublicJWK(kty: "RSA", n: try member("n"), e: try member("e"))
        }
        return key.thumbprint
    }

    /// A URL as `htu` compares it: scheme and host in lower case, no default port, no query or fragment.
    static func normalized(_ text: String) -> String? {
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            ["http", "https"].contains(scheme), let host = components.host, !host.isEmpty
        else { return nil }
        components.scheme = scheme
        components.host = host.lowercased()
        if (scheme == "https" && components.port == 443) || (scheme == "http" && components.port == 80) { components.port = nil }
        components.query = nil
        components.fragment = nil
        if components.path.isEmpty { components.path = "/" }
        return components.string
    }
}

/// A DPoP proof's claims (RFC 9449 §4.2).
struct DPoPClaims: JWTPayload {
    let jti: String
    let htm: String
    let htu: String
    let iat: Int64
    let ath: String?
    let nonce: String?

    enum CodingKeys: String, CodingKey { case jti, htm, htu, iat, ath, nonce }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        jti = try container.decode(String.self, forKey: .jti)
        htm = try container.decode(String.self, forKey: .htm)
        htu = try container.decode(String.self, forKey: .htu)
        // A NumericDate may have a fraction (RFC 7519 §2); whole seconds are enough here.
        let seconds = try container.decode(Double.self, forKey: .iat)
        guard seconds.isFinite, abs(seconds) < 1e12 else { throw DecodingError.dataCorruptedError(forKey: .iat, in: container, debugDescription: "iat") }
        iat = Int64(seconds)
        ath = try container.decodeIfPresent(String.self, forKey: .ath)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension Domain {
    public var dpop: DPoP { DPoP(domain: self) }
}
