import Foundation
import Hummingbird
import Logging
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraRecords

/// A redirect a page answers with (303 after a form, so the browser follows with GET).
struct WebRedirect: HTTPResponseError {
    let location: String
    var status: HTTPResponse.Status = .seeOther

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: [.location: location, .cacheControl: "no-store"])
    }
}

/// The cookies of a browser session (console or account page): the session's secret,
/// and while signing in, the state, nonce and PKCE verifier the callback checks.
/// `HttpOnly`, `SameSite=Lax`, `Secure` when the public URL is HTTPS, limited to the
/// pages' path.
struct WebSessionCookies: Sendable {
    let kind: WebSessionKind
    let path: String
    let secure: Bool

    var sessionName: String { "tessera_\(kind.rawValue)" }
    var signInName: String { "tessera_\(kind.rawValue)_signin" }

    func session(_ request: Request) -> String? { request.cookies[sessionName]?.value }

    /// The sealed sign-in the browser kept (`WebSessions.unsealed` opens it).
    func signIn(_ request: Request) -> String? { request.cookies[signInName]?.value }

    func setSignIn(_ sealed: String, on response: inout Response) {
        response.setCookie(Cookie(name: signInName, value: sealed, maxAge: 900, path: path, secure: secure, httpOnly: true, sameSite: .lax))
    }

    func setSession(_ secret: String, maxAge: Int64, on response: inout Response) {
        response.setCookie(
            Cookie(name: sessionName, value: secret, maxAge: Int(maxAge), path: path, secure: secure, httpOnly: true, sameSite: .lax))
        clearSignIn(on: &response)
    }

    func clearSignIn(on response: inout Response) {
        response.setCookie(Cookie(name: signInName, value: "", maxAge: 0, path: path, secure: secure, httpOnly: true, sameSite: .lax))
    }

    func clearSession(on response: inout Response) {
        response.setCookie(Cookie(name: sessionName, value: "", maxAge: 0, path: path, secure: secure, httpOnly: true, sameSite: .lax))
    }
}

/// A form's failure as a page shows it: the message, and the field it belongs beside.
struct FormProblem: Error {
    let message: String
    let field: String?
    let status: HTTPResponse.Status

    init(_ message: String, field: String? = nil, status: HTTPResponse.Status = .badRequest) {
        self.message = message
        self.field = field
        self.status = status
    }

    /// A use case's refusal, placed beside the first of `fields` its message names.
    init?(_ error: any Error, fields: [String]) {
        if let problem = error as? FormProblem {
            self = problem
            return
        }
        guard let error = error as? DomainError, error.kind != .internal else { return nil }
        self.init(error.message, field: fields.first { error.message.contains($0) }, status: error.kind.status)
    }
}

/// On the console's and account page's routes: a use case's refusal is a page, not JSON.
struct PageErrors: RouterMiddleware {
    typealias Context = TesseraRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as DomainError where error.kind != .internal {
            throw BrowserError(status: error.kind.status, error.kind == .forbidden ? "not_allowed" : "not_possible", detail: error.message)
        }
    }
}

/// What the console and the account page share: reading a form of a session (with its
/// CSRF token), and the two ends of the sign-in.
struct WebSignIn: Sendable {
    let domain: Domain
    let pages: WebPages
    let kind: WebSessionKind
    let cookies: WebSessionCookies

    /// The form a signed-in session sent, if it carries the session's CSRF token; a
    /// missing or foreign token is refused and nothing happens.
    func form(_ request: Request, current: WebSessions.Current) async throws -> [String: String] {
        try await submission(request, current: current).fields
    }

    /// The same for a form that may carry files (`multipart/form-data`, as a browser sends
    /// a form with a file field); a URL-encoded form has fields only.
    func submission(_ request: Request, current: WebSessions.Current) async throws -> MultipartForm {
        let sent: MultipartForm
        do {
            if MultipartForm.boundary(ofContentType: request.headers[.contentType]) != nil {
                sent = try await MultipartForm.read(request)
            } else {
                sent = MultipartForm(fields: try await RequestDecoding.form(from: request))
            }
        } catch {
            throw BrowserError(status: .badRequest, "form")
        }
        guard current.checks(csrf: sent.fields["csrf"]) else {
            throw BrowserError(status: .forbidden, "stale_form")
        }
        return sent
    }

    /// Off to the tenant's authorization endpoint, keeping state, nonce and verifier in a cookie.
    func start(tenant: TenantRecord) async throws -> Response {
        let signIn = try await domain.webSessions.start(kind, tenant: tenant)
        var response = Response(status: .found, headers: [.location: signIn.authorizationURL, .cacheControl: "no-store"])
        cookies.setSignIn(try domain.webSessions.sealed(signIn, kind), on: &response)
        return response
    }

    /// The callback: an error from the login, or the code that opens the session; then
    /// `home`. A refusal is a page in `look`.
    func finish(_ request: Request, tenant: TenantRecord, home: String, retry: String, look: Look, logger: Logger) async throws -> Response {
        let query = (try? RequestDecoding.query(request)) ?? [:]
        let words = look.words
        if let error = query["error"] {
            let reason = [error, query["error_description"]].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
            return pages.render(
                "message", title: words("account.signin_ended_title"),
                page: ConsoleViews.Message(
                    heading: words("account.signin_ended_title"), text: words("account.signin_ended", ["reason": String(reason.prefix(200))]),
                    link: retry, linkText: words("account.signin_try_again")), layout: PlainLayout(look: look, t: words), status: .forbidden)
        }
        do {
            let opened = try await domain.webSessions.finish(
                kind, tenant: tenant, code: query["code"], state: query["state"], kept: cookies.signIn(request).flatMap { domain.webSessions.unsealed($0, kind) }, logger: logger)
            var response = Response(status: .seeOther, headers: [.location: home, .cacheControl: "no-store"])
            cookies.setSession(opened.secret, maxAge: WebSessions.lifetimes(kind).absolute, on: &response)
            return response
        } catch let error as DomainError where error.kind != .internal {
            var response = pages.render(
                "message", title: words("account.signin_refused_title"),
                page: ConsoleViews.Message(
                    heading: words("account.signin_refused_title"), text: words("account.signin_refused", ["reason": error.message]), link: retry,
                    linkText: words("account.signin_try_again")),
                layout: PlainLayout(look: look, t: words), status: error.kind.status)
            cookies.clearSignIn(on: &response)
            return response
        }
    }

    /// Signs out: the session and its login end, the cookie goes; then `next`.
    func signOut(_ current: WebSessions.Current, next: String, logger: Logger) async throws -> Response {
        try await domain.webSessions.signOut(current, logger: logger)
        var response = Response(status: .seeOther, headers: [.location: next, .cacheControl: "no-store"])
        cookies.clearSession(on: &response)
        return response
    }
}
