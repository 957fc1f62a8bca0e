import Hummingbird
import TesseraCrypto
import TesseraDomain

/// Accepts `Authorization: Bearer <token>`: the bootstrap admin token (compared by digest
/// in constant time), or a live admin API key (found by its digest). The caller goes
/// into the context; what it may do is checked per route.
struct AdminAuthentication: RouterMiddleware {
    typealias Context = TesseraRequestContext
    let state: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            let token = String(header.dropFirst(7))
            if Secrets.constantTimeEquals(Secrets.digest(token), state.adminTokenDigest) {
                context.admin = .bootstrap
            } else {
                context.admin = try await state.domain.adminKeys.caller(bearer: token)
            }
        }
        guard context.admin != nil else {
            var error = OAuthError(.unauthorized, "invalid_token", "the admin API needs the admin bearer token or a live admin API key")
            error.headers = [.wwwAuthenticate: #"Bearer realm="tessera-admin""#]
            throw error
        }
        return try await next(request, context)
    }
}
