import Foundation
import Hummingbird
import TesseraAdminAPI
import TesseraCore
import TesseraDomain
import TesseraRecords

/// A user's account page at `/t/{tenant}/account`: signed in with a device login to the
/// tenant's own OpenID Connect (QR code or same-device link), it shows the user's
/// devices, sessions per service and recent sign-ins, and removes another device or ends
/// a session. Each form carries the session's CSRF token.
struct AccountRoutes {
    let state: ServerState
    let pages: WebPages
    var domain: Domain { state.domain }

    func cookies(_ tenant: TenantRecord) -> WebSessionCookies {
        WebSessionCookies(kind: .account, path: "/t/\(tenant.name)/account", secure: state.publicURL.hasPrefix("https:"))
    }

    func home(_ tenant: TenantRecord) -> String { "/t/\(tenant.name)/account" }

    func signIn(_ tenant: TenantRecord) -> WebSignIn { WebSignIn(domain: domain, pages: pages, kind: .account, cookies: cookies(tenant)) }

    func register(on group: RouterGroup<TesseraRequestContext>) {
        let pages = group.group().add(middleware: PageErrors())
        pages.get("account", use: account)
        pages.get("account/login", use: login)
        pages.get("account/callback", use: callback)
        pages.post("account/logout", use: logout)
        pages.post("account/devices/:activation/remove", use: removeDevice)
        pages.post("account/sessions/:session/end", use: endSession)
        pages.post("account/recovery-codes", use: makeRecoveryCodes)
        pages.post("account/security-keys/:key/remove", use: removeSecurityKey)
        // JSON for webauthn.js: a passkey's options and its registration, with the CSRF token in a header.
        group.post("account/passkeys/options", use: passkeyOptions)
        group.post("account/passkeys", use: registerPasskey)
    }

    func current(_ request: Request, tenant: TenantRecord) async throws -> WebSessions.Current? {
        try await domain.webSessions.current(.account, secret: cookies(tenant).session(request), tenant: tenant)
    }

    @Sendable func account(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let look = look(tenant, request)
        guard let current = try await current(request, tenant: tenant) else {
            let words = look.words
            return pages.render(
                "signin", title: words("account.title"),
                page: ConsoleViews.SignIn(
                    heading: words("account.signin_heading"), text: words("account.signin_text"), start: "\(home(tenant))/login",
                    button: words("account.signin_button"), hint: words("account.signin_hint")),
                layout: PlainLayout(look: look, t: words))
        }
        return try await render(current, tenant: tenant, look: look, notice: look.words.notice(request, prefix: "account.done"))
    }

    /// The account page's look: the tenant's, in the browser's language (or the tenant's).
    func look(_ tenant: TenantRecord, _ request: Request) -> Look {
        Look.of(tenant, issuer: domain.issuer(forTenantNamed: tenant.name), request: request)
    }

    func render(
        _ current: WebSessions.Current, tenant: TenantRecord, look: Look, problem: FormProblem? = nil, notice: String? = nil,
        recoveryCodes: [String] = []
    ) async throws -> Response {
        let overview = try await domain.accountPage.overview(current)
        let words = look.words
        let page = ConsoleViews.Account(
            signedInAs: words.marked("account.signed_in_as", ["username": (current.user.username, "account-user")]),
            devices: overview.devices.map { device in
                .init(
                    id: device.id, alias: device.alias ?? words("account.device"), factors: device.factors.joined(separator: ", "),
                    created: words.time(seconds: device.createdAt), lastUsed: words.time(seconds: device.lastUsedAt),
                    current: device.id == current.session.activationID?.rawValue,
                    // An activation merged into this account belongs to its first user: removed there, not here.
                    removable: device.id != current.session.activationID?.rawValue && device.username == current.user.username)
            },
            securityKeys: overview.securityKeys.map { key in
                .init(
                    id: key.id.rawValue, name: key.name, kind: words(key.backupEligible ? "account.kind_synced" : "account.kind_bound"),
                    created: words.time(key.createdAt), lastUsed: words.time(key.lastUsedAt), suspicious: key.suspicious)
            },
            sessions: overview.sessions.map {
                .init(id: $0.id, service: $0.service ?? "—", created: words.time(seconds: $0.createdAt), expires: words.time(seconds: $0.expiresAt))
            },
            signIns: overview.signIns.map {
                .init(
                    at: words.time(seconds: $0.at), service: $0.service ?? "—", purpose: words.named("account.purpose", $0.purpose),
                    outcome: words.named("account.outcome", $0.outcome))
            },
            recovery: overview.recoveryCodesLeft.map {
                .init(left: words("account.recovery_left", ["count": words.number($0)]), codes: recoveryCodes, fresh: !recoveryCodes.isEmpty)
            })
        let layout = AccountLayout(
            who: current.user.username, home: home(tenant), csrf: current.session.csrf, notice: notice, look: look, t: words)
        return pages.render("account", title: words("account.title"), page: page, layout: layout, problem: problem)
    }

    @Sendable func login(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        return try await signIn(tenant).start(tenant: tenant)
    }

    @Sendable func callback(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        return try await signIn(tenant).finish(
            request, tenant: tenant, home: home(tenant), retry: home(tenant), look: look(tenant, request), logger: context.logger)
    }

    /// A form's session and tenant: signed in (else back to sign-in) and carrying the CSRF token.
    func signedInForm(_ request: Request, context: TesseraRequestContext) async throws -> (WebSessions.Current, TenantRecord) {
        let tenant = try context.requireTenant()
        guard let current = try await current(request, tenant: tenant) else { throw WebRedirect(location: home(tenant)) }
        _ = try await signIn(tenant).form(request, current: current)
        return (current, tenant)
    }

    @Sendable func logout(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let (current, tenant) = try await signedInForm(request, context: context)
        return try await signIn(tenant).signOut(current, next: home(tenant), logger: context.logger)
    }

    @Sendable func removeDevice(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let (current, tenant) = try await signedInForm(request, context: context)
        do {
            try await domain.accountPage.removeDevice(context.parameters.id("activation"), current: current, logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await render(current, tenant: tenant, look: look(tenant, request), problem: problem)
        }
        throw WebRedirect(location: "\(home(tenant))?done=removed")
    }

    @Sendable func removeSecurityKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let (current, tenant) = try await signedInForm(request, context: context)
        do {
            try await domain.accountPage.removeSecurityKey(context.parameters.id("key"), current: current, logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await render(current, tenant: tenant, look: look(tenant, request), problem: problem)
        }
        throw WebRedirect(location: "\(home(tenant))?done=key-removed")
    }

    /// The signed-in user of a JSON call from the page, which carries the page's CSRF
    /// token in `X-CSRF-Token` (a header no other site's page can set).
    func signedInCall(_ request: Request, context: TesseraRequestContext) async throws -> (WebSessions.Current, TenantRecord) {
        let tenant = try context.requireTenant()
        guard let current = try await current(request, tenant: tenant) else {
            throw DomainError(.unauthenticated, .accessDenied, "sign in to your account first")
        }
        guard current.checks(csrf: request.headers[.init("X-CSRF-Token")!]) else {
            throw DomainError(.forbidden, .accessDenied, "the page's CSRF token is missing or wrong; reload the page")
        }
        return (current, tenant)
    }

    /// `POST …/account/passkeys/options`: options for `navigator.credentials.create()`.
    @Sendable func passkeyOptions(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let (current, _) = try await signedInCall(request, context: context)
        return OIDCRoutes.noStore(JSONResponse.make(try await domain.accountPage.passkeyOptions(current)))
    }

    /// `POST …/account/passkeys` `{"name": …, "credential": RegistrationResponseJSON}`.
    @Sendable func registerPasskey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let (current, _) = try await signedInCall(request, context: context)
        let input = try await RequestDecoding.json(PasskeyRegistration.self, from: request)
        let key = try await domain.accountPage.registerPasskey(input.credential, name: input.name, current: current, logger: context.logger)
        return JSONResponse.make(key, status: .created)
    }

    /// Ten new recovery codes, shown on the page this once (the answer is not cached).
    @Sendable func makeRecoveryCodes(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let (current, tenant) = try await signedInForm(request, context: context)
        let codes: [String]
        do {
            codes = try await domain.accountPage.makeRecoveryCodes(current: current, logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await render(current, tenant: tenant, look: look(tenant, request), problem: problem)
        }
        var response = try await render(current, tenant: tenant, look: look(tenant, request), recoveryCodes: codes)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    @Sendable func endSession(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let (current, tenant) = try await signedInForm(request, context: context)
        do {
            try await domain.accountPage.endSession(context.parameters.id("session"), current: current, logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await render(current, tenant: tenant, look: look(tenant, request), problem: problem)
        }
        throw WebRedirect(location: "\(home(tenant))?done=ended")
    }
}

/// A passkey's registration as the page (or an invitation's page) posts it.
struct PasskeyRegistration: Decodable {
    let name: String?
    let code: String?
    let credential: WebAuthnJSON.RegistrationCredential
}
