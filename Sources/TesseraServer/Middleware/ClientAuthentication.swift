import Foundation
import Hummingbird
import TesseraDomain
import TesseraRecords

/// OAuth client authentication for the token-style endpoints (`token`, `par`,
/// `bc-authorize`, `revoke`, `introspect`): client_secret_basic, client_secret_post,
/// private_key_jwt (a signed `client_assertion`, RFC 7523), or a public client naming
/// itself. Reads the form once (the secret and the assertion live in it) and hands both
/// client and form to the handler.
struct ClientAuthentication: RouterMiddleware {
    typealias Context = TesseraRequestContext

    let domain: Domain
    let limiter: RateLimiter
    let settings: ThrottleSettings

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // As in `TenantResolution`: a small frame for the rest of the request.
        try await next(request, try await authenticated(request, context))
    }

    @inline(never)
    private func authenticated(_ request: Request, _ context: Context) async throws -> Context {
        let form = try await RequestDecoding.form(from: request)
        var clientID = form["client_id"]
        var secret = form["client_secret"]
        var usedBasic = false
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("basic ") {
            guard form["client_secret"] == nil, form["client_assertion"] == nil else {
                throw DomainError.invalidRequest("use one client authentication method, not two")
            }
            guard let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else { throw Self.invalidClient(basic: true) }
            let basicID = RequestDecoding.decodeComponent(text[..<colon]) ?? ""
            if let clientID, clientID != basicID { throw Self.invalidClient(basic: true) }
            clientID = basicID
            secret = RequestDecoding.decodeComponent(text[text.index(after: colon)...])
            usedBasic = true
        }
        var context = context
        do {
            let tenant = try context.requireTenant()
            let service: ServiceRecord
            if let assertion = form["client_assertion"] {
                guard secret == nil else { throw DomainError.invalidRequest("use one client authentication method, not two") }
                guard form["client_assertion_type"] == ClientAssertions.assertionType else {
                    throw DomainError.invalidRequest("client_assertion_type is \(ClientAssertions.assertionType)")
                }
                // The URL the client sent it to: an assertion may name it as its audience.
                let called = request.uri.path.split(separator: "/").last.map(String.init) ?? "token"
                let endpoint = "\(domain.issuer(forTenantNamed: tenant.name))/\(called)"
                service = try await domain.clientAssertions(Outbound(domain)).authenticate(
                    assertion: assertion, clientID: clientID, endpoint: endpoint, tenant: tenant)
            } else {
                service = try await domain.authenticateClient(clientID: clientID, secret: secret, tenant: tenant)
            }
            try limiter.check(
                "\(context.endpointPath ?? "token") client \(service.clientID)", rate: settings.perClient, from: "for this client")
            context.client = AuthenticatedClient(service: service, form: form)
        } catch let error as DomainError where error.code == .invalidClient {
            throw Self.invalidClient(basic: usedBasic)
        }
        return context
    }

    /// `invalid_client`, with the challenge RFC 6749 §5.2 asks for when Basic was tried.
    static func invalidClient(basic: Bool) -> OAuthError {
        var error = OAuthError(.unauthorized, "invalid_client", "client authentication failed")
        if basic { error.headers = [.wwwAuthenticate: #"Basic realm="tessera""#] }
        return error
    }
}
