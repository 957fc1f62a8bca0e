import Foundation
import Hummingbird
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraStore

/// Token revocation (RFC 7009) and introspection (RFC 7662) at `{issuer}/revoke` and
/// `{issuer}/introspect`. Both take the token endpoint's client authentication; a
/// client only ever sees or revokes its own tokens.
extension OIDCRoutes {
    /// What a presented token turned out to be.
    enum PresentedToken {
        case refresh(GrantRecord)
        case access(AccessTokenClaims)
        case unknown
    }

    /// Finds a refresh token by its digest, else verifies an access token (signature,
    /// expiry, issuer). Hints are only hints (RFC 7009 §2.1): both kinds are tried.
    func identify(_ token: String, tenant: TenantRecord) async throws -> PresentedToken {
        let issuer = state.issuer(forTenantNamed: tenant.name)
        if let grant = try await state.store.read({ try await $0.grant(digest: Secrets.digest(token)) }), grant.kind == "refresh",
            grant.tenantID == tenant.id
        {
            return .refresh(grant)
        }
        if let claims = try? await state.tokenIssuer(for: tenant).verify(token, as: AccessTokenClaims.self), claims.iss == issuer {
            return .access(claims)
        }
        return .unknown
    }

    @Sendable func revoke(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let form = try await RequestDecoding.form(from: request)
        let service = try await authenticateClient(request, form: form, tenant: tenant)
        guard let token = form["token"], !token.isEmpty else { throw DomainError.invalidRequest("token is missing") }
        // Another client's token is answered like an unknown one (and left alone), so the
        // answer never tells whether a token exists. A public client's identity is no
        // secret, so it ends a session only with its refresh token, not with an access
        // token anyone along the way may have seen.
        let familyID: String
        switch try await identify(token, tenant: tenant) {
        case .refresh(let grant) where grant.serviceID == service.id:
            familyID = grant.familyID
        case .access(let claims) where claims.clientID == service.clientID && service.secretDigest != nil:
            familyID = claims.sid
        default:
            // Unknown, expired or already revoked tokens are not an error (RFC 7009 §2.2).
            return Self.noStore(Response(status: .ok))
        }
        // The whole session goes: its refresh tokens and the access tokens issued with them.
        try await state.store.transaction { try await $0.revokeFamily(familyID) }
        context.logger.info("tokens revoked", metadata: ["tenant": "\(tenant.name)", "client_id": "\(service.clientID)"])
        return Self.noStore(Response(status: .ok))
    }

    struct Introspection: Encodable {
        var active: Bool
        var scope: String? = nil
        var clientID: String? = nil
        var tokenType: String? = nil
        var exp: Int? = nil
        var iat: Int? = nil
        var sub: String? = nil
        var aud: String? = nil
        var iss: String? = nil
        var jti: String? = nil
        var authTime: Int? = nil
        var acr: String? = nil
        var amr: [String]? = nil

        enum CodingKeys: String, CodingKey {
            case active, scope, exp, iat, sub, aud, iss, jti, acr, amr
            case clientID = "client_id"
            case tokenType = "token_type"
            case authTime = "auth_time"
        }
    }

    @Sendable func introspect(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let issuer = state.issuer(forTenantNamed: tenant.name)
        let form = try await RequestDecoding.form(from: request)
        let service = try await authenticateClient(request, form: form, tenant: tenant)
        guard service.secretDigest != nil else {
            throw DomainError(.unauthenticated, .invalidClient, "introspection needs a confidential client")
        }
        guard let token = form["token"], !token.isEmpty else { throw DomainError.invalidRequest("token is missing") }
        let now = state.epochNow()
        let inactive = Introspection(active: false)
        var answer = inactive
        switch try await identify(token, tenant: tenant) {
        case .refresh(let grant):
            let (family, user) = try await state.store.read { tx in
                (try await tx.family(grant.familyID), try await tx.user(id: grant.userID))
            }
            // Another client's token is reported inactive rather than described. The user is
            // named by `sub` only: attributes go out only where the user confirmed them.
            if grant.serviceID == service.id, grant.usedAt == nil, grant.revoked == 0, grant.expiresAt > now, family?.revoked == false,
                let user
            {
                answer = Introspection(
                    active: true, scope: grant.scope, clientID: service.clientID, tokenType: "refresh_token",
                    exp: Int(grant.expiresAt), sub: user.id, iss: issuer, authTime: Int(grant.authTime))
            }
        case .access(let claims):
            let (family, user) = try await state.store.read { tx in
                (try await tx.family(claims.sid), try await tx.user(id: claims.sub))
            }
            if claims.clientID == service.clientID, family?.revoked == false, user != nil {
                answer = Introspection(
                    active: true, scope: claims.scope, clientID: claims.clientID, tokenType: "Bearer",
                    exp: claims.exp, iat: claims.iat, sub: claims.sub, aud: claims.aud, iss: claims.iss, jti: claims.jti,
                    authTime: claims.authTime, acr: claims.acr, amr: claims.amr)
            }
        case .unknown:
            break
        }
        return Self.noStore(JSONResponse.make(answer))
    }

    static func noStore(_ response: Response) -> Response {
        var response = response
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
