import Foundation
import Hummingbird
import TesseraCore
import TesseraDomain
import TesseraStore

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
    }

    func current(_ request: Request, tenant: TenantRecord) async throws -> WebSessions.Current? {
        try await domain.webSessions.current(.account, secret: cookies(tenant).session(request), tenant: tenant)
    }

    @Sendable func account(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        guard let current = try await current(request, tenant: tenant) else {
            return pages.render(
                "signin", title: "Your account",
                values: [
                    "heading": "Your account at \(tenant.name)",
                    "text": "See and manage your devices, sessions and sign-ins. Sign in with your activated device.",
                    "start": "\(home(tenant))/login",
                ], layout: [:])
        }
        return try await render(current, tenant: tenant, notice: WebPages.notice(request))
    }

    func render(_ current: WebSessions.Current, tenant: TenantRecord, problem: FormProblem? = nil, notice: String? = nil) async throws -> Response {
        let overview = try await domain.accountPage.overview(current)
        var values: [String: Any] = [
            "tenantName": tenant.name,
            "devices": overview.devices.map { device -> [String: Any] in
                [
                    "id": device.id.rawValue, "alias": device.alias ?? "device", "factors": device.factors.map(\.rawValue).joined(separator: ", "),
                    "created": WebPages.time(device.createdAt), "lastUsed": WebPages.time(device.lastUsedAt),
                    "current": device.id == current.session.activationID,
                    // An activation merged into this account belongs to its first user: removed there, not here.
                    "removable": device.id != current.session.activationID && device.username == current.user.username,
                ]
            },
            "sessions": overview.sessions.map {
                ["id": $0.id.rawValue, "service": $0.service ?? "—", "created": WebPages.time($0.createdAt), "expires": WebPages.time($0.expiresAt)]
            },
            "signIns": overview.signIns.map {
                ["at": WebPages.time($0.at), "service": $0.service ?? "—", "purpose": $0.purpose.rawValue, "outcome": $0.outcome.rawValue]
            },
        ]
        problem?.apply(to: &values)
        var layout: [String: Any] = ["account": true, "wide": true, "who": current.user.username, "home": home(tenant), "csrf": current.session.csrf]
        if let notice { layout["notice"] = notice }
        return pages.render("account", title: "Your account", values: values, layout: layout, status: problem?.status ?? .ok)
    }

    @Sendable func login(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        return try await signIn(tenant).start(tenant: tenant)
    }

    @Sendable func callback(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        return try await signIn(tenant).finish(request, tenant: tenant, home: home(tenant), retry: home(tenant), logger: context.logger)
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
            return try await render(current, tenant: tenant, problem: problem)
        }
        throw WebRedirect(location: "\(home(tenant))?done=removed")
    }

    @Sendable func endSession(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let (current, tenant) = try await signedInForm(request, context: context)
        do {
            try await domain.accountPage.endSession(context.parameters.id("session"), current: current, logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await render(current, tenant: tenant, problem: problem)
        }
        throw WebRedirect(location: "\(home(tenant))?done=ended")
    }
}
