import Foundation
import Hummingbird
import TesseraCore
import TesseraDomain
import TesseraRecords

/// An error the server shows its caller: OAuth-style JSON (`error`, `error_description`).
///
/// Use cases throw `DomainError`; this is its HTTP form, made at the edge, with the
/// headers only HTTP knows (`WWW-Authenticate`). The description is written for the
/// client and never carries secrets or which factor failed; details go to the request log.
struct OAuthError: HTTPResponseError {
    let status: HTTPResponse.Status
    let code: String
    let description: String
    var lockout: LockoutInformation? = nil
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ code: String, _ description: String, lockout: LockoutInformation? = nil) {
        self.status = status
        self.code = code
        self.description = description
        self.lockout = lockout
    }

    init(_ error: DomainError) {
        self.init(error.kind.status, error.code.rawValue, error.message, lockout: error.lockout)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponse.make(ErrorBody(error: code, errorDescription: description, lockout: lockout), status: status)
        for field in headers { response.headers.append(field) }
        return response
    }
}

extension DomainError.Kind {
    /// The HTTP status a failure of this kind is answered with.
    var status: HTTPResponse.Status {
        switch self {
        case .invalid: .badRequest
        case .unauthenticated: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .locked: HTTPResponse.Status(code: 423, reasonPhrase: "Locked")
        case .tooLarge: .contentTooLarge
        case .internal: .internalServerError
        case .upstream: .badGateway
        }
    }
}

/// An error on a page a person looks at: answered as a small HTML page in the person's
/// language, in the tenant's look when the request named one. `kind` names the catalog's
/// `error.<kind>_title` and `error.<kind>` (what happened and what to do next); `detail`,
/// for a help desk, is shown as it is, folded away.
struct BrowserError: HTTPResponseError {
    let status: HTTPResponse.Status
    let kind: String
    var messageKind: String?
    var detail: String?
    /// The tenant whose page failed, and its issuer: set by `TenantResolution`.
    var tenant: TenantRecord?
    var issuer: String?

    init(status: HTTPResponse.Status, _ kind: String, message messageKind: String? = nil, detail: String? = nil) {
        self.status = status
        self.kind = kind
        self.messageKind = messageKind
        self.detail = detail
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let look = Look.of(tenant, issuer: issuer, request: request)
        return HTMLResponse.make(
            Pages.error(titleKey: "error.\(kind)_title", messageKey: "error.\(messageKind ?? kind)", detail: detail, look: look), status: status)
    }
}

enum JSONResponse {
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? WireCoding.encoder().encode(value)) ?? Data(#"{"error":"server_error"}"#.utf8)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

enum HTMLResponse {
    /// Scripts and styles from the server's own `/static/` files only, nothing inline.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    static func make(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .init("Content-Security-Policy")!:
                    HTMLResponse.contentSecurityPolicy,
                .init("X-Frame-Options")!: "DENY", .init("X-Content-Type-Options")!: "nosniff",
                .init("Referrer-Policy")!: "no-referrer",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
