import Hummingbird
import TesseraCrypto

/// Accepts `Authorization: Bearer <admin token>`, compared by digest in constant time.
struct AdminAuthentication<Context: RequestContext>: RouterMiddleware {
    let state: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
            Secrets.constantTimeEquals(Secrets.digest(String(header.dropFirst(7))), state.adminTokenDigest)
        else {
            var error = OAuthError(.unauthorized, "invalid_token", "the admin API needs the admin bearer token")
            error.headers = [.wwwAuthenticate: #"Bearer realm="tessera-admin""#]
            throw error
        }
        return try await next(request, context)
    }
}
