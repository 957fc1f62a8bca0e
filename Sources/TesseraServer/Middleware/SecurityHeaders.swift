import HTTPTypes
import Hummingbird

/// The headers every answer carries, errors included (this middleware is the outermost,
/// so it turns a thrown error into its answer itself):
///
/// - `X-Content-Type-Options: nosniff` on everything;
/// - on HTML, `Referrer-Policy: no-referrer` (a page's URL can hold a request id) besides
///   the pages' own Content-Security-Policy with `frame-ancestors 'none'`;
/// - `Strict-Transport-Security` when the server is reached over HTTPS (its own TLS, or a
///   public URL with `https`).
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    let strictTransportSecurity: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        if response.headers[.contentType]?.hasPrefix("text/html") == true {
            response.headers[.referrerPolicy] = "no-referrer"
            if response.headers[.contentSecurityPolicy] == nil {
                response.headers[.contentSecurityPolicy] = HTMLResponse.contentSecurityPolicy
            }
        }
        if strictTransportSecurity {
            response.headers[.strictTransportSecurity] = "max-age=31536000"
        }
        return response
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let strictTransportSecurity = HTTPField.Name("Strict-Transport-Security")!
}
