import Hummingbird
import TesseraDomain
import TesseraRecords

/// Resolves the `:tenant` path parameter to the tenant before the handler runs; an
/// unknown name is a 404 (as JSON, or, for the pages a person opens, as a page).
struct TenantResolution: RouterMiddleware {
    typealias Context = TesseraRequestContext

    enum Answer {
        case json
        case page
    }

    let domain: Domain
    var answer: Answer = .json

    // The work before and after `next` is in functions of its own: the frame of `handle`,
    // which lives until the response does (a long poll's whole wait), then holds little
    // more than the request and its context, instead of every temporary of the lookup and
    // of the error's dressing (18.5 KB in all).
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let context = try await resolved(context)
        do {
            return try await next(request, context)
        } catch {
            throw dressed(error, context.tenant)
        }
    }

    @inline(never)
    private func resolved(_ context: Context) async throws -> Context {
        var context = context
        do {
            context.tenant = try await domain.tenant(named: context.parameters.get("tenant") ?? "")
        } catch let error as DomainError where error.kind == .notFound && answer == .page {
            throw BrowserError(status: .notFound, "not_found", message: "unknown_realm")
        }
        return context
    }

    /// A page's error in the tenant's look and default language; any other error as it is.
    @inline(never)
    private func dressed(_ error: any Error, _ tenant: TenantRecord?) -> any Error {
        guard var error = error as? BrowserError, error.tenant == nil else { return error }
        error.tenant = tenant
        error.issuer = tenant.map { domain.issuer(forTenantNamed: $0.name) }
        return error
    }
}

/// Checks `Authorization: Tessera-Device <JWS>` before a device route runs: signed by
/// the activation's device key, for this issuer, method and path, and short-lived. The
/// handler's use case spends the token's `jti` in the transaction that does the work,
/// so a token is good for one call. Each device (the client of these endpoints) has
/// its own budget per endpoint, like an OAuth client at the token endpoint. A token of
/// the background key is refused (403) before the handler runs, except on the routes
/// that only read pending requests (`acceptsBackgroundKey`).
struct DeviceAuthentication: RouterMiddleware {
    typealias Context = TesseraRequestContext

    let domain: Domain
    let limiter: RateLimiter
    let settings: ThrottleSettings
    var acceptsBackgroundKey = false
    /// The routes behind it read the activation again in their transaction
    /// (`DeviceCaller.begin`): a device key this node kept checks the token.
    var readAgain = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // As in `TenantResolution`: a small frame for the rest of the request.
        try await next(request, try await authenticated(request, context))
    }

    @inline(never)
    private func authenticated(_ request: Request, _ context: Context) async throws -> Context {
        guard let header = request.headers[.authorization], header.hasPrefix("Tessera-Device ") else {
            throw DomainError.invalidToken("the device API needs a Tessera-Device token")
        }
        var context = context
        let tenant = try context.requireTenant()
        // In a task of its own, as a long poll's reads (`inOwnTask`): a long poll waits after it.
        context.device = try await inOwnTask { [domain, readAgain] in
            try await domain.authenticateDevice(
                token: String(header.dropFirst("Tessera-Device ".count)), method: request.method.rawValue, path: request.uri.path,
                tenant: tenant, readAgain: readAgain)
        }
        if let activation = context.device?.activation.id {
            try limiter.check("\(context.endpointPath ?? "device") device \(activation)", rate: settings.perClient, from: "from this device")
        }
        // requireDevice() refuses a background token (403), here before any body is read.
        if !acceptsBackgroundKey { _ = try context.requireDevice() }
        return context
    }
}
