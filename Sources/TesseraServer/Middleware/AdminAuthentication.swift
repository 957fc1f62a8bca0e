import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenAPIRuntime
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraRecords

/// What the edge established for one admin call before its handler runs: the caller, the
/// request's logger, and (for an operation under `/admin/tenants/{tenant}`) the tenant.
/// The generated server's handlers have no request context, so this travels as a task-local
/// value, bound by `AdminAuthentication` and completed by `AdminAccess`.
struct AdminCall: Sendable {
    let caller: AdminCaller
    let logger: Logger
    var tenant: TenantRecord?

    @TaskLocal static var current: AdminCall?

    /// The call a handler runs in; its absence is a wiring mistake, not the caller's.
    static func required() throws -> AdminCall {
        guard let current else { throw TesseraRequestContext.MissingContext("admin call") }
        return current
    }

    func requireTenant() throws -> TenantRecord {
        guard let tenant else { throw TesseraRequestContext.MissingContext("tenant") }
        return tenant
    }
}

/// Accepts `Authorization: Bearer <token>`: the bootstrap admin token (compared by digest
/// in constant time), or a live admin API key (found by its digest). The caller is bound
/// for the operation (`AdminCall`); what it may do is checked per operation by `AdminAccess`.
struct AdminAuthentication: RouterMiddleware {
    typealias Context = TesseraRequestContext
    let state: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var caller: AdminCaller?
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            let token = String(header.dropFirst(7))
            if Secrets.constantTimeEquals(Secrets.digest(token), state.adminTokenDigest) {
                caller = .bootstrap
            } else {
                caller = try await state.domain.adminKeys.caller(bearer: token)
            }
        }
        guard let caller else {
            var error = OAuthError(.unauthorized, "invalid_token", "the admin API needs the admin bearer token or a live admin API key")
            error.headers = [.wwwAuthenticate: #"Bearer realm="tessera-admin""#]
            throw error
        }
        return try await AdminCall.$current.withValue(AdminCall(caller: caller, logger: context.logger)) {
            try await next(request, context)
        }
    }
}

/// Before an admin operation reads anything, in this order: the query holds no repeated or
/// badly encoded parameter, and no path parameter decodes to a NUL; the tenant its path names exists and is in the caller's scope
/// (404 otherwise, so another tenant's objects are as unknown as missing ones; 403 for the
/// operators' tenant to all but a global admin); the caller's role allows what the
/// operation needs (`x-tessera-need`, `x-tessera-global` in the document). Then the body is
/// read whole, up to the server's limit, and refused if it holds a NUL; an empty body is
/// no body. Every answer is `no-store`.
///
/// Bodies are JSON and answers are JSON, whatever `Content-Type` and `Accept` say, as the
/// admin API has always taken them (a bearer token, not a cookie, authenticates it, so a
/// form a browser posts cross-site carries no credentials); neither header is passed on.
/// The generated server would check `Accept` only after the handler had run, so a call it
/// refused could still have changed something.
struct AdminAccess: ServerMiddleware {
    let domain: Domain
    let requirements: [String: ServedDocument.Requirement]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var call = try AdminCall.required()
        guard let requirement = requirements[operationID] else {
            throw DomainError(.internal, .serverError, "operation \(operationID) has no requirement in the document")
        }
        if let path = request.path, let mark = path.firstIndex(of: "?") {
            _ = try RequestDecoding.parseForm(String(path[path.index(after: mark)...]))
        }
        // The generated server percent-decodes path parameters: one that decodes to a NUL
        // or to bytes that are not UTF-8 names nothing (and PostgreSQL could not compare it).
        for value in metadata.pathParameters.values where RequestDecoding.decodeComponent(value) == nil {
            throw DomainError.invalidRequest("a path parameter holds a NUL character or is not UTF-8")
        }
        if let name = metadata.pathParameters["tenant"] {
            call.tenant = try await domain.tenant(named: String(name))
        }
        try call.caller.check(requirement.need, global: requirement.global, tenant: call.tenant)
        let body = try await Self.read(body, upTo: requirement.bodyLimit, json: !requirement.binaryBody)
        var request = request
        request.headerFields[.accept] = nil
        if requirement.binaryBody {
            // The media type chooses the body's case; one the operation does not take is refused here.
            guard let type = request.headerFields[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased(),
                Administration.logoTypes.contains(type)
            else { throw DomainError.invalidRequest("the body's Content-Type is one of \(Administration.logoTypes.joined(separator: ", "))") }
            request.headerFields[.contentType] = type
        } else {
            request.headerFields[.contentType] = nil
        }
        var (response, answer) = try await AdminCall.$current.withValue(call) { try await next(request, body, metadata) }
        response.headerFields[.cacheControl] = "no-store"
        return (response, answer)
    }

    /// The whole body, or nil when there is none.
    static func read(_ body: HTTPBody?, upTo limit: Int = RequestDecoding.maximumBodySize, json: Bool = true) async throws -> HTTPBody? {
        guard let body else { return nil }
        let data: Data
        do {
            data = try await Data(collecting: body, upTo: limit)
        } catch {
            throw DomainError(.tooLarge, .invalidRequest, "the request body is larger than \(limit) bytes")
        }
        guard !data.isEmpty else { return nil }
        guard !json || !WireCoding.containsNUL(json: data) else { throw DomainError.invalidRequest("JSON strings may not contain NUL characters") }
        return HTTPBody(data)
    }
}
