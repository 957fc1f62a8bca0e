import Foundation
import JWTKit
import Synchronization
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// The OAuth grants a service may use (`grant_types`). The CIBA grant is not listed here:
/// a service's backchannel mode allows it.
public enum GrantType {
    public static let authorizationCode = "authorization_code"
    public static let refreshToken = "refresh_token"
    public static let clientCredentials = "client_credentials"
    /// What `grant_types` may hold.
    public static let all = [authorizationCode, refreshToken, clientCredentials]
    /// A service's grants when it names none.
    public static let standard = [authorizationCode, refreshToken]
}

/// How a service authenticates at the token-style endpoints (`token_endpoint_auth_method`).
public enum ClientAuthMethod {
    public static let secretBasic = "client_secret_basic"
    public static let secretPost = "client_secret_post"
    public static let privateKeyJWT = "private_key_jwt"
    public static let none = "none"
    /// What the discovery document announces.
    public static let all = [secretBasic, secretPost, privateKeyJWT, none]
}

extension ServiceRecord {
    /// The grants it may use: those it names, or authorization code and refresh token.
    public var allowedGrantTypes: [String] { grantTypes ?? GrantType.standard }

    /// Its `token_endpoint_auth_method`: `none` (public), `private_key_jwt`, or
    /// `client_secret_basic` (which also takes the secret in the form, `client_secret_post`).
    public var endpointAuthMethod: String {
        if isPublic { return ClientAuthMethod.none }
        return authMethod ?? ClientAuthMethod.secretBasic
    }

    /// It authenticates with a secret or assertion (not by its id alone).
    public var isConfidential: Bool { !isPublic }
}

// MARK: Client credentials

/// The token endpoint's answer to a `client_credentials` grant (RFC 6749 §4.4.3): an
/// access token alone.
public struct MachineTokenResponse: Codable, Sendable {
    public let accessToken: String
    public var tokenType = "Bearer"
    public let expiresIn: Int64
    public let scope: String

    enum CodingKeys: String, CodingKey {
        case scope
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
    }
}

extension Grants {
    /// A token for the service itself (RFC 6749 §4.4): its own `client_id` as `sub`
    /// (RFC 9068 §2.2), its audience as `aud`, the scopes asked for among those it was
    /// given (all of them when it names none), no refresh or ID token.
    public func clientCredentials(scope requested: String?, client service: ServiceRecord, tenant: TenantRecord, dpop: DPoP.Proof?)
        async throws -> MachineTokenResponse
    {
        guard service.isConfidential, service.allowedGrantTypes.contains(GrantType.clientCredentials) else {
            throw DomainError(.invalid, .unauthorizedClient, "the service may not use the client_credentials grant (grant_types)")
        }
        try Self.requireProof(dpop, service: service)
        let allowed = service.scopes ?? []
        let scopes = requested.map(ScopeList.parse) ?? allowed
        if let unknown = scopes.first(where: { !allowed.contains($0) }) {
            throw DomainError(.invalid, .invalidScope, "the service was not given the scope '\(unknown.prefix(64))'")
        }
        return try await machineToken(scope: scopes, service: service, tenant: tenant, dpop: dpop)
    }

    private func machineToken(scope: [String], service: ServiceRecord, tenant: TenantRecord, dpop: DPoP.Proof?) async throws
        -> MachineTokenResponse
    {
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let now = domain.epochNow()
        let lifetime = service.accessTokenLifetime ?? tenant.accessTokenLifetime
        var claims = AccessTokenClaims(
            iss: issuer, sub: service.clientID.rawValue, aud: service.audience ?? issuer, clientID: service.clientID.rawValue,
            exp: Int(now + lifetime), iat: Int(now), jti: Secrets.randomToken(byteCount: 16), scope: scope.joined(separator: " "),
            authTime: nil, amr: nil, acr: nil, sid: nil)
        claims.cnf = dpop.map { AccessTokenClaims.Confirmation(jkt: $0.jkt) }
        let keys = try await domain.tokenIssuer(for: tenant)
        var response = MachineTokenResponse(
            accessToken: try await keys.sign(claims, type: "at+jwt"), expiresIn: lifetime, scope: claims.scope)
        if dpop != nil { response.tokenType = "DPoP" }
        return response
    }

    /// The id under which a revoked client-credentials token is remembered until it expires.
    static func revokedDigest(jti: String) -> String { Secrets.digest("revoked access token:\(jti)") }
}

/// A space-separated scope parameter (RFC 6749 §3.3), each scope once, in order.
enum ScopeList {
    static func parse(_ text: String) -> [String] {
        var seen = Set<String>()
        return text.split(separator: " ").map(String.init).filter { seen.insert($0).inserted }
    }

    /// A scope token: printable ASCII without space, `"` or `\` (RFC 6749 §3.3).
    static func isScope(_ text: String) -> Bool {
        (1...128).contains(text.count) && text.unicodeScalars.allSatisfy { $0.value >= 0x21 && $0.value <= 0x7E && $0 != "\"" && $0 != "\\" }
    }
}

// MARK: private_key_jwt

/// Client authentication by a signed assertion (`private_key_jwt`, RFC 7523 §2.2 and
/// OpenID Connect Core §9): a JWT the client signs with a key it registered (inline as
/// `jwks`, or at `jwks_uri`), naming itself as `iss` and `sub`, this server as `aud`
/// (its issuer, its token endpoint, or the endpoint called), expiring within the hour,
/// with a `jti` that is spent on first use on every node (kept until the assertion
/// expires, then purged).
public struct ClientAssertions: Sendable {
    let domain: Domain
    let http: any OutboundHTTP

    public static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The signature algorithms taken (announced as `token_endpoint_auth_signing_alg_values_supported`).
    public static let algorithms = ["ES256", "PS256", "RS256", "EdDSA"]
    /// The longest an assertion may live, and how far clocks may differ.
    static let maximumLifetime: Int64 = 3600
    static let skew: Int64 = 60
    /// How long keys fetched from a `jwks_uri` are used, and how soon after a fetch an
    /// unknown key makes another.
    static let keysLifetime: Duration = .seconds(300)
    static let refetchAfter: Duration = .seconds(30)

    struct Claims: JWTPayload {
        let iss: String
        let sub: String
        let aud: AudienceClaim
        let exp: Int64
        let iat: Int64?
        let nbf: Int64?
        let jti: String

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static var refused: DomainError { DomainError(.unauthenticated, .invalidClient, "client authentication failed") }

    /// The service the assertion authenticates, or `invalid_client`. `endpoint` is the URL
    /// the assertion was sent to.
    public func authenticate(assertion: String, clientID: String?, endpoint: String, tenant: TenantRecord) async throws -> ServiceRecord {
        guard assertion.utf8.count <= 16384 else { throw Self.refused }
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(String(parts[0])),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let alg = header["alg"] as? String, Self.algorithms.contains(alg)
        else { throw Self.refused }
        let unverified: Claims
        do {
            unverified = try await JWTKeyCollection().unverified(assertion, as: Claims.self)
        } catch {
            throw Self.refused
        }
        guard unverified.iss == unverified.sub, clientID == nil || clientID == unverified.sub,
            let service = try await domain.service(clientID: ClientID(unverified.sub)), service.tenantID == tenant.id,
            service.endpointAuthMethod == ClientAuthMethod.privateKeyJWT
        else { throw Self.refused }
        let claims = try await verified(assertion, alg: alg, service: service)
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let audiences: Set<String> = [issuer, issuer + "/token", endpoint]
        let now = domain.epochNow()
        guard claims.iss == service.clientID.rawValue, claims.sub == service.clientID.rawValue,
            claims.aud.value.contains(where: audiences.contains),
            claims.exp > now - Self.skew, claims.exp <= now + Self.maximumLifetime + Self.skew,
            (claims.iat ?? now) <= now + Self.skew, (claims.nbf ?? now) <= now + Self.skew,
            (1...256).contains(claims.jti.count)
        else { throw Self.refused }
        let digest = Secrets.digest("client assertion:\(service.clientID.rawValue):\(claims.jti)")
        let fresh = try await domain.store.transaction { tx in
            try await tx.spendSingleUseID(digest: digest, expiresAt: claims.exp + Self.skew)
        }
        guard fresh else { throw Self.refused }
        return service
    }

    /// The claims, once the signature verifies with one of the service's keys. Keys from a
    /// `jwks_uri` are fetched again when none verifies and the last fetch is not fresh (the
    /// client may have rolled its keys).
    func verified(_ assertion: String, alg: String, service: ServiceRecord) async throws -> Claims {
        if let inline = service.jwks {
            guard let claims = try await Self.verify(assertion, alg: alg, with: Data(inline.utf8)) else { throw Self.refused }
            return claims
        }
        guard let uri = service.jwksURI else { throw Self.refused }
        let cached = domain.clientKeys.lookup(uri)
        if let cached, let claims = try await Self.verify(assertion, alg: alg, with: cached.keys) { return claims }
        if let cached, ContinuousClock.now - cached.fetchedAt < Self.refetchAfter { throw Self.refused }
        let answer: OutboundResponse
        do {
            answer = try await http.get(uri)
        } catch {
            throw Self.refused
        }
        guard answer.status == 200, ClientKeys.parse(answer.body) != nil else { throw Self.refused }
        domain.clientKeys.store(answer.body, for: uri)
        guard let claims = try await Self.verify(assertion, alg: alg, with: answer.body) else { throw Self.refused }
        return claims
    }

    /// The claims if one of the set's signing keys verifies the assertion, else nil.
    static func verify(_ assertion: String, alg: String, with set: Data) async throws -> Claims? {
        guard let keys = ClientKeys.parse(set) else { return nil }
        let collection = JWTKeyCollection()
        for (index, var key) in keys.enumerated() {
            if let named = key.algorithm?.rawValue, named != alg { continue }
            key.keyIdentifier = JWKIdentifier(string: "key \(index)")
            key.algorithm = JWK.Algorithm(rawValue: alg)
            _ = try? await collection.add(jwk: key)
        }
        // Every key in turn: a `kid` in the assertion is only a hint.
        return try? await collection.verify(assertion, as: Claims.self, iteratingKeys: true)
    }
}

/// A client's public keys (a JWK Set), as registered or fetched.
public enum ClientKeys {
    /// At most this many keys, each a public key.
    static let maximumKeys = 20

    /// The set's public signing keys as the JWT library takes them, or nil when the text is
    /// not a JWK Set of at most 20 public keys (RSA keys of 2048 bits or more). P-256 coordinates are taken at full length
    /// (some libraries drop leading zero bytes); encryption keys (`use` `enc`) are left out.
    public static func parse(_ data: Data) -> [JWK]? {
        guard data.count <= 65536, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let entries = object["keys"] as? [[String: Any]], (1...maximumKeys).contains(entries.count)
        else { return nil }
        var keys: [JWK] = []
        for entry in entries {
            guard PublicJWK.privateMembers.isDisjoint(with: entry.keys), ["EC", "RSA", "OKP"].contains(entry["kty"] as? String ?? "") else { return nil }
            if entry["use"] as? String == "enc" { continue }
            // RSA keys of 2048 bits or more, as for DPoP.
            if entry["kty"] as? String == "RSA" {
                guard let modulus = (entry["n"] as? String).flatMap(Base64URL.decode), modulus.drop(while: { $0 == 0 }).count >= 256 else {
                    return nil
                }
            }
            guard let data = try? JSONSerialization.data(withJSONObject: DPoP.fullSizeCoordinates(entry)),
                let key = try? JSONDecoder().decode(JWK.self, from: data)
            else { return nil }
            keys.append(key)
        }
        return keys
    }
}

/// The key sets fetched from clients' `jwks_uri`, by address, for `keysLifetime`.
final class ClientKeyCache: Sendable {
    private let entries = Mutex([String: (keys: Data, fetchedAt: ContinuousClock.Instant)]())

    func lookup(_ uri: String) -> (keys: Data, fetchedAt: ContinuousClock.Instant)? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[uri], now - entry.fetchedAt < ClientAssertions.keysLifetime else { return nil }
            return entry
        }
    }

    func store(_ keys: Data, for uri: String) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            entries = entries.filter { now - $0.value.fetchedAt < ClientAssertions.keysLifetime }
            entries[uri] = (keys, now)
        }
    }
}

extension Domain {
    /// `private_key_jwt`, fetching keys from clients' `jwks_uri` with `http`.
    public func clientAssertions(_ http: any OutboundHTTP) -> ClientAssertions { ClientAssertions(domain: self, http: http) }
}
