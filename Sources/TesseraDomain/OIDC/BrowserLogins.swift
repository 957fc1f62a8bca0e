import Crypto
import Foundation
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// The browser's side of a web login (OpenID Core §3.1.2): the authorization request
/// that creates a login request and its QR code, the page's view of that request, and
/// its completion with an authorization code. Only the browser that started a request
/// (holding its secret, kept in a cookie) can follow or complete it.
public struct BrowserLogins: Sendable {
    let domain: Domain

    /// What an authorization request led to.
    public enum Start: Sendable {
        /// A login request waits for a device; the page shows its QR code.
        case started(StartedLogin)
        /// Refused after client and redirect URI checked out: the browser goes back to the
        /// service with the error (RFC 6749 §4.1.2.1).
        case refused(RedirectError)
    }

    public struct StartedLogin: Sendable {
        public let requestID: RequestID
        /// Given to the browser once (a cookie); the store keeps its digest.
        public let browserSecret: String
        public let serviceName: String
        public let attributes: [String]
        public let expiresAt: Date
        /// The number the page shows for the user to pick on the device (number matching).
        public let matchCode: String?
        /// Whether the service's policy lets a passkey sign in alone (the page offers it).
        public let passkeys: Bool
        /// The tenant's external providers, where the service's policy takes a sign-in
        /// there (the page links to them).
        public let providers: [KKApp]
        /// The request's `ui_locales`: the languages the page should be in, preferred first.
        public let uiLocales: String?
        /// The service's client id, and its privacy policy and terms (its registration's), and
        /// whether it has a logo (the server fetches it, so the page's policy stays strict).
        public let clientID: ClientID
        public let policyURI: String?
        public let tosURI: String?
        public let hasLogo: Bool
    }

    /// The browser as the edge saw it: recorded with the request and shown on the device.
    public struct Browser: Sendable {
        public let address: String
        public let userAgent: String?

        public init(address: String, userAgent: String?) {
            self.address = String(address.prefix(64))
            // The browser chooses its User-Agent: no control, format or separator
            // characters reach the device's screen or a terminal.
            self.userAgent = userAgent.map { agent in
                String(
                    String.UnicodeScalarView(
                        agent.unicodeScalars.filter { scalar in
                            switch scalar.properties.generalCategory {
                            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned: false
                            default: true
                            }
                        }
                    ).prefix(256))
            }
        }
    }

    /// The numbers the device offers for a request: its page's number and `count - 1`
    /// decoys, in ascending order. The decoys are derived from the request id, so every
    /// claim of the request (a re-scan, a retry after a failure) offers the same three:
    /// comparing two screens does not give the page's number away.
    public static func numberChoices(including code: String, requestID: RequestID, count: Int = 3) -> [String] {
        var choices: Set<String> = [code]
        var counter: UInt8 = 0
        while choices.count < count {
            let digest = SHA256.hash(data: Data("tessera number matching \(requestID.rawValue) \(counter)".utf8))
            for byte in digest where choices.count < count {
                choices.insert(String(10 + Int(byte) % 90))
            }
            counter &+= 1
        }
        return choices.sorted()
    }

    public struct RedirectError: Sendable {
        public let redirectURI: String
        public let error: String
        public let description: String
        public let state: String?
    }

    /// The codes an authorization request is refused with before its redirect URI is
    /// known good; the browser shows them, never redirects.
    public static let unknownClient = DomainError.Code("unknown_client")
    public static let invalidRedirectURI = DomainError.Code("invalid_redirect_uri")

    /// Checks an authorization request (client, exact redirect URI, scope, PKCE, prompt,
    /// max_age, acr_values, login_hint, ui_locales) and stores the login request.
    public func start(_ query: AuthorizationRequest, tenant: TenantRecord, browser: Browser? = nil, pushed: Bool = false) async throws -> Start {
        try await begin(query, tenant: tenant, browser: browser, pushed: pushed, store: true)
    }

    /// `start`'s checks, and with `store` the login request; without it only the checks
    /// (a pushed request is checked when it is pushed, and again when it is used).
    private func begin(_ query: AuthorizationRequest, tenant: TenantRecord, browser: Browser?, pushed: Bool, store: Bool) async throws -> Start {
        // Until client and redirect URI are known good, errors are shown, never redirected.
        guard let clientID = query.clientID,
            let service = try await domain.service(clientID: ClientID(clientID)), service.tenantID == tenant.id
        else { throw DomainError(.invalid, Self.unknownClient, "The service asking for sign-in is not registered here.") }
        let registered = service.redirectURIs
        // [REQ:DESIGN exact redirect URIs] string equality, no prefix or pattern matching.
        guard let redirectURI = query.redirectURI, registered.contains(redirectURI) else {
            throw DomainError(
                .invalid, Self.invalidRedirectURI, "The return address of this sign-in request is not registered for the service.")
        }
        let stateParameter = query.state
        func fail(_ code: String, _ description: String) -> Start {
            .refused(RedirectError(redirectURI: redirectURI, error: code, description: description, state: stateParameter))
        }
        guard service.allowedGrantTypes.contains(GrantType.authorizationCode) else {
            return fail("unauthorized_client", "the service may not use the authorization code grant (grant_types)")
        }
        // A service that must push its requests (RFC 9126 §6) gets no login from a plain one.
        if service.requirePushedAuthorizationRequests && !pushed {
            return fail("invalid_request", "this service must push its authorization requests first (PAR, RFC 9126)")
        }
        guard query.responseType == "code" else {
            return fail("unsupported_response_type", "only response_type=code is supported")
        }
        guard (query.scope?.count ?? 0) <= Validation.maximumScopeLength else {
            return fail("invalid_scope", "the scope is limited to \(Validation.maximumScopeLength) characters")
        }
        let scopes = (query.scope ?? "").split(separator: " ").map(String.init)
        guard scopes.contains("openid") else { return fail("invalid_scope", "the scope must include openid") }
        guard (stateParameter?.count ?? 0) <= 1024, (query.nonce?.count ?? 0) <= 1024 else {
            return fail("invalid_request", "state and nonce are limited to 1024 characters")
        }
        if query.request != nil || query.requestURI != nil {
            return fail("request_not_supported", "request objects are not supported")
        }
        // prompt=login and max_age=0 ask for a full login: no single sign-on (OpenID Core §3.1.2.1).
        let prompts = Set((query.prompt ?? "").split(separator: " ").map(String.init))
        if prompts.contains("none") {
            guard prompts.count == 1 else { return fail("invalid_request", "prompt=none cannot be combined with other values") }
            // No login here is silent: the user's device always takes part.
            return fail("login_required", "a login always needs the user's device")
        }
        for prompt in prompts where !["login", "consent", "select_account"].contains(prompt) {
            return fail("invalid_request", "prompt \(prompt.prefix(32)) is not supported (none, login, consent, select_account)")
        }
        // acr_values (OpenID Core §3.1.2.1, RFC 9470 step-up): the combinations of this
        // server's it names, those the service's policy allows; values of other schemes are
        // voluntary and ignored. A request with acr_values never rides on single sign-on.
        var acrPolicy: AuthenticatorPolicy?
        if let text = query.acrValues {
            guard text.count <= Validation.maximumScopeLength else { return fail("invalid_request", "acr_values is too long") }
            switch Self.requestedCombinations(text, servicePolicy: service.policy) {
            case .noneOfOurs: break
            case .narrowed(let policy): acrPolicy = policy
            case .unmet:
                return fail(
                    "unmet_authentication_requirements", "none of the requested acr_values is a factor combination this service allows")
            }
        }
        // login_hint: the username of the one user whose devices (or passkeys) may answer.
        let loginHint = query.loginHint
        guard (loginHint?.count ?? 0) <= 256, (query.uiLocales?.count ?? 0) <= 256 else {
            return fail("invalid_request", "login_hint and ui_locales are limited to 256 characters")
        }
        var maxAge: Int64?
        if let text = query.maxAge {
            guard let value = Int64(text), value >= 0 else { return fail("invalid_request", "max_age must be a non-negative integer") }
            maxAge = value
        }
        // The console and the account page manage credentials: a full login always, whatever the URL says.
        let ssoAllowed = !prompts.contains("login") && maxAge != 0 && !WebSessions.isBuiltIn(service.clientID)
        let challenge = query.codeChallenge
        if let method = query.codeChallengeMethod, method != "S256" {
            return fail("invalid_request", "only the S256 code challenge method is supported")
        }
        if let challenge {
            guard PKCE.isWellFormedChallenge(challenge) else { return fail("invalid_request", "code_challenge is not an S256 challenge") }
            guard query.codeChallengeMethod == "S256" else {
                return fail("invalid_request", "code_challenge_method=S256 is required (plain is not supported)")
            }
        } else if service.isPublic {
            return fail("invalid_request", "public clients must use PKCE with S256")
        }

        let now = domain.now()
        // An identifier never begins with "-", so `tessera device approve ID` reads it as an argument.
        let requestID = RequestID(Secrets.identifier(byteCount: 16))
        let browserSecret = Secrets.randomToken()
        let expiresAt = now.addingTimeInterval(TimeInterval(domain.settings.requestLifetime))
        var record = AuthRequestRecord(
            id: requestID, tenantID: tenant.id, serviceID: service.id, purpose: AuthenticationPurpose.login,
            status: AuthenticationStatus.pending, challenge: nil, activationID: nil, userID: nil,
            redirectURI: redirectURI, state: stateParameter, nonce: query.nonce, codeChallenge: challenge,
            scope: scopes.joined(separator: " "), browserDigest: Secrets.digest(browserSecret), confirmedAttributes: nil,
            factors: nil, authTime: nil, ssoAllowed: ssoAllowed, maxAge: maxAge, originAddress: browser?.address,
            originAgent: browser?.userAgent, matchCode: service.numberMatching ? String(Int.random(in: 10...99)) : nil,
            createdAt: Int64(now.timeIntervalSince1970), expiresAt: Int64(expiresAt.timeIntervalSince1970))
        record.acrPolicy = acrPolicy
        record.loginHint = loginHint.flatMap { $0.isEmpty ? nil : $0 }
        record.uiLocales = query.uiLocales
        if store { try await domain.store.write { try await $0.insertAuthRequest(record) } }
        let providers =
            Federation.allowsFederatedLogin(policy: record.acrPolicy ?? service.policy)
            ? try await domain.identityProviderDirectory(tenant: tenant) : []
        return .started(
            StartedLogin(
                requestID: requestID, browserSecret: browserSecret, serviceName: service.name,
                attributes: ScopeClaims.requestedAttributes(of: service, scope: record.scope), expiresAt: expiresAt,
                matchCode: record.matchCode, passkeys: Passkeys.allowsPasskeyLogin(policy: record.acrPolicy ?? service.policy), providers: providers,
                uiLocales: record.uiLocales, clientID: service.clientID, policyURI: service.policyURI, tosURI: service.tosURI,
                hasLogo: service.logoURI != nil))
    }

    // MARK: Pushed authorization requests (RFC 9126)

    public static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"
    /// How long a pushed request waits for its browser.
    public static let pushedRequestLifetime: Int64 = 60

    public struct PushedRequest: Codable, Sendable {
        public let requestURI: String
        public let expiresIn: Int64

        enum CodingKeys: String, CodingKey {
            case requestURI = "request_uri"
            case expiresIn = "expires_in"
        }
    }

    /// `POST {issuer}/par`: the authenticated service's authorization request, checked as
    /// `/authorize` checks it, kept for a minute under a single-use `request_uri`. A
    /// refusal is the same error `/authorize` would send back, as JSON.
    public func push(_ request: AuthorizationRequest, client service: ServiceRecord, tenant: TenantRecord) async throws -> PushedRequest {
        if request.requestURI != nil { throw DomainError.invalidRequest("request_uri cannot be pushed (RFC 9126 §2.1)") }
        if let named = request.clientID, named != service.clientID.rawValue {
            throw DomainError(.invalid, .invalidClient, "client_id is not the authenticated client")
        }
        var request = request
        request.clientID = service.clientID.rawValue
        let parameters = request.parameters
        do {
            if case .refused(let refusal) = try await begin(request, tenant: tenant, browser: nil, pushed: true, store: false) {
                throw DomainError(.invalid, DomainError.Code(refusal.error), refusal.description)
            }
        } catch let error as DomainError where error.code == Self.unknownClient || error.code == Self.invalidRedirectURI {
            throw DomainError.invalidRequest(error.message)
        }
        let token = Secrets.randomToken()
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            try await tx.insertPushedRequest(
                PushedRequestRecord(
                    digest: Secrets.digest(token), tenantID: tenant.id, clientID: service.clientID, parameters: parameters,
                    expiresAt: now + Self.pushedRequestLifetime))
        }
        return PushedRequest(requestURI: Self.requestURIPrefix + token, expiresIn: Self.pushedRequestLifetime)
    }

    /// The parameters of a pushed request, taken once, for the client that pushed it;
    /// `invalid_request_uri` (shown, not redirected) when unknown, used, expired or another client's.
    public func pushedParameters(requestURI: String, clientID: String?, tenant: TenantRecord) async throws -> AuthorizationRequest {
        let invalid = DomainError(
            .invalid, DomainError.Code("invalid_request_uri"), "This sign-in request is unknown, was used already or has expired. Start again from the service.")
        guard requestURI.hasPrefix(Self.requestURIPrefix), let clientID else { throw invalid }
        let digest = Secrets.digest(String(requestURI.dropFirst(Self.requestURIPrefix.count)))
        let now = domain.epochNow()
        guard
            let pushed = try await domain.store.transaction({
                try await $0.takePushedRequest(digest: digest, clientID: ClientID(clientID), tenantID: tenant.id)
            }), pushed.expiresAt > now
        else { throw invalid }
        return AuthorizationRequest(parameters: pushed.parameters)
    }

    /// What a browser login's `acr_values` ask for.
    enum RequestedCombinations {
        /// None of this server's combinations: the values are voluntary, the service's policy applies.
        case noneOfOurs
        /// The named combinations the service's policy allows.
        case narrowed(AuthenticatorPolicy)
        /// This server's combinations, none of them allowed by the service's policy.
        case unmet
    }

    static func requestedCombinations(_ text: String, servicePolicy: AuthenticatorPolicy) -> RequestedCombinations {
        let prefix = Grants.acr(for: FactorCombination([]))
        let ours = text.split(separator: " ").filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        guard !ours.isEmpty else { return .noneOfOurs }
        var allowed: [FactorCombination] = []
        for text in ours {
            guard let alternatives = try? AuthenticatorPolicy(parsing: text).alternatives else { continue }
            allowed += alternatives.filter { servicePolicy.allows($0) && !allowed.contains($0) }
        }
        guard !allowed.isEmpty, let policy = try? AuthenticatorPolicy(allowed) else { return .unmet }
        return .narrowed(policy)
    }

    /// The login request a browser follows, if it holds the request's secret.
    public func request(id requestID: RequestID?, browserSecret: String?, tenant: TenantRecord) async throws -> AuthRequestRecord {
        guard let requestID, let record = try await domain.store.lookup({ try await $0.authRequest(id: requestID) }),
            record.tenantID == tenant.id
        else { throw DomainError.notFound("authentication request") }
        // Only browser logins have a browser; an account process is never completed here.
        guard record.purpose == AuthenticationPurpose.login, let browserDigest = record.browserDigest,
            record.serviceID != nil, record.redirectURI != nil
        else { throw DomainError.notFound("authentication request") }
        guard let browserSecret, Secrets.constantTimeEquals(Secrets.digest(browserSecret), browserDigest) else {
            throw DomainError(.forbidden, .accessDenied, "this browser did not start the sign-in request")
        }
        return record
    }

    /// A request's status as the page sees it: pending, claimed and approved requests past
    /// their expiry are expired (an approval is only good while its request lives: the
    /// browser that started it must complete it in time).
    public static func effectiveStatus(_ record: AuthRequestRecord, now: Int64) -> AuthenticationStatus {
        let status = record.status
        if (status == .pending || status == .claimed || status == .approved) && record.expiresAt <= now { return .expired }
        return status
    }

    /// The page's view of its request: status, and the lock of the device that took it up.
    public func status(requestID: RequestID) async throws -> LoginStatus {
        let now = domain.epochNow()
        return try await domain.store.read { tx in
            guard let record = try await tx.authRequest(id: requestID) else { throw DomainError.notFound("authentication request") }
            var lockedUntil: Int64?
            if let activationID = record.activationID, let activation = try await tx.activation(id: activationID) {
                lockedUntil = activation.lock(at: now)?.lockedUntil.map { Int64($0.timeIntervalSince1970) }
            }
            return LoginStatus(status: Self.effectiveStatus(record, now: now), lockedUntil: lockedUntil, expiresAt: record.expiresAt)
        }
    }

    /// How a login ends for the browser.
    public enum Completion: Sendable {
        /// Approved: the code goes back to the service with `state` and `iss` (RFC 9207).
        case code(redirectURI: String, code: String, state: String?)
        /// Denied, locked or expired: `access_denied` goes back to the service.
        case denied(redirectURI: String, description: String, state: String?)
        /// The device has not answered yet.
        case notFinished
        /// The code was issued already.
        case completedAlready
    }

    /// Completes an approved request once with its authorization code.
    public func complete(_ record: AuthRequestRecord) async throws -> Completion {
        let now = domain.epochNow()
        guard record.serviceID != nil, let redirectURI = record.redirectURI else { throw DomainError.notFound("authentication request") }
        switch Self.effectiveStatus(record, now: now) {
        case .approved:
            let code = try await domain.store.compoundWrite { tx in try await Grants.issueCode(for: record, tx: tx, now: now) }
            guard let code else { return .completedAlready }
            return .code(redirectURI: redirectURI, code: code, state: record.state)
        case .denied:
            return .denied(redirectURI: redirectURI, description: "the user declined the sign-in on the device", state: record.state)
        case .locked:
            return .denied(
                redirectURI: redirectURI, description: "the device is locked after too many failed attempts", state: record.state)
        case .expired:
            return .denied(redirectURI: redirectURI, description: "the sign-in request expired", state: record.state)
        case .pending, .claimed:
            return .notFinished
        case .completed:
            return .completedAlready
        }
    }
}

/// The login page's view of its request.
public struct LoginStatus: Codable, Sendable {
    public let status: AuthenticationStatus
    public let lockedUntil: Int64?
    public let expiresAt: Int64
    /// What the page passes back as `known` to wait for a change.
    public var key: String { status.rawValue + (lockedUntil.map { ":\($0)" } ?? "") }

    enum CodingKeys: String, CodingKey {
        case status
        case lockedUntil = "locked_until"
        case expiresAt = "expires_at"
    }
}

extension Domain {
    public var browserLogins: BrowserLogins { BrowserLogins(domain: self) }
}
