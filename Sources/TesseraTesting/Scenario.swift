import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraTestSupport

/// A tenant with a service and users on a `TestServer`, set up over the admin API the
/// way an administrator would.
public struct Scenario: Sendable {
    public let baseURL: String
    public let adminToken: String
    public let tenant: String
    public let http = TestHTTP()

    public var issuer: String { "\(baseURL)/t/\(tenant)" }

    public init(baseURL: String, adminToken: String, tenant: String) {
        self.baseURL = baseURL
        self.adminToken = adminToken
        self.tenant = tenant
    }

    /// The admin API's typed client, as the administrator of every tenant.
    package var api: Client { Self.api(baseURL: baseURL, adminToken: adminToken) }

    static func api(baseURL: String, adminToken: String) -> Client {
        guard let url = URL(string: baseURL) else { preconditionFailure("not a URL: \(baseURL)") }
        return AdminAPI.client(server: url, token: adminToken)
    }

    /// An admin call; a refusal is thrown as the server gave it (`AdminAPIError`).
    static func calling<T>(_ call: () async throws -> T) async throws -> T {
        do { return try await call() } catch { throw AdminAPIError.unwrapped(error) }
    }

    package static func make(
        on server: TestServer, lockout: Components.Schemas.Lockout? = nil, processPolicy: String? = nil, ssoLifetime: Int? = nil,
        ssoPolicy: String? = nil
    ) async throws -> Scenario {
        try await make(
            baseURL: server.baseURL, adminToken: server.adminToken, lockout: lockout, processPolicy: processPolicy,
            ssoLifetime: ssoLifetime, ssoPolicy: ssoPolicy)
    }

    /// A new tenant on the server (or proxy) at `baseURL`.
    package static func make(
        baseURL: String, adminToken: String, lockout: Components.Schemas.Lockout? = nil, processPolicy: String? = nil,
        ssoLifetime: Int? = nil, ssoPolicy: String? = nil
    ) async throws -> Scenario {
        let tenant = "t\(UUID().uuidString.prefix(8).lowercased())"
        let creation = TenantCreation(name: tenant, lockout: lockout, processPolicy: processPolicy, ssoLifetime: ssoLifetime, ssoPolicy: ssoPolicy)
        _ = try await calling { try await api(baseURL: baseURL, adminToken: adminToken).createTenant(body: .json(creation)).created }
        return Scenario(baseURL: baseURL, adminToken: adminToken, tenant: tenant)
    }

    public struct Service: Sendable {
        public let clientID: String
        public let clientSecret: String?
        public let redirectURI: String

        public init(clientID: String, clientSecret: String?, redirectURI: String) {
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.redirectURI = redirectURI
        }
    }

    public func createService(
        policy: String = "device+pin,device+biometric", attributes: [String] = ["email", "name"], isPublic: Bool = false,
        redirectURI: String = "http://127.0.0.1:9/callback", backchannelMode: String? = nil, notificationEndpoint: String? = nil,
        name: String = "Test Service", numberMatching: Bool = false
    ) async throws -> Service {
        typealias Mode = Components.Schemas.CreateService.BackchannelTokenDeliveryModePayload
        let mode = try backchannelMode.map { text in
            guard let mode = Mode(rawValue: text) else { throw TestSupportError("no backchannel mode '\(text)'") }
            return mode
        }
        // Number matching is on for new services unless set false; the tests that are not
        // about it answer logins without reading the page, as a bench would.
        let body = Components.Schemas.CreateService(
            name: name, redirectUris: [redirectURI], _public: isPublic, policy: policy, attributes: attributes,
            backchannelTokenDeliveryMode: mode, backchannelClientNotificationEndpoint: notificationEndpoint, numberMatching: numberMatching)
        let service = try await Self.calling {
            try await api.createService(path: .init(tenant: tenant), body: .json(body)).created.body.json
        }
        return Service(clientID: service.clientId, clientSecret: service.clientSecret, redirectURI: redirectURI)
    }

    public func createUser(_ username: String, attributes: [String: String] = [:]) async throws {
        let body = Components.Schemas.CreateUser(username: username, attributes: .init(additionalProperties: attributes))
        _ = try await Self.calling { try await api.createUser(path: .init(tenant: tenant), body: .json(body)).created }
    }

    public func invite(_ username: String, ttl: Int? = nil) async throws -> URL {
        let invitation = try await Self.calling {
            try await api.invite(path: .init(tenant: tenant), body: .json(.init(username: username, ttlSeconds: ttl))).created.body.json
        }
        guard let url = invitation.url.flatMap(URL.init(string:)) else { throw TestSupportError("invite: no URL in \(invitation)") }
        return url
    }

    package func activations(username: String? = nil) async throws -> [Components.Schemas.Activation] {
        try await Self.calling {
            try await api.listActivations(path: .init(tenant: tenant), query: .init(username: username)).ok.body.json.activations
        }
    }

    public func unlock(_ activationID: String) async throws {
        _ = try await Self.calling { try await api.unlockActivation(path: .init(activation: activationID)).ok }
    }

    public func revoke(_ activationID: String) async throws {
        _ = try await Self.calling { try await api.revokeActivation(path: .init(activation: activationID)).ok }
    }

    /// This tenant's audit log, newest first.
    package func audit() async throws -> [Components.Schemas.AuditEntry] {
        try await Self.calling { try await api.listAudit(query: .init(tenant: tenant, limit: 1000)).ok.body.json.entries }
    }

    /// A browser on the login page: the page, its cookie and the links it holds.
    public struct BrowserLogin: Sendable {
        public let page: String
        public let cookie: String
        public let authenticationURL: URL
        public let statusURL: String
        public let completeURL: String
        public let verifier: String?
        public let state: String
        public let nonce: String
        /// The number the page shows, for a service with number matching.
        public var matchCode: String? = nil

        /// The same browser login, its links pointed at another origin (one node of a cluster).
        public func via(_ origin: String, instead proxy: String) -> BrowserLogin {
            BrowserLogin(
                page: page, cookie: cookie, authenticationURL: authenticationURL,
                statusURL: statusURL.replacingOccurrences(of: proxy, with: origin),
                completeURL: completeURL.replacingOccurrences(of: proxy, with: origin), verifier: verifier, state: state, nonce: nonce,
                matchCode: matchCode)
        }
    }

    /// Opens `/authorize` as a browser would and reads the login page.
    public func openLogin(
        _ service: Service, pkce: Bool = true, extra: [String: String] = [:]
    ) async throws -> BrowserLogin {
        let verifier = pkce ? PKCE.makeVerifier() : nil
        let state = UUID().uuidString
        let nonce = UUID().uuidString
        var parameters = [
            "response_type": "code", "client_id": service.clientID, "redirect_uri": service.redirectURI,
            "scope": "openid", "state": state, "nonce": nonce,
        ]
        if let verifier {
            parameters["code_challenge"] = PKCE.challenge(forVerifier: verifier)
            parameters["code_challenge_method"] = "S256"
        }
        for (key, value) in extra { parameters[key] = value }
        return try await openLoginPage(at: "\(issuer)/authorize?\(Self.query(parameters))", verifier: verifier, state: state, nonce: nonce)
    }

    /// Opens an authorization URL made elsewhere (by another server, as a relying party
    /// of this one) as a browser would, and reads the login page.
    public func openLoginPage(at url: String, verifier: String? = nil, state: String = "", nonce: String = "") async throws -> BrowserLogin {
        let response = try await http.get(url)
        guard response.status == 200 else { throw TestSupportError("authorize: \(response.status) \(response.text)") }
        let page = response.text
        guard let setCookie = response.header("Set-Cookie"), let cookie = setCookie.split(separator: ";").first,
            let link = Self.attribute("data-status-url", in: page), let complete = Self.attribute("data-complete-url", in: page),
            let authentication = Self.element("authentication-url", in: page).flatMap(URL.init(string:))
        else { throw TestSupportError("the login page lacks its parts") }
        return BrowserLogin(
            page: page, cookie: String(cookie), authenticationURL: authentication, statusURL: link, completeURL: complete,
            verifier: verifier, state: state, nonce: nonce, matchCode: Self.attribute("data-match-code", in: page))
    }

    public func status(_ login: BrowserLogin) async throws -> [String: Any] {
        try await http.get(login.statusURL, headers: ["Cookie": login.cookie]).json()
    }

    /// Follows the page's completion link; returns the redirect's query parameters.
    public func complete(_ login: BrowserLogin) async throws -> [String: String] {
        let response = try await http.get(login.completeURL, headers: ["Cookie": login.cookie])
        guard response.status == 302, let location = response.header("Location"),
            let components = URLComponents(string: location)
        else { throw TestSupportError("complete: \(response.status) \(response.text)") }
        var result: [String: String] = [:]
        for item in components.queryItems ?? [] { result[item.name] = item.value }
        return result
    }

    public func redeem(
        code: String, service: Service, verifier: String?, redirectURI: String? = nil
    ) async throws -> TestHTTP.Response {
        var fields = ["grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI ?? service.redirectURI]
        if let verifier { fields["code_verifier"] = verifier }
        return try await tokenRequest(fields, service: service)
    }

    /// A form POST to one of the tenant's OAuth endpoints (`token`, `revoke`, `introspect`)
    /// with the service's client authentication.
    public func tokenRequest(_ fields: [String: String], service: Service, endpoint: String = "token") async throws -> TestHTTP.Response {
        var fields = fields
        var headers: [String: String] = [:]
        if let secret = service.clientSecret {
            let credentials = Data("\(TestHTTP.encode(service.clientID)):\(TestHTTP.encode(secret))".utf8).base64EncodedString()
            headers["Authorization"] = "Basic \(credentials)"
        } else {
            fields["client_id"] = service.clientID
        }
        return try await http.postForm("\(issuer)/\(endpoint)", fields, headers: headers)
    }

    public static func query(_ parameters: [String: String]) -> String {
        parameters.sorted { $0.key < $1.key }.map { "\(TestHTTP.encode($0.key))=\(TestHTTP.encode($0.value))" }.joined(separator: "&")
    }

    public static func attribute(_ name: String, in page: String) -> String? {
        guard let start = page.range(of: "\(name)=\"") else { return nil }
        let rest = page[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return unescape(String(rest[..<end]))
    }

    static func element(_ id: String, in page: String) -> String? {
        guard let start = page.range(of: "id=\"\(id)\">") else { return nil }
        let rest = page[start.upperBound...]
        guard let end = rest.firstIndex(of: "<") else { return nil }
        return unescape(String(rest[..<end]))
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
