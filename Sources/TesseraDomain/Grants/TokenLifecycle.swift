import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Token revocation (RFC 7009) and introspection (RFC 7662). A client only ever sees or
/// revokes its own tokens.
public struct TokenLifecycle: Sendable {
    let domain: Domain

    /// What a presented token turned out to be.
    enum PresentedToken {
        case refresh(GrantRecord)
        case access(AccessTokenClaims)
        case unknown
    }

    /// Finds a refresh token by its digest, else verifies an access token (signature,
    /// expiry, issuer). Hints are only hints (RFC 7009 §2.1): both kinds are tried. A
    /// failure to read the store or load the keys is an error, never "unknown".
    func identify(_ token: String, tenant: TenantRecord) async throws -> PresentedToken {
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        if let grant = try await domain.store.lookup({ try await $0.grant(digest: Secrets.digest(token)) }), grant.kind == .refresh,
            grant.tenantID == tenant.id
        {
            return .refresh(grant)
        }
        let keys = try await domain.tokenIssuer(for: tenant)
        do {
            let claims = try await keys.verify(token, as: AccessTokenClaims.self, now: domain.epochNow())
            return claims.iss == issuer ? .access(claims) : .unknown
        } catch {
            return .unknown  // not a token this tenant signed, or expired
        }
    }

    /// Ends the session a token belongs to, if the client may (RFC 7009 §2.1). Another
    /// client's token is answered like an unknown one (and left alone), so the answer never
    /// tells whether a token exists. A public client's identity is no secret, so it ends a
    /// session only with its refresh token, not with an access token anyone along the way
    /// may have seen.
    public func revoke(_ token: String?, client service: ServiceRecord, tenant: TenantRecord, logger: Logger) async throws {
        guard let token, !token.isEmpty else { throw DomainError.invalidRequest("token is missing") }
        let familyID: SessionID
        switch try await identify(token, tenant: tenant) {
        case .refresh(let grant) where grant.serviceID == service.id:
            familyID = grant.familyID
        case .access(let claims) where claims.clientID == service.clientID.rawValue && service.isConfidential:
            guard let sid = claims.sid else {
                // A client-credentials token has no session: it is remembered as revoked until it expires.
                let digest = Grants.revokedDigest(jti: claims.jti)
                _ = try await domain.store.transaction { try await $0.spendSingleUseID(digest: digest, expiresAt: Int64(claims.exp)) }
                logger.info("client-credentials token revoked", metadata: ["tenant": "\(tenant.name)", "client_id": "\(service.clientID)"])
                return
            }
            familyID = SessionID(sid)
        default:
            return  // Unknown, expired or already revoked tokens are not an error (RFC 7009 §2.2).
        }
        // The whole session goes: its refresh tokens and the access tokens issued with them.
        let now = domain.epochNow()
        try await domain.store.transaction { _ = try await $0.endSessions(.session(familyID), reason: .revoked, at: now) }
        logger.info("tokens revoked", metadata: ["tenant": "\(tenant.name)", "client_id": "\(service.clientID)"])
    }

    /// Describes a live token of the client's own; anything else is `active: false`.
    public func introspect(_ token: String?, client service: ServiceRecord, tenant: TenantRecord) async throws -> Introspection {
        guard service.isConfidential else {
            throw DomainError(.unauthenticated, .invalidClient, "introspection needs a confidential client")
        }
        guard let token, !token.isEmpty else { throw DomainError.invalidRequest("token is missing") }
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let now = domain.epochNow()
        switch try await identify(token, tenant: tenant) {
        case .refresh(let grant):
            let (session, user) = try await domain.store.read { tx in
                (try await tx.session(id: grant.familyID), try await tx.user(id: grant.userID))
            }
            // Another client's token is reported inactive rather than described. The user is
            // named by `sub` only: attributes go out only where the user confirmed them.
            if grant.serviceID == service.id, grant.usedAt == nil, grant.revoked == false, grant.expiresAt > now, session?.isLive(at: now) == true,
                let user
            {
                var answer = Introspection(
                    active: true, scope: grant.scope, clientID: service.clientID.rawValue, tokenType: "refresh_token",
                    exp: Int(grant.expiresAt), sub: Grants.subject(of: user.id, for: service), iss: issuer, authTime: Int(grant.authTime))
                if ScopeClaims.asksForGroups(grant.scope) { answer.groups = try await domain.groupNames(of: user.id) }
                return answer
            }
        case .access(let claims) where claims.sid == nil:
            if try await isLiveMachineToken(claims, caller: service, now: now) {
                var answer = Introspection(
                    active: true, scope: claims.scope, clientID: claims.clientID, tokenType: claims.cnf == nil ? "Bearer" : "DPoP",
                    exp: claims.exp, iat: claims.iat, sub: claims.sub, aud: claims.aud, iss: claims.iss, jti: claims.jti)
                answer.cnf = claims.cnf
                return answer
            }
        case .access(let claims):
            let (session, user) = try await domain.store.read { tx in
                let session = try await tx.session(id: SessionID(claims.sid ?? ""))
                return (session, try await session.asyncMap { try await tx.user(id: $0.userID) } ?? nil)
            }
            if claims.clientID == service.clientID.rawValue, let session, session.isLive(at: now), session.serviceID == service.id,
                Grants.subject(of: session.userID, for: service) == claims.sub, let user
            {
                var answer = Introspection(
                    active: true, scope: claims.scope, clientID: claims.clientID, tokenType: claims.cnf == nil ? "Bearer" : "DPoP",
                    exp: claims.exp, iat: claims.iat, sub: claims.sub, aud: claims.aud, iss: claims.iss, jti: claims.jti,
                    authTime: claims.authTime, acr: claims.acr, amr: claims.amr)
                // The key a resource server checks the request's DPoP proof against (RFC 9449 §6.2).
                answer.cnf = claims.cnf
                if ScopeClaims.asksForGroups(claims.scope) { answer.groups = try await domain.groupNames(of: user.id) }
                return answer
            }
        case .unknown:
            break
        }
        return Introspection(active: false)
    }
}

extension TokenLifecycle {
    /// A client-credentials token is described to the client it was issued to and to the
    /// service it is for (a resource server registered as a service, whose `client_id` is
    /// the token's `aud`), while its client still exists and may use the grant, and it was
    /// not revoked.
    func isLiveMachineToken(_ claims: AccessTokenClaims, caller: ServiceRecord, now: Int64) async throws -> Bool {
        guard claims.clientID == caller.clientID.rawValue || claims.aud == caller.clientID.rawValue,
            let client = try await domain.service(clientID: ClientID(claims.clientID)), client.tenantID == caller.tenantID,
            client.allowedGrantTypes.contains(GrantType.clientCredentials), claims.sub == client.clientID.rawValue
        else { return false }
        let revoked = try await domain.store.read { try await $0.isSpent(digest: Grants.revokedDigest(jti: claims.jti), now: now) }
        return !revoked
    }
}

/// An introspection answer (RFC 7662 §2.2).
public struct Introspection: Encodable, Sendable {
    public var active: Bool
    public var scope: String? = nil
    public var clientID: String? = nil
    public var tokenType: String? = nil
    public var exp: Int? = nil
    public var iat: Int? = nil
    public var sub: String? = nil
    public var aud: String? = nil
    public var iss: String? = nil
    public var jti: String? = nil
    public var authTime: Int? = nil
    public var acr: String? = nil
    public var amr: [String]? = nil
    public var cnf: AccessTokenClaims.Confirmation? = nil
    /// The names of the user's groups, for a token granted the `groups` scope.
    public var groups: [String]? = nil

    enum CodingKeys: String, CodingKey {
        case active, scope, exp, iat, sub, aud, iss, jti, acr, amr, cnf, groups
        case clientID = "client_id"
        case tokenType = "token_type"
        case authTime = "auth_time"
    }
}

extension Domain {
    public var tokenLifecycle: TokenLifecycle { TokenLifecycle(domain: self) }
}
