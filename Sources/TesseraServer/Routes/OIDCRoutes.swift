import Foundation
import HTTPTypes
import Hummingbird
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraStore

/// OpenID Connect per tenant, below its issuer `{public URL}/t/{tenant}`.
struct OIDCRoutes {
    let state: ServerState

    static let codeLifetime = Grants.codeLifetime
    static let accessTokenLifetime = Grants.accessTokenLifetime
    static let idTokenLifetime = Grants.idTokenLifetime
    static let refreshTokenLifetime = Grants.refreshTokenLifetime

    /// `tenant` answers an unknown tenant with JSON, `pages` with a page.
    func register(on tenant: RouterGroup<TesseraRequestContext>, pages: RouterGroup<TesseraRequestContext>) {
        tenant.get(".well-known/openid-configuration", use: discovery)
        tenant.get("jwks", use: jwks)
        pages.get("authorize", use: authorize)
        tenant.get("authorize/status", use: status)
        pages.get("authorize/complete", use: complete)
        tenant.post("token", use: token)
        tenant.post("bc-authorize", use: BackchannelRoutes(state: state, oidc: self).authenticate)
        tenant.post("revoke", use: revoke)
        tenant.post("introspect", use: introspect)
        tenant.get("userinfo", use: userinfo)
        tenant.post("userinfo", use: userinfo)
        tenant.get("authenticate", use: authenticationLinkPage)
        tenant.get("activate", use: activationLinkPage)
    }

    // MARK: Discovery and keys

    struct Discovery: Codable {
        let issuer: String
        let authorizationEndpoint: String
        let tokenEndpoint: String
        let userinfoEndpoint: String
        let jwksURI: String
        let revocationEndpoint: String
        let introspectionEndpoint: String
        let backchannelAuthenticationEndpoint: String
        let backchannelTokenDeliveryModesSupported = ["poll", "ping"]
        let backchannelUserCodeParameterSupported = false
        let revocationEndpointAuthMethodsSupported = ["client_secret_basic", "client_secret_post", "none"]
        let introspectionEndpointAuthMethodsSupported = ["client_secret_basic", "client_secret_post"]
        let responseTypesSupported = ["code"]
        let responseModesSupported = ["query"]
        let grantTypesSupported = ["authorization_code", "refresh_token", BackchannelRoutes.grantType]
        let subjectTypesSupported = ["public"]
        let idTokenSigningAlgValuesSupported = ["ES256"]
        let tokenEndpointAuthMethodsSupported = ["client_secret_basic", "client_secret_post", "none"]
        let codeChallengeMethodsSupported = ["S256"]
        let scopesSupported: [String]
        let claimsSupported: [String]
        let acrValuesSupported: [String]
        let authorizationResponseIssParameterSupported = true

        enum CodingKeys: String, CodingKey {
            case issuer
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case userinfoEndpoint = "userinfo_endpoint"
            case jwksURI = "jwks_uri"
            case revocationEndpoint = "revocation_endpoint"
            case introspectionEndpoint = "introspection_endpoint"
            case backchannelAuthenticationEndpoint = "backchannel_authentication_endpoint"
            case backchannelTokenDeliveryModesSupported = "backchannel_token_delivery_modes_supported"
            case backchannelUserCodeParameterSupported = "backchannel_user_code_parameter_supported"
            case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
            case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
            case responseTypesSupported = "response_types_supported"
            case responseModesSupported = "response_modes_supported"
            case grantTypesSupported = "grant_types_supported"
            case subjectTypesSupported = "subject_types_supported"
            case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
            case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
            case codeChallengeMethodsSupported = "code_challenge_methods_supported"
            case scopesSupported = "scopes_supported"
            case claimsSupported = "claims_supported"
            case acrValuesSupported = "acr_values_supported"
            case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        }
    }

    @Sendable func discovery(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let issuer = state.issuer(forTenantNamed: tenant.name)
        let services = try await state.store.read { try await $0.services(tenantID: tenant.id) }
        var attributes = Set<String>()
        var combinations = Set<String>()
        for service in services {
            attributes.formUnion((try? JSONCoding.decode([String].self, service.attributes)) ?? [])
            for alternative in (try? AuthenticatorPolicy(parsing: service.policy))?.alternatives ?? [] {
                combinations.insert(Self.acr(for: alternative))
            }
        }
        return JSONResponse.make(
            Discovery(
                issuer: issuer, authorizationEndpoint: issuer + "/authorize", tokenEndpoint: issuer + "/token",
                userinfoEndpoint: issuer + "/userinfo", jwksURI: issuer + "/jwks", revocationEndpoint: issuer + "/revoke",
                introspectionEndpoint: issuer + "/introspect", backchannelAuthenticationEndpoint: issuer + "/bc-authorize",
                scopesSupported: ["openid", "offline_access"],
                claimsSupported: ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "sid"] + attributes.sorted(),
                acrValuesSupported: combinations.sorted()))
    }

    @Sendable func jwks(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        var response = JSONResponse.make(["keys": try await state.publicKeys(for: tenant)])
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }

    static func acr(for combination: FactorCombination) -> String { "urn:tessera:acr:\(combination)" }

    static func amr(for factors: [FactorType]) -> [String] {
        factors.map(\.authenticationMethodReference) + (factors.count > 1 ? ["mfa"] : [])
    }

    // MARK: Authorization (browser)

    @Sendable func authorize(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let issuer = state.issuer(forTenantNamed: tenant.name)
        let query: [String: String]
        do {
            query = try RequestDecoding.query(request)
        } catch {
            throw BrowserError(status: .badRequest, title: "Invalid request", message: "The sign-in request has malformed or repeated parameters.")
        }
        // Until client and redirect URI are known good, errors are shown here, never redirected.
        guard let clientID = query["client_id"],
            let service = try await state.store.read({ try await $0.service(clientID: clientID) }), service.tenantID == tenant.id
        else { throw BrowserError(status: .badRequest, title: "Unknown service", message: "The service asking for sign-in is not registered here.") }
        let registered = try JSONCoding.decode([String].self, service.redirectURIs)
        // [REQ:DESIGN exact redirect URIs] string equality, no prefix or pattern matching.
        guard let redirectURI = query["redirect_uri"], registered.contains(redirectURI) else {
            throw BrowserError(status: .badRequest, title: "Invalid redirect", message: "The return address of this sign-in request is not registered for the service.")
        }
        let stateParameter = query["state"]
        func fail(_ code: String, _ description: String) -> Response {
            Self.redirect(to: redirectURI, parameters: [("error", code), ("error_description", description), ("state", stateParameter), ("iss", issuer)])
        }
        guard query["response_type"] == "code" else {
            return fail("unsupported_response_type", "only response_type=code is supported")
        }
        let scopes = (query["scope"] ?? "").split(separator: " ").map(String.init)
        guard scopes.contains("openid") else { return fail("invalid_scope", "the scope must include openid") }
        guard (stateParameter?.count ?? 0) <= 1024, (query["nonce"]?.count ?? 0) <= 1024 else {
            return fail("invalid_request", "state and nonce are limited to 1024 characters")
        }
        if query["request"] != nil || query["request_uri"] != nil {
            return fail("request_not_supported", "request objects are not supported")
        }
        // prompt=login and max_age=0 ask for a full login: no single sign-on (OpenID Core §3.1.2.1).
        let prompts = Set((query["prompt"] ?? "").split(separator: " ").map(String.init))
        if prompts.contains("none") { return fail("login_required", "a login always needs the user's device") }
        var maxAge: Int64?
        if let text = query["max_age"] {
            guard let value = Int64(text), value >= 0 else { return fail("invalid_request", "max_age must be a non-negative integer") }
            maxAge = value
        }
        let ssoAllowed = !prompts.contains("login") && maxAge != 0
        let challenge = query["code_challenge"]
        if let method = query["code_challenge_method"], method != "S256" {
            return fail("invalid_request", "only the S256 code challenge method is supported")
        }
        if let challenge {
            guard PKCE.isWellFormedChallenge(challenge) else { return fail("invalid_request", "code_challenge is not an S256 challenge") }
            guard query["code_challenge_method"] == "S256" else {
                return fail("invalid_request", "code_challenge_method=S256 is required (plain is not supported)")
            }
        } else if service.isPublic == 1 {
            return fail("invalid_request", "public clients must use PKCE with S256")
        }

        let now = state.now()
        // An identifier never begins with "-", so `tessera device approve ID` reads it as an argument.
        let requestID = Secrets.identifier(byteCount: 16)
        let browserSecret = Secrets.randomToken()
        let expiresAt = now.addingTimeInterval(state.configuration.requestLifetime)
        let record = AuthRequestRecord(
            id: requestID, tenantID: tenant.id, serviceID: service.id, purpose: AuthenticationPurpose.login.rawValue,
            status: AuthenticationStatus.pending.rawValue, challenge: nil, activationID: nil, userID: nil,
            redirectURI: redirectURI, state: stateParameter, nonce: query["nonce"], codeChallenge: challenge,
            scope: scopes.joined(separator: " "), browserDigest: Secrets.digest(browserSecret), confirmedAttributes: nil,
            factors: nil, authTime: nil, ssoAllowed: ssoAllowed ? 1 : 0, maxAge: maxAge, createdAt: Int64(now.timeIntervalSince1970),
            expiresAt: Int64(expiresAt.timeIntervalSince1970))
        try await state.store.transaction { try await $0.insertAuthRequest(record) }

        let page = Pages.login(
            serviceName: service.name, attributes: try JSONCoding.decode([String].self, service.attributes),
            authenticationURL: "\(issuer)/authenticate?request=\(requestID)",
            statusURL: "\(issuer)/authorize/status?request=\(requestID)",
            completeURL: "\(issuer)/authorize/complete?request=\(requestID)", requestID: requestID, expiresAt: expiresAt)
        var response = HTMLResponse.make(page)
        // The browser that started the request is the only one that can collect its code.
        response.setCookie(
            Cookie(
                name: Self.cookieName(requestID), value: browserSecret, maxAge: Int(state.configuration.requestLifetime) + 60,
                path: "/t/\(tenant.name)/authorize", secure: state.publicURL.hasPrefix("https:"), httpOnly: true,
                sameSite: .lax))
        return response
    }

    static func cookieName(_ requestID: String) -> String { "tessera_login_\(requestID)" }

    static func redirect(to uri: String, parameters: [(String, String?)]) -> Response {
        var components = URLComponents(string: uri) ?? URLComponents()
        var items = components.queryItems ?? []
        for (name, value) in parameters {
            if let value { items.append(URLQueryItem(name: name, value: value)) }
        }
        components.percentEncodedQuery = items.map { item in
            "\(FormEncoding.component(item.name))=\(FormEncoding.component(item.value ?? ""))"
        }.joined(separator: "&")
        return Response(status: .found, headers: [.location: components.string ?? uri, .cacheControl: "no-store"])
    }

    /// The request a browser follows, if the browser holds its cookie.
    private func browserRequest(_ request: Request, context: TesseraRequestContext) async throws -> (TenantRecord, AuthRequestRecord) {
        let tenant = try context.requireTenant()
        let query = try RequestDecoding.query(request)
        guard let requestID = query["request"],
            let record = try await state.store.read({ try await $0.authRequest(id: requestID) }), record.tenantID == tenant.id
        else { throw DomainError.notFound("authentication request") }
        // Only browser logins have a browser; an account process is never completed here.
        guard record.purpose == AuthenticationPurpose.login.rawValue, let browserDigest = record.browserDigest,
            record.serviceID != nil, record.redirectURI != nil
        else { throw DomainError.notFound("authentication request") }
        guard let secret = request.cookies[Self.cookieName(requestID)]?.value,
            Secrets.constantTimeEquals(Secrets.digest(secret), browserDigest)
        else { throw DomainError(.forbidden, .accessDenied, "this browser did not start the sign-in request") }
        return (tenant, record)
    }

    func effectiveStatus(_ record: AuthRequestRecord, now: Int64) -> AuthenticationStatus {
        let status = AuthenticationStatus(rawValue: record.status) ?? .expired
        if (status == .pending || status == .claimed) && record.expiresAt <= now { return .expired }
        return status
    }

    struct StatusView: Codable {
        let status: AuthenticationStatus
        let lockedUntil: Int64?
        let expiresAt: Int64
        /// What the page passes back as `known` to wait for a change.
        var key: String { status.rawValue + (lockedUntil.map { ":\($0)" } ?? "") }
        enum CodingKeys: String, CodingKey {
            case status
            case lockedUntil = "locked_until"
            case expiresAt = "expires_at"
        }
    }

    /// The login page's view of its request. With `wait` (up to 30 s) and the `known`
    /// view the page shows (`status` or `status:locked_until`), the answer comes when the
    /// view changes — a device claimed, answered or failed, on any node — or the request
    /// expires, or the wait is over.
    @Sendable func status(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let (_, record) = try await browserRequest(request, context: context)
        let query = try RequestDecoding.query(request)
        let wait = try RequestDecoding.wait(query)
        let view = try await state.longPoll(watching: [EventKey.request(record.id)]) {
            try await statusView(record.id)
        } waitFor: { view in
            guard wait > 0, query["known"] == view.key, view.status == .pending || view.status == .claimed else { return nil }
            return .seconds(min(wait, max(0, view.expiresAt - state.epochNow()) + 1))
        }
        return JSONResponse.make(view)
    }

    private func statusView(_ requestID: String) async throws -> StatusView {
        let now = state.epochNow()
        return try await state.store.read { tx in
            guard let record = try await tx.authRequest(id: requestID) else { throw DomainError.notFound("authentication request") }
            var lockedUntil: Int64?
            if let activationID = record.activationID, let activation = try await tx.activation(id: activationID) {
                lockedUntil = LockState(activation, now: now).information?.lockedUntil.map { Int64($0.timeIntervalSince1970) }
            }
            return StatusView(status: effectiveStatus(record, now: now), lockedUntil: lockedUntil, expiresAt: record.expiresAt)
        }
    }

    @Sendable func complete(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let (tenant, record): (TenantRecord, AuthRequestRecord)
        do {
            (tenant, record) = try await browserRequest(request, context: context)
        } catch let error as DomainError {
            throw BrowserError(status: error.kind.status, title: "Sign-in not possible", message: error.message)
        }
        let issuer = state.issuer(forTenantNamed: tenant.name)
        let now = state.epochNow()
        guard record.serviceID != nil, let redirectURI = record.redirectURI else {
            throw BrowserError(status: .notFound, title: "Sign-in not possible", message: "There is no such sign-in request.")
        }
        switch effectiveStatus(record, now: now) {
        case .approved:
            let code = try await state.store.transaction { tx in try await Grants.issueCode(for: record, tx: tx, now: now) }
            guard let code else {
                throw BrowserError(status: .badRequest, title: "Sign-in completed", message: "This sign-in was completed already.")
            }
            return Self.redirect(to: redirectURI, parameters: [("code", code), ("state", record.state), ("iss", issuer)])
        case .denied, .expired, .locked:
            let reason = effectiveStatus(record, now: now)
            let description =
                switch reason {
                case .denied: "the user declined the sign-in on the device"
                case .locked: "the device is locked after too many failed attempts"
                default: "the sign-in request expired"
                }
            return Self.redirect(
                to: redirectURI,
                parameters: [("error", "access_denied"), ("error_description", description), ("state", record.state), ("iss", issuer)])
        case .pending, .claimed:
            throw BrowserError(status: .badRequest, title: "Not finished", message: "Confirm the sign-in on your device first.")
        case .completed:
            throw BrowserError(status: .badRequest, title: "Sign-in completed", message: "This sign-in was completed already.")
        }
    }

    @Sendable func authenticationLinkPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let requestID = (try? RequestDecoding.query(request))?["request"] ?? ""
        let url = "\(state.issuer(forTenantNamed: tenant.name))/authenticate?request=\(FormEncoding.component(requestID))"
        return HTMLResponse.make(
            Pages.deviceLink(
                title: "Open with Tessera",
                explanation: "This is a sign-in link for the Tessera app. Scan the code or open the link on your activated device.",
                url: url))
    }

    @Sendable func activationLinkPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let code = (try? RequestDecoding.query(request))?["code"] ?? ""
        let url = "\(state.issuer(forTenantNamed: tenant.name))/activate?code=\(FormEncoding.component(code))"
        return HTMLResponse.make(
            Pages.deviceLink(
                title: "Activate a device",
                explanation: "Scan this code with the Tessera app (or run `tessera device activate` with this link) to bind your device to your account.",
                url: url))
    }

    // MARK: Token endpoint

    @Sendable func token(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let form = try await RequestDecoding.form(from: request)
        let service = try await authenticateClient(request, form: form, tenant: tenant)
        switch form["grant_type"] {
        case "authorization_code":
            return try await redeemCode(form: form, service: service, tenant: tenant)
        case "refresh_token":
            return try await refresh(form: form, service: service, tenant: tenant)
        case BackchannelRoutes.grantType:
            return try await BackchannelRoutes(state: state, oidc: self).redeem(form: form, service: service, tenant: tenant)
        case nil:
            throw DomainError.invalidRequest("grant_type is missing")
        default:
            throw DomainError(.invalid, DomainError.Code("unsupported_grant_type"),
                "supported grant types: authorization_code, refresh_token, \(BackchannelRoutes.grantType)")
        }
    }

    /// client_secret_basic, client_secret_post, or a public client naming itself.
    func authenticateClient(_ request: Request, form: [String: String], tenant: TenantRecord) async throws -> ServiceRecord {
        var clientID = form["client_id"]
        var secret = form["client_secret"]
        var usedBasic = false
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("basic ") {
            guard form["client_secret"] == nil else {
                throw DomainError.invalidRequest("use one client authentication method, not two")
            }
            guard let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else { throw invalidClient(basic: true) }
            let basicID = RequestDecoding.decodeComponent(text[..<colon]) ?? ""
            if let clientID, clientID != basicID { throw invalidClient(basic: true) }
            clientID = basicID
            secret = RequestDecoding.decodeComponent(text[text.index(after: colon)...])
            usedBasic = true
        }
        guard let clientID, let service = try await state.store.read({ try await $0.service(clientID: clientID) }),
            service.tenantID == tenant.id
        else { throw invalidClient(basic: usedBasic) }
        if let digest = service.secretDigest {
            guard let secret, Secrets.constantTimeEquals(Secrets.digest(secret), digest) else { throw invalidClient(basic: usedBasic) }
        } else if secret != nil {
            throw invalidClient(basic: usedBasic)
        }
        return service
    }

    private func invalidClient(basic: Bool) -> OAuthError {
        var error = OAuthError(.unauthorized, "invalid_client", "client authentication failed")
        if basic { error.headers = [.wwwAuthenticate: #"Basic realm="tessera""#] }
        return error
    }

    private func redeemCode(form: [String: String], service: ServiceRecord, tenant: TenantRecord) async throws -> Response {
        guard let code = form["code"] else { throw DomainError.invalidRequest("code is missing") }
        let now = state.epochNow()
        let digest = Secrets.digest(code)
        let outcome: GrantOutcome = try await state.store.transaction { tx in
            guard let grant = try await tx.grant(digest: digest), grant.kind == "code", grant.tenantID == tenant.id else {
                throw DomainError.invalidGrant("the authorization code is not valid")
            }
            guard grant.serviceID == service.id else { throw DomainError.invalidGrant("the code was issued to another client") }
            // [REQ:RFC6749-4.1.2] a code used twice revokes everything issued from it. The
            // revocation, like the spending of a code that fails its checks, commits before
            // the error is answered: a code gets exactly one try.
            guard try await tx.spendGrant(digest: digest, now: now) else {
                try await tx.revokeFamily(grant.familyID)
                return .refused(DomainError.invalidGrant("the authorization code was used already"))
            }
            guard grant.expiresAt > now else { return .refused(DomainError.invalidGrant("the authorization code has expired")) }
            guard form["redirect_uri"] == grant.redirectURI else {
                return .refused(DomainError.invalidGrant("redirect_uri does not match the authorization request"))
            }
            if let challenge = grant.codeChallenge {
                guard let verifier = form["code_verifier"] else { return .refused(DomainError.invalidGrant("code_verifier is missing")) }
                guard PKCE.verify(verifier: verifier, challenge: challenge) else {
                    return .refused(DomainError.invalidGrant("code_verifier does not match the code challenge"))
                }
            } else if form["code_verifier"] != nil {
                return .refused(DomainError.invalidGrant("the authorization request had no code challenge"))
            }
            return try await rotate(grant, scope: grant.scope, service: service, tx: tx, now: now)
        }
        return try await issueTokens(outcome, service: service, tenant: tenant, includeNonce: true)
    }

    private func refresh(form: [String: String], service: ServiceRecord, tenant: TenantRecord) async throws -> Response {
        guard let token = form["refresh_token"] else { throw DomainError.invalidRequest("refresh_token is missing") }
        let now = state.epochNow()
        let digest = Secrets.digest(token)
        let outcome: GrantOutcome = try await state.store.transaction { tx in
            guard let grant = try await tx.grant(digest: digest), grant.kind == "refresh", grant.tenantID == tenant.id else {
                throw DomainError.invalidGrant("the refresh token is not valid")
            }
            guard grant.serviceID == service.id else { throw DomainError.invalidGrant("the refresh token was issued to another client") }
            // Rotation: each refresh token works once; a second use means it was copied, so
            // the whole family is revoked (committed before the error is answered).
            guard try await tx.spendGrant(digest: digest, now: now) else {
                try await tx.revokeFamily(grant.familyID)
                return .refused(DomainError.invalidGrant("the refresh token was used already; its session is revoked"))
            }
            guard try await tx.family(grant.familyID)?.revoked == false else {
                return .refused(DomainError.invalidGrant("the refresh token was revoked"))
            }
            guard grant.expiresAt > now else { return .refused(DomainError.invalidGrant("the refresh token has expired")) }
            var scope = grant.scope
            if let requested = form["scope"] {
                let granted = Set(grant.scope.split(separator: " "))
                let asked = requested.split(separator: " ")
                guard !asked.isEmpty, Set(asked).isSubset(of: granted) else {
                    return .refused(DomainError(.invalid, .invalidScope, "the scope exceeds the original grant"))
                }
                scope = asked.joined(separator: " ")
            }
            return try await rotate(grant, scope: scope, service: service, tx: tx, now: now)
        }
        return try await issueTokens(outcome, service: service, tenant: tenant, includeNonce: false)
    }

    /// Writes the next refresh token of the grant's family in the same transaction that
    /// spent the code or the previous token, so a concurrent reuse either sees it (and
    /// revokes it with the family) or comes before it (and this spend fails).
    func rotate(_ grant: GrantRecord, scope: String, service: ServiceRecord, tx: StoreTransaction, now: Int64) async throws
        -> GrantOutcome
    {
        guard let user = try await tx.user(id: grant.userID) else {
            return .refused(DomainError.invalidGrant("the user no longer exists"))
        }
        let refreshToken = Secrets.randomToken()
        try await tx.insertGrant(
            GrantRecord(
                digest: Secrets.digest(refreshToken), kind: "refresh", familyID: grant.familyID, tenantID: grant.tenantID,
                serviceID: service.id, userID: grant.userID, redirectURI: nil, codeChallenge: nil, nonce: nil, scope: scope,
                factors: grant.factors, confirmedAttributes: grant.confirmedAttributes, authTime: grant.authTime,
                expiresAt: now + Self.refreshTokenLifetime, usedAt: nil, revoked: 0))
        return .issued(Issuance(grant: grant, scope: scope, user: user, refreshToken: refreshToken))
    }

    struct Issuance: Sendable {
        let grant: GrantRecord
        let scope: String
        let user: UserRecord
        let refreshToken: String
    }

    enum GrantOutcome: Sendable {
        case issued(Issuance)
        /// Refused after something was committed (a spent code, a revoked family).
        case refused(DomainError)
    }

    struct TokenResponse: Codable {
        let accessToken: String
        let tokenType = "Bearer"
        let expiresIn: Int64
        let idToken: String
        let refreshToken: String
        let scope: String

        enum CodingKeys: String, CodingKey {
            case scope
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
            case idToken = "id_token"
            case refreshToken = "refresh_token"
        }
    }

    func issueTokens(_ outcome: GrantOutcome, service: ServiceRecord, tenant: TenantRecord, includeNonce: Bool) async throws
        -> Response
    {
        let issuance: Issuance
        switch outcome {
        case .refused(let error): throw error
        case .issued(let issued): issuance = issued
        }
        let grant = issuance.grant
        let issuer = state.issuer(forTenantNamed: tenant.name)
        let now = state.epochNow()
        let factors = try JSONCoding.decode([FactorType].self, grant.factors)
        let confirmed = try JSONCoding.decode([String].self, grant.confirmedAttributes)
        let userAttributes = try JSONCoding.decode([String: String].self, issuance.user.attributes)
        let released = userAttributes.filter { confirmed.contains($0.key) }
        let combination = FactorCombination(factors)
        let issuerKeys = try await state.tokenIssuer(for: tenant)
        var idClaims = IDTokenClaims(
            iss: issuer, sub: issuance.user.id, aud: service.clientID, exp: Int(now + Self.idTokenLifetime), iat: Int(now),
            authTime: Int(grant.authTime), nonce: includeNonce ? grant.nonce : nil, amr: Self.amr(for: combination.factors),
            acr: Self.acr(for: combination), attributes: released)
        idClaims.sid = grant.familyID
        let accessClaims = AccessTokenClaims(
            iss: issuer, sub: issuance.user.id, aud: issuer, clientID: service.clientID, exp: Int(now + Self.accessTokenLifetime),
            iat: Int(now), jti: Secrets.randomToken(byteCount: 16), scope: issuance.scope, authTime: Int(grant.authTime),
            amr: idClaims.amr, acr: idClaims.acr, sid: grant.familyID)
        let response = TokenResponse(
            accessToken: try await issuerKeys.sign(accessClaims, type: "at+jwt"), expiresIn: Self.accessTokenLifetime,
            idToken: try await issuerKeys.sign(idClaims), refreshToken: issuance.refreshToken, scope: issuance.scope)
        var http = JSONResponse.make(response)
        http.headers[.init("Pragma")!] = "no-cache"
        return http
    }

    // MARK: UserInfo

    @Sendable func userinfo(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let issuer = state.issuer(forTenantNamed: tenant.name)
        func invalidToken() -> OAuthError {
            var error = OAuthError(.unauthorized, "invalid_token", "the access token is not valid")
            error.headers = [.wwwAuthenticate: #"Bearer error="invalid_token""#]
            return error
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { throw invalidToken() }
        let claims: AccessTokenClaims
        do {
            claims = try await state.tokenIssuer(for: tenant).verify(String(header.dropFirst(7)), as: AccessTokenClaims.self)
        } catch {
            throw invalidToken()
        }
        guard claims.iss == issuer, claims.aud == issuer, claims.scope.split(separator: " ").contains("openid") else {
            throw invalidToken()
        }
        let (family, user) = try await state.store.read { tx in
            (try await tx.family(claims.sid), try await tx.user(id: claims.sub))
        }
        guard let family, !family.revoked, let user else { throw invalidToken() }
        let confirmed = try JSONCoding.decode([String].self, family.latest.confirmedAttributes)
        var body = try JSONCoding.decode([String: String].self, user.attributes).filter { confirmed.contains($0.key) }
        body["sub"] = user.id
        return JSONResponse.make(body)
    }
}
