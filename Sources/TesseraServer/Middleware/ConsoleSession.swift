import Hummingbird
import TesseraDomain
import TesseraRecords

/// The console's signed-in pages: before a handler runs, the operator's session (from its
/// cookie; none is a redirect to sign-in) goes into the request context, and a form's body
/// is read and must carry the session's CSRF token (else nothing happens: 403). Handlers
/// ask with `requireWebSession()` and `requireForm()`; a form's files are `context.files`.
struct ConsoleSession: RouterMiddleware {
    typealias Context = TesseraRequestContext
    let domain: Domain
    let signIn: WebSignIn
    /// Where a browser without a session goes.
    let signInPage: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // As in `TenantResolution`: a small frame for the rest of the request.
        try await next(request, try await signedIn(request, context))
    }

    @inline(never)
    private func signedIn(_ request: Request, _ context: Context) async throws -> Context {
        guard let current = try await domain.webSessions.current(signIn.kind, secret: signIn.cookies.session(request)) else {
            throw WebRedirect(location: signInPage, status: .found)
        }
        var context = context
        context.webSession = current
        if request.method == .post {
            let sent = try await signIn.submission(request, current: current)
            context.form = sent.fields
            context.files = sent.files
        }
        return context
    }
}

/// The tenant a console page's path names (`tenants/:tenant`), as the signed-in operator
/// may see it: one outside its scope is as unknown as a missing one (a 404 page), and an
/// operator without a role reaches none (403). Runs after `ConsoleSession`.
struct ConsoleTenant: RouterMiddleware {
    typealias Context = TesseraRequestContext
    let domain: Domain

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await next(request, try await withTenant(context))
    }

    @inline(never)
    private func withTenant(_ context: Context) async throws -> Context {
        let current = try context.requireWebSession()
        let name = context.parameters.get("tenant") ?? ""
        var context = context
        do {
            let tenant = try await domain.tenant(named: name)
            // An operator without a caller (one limited to the operators' tenant, made before
            // that was refused) reaches no tenant.
            guard let caller = current.caller else {
                throw BrowserError(status: .forbidden, "not_allowed", detail: "This operator may not administer any tenant.")
            }
            try caller.check(tenant: tenant)
            context.tenant = tenant
        } catch let error as DomainError where error.kind == .notFound {
            throw BrowserError(status: .notFound, "not_found", detail: "There is no tenant '\(name.prefix(64))' you can see.")
        }
        return context
    }
}
