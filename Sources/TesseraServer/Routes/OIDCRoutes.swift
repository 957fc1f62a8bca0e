import Foundation
import HTTPTypes
import Hummingbird
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraRecords

/// OpenID Connect per tenant, below its issuer `{public URL}/t/{tenant}`: discovery and
/// keys, the browser's authorization and login page, the token endpoint (codes, refresh
/// tokens, CIBA), CIBA's backchannel authentication, revocation (RFC 7009),
/// introspection (RFC 7662) and userinfo. Each handler decodes, calls one use case, and
/// encodes.
struct OIDCRoutes {
    let state: ServerState
    var domain: Domain { state.domain }

    /// `tenant` answers an unknown tenant with JSON, `pages` with a page.
    func register(on tenant: RouterGroup<TesseraRequestContext>, pages: RouterGroup<TesseraRequestContext>) {
        tenant.get(".well-known/openid-configuration", use: discovery)
        tenant.get(".well-known/openid-configuration.jwt", use: signedDiscovery)
        tenant.get("jwks", use: jwks)
        tenant.get("puk_idp_enc", use: encryptionKey)
        tenant.get("directory/kk_apps", use: federationDirectory)
        let settings = state.configuration.throttle
        let authorizePages = pages.group().add(middleware: AddressThrottle(group: "authorize", limiter: state.limiter, settings: settings))
        authorizePages.get("authorize", use: authorize)
        authorizePages.get("authorize/complete", use: complete)
        authorizePages.get("authorize/federation", use: federationStart)
        authorizePages.get("authorize/federation/callback", use: federationCallback)
        authorizePages.post("authorize/federation/link", use: federationLink)
        authorizePages.post("authorize/federation/confirm", use: federationConfirm)
        authorizePages.get("logout", use: endSession)
        authorizePages.post("logout", use: endSession)
        let browserCalls = tenant.group().add(middleware: AddressThrottle(group: "authorize", limiter: state.limiter, settings: settings))
        browserCalls.get("authorize/status", use: status)
        browserCalls.post("authorize/passkey/options", use: passkeyOptions)
        browserCalls.post("authorize/passkey", use: passkeyLogin)
        browserCalls.post("passkeys/invitation/options", use: invitationPasskeyOptions)
        browserCalls.post("passkeys/invitation", use: invitationPasskey)
        let registration = tenant.group().add(middleware: AddressThrottle(group: "token", limiter: state.limiter, settings: settings))
        registration.post("register", use: register)
        registration.get("register/:client", use: readRegistration)
        registration.put("register/:client", use: updateRegistration)
        registration.delete("register/:client", use: deleteRegistration)
        tenant.get("userinfo", use: userinfo)
        tenant.post("userinfo", use: userinfo)
        tenant.get("authenticate", use: authenticationLinkPage)
        tenant.get("activate", use: activationLinkPage)
        // Files anyone may load: bounded per address like the pages that load them.
        let assets = tenant.group().add(middleware: AddressThrottle(group: "assets", limiter: state.limiter, settings: settings))
        assets.get("branding.css", use: brandingStylesheet)
        assets.get("logo", use: logo)
        assets.get("services/:client/logo", use: serviceLogo)
        let clients = tenant.group()
            .add(middleware: AddressThrottle(group: "token", limiter: state.limiter, settings: settings))
            .add(middleware: ClientAuthentication(domain: domain, limiter: state.limiter, settings: settings))
        clients.post("token", use: token)
        clients.post("par", use: pushAuthorization)
        clients.post("bc-authorize", use: backchannelAuthenticate)
        clients.post("revoke", use: revoke)
        clients.post("introspect", use: introspect)
    }

    // MARK: Discovery and keys

    @Sendable func discovery(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(try await domain.discovery(for: try context.requireTenant()))
    }

    /// The discovery document as a JWS with the signing certificate in `x5c` (gematik profile).
    @Sendable func signedDiscovery(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let token = try await domain.signedDiscovery(for: try context.requireTenant())
        return Response(
            status: .ok, headers: [.contentType: "application/jwt", .cacheControl: "public, max-age=300"],
            body: .init(byteBuffer: ByteBuffer(string: token)))
    }

    /// The tenant's encryption key for the gematik profile's `key_verifier` (`uri_puk_idp_enc`).
    @Sendable func encryptionKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        var response = JSONResponse.make(domain.gematikProfile.publicEncryptionJWK(for: try context.requireTenant()))
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }

    @Sendable func jwks(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        var response = JSONResponse.make(["keys": try await domain.publicKeys(for: try context.requireTenant())])
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }

    // MARK: Authorization (browser)

    @Sendable func authorize(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let query: [String: String]
        do {
            query = try RequestDecoding.query(request)
        } catch {
            throw BrowserError(status: .badRequest, "invalid_request", detail: "The sign-in request has malformed or repeated parameters.")
        }
        // No per-client budget here: the caller is not authenticated and could name any
        // client_id, so such a budget would let anyone stop a service's logins. The
        // per-address limit (AddressThrottle) bounds this endpoint.
        let start: BrowserLogins.Start
        do {
            let browser = BrowserLogins.Browser(
                address: context.sourceAddress(trusting: state.configuration.throttle.trustedProxies, request: request),
                userAgent: request.headers[.userAgent])
            if let requestURI = query["request_uri"] {
                // A pushed request (RFC 9126): its parameters, not the query's, make the login.
                let pushed: AuthorizationRequest
                do {
                    pushed = try await domain.browserLogins.pushedParameters(requestURI: requestURI, clientID: query["client_id"], tenant: tenant)
                } catch let error as DomainError where error.kind == .invalid {
                    throw BrowserError(status: .badRequest, "expired", detail: error.message)
                }
                start = try await domain.browserLogins.start(pushed, tenant: tenant, browser: browser, pushed: true)
            } else {
                start = try await domain.browserLogins.start(AuthorizationRequest(parameters: query), tenant: tenant, browser: browser)
            }
        } catch let error as DomainError where error.code == BrowserLogins.unknownClient {
            throw BrowserError(status: .badRequest, "unknown_service", detail: error.message)
        } catch let error as DomainError where error.code == BrowserLogins.invalidRedirectURI {
            throw BrowserError(status: .badRequest, "invalid_redirect", detail: error.message)
        }
        switch start {
        case .refused(let refusal):
            return Self.redirect(
                to: refusal.redirectURI,
                parameters: [("error", refusal.error), ("error_description", refusal.description), ("state", refusal.state), ("iss", issuer)])
        case .started(let login):
            let page = Pages.login(
                serviceName: login.serviceName, attributes: login.attributes, requestID: login.requestID.rawValue,
                links: { id in
                    let authentication = "\(issuer)/authenticate?request=\(id)"
                    return Pages.LoginLinks(
                        authenticationURL: authentication,
                        sameDeviceURL: tenant.appLinks?.sameDeviceLink(issuer: issuer, endpoint: "authenticate", parameter: "request", value: id)
                            ?? authentication,
                        statusURL: "\(issuer)/authorize/status?request=\(id)", completeURL: "\(issuer)/authorize/complete?request=\(id)",
                        passkeyURL: login.passkeys ? "\(issuer)/authorize/passkey?request=\(id)" : nil,
                        providers: login.providers.map {
                            Pages.Provider(name: $0.name, url: "\(issuer)/authorize/federation?request=\(id)&provider=\(FormEncoding.component($0.id))")
                        })
                },
                expiresAt: login.expiresAt, matchCode: login.matchCode, policyURL: login.policyURI, termsURL: login.tosURI,
                serviceLogoURL: login.hasLogo ? "\(issuer)/services/\(FormEncoding.component(login.clientID.rawValue))/logo" : nil,
                look: Look.of(tenant, issuer: issuer, request: request, uiLocales: login.uiLocales))
            var response = HTMLResponse.make(page)
            // The browser that started the request is the only one that can collect its code.
            response.setCookie(
                Cookie(
                    name: Self.cookieName(login.requestID), value: login.browserSecret,
                    // As long as the request may live, lockout waits included.
                    maxAge: Int(max(Int64(state.configuration.requestLifetime), Attempts.maximumRequestLife)) + 60,
                    path: "/t/\(tenant.name)/authorize",
                    secure: state.publicURL.hasPrefix("https:"), httpOnly: true, sameSite: .lax))
            return response
        }
    }

    static func cookieName(_ requestID: TesseraCore.RequestID) -> String { "tessera_login_\(requestID)" }
    /// The browser's binding to the sign-in it started at another provider.
    static let federationCookie = "tessera_federation"

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

    /// The login request a browser follows, if the browser holds its cookie.
    private func browserRequest(_ request: Request, query: [String: String], context: TesseraRequestContext) async throws
        -> AuthRequestRecord
    {
        let requestID = query["request"].map(TesseraCore.RequestID.init)
        return try await domain.browserLogins.request(
            id: requestID, browserSecret: requestID.flatMap { request.cookies[Self.cookieName($0)]?.value },
            tenant: try context.requireTenant())
    }

    /// The login page's view of its request. With `wait` (up to 30 s) and the `known`
    /// view the page shows (`status` or `status:locked_until`), the answer comes when the
    /// view changes — a device claimed, answered or failed, on any node — or the request
    /// expires, or the wait is over.
    @Sendable func status(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let query = try RequestDecoding.query(request)
        let record = try await browserRequest(request, query: query, context: context)
        let wait = try RequestDecoding.wait(query)
        let logins = domain.browserLogins
        let caller = "browser \(context.sourceAddress(trusting: state.configuration.throttle.trustedProxies, request: request))"
        let view = try await state.longPoll(
            watching: [EventKey.request(record.id)], caller: caller, perCaller: state.configuration.throttle.longPollsPerAddress
        ) {
            try await logins.status(requestID: record.id)
        } waitFor: { view in
            guard wait > 0, query["known"] == view.key, view.status == .pending || view.status == .claimed else { return nil }
            return .seconds(min(wait, max(0, view.expiresAt - state.epochNow()) + 1))
        }
        return JSONResponse.make(view)
    }

    /// `POST {issuer}/authorize/passkey/options?request=…` `{"username": …}` (optional):
    /// options for `navigator.credentials.get()`, for the browser that started the request.
    @Sendable func passkeyOptions(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        struct Input: Decodable { let username: String? }
        let record = try await browserRequest(request, query: try RequestDecoding.query(request), context: context)
        let input = try await RequestDecoding.optionalJSON(Input.self, from: request)
        let options = try await domain.passkeys.loginOptions(record, username: input?.username, tenant: try context.requireTenant())
        return Self.noStore(JSONResponse.make(options))
    }

    /// `POST {issuer}/authorize/passkey?request=…` with the assertion (WebAuthn's
    /// `AuthenticationResponseJSON`): approves the request; the page then goes to
    /// `authorize/complete` for its code.
    @Sendable func passkeyLogin(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let query = try RequestDecoding.query(request)
        let record = try await browserRequest(request, query: query, context: context)
        let credential = try await RequestDecoding.json(WebAuthnJSON.AssertionCredential.self, from: request)
        try await domain.passkeys.login(credential, request: record, tenant: try context.requireTenant(), logger: context.logger)
        let issuer = domain.issuer(forTenantNamed: try context.requireTenant().name)
        return Self.noStore(JSONResponse.make(["status": "approved", "complete_url": "\(issuer)/authorize/complete?request=\(record.id)"]))
    }

    @Sendable func complete(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let issuer = domain.issuer(forTenantNamed: try context.requireTenant().name)
        let completion: BrowserLogins.Completion
        do {
            let record = try await browserRequest(request, query: try RequestDecoding.query(request), context: context)
            completion = try await domain.browserLogins.complete(record)
        } catch let error as DomainError {
            throw BrowserError(status: error.kind.status, "sign_in", detail: error.message)
        }
        switch completion {
        case .code(let redirectURI, let code, let state):
            return Self.redirect(to: redirectURI, parameters: [("code", code), ("state", state), ("iss", issuer)])
        case .denied(let redirectURI, let description, let state):
            return Self.redirect(
                to: redirectURI,
                parameters: [("error", "access_denied"), ("error_description", description), ("state", state), ("iss", issuer)])
        case .notFinished:
            throw BrowserError(status: .badRequest, "not_finished")
        case .completedAlready:
            throw BrowserError(status: .badRequest, "completed")
        }
    }

    // MARK: Logout

    /// `GET|POST {issuer}/logout` (end_session_endpoint, OpenID RP-Initiated Logout 1.0):
    /// ends the session the `id_token_hint` names and goes back to a registered
    /// `post_logout_redirect_uri` with `state`, or shows that the user is signed out. A
    /// request that does not check out is shown, never redirected.
    @Sendable func endSession(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let parameters: [String: String]
        do {
            parameters = request.method == .post ? try await RequestDecoding.form(from: request) : try RequestDecoding.query(request)
        } catch {
            throw BrowserError(status: .badRequest, "sign_out", detail: "The sign-out request has malformed or repeated parameters.")
        }
        let outcome: Logout.Outcome
        do {
            outcome = try await domain.logout.endSession(Logout.Request(parameters), tenant: tenant, logger: context.logger)
        } catch let error as DomainError where error.kind == .invalid {
            throw BrowserError(status: .badRequest, "sign_out", detail: error.message)
        }
        if let uri = outcome.redirectURI {
            return Self.redirect(to: uri, parameters: [("state", outcome.state)])
        }
        let look = Look.of(tenant, issuer: domain.issuer(forTenantNamed: tenant.name), request: request, uiLocales: parameters["ui_locales"])
        var response = HTMLResponse.make(Pages.signedOut(serviceName: outcome.serviceName, signedOut: outcome.signedOut, look: look))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    @Sendable func authenticationLinkPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try deviceLinkPage(request, context: context, endpoint: "authenticate", parameter: "request", kind: "sign_in")
    }

    @Sendable func activationLinkPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let code = (try? RequestDecoding.query(request))?["code"] ?? ""
        let providers = code.isEmpty ? [] : try await domain.identityProviderDirectory(tenant: tenant)
        // The provider forms carry a token that is also a strict same-site cookie.
        let csrf = providers.isEmpty ? nil : Secrets.randomToken()
        var response = try deviceLinkPage(
            request, context: context, endpoint: "activate", parameter: "code", kind: "activate",
            invitation: code.isEmpty
                ? nil
                : Pages.DeviceLinkPage.Invitation(
                    code: code, issuer: issuer, csrf: csrf ?? "", providers: providers.map { .init(id: $0.id, name: $0.name) }))
        if let csrf {
            response.setCookie(
                Cookie(
                    name: Self.linkCSRFCookie, value: csrf, maxAge: 3600, path: "/t/\(tenant.name)/authorize/federation",
                    secure: state.publicURL.hasPrefix("https:"), httpOnly: true, sameSite: .strict))
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }

    // MARK: Federation

    /// `GET {issuer}/directory/kk_apps`: the external providers a user may sign in with,
    /// as gematik's directory of insurers' apps names them.
    @Sendable func federationDirectory(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(["kk_app_list": try await domain.identityProviderDirectory(tenant: try context.requireTenant())])
    }

    /// `GET {issuer}/authorize/federation?request=…&provider=…` (from the login page):
    /// sends the browser to the provider. Linking an invitation's account starts from the
    /// invitation page's form instead (`authorize/federation/link`).
    @Sendable func federationStart(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let federation = domain.federation(Outbound(domain))
        do {
            let query = try RequestDecoding.query(request)
            guard query["invitation"] == nil else {
                throw DomainError.invalidRequest("linking an account starts from the invitation's page: open the invitation link")
            }
            guard let provider = query["provider"], !provider.isEmpty else { throw DomainError.invalidRequest("name the provider to sign in with") }
            let record = try await browserRequest(request, query: query, context: context)
            return federationRedirect(try await federation.startLogin(record, provider: provider, tenant: tenant), tenant: tenant, status: .found)
        } catch let error as DomainError {
            throw BrowserError(status: error.kind.status, "sign_in", detail: error.message)
        }
    }

    /// The redirect to the provider, with the cookie that lets only this browser finish.
    private func federationRedirect(_ started: Federation.Started, tenant: TenantRecord, status: HTTPResponse.Status) -> Response {
        var response = Response(status: status, headers: [.location: started.url, .cacheControl: "no-store"])
        response.setCookie(federationCookie(started.browserSecret, tenant: tenant, maxAge: Federation.loginLifetime))
        return response
    }

    /// Only the browser holding it may finish a sign-in at a provider (no login or linking CSRF).
    private func federationCookie(_ secret: String, tenant: TenantRecord, maxAge: Int64) -> Cookie {
        Cookie(
            name: Self.federationCookie, value: secret, maxAge: Int(maxAge), path: "/t/\(tenant.name)/authorize/federation",
            secure: state.publicURL.hasPrefix("https:"), httpOnly: true, sameSite: .lax)
    }

    /// The cookie an invitation's page sets for its provider forms (double submit): a page
    /// elsewhere cannot make this browser start linking, as the cookie is strict same-site.
    static let linkCSRFCookie = "tessera_link_csrf"

    /// `POST {issuer}/authorize/federation/link` `invitation`, `provider`, `csrf` (the
    /// invitation page's form): starts the sign-in at the provider that will link the
    /// invitation's account, once the browser confirms.
    @Sendable func federationLink(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        do {
            let form = try await RequestDecoding.form(from: request)
            guard let cookie = request.cookies[Self.linkCSRFCookie]?.value, let csrf = form["csrf"], !cookie.isEmpty,
                Secrets.constantTimeEquals(cookie, csrf)
            else { throw DomainError(.forbidden, .accessDenied, "the form's token is missing or wrong: open the invitation link again") }
            guard let code = form["invitation"], let provider = form["provider"], !code.isEmpty, !provider.isEmpty else {
                throw DomainError.invalidRequest("the form names no invitation or provider")
            }
            let started = try await domain.federation(Outbound(domain)).startLinking(invitationCode: code, provider: provider, tenant: tenant)
            // A page that goes on to the provider, not a redirect: the form's page allows
            // forms to post to this server only (`form-action 'self'`), which browsers apply
            // to where a form's answer redirects too.
            let look = Look.of(tenant, issuer: domain.issuer(forTenantNamed: tenant.name), request: request)
            var response = Self.noStore(HTMLResponse.make(Pages.continueToProvider(started.url, look: look)))
            response.setCookie(federationCookie(started.browserSecret, tenant: tenant, maxAge: Federation.loginLifetime))
            return response
        } catch let error as DomainError {
            throw BrowserError(status: error.kind.status, "linking", detail: error.message)
        }
    }

    /// `POST {issuer}/authorize/federation/confirm` `link`, `csrf`: the confirmation page's
    /// form; links the account and spends the invitation.
    @Sendable func federationConfirm(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let outcome: Federation.Outcome
        do {
            let form = try await RequestDecoding.form(from: request)
            outcome = try await domain.federation(Outbound(domain)).confirmLink(
                sealed: form["link"], csrf: form["csrf"], binding: request.cookies[Self.federationCookie]?.value, tenant: tenant,
                logger: context.logger)
        } catch let error as DomainError {
            throw BrowserError(status: error.kind.status, "linking", detail: error.message)
        }
        guard case .linked(let provider, let username) = outcome else {
            throw BrowserError(status: .internalServerError, "linking", detail: "the link was not written")
        }
        let look = Look.of(tenant, issuer: domain.issuer(forTenantNamed: tenant.name), request: request)
        return Self.noStore(HTMLResponse.make(Pages.federationLinked(provider: provider, username: username, look: look)))
    }

    /// `GET {issuer}/authorize/federation/callback?code=…&state=…`: where providers send
    /// the browser back. A login goes on to `authorize/complete` as after a device's
    /// approval; a linking shows that the account is linked.
    @Sendable func federationCallback(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let outcome: Federation.Outcome
        do {
            let query = try RequestDecoding.query(request)
            outcome = try await domain.federation(Outbound(domain)).finish(
                state: query["state"], code: query["code"], error: query["error"], binding: request.cookies[Self.federationCookie]?.value,
                tenant: tenant, browserSecret: { request.cookies[Self.cookieName($0)]?.value }, logger: context.logger)
        } catch let error as DomainError {
            throw BrowserError(status: error.kind.status, "sign_in", detail: error.message)
        }
        switch outcome {
        case .login(let requestID):
            return Response(status: .found, headers: [.location: "\(issuer)/authorize/complete?request=\(requestID)", .cacheControl: "no-store"])
        case .linked(let provider, let username):
            let look = Look.of(tenant, issuer: issuer, request: request)
            return Self.noStore(HTMLResponse.make(Pages.federationLinked(provider: provider, username: username, look: look)))
        case .confirm(let pending):
            let look = Look.of(tenant, issuer: issuer, request: request)
            var response = Self.noStore(
                HTMLResponse.make(Pages.federationConfirm(pending, action: "\(issuer)/authorize/federation/confirm", look: look)))
            // The confirmation's own ten minutes, whatever the provider took.
            if let binding = request.cookies[Self.federationCookie]?.value {
                response.setCookie(federationCookie(binding, tenant: tenant, maxAge: Federation.confirmationLifetime))
            }
            return response
        }
    }

    /// `POST {issuer}/passkeys/invitation/options` `{"code": …}`: options for registering a
    /// passkey with an operator's invitation opened in a browser.
    @Sendable func invitationPasskeyOptions(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        struct Input: Decodable { let code: String }
        let input = try await RequestDecoding.json(Input.self, from: request)
        let options = try await domain.passkeys.registrationOptions(for: .invitation(code: input.code), tenant: try context.requireTenant())
        return Self.noStore(JSONResponse.make(options))
    }

    /// `POST {issuer}/passkeys/invitation` `{"code": …, "name": …, "credential": …}`: registers
    /// the passkey and spends the invitation.
    @Sendable func invitationPasskey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(PasskeyRegistration.self, from: request)
        guard let code = input.code else { throw DomainError.invalidRequest("code is missing") }
        let key = try await domain.passkeys.register(
            input.credential, name: input.name, registrant: .invitation(code: code), tenant: try context.requireTenant(),
            logger: context.logger)
        return JSONResponse.make(key, status: .created)
    }

    // MARK: Branding

    /// `GET {issuer}/branding.css`: the tenant's colours over Tessera's, a file of its own
    /// so that the pages' Content-Security-Policy stays `style-src 'self'`.
    @Sendable func brandingStylesheet(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=300", .init("X-Content-Type-Options")!: "nosniff"],
            body: .init(byteBuffer: ByteBuffer(string: Look.stylesheet(try context.requireTenant().branding))))
    }

    /// `GET {issuer}/logo`: the tenant's logo as uploaded. An SVG opened on its own runs
    /// none of its scripts: its policy allows nothing but its own inline style.
    @Sendable func logo(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        guard let logo = try await state.tenantLogos.logo(of: tenant, domain: domain) else {
            throw BrowserError(status: .notFound, "not_found")
        }
        // The pages name the logo by its digest: that address never changes its bytes.
        let versioned = (try? RequestDecoding.query(request))?["v"] == tenant.branding?.logoDigest
        return Self.image(logo, cacheControl: versioned ? "public, max-age=31536000, immutable" : "public, max-age=300")
    }

    /// A logo as the pages load it: its own type, never sniffed, and a policy under which
    /// an SVG opened on its own runs nothing.
    static func image(_ logo: ServiceLogos.Logo, cacheControl: String = "public, max-age=300") -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: logo.type, .cacheControl: cacheControl, .init("X-Content-Type-Options")!: "nosniff",
                .init("Content-Security-Policy")!: "default-src 'none'; style-src 'unsafe-inline'; sandbox",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: logo.bytes)))
    }

    /// `GET {issuer}/services/{client_id}/logo`: a service's logo (its `logo_uri`), fetched
    /// by the server and kept a while, so that the login page shows it with `img-src 'self'`.
    /// Only PNG, JPEG, WebP and SVG (answered under a policy that runs none of its scripts).
    @Sendable func serviceLogo(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        guard let client = context.parameters.get("client"),
            let found = try await domain.service(clientID: ClientID(client)), found.tenantID == tenant.id, let uri = found.logoURI,
            let logo = await state.serviceLogos.logo(uri, http: Outbound(domain, timeout: .seconds(5), maximumBody: TenantLogoRecord.maximumSize))
        else { throw BrowserError(status: .notFound, "not_found") }
        return Self.image(logo)
    }

    /// The page a device link opens in a browser: the same link as text and QR code.
    private func deviceLinkPage(
        _ request: Request, context: TesseraRequestContext, endpoint: String, parameter: String, kind: String,
        invitation: Pages.DeviceLinkPage.Invitation? = nil
    ) throws -> Response {
        let value = (try? RequestDecoding.query(request))?[parameter] ?? ""
        let tenant = try context.requireTenant()
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let url = "\(issuer)/\(endpoint)?\(parameter)=\(FormEncoding.component(value))"
        let look = Look.of(tenant, issuer: issuer, request: request)
        return HTMLResponse.make(Pages.deviceLink(kind: kind, url: url, invitation: invitation, look: look))
    }

    // MARK: Token endpoint

    @Sendable func token(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let client = try context.requireClient()
        let form = client.form
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        // A DPoP proof (RFC 9449 §5) binds the tokens to the client's key.
        let dpop = try await dpopProof(request, url: issuer + "/token", resource: false)
        // The gematik profile: the key_verifier brings the token_key (and the PKCE verifier).
        let keyVerifier = client.service.gematikProfile ? try domain.gematikProfile.keyVerifier(form["key_verifier"], tenant: tenant) : nil
        if let inside = keyVerifier?.codeVerifier, let outside = form["code_verifier"], inside != outside {
            throw DomainError.invalidRequest("code_verifier differs from the key_verifier's")
        }
        // A grant the service was not given (grant_types) is refused before it is looked at.
        if let grant = form["grant_type"], GrantType.all.contains(grant), !client.service.allowedGrantTypes.contains(grant) {
            throw DomainError(.invalid, .unauthorizedClient, "the service may not use the \(grant) grant (grant_types)")
        }
        var tokens: TokenResponse
        switch form["grant_type"] {
        case GrantType.clientCredentials:
            let machine = try await domain.grants.clientCredentials(scope: form["scope"], client: client.service, tenant: tenant, dpop: dpop)
            var response = JSONResponse.make(machine)
            response.headers[.init("Pragma")!] = "no-cache"
            if dpop != nil { response.headers[Self.dpopNonceHeader] = domain.dpop.nonce() }
            return response
        case "authorization_code":
            guard let code = form["code"] else { throw DomainError.invalidRequest("code is missing") }
            tokens = try await domain.grants.redeemCode(
                code, redirectURI: form["redirect_uri"], codeVerifier: keyVerifier?.codeVerifier ?? form["code_verifier"],
                client: client.service, tenant: tenant, dpop: dpop)
        case "refresh_token":
            guard let token = form["refresh_token"] else { throw DomainError.invalidRequest("refresh_token is missing") }
            tokens = try await domain.grants.refresh(token, scope: form["scope"], client: client.service, tenant: tenant, dpop: dpop)
        case Backchannel.grantType:
            tokens = try await domain.backchannel.redeem(authReqID: form["auth_req_id"], client: client.service, tenant: tenant, dpop: dpop)
        case nil:
            throw DomainError.invalidRequest("grant_type is missing")
        default:
            throw DomainError(
                .invalid, DomainError.Code("unsupported_grant_type"),
                "supported grant types: \((GrantType.all + [Backchannel.grantType]).joined(separator: ", "))")
        }
        if let keyVerifier { tokens = try domain.gematikProfile.encrypt(tokens, with: keyVerifier) }
        var response = JSONResponse.make(tokens)
        response.headers[.init("Pragma")!] = "no-cache"
        if dpop != nil { response.headers[Self.dpopNonceHeader] = domain.dpop.nonce() }
        return response
    }

    // MARK: Dynamic client registration (RFC 7591, 7592)

    /// The bearer token of a registration call; the failure is a 401 with a `Bearer` challenge.
    static func registrationToken(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst(7))
    }

    func registrationCall(_ body: () async throws -> Response) async throws -> Response {
        do {
            var response = try await body()
            response.headers[.cacheControl] = "no-store"
            return response
        } catch let error as DomainError where error.code == .invalidToken {
            var answer = OAuthError(error)
            answer.headers[.wwwAuthenticate] = #"Bearer error="invalid_token""#
            throw answer
        }
    }

    @Sendable func register(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await registrationCall {
            let metadata = try await RequestDecoding.json(ClientRegistration.Metadata.self, from: request)
            let registered = try await domain.clientRegistration.register(
                metadata, initialAccessToken: Self.registrationToken(request), tenant: try context.requireTenant(), logger: context.logger)
            return JSONResponse.make(registered, status: .created)
        }
    }

    @Sendable func readRegistration(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await registrationCall {
            JSONResponse.make(
                try await domain.clientRegistration.read(
                    clientID: try context.parameters.require("client"), registrationToken: Self.registrationToken(request),
                    tenant: try context.requireTenant()))
        }
    }

    @Sendable func updateRegistration(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await registrationCall {
            let metadata = try await RequestDecoding.json(ClientRegistration.Metadata.self, from: request)
            return JSONResponse.make(
                try await domain.clientRegistration.update(
                    clientID: try context.parameters.require("client"), metadata, registrationToken: Self.registrationToken(request),
                    tenant: try context.requireTenant(), logger: context.logger))
        }
    }

    @Sendable func deleteRegistration(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await registrationCall {
            try await domain.clientRegistration.delete(
                clientID: try context.parameters.require("client"), registrationToken: Self.registrationToken(request),
                tenant: try context.requireTenant(), logger: context.logger)
            return Response(status: .noContent)
        }
    }

    // MARK: DPoP

    static let dpopHeader = HTTPField.Name("DPoP")!
    static let dpopNonceHeader = HTTPField.Name("DPoP-Nonce")!

    /// The request's DPoP proof, checked, or nil without one. A refusal at the token
    /// endpoint is a 400, at a resource a 401 with a `DPoP` challenge; `use_dpop_nonce`
    /// carries the nonce to use (RFC 9449 §8, §9).
    func dpopProof(_ request: Request, url: String, resource: Bool, accessToken: String? = nil) async throws -> DPoP.Proof? {
        let values = request.headers[values: Self.dpopHeader]
        guard !values.isEmpty else { return nil }
        do {
            guard values.count == 1 else { throw DomainError(.invalid, DPoP.invalidProof, "send one DPoP header") }
            return try await domain.dpop.check(values[0], method: request.method.rawValue, url: url, accessToken: accessToken)
        } catch let error as DomainError where error.code == DPoP.useNonce || error.code == DPoP.invalidProof {
            var answer = OAuthError(resource ? .unauthorized : .badRequest, error.code.rawValue, error.message)
            if resource {
                answer.headers[.wwwAuthenticate] =
                    #"DPoP error="\#(error.code.rawValue)", algs="\#(DPoP.algorithms.joined(separator: " "))""#
            }
            if error.code == DPoP.useNonce { answer.headers[Self.dpopNonceHeader] = domain.dpop.nonce() }
            throw answer
        }
    }

    /// `POST {issuer}/par` (RFC 9126): a service pushes its authorization request and gets
    /// the `request_uri` its browser then takes to `/authorize`.
    @Sendable func pushAuthorization(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let client = try context.requireClient()
        // The request's own parameters, without the client's credentials: bounded, as a URL would be.
        let parameters = client.form.filter { !["client_secret", "client_assertion", "client_assertion_type"].contains($0.key) }
        guard parameters.count <= 64, parameters.allSatisfy({ $0.key.count <= 64 && $0.value.count <= 4096 }) else {
            throw DomainError.invalidRequest("the request has too many or too long parameters")
        }
        let pushed = try await domain.browserLogins.push(
            AuthorizationRequest(parameters: parameters), client: client.service, tenant: try context.requireTenant())
        return Self.noStore(JSONResponse.make(pushed, status: .created))
    }

    /// `POST {issuer}/bc-authorize` (CIBA §7).
    @Sendable func backchannelAuthenticate(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let client = try context.requireClient()
        let answer = try await domain.backchannel.authenticate(
            BackchannelAuthenticationRequest(parameters: client.form), client: client.service, tenant: try context.requireTenant(),
            logger: context.logger)
        return JSONResponse.make(answer)
    }

    // MARK: Revocation and introspection

    @Sendable func revoke(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let client = try context.requireClient()
        try await domain.tokenLifecycle.revoke(client.form["token"], client: client.service, tenant: try context.requireTenant(), logger: context.logger)
        return Self.noStore(Response(status: .ok))
    }

    @Sendable func introspect(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let client = try context.requireClient()
        let answer = try await domain.tokenLifecycle.introspect(client.form["token"], client: client.service, tenant: try context.requireTenant())
        return Self.noStore(JSONResponse.make(answer))
    }

    static func noStore(_ response: Response) -> Response {
        var response = response
        response.headers[.cacheControl] = "no-store"
        return response
    }

    // MARK: UserInfo

    @Sendable func userinfo(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let usesDPoP = request.headers[.authorization]?.hasPrefix("DPoP ") == true
        func invalidToken() -> OAuthError {
            var error = OAuthError(.unauthorized, "invalid_token", "the access token is not valid")
            error.headers = [
                .wwwAuthenticate: usesDPoP
                    ? #"DPoP error="invalid_token", algs="\#(DPoP.algorithms.joined(separator: " "))""# : #"Bearer error="invalid_token""#
            ]
            return error
        }
        // The token in the Authorization header, or (POST) as the form body's `access_token`
        // (RFC 6750 §2.1, §2.2), never both; not in the query (§2.3 is not offered).
        let token: String
        var dpop: DPoP.Proof?
        let tenant = try context.requireTenant()
        if let header = request.headers[.authorization], header.hasPrefix("DPoP ") {
            // A DPoP-bound token (RFC 9449 §7): the proof must name this request and hash the token.
            token = String(header.dropFirst(5))
            dpop = try await dpopProof(
                request, url: domain.issuer(forTenantNamed: tenant.name) + "/userinfo", resource: true, accessToken: token)
            guard dpop != nil else { throw invalidToken() }
        } else if let header = request.headers[.authorization] {
            guard header.hasPrefix("Bearer ") else { throw invalidToken() }
            token = String(header.dropFirst(7))
        } else if request.method == .post, request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true,
            let form = try? await RequestDecoding.form(from: request), let bodyToken = form["access_token"]
        {
            token = bodyToken
        } else {
            throw invalidToken()
        }
        do {
            var response = JSONResponse.make(try await domain.grants.userInfo(accessToken: token, tenant: tenant, dpop: dpop))
            if dpop != nil { response.headers[Self.dpopNonceHeader] = domain.dpop.nonce() }
            return response
        } catch let error as DomainError where error.code == .invalidToken {
            throw invalidToken()
        }
    }
}
