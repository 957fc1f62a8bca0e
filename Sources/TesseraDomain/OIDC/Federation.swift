import Crypto
import Foundation
import JWTKit
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// HTTP to other servers (external providers' discovery, keys and token endpoints), which
/// the edge supplies: nothing in the domain knows an HTTP client.
public protocol OutboundHTTP: Sendable {
    /// GET `url` (asking for JSON); the answer whatever its status. Throws only when there was none.
    func get(_ url: String) async throws -> OutboundResponse
    /// GET `url` asking for the media types `accept` names.
    func get(_ url: String, accept: String) async throws -> OutboundResponse
    /// POST `fields` as a form to `url` with `headers`; the answer whatever its status.
    func postForm(_ url: String, _ fields: [String: String], headers: [String: String]) async throws -> OutboundResponse
}

public struct OutboundResponse: Sendable {
    public let status: Int
    public let body: Data

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// Federation ("sign in with another provider", gematik's extAuth): a tenant lists
/// external OpenID providers, served as a directory like gematik's `kk_apps`. A browser
/// login may be completed at one of them: authorization code with PKCE and a nonce, the
/// ID token verified against the provider's JWKS, its `sub` linked to a Tessera user —
/// found by a configured claim (e.g. a verified e-mail address against an attribute), or
/// on a first login through an invitation the user brings. The login then counts as the
/// factor `federation` (amr `fed`), which a service's policy must list to accept it.
public struct Federation: Sendable {
    let domain: Domain
    let http: any OutboundHTTP

    /// How long a login at a provider may take, from the redirect to the callback.
    public static let loginLifetime: Int64 = 600
    public static let failed = DomainError.Code("federation_failed")
    public static let notLinked = DomainError.Code("not_linked")

    /// The part of a provider's discovery document Tessera uses.
    struct Metadata: Decodable {
        let issuer: String
        let authorizationEndpoint: String
        let tokenEndpoint: String
        let jwksURI: String

        enum CodingKeys: String, CodingKey {
            case issuer
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case jwksURI = "jwks_uri"
        }
    }


    /// Where providers send the browser back to: registered with each as Tessera's redirect URI.
    public static func redirectURI(issuer: String) -> String { "\(issuer)/authorize/federation/callback" }

    func redirectURI(tenant: TenantRecord) -> String { Self.redirectURI(issuer: domain.issuer(forTenantNamed: tenant.name)) }

    // MARK: Starting

    /// Where to send the browser, and the secret for its cookie: only the browser that
    /// holds it may finish what it started (no login or linking CSRF).
    public struct Started: Sendable {
        public let url: String
        public let browserSecret: String
    }

    /// Starts answering a pending browser login at `provider`.
    public func startLogin(_ request: AuthRequestRecord, provider name: String, tenant: TenantRecord) async throws -> Started {
        let now = domain.epochNow()
        guard BrowserLogins.effectiveStatus(request, now: now) == .pending else {
            throw DomainError.requestClaimed("the sign-in request was taken up by a device or has ended")
        }
        guard let serviceID = request.serviceID, let service = try await domain.service(id: serviceID),
            Self.allowsFederatedLogin(policy: request.acrPolicy ?? service.policy)
        else { throw DomainError(.forbidden, .accessDenied, "this service does not accept a sign-in at another provider") }
        return try await begin(provider: name, requestID: request.id, invitationID: nil, loginHint: request.loginHint, tenant: tenant, now: now)
    }

    /// Starts linking the user of an operator's invitation to their identity at
    /// `provider` (the first login there).
    public func startLinking(invitationCode: String, provider name: String, tenant: TenantRecord) async throws -> Started {
        let now = domain.epochNow()
        let (invitation, user) = try await domain.operatorInvitation(code: invitationCode, tenant: tenant, now: now)
        return try await begin(provider: name, requestID: nil, invitationID: invitation.id, loginHint: user.username, tenant: tenant, now: now)
    }

    /// Whether a policy accepts a login at an external provider alone (the alternative `federation`).
    public static func allowsFederatedLogin(policy: AuthenticatorPolicy) -> Bool {
        policy.allows(FactorCombination([.federation]))
    }

    private func begin(
        provider name: String, requestID: RequestID?, invitationID: String?, loginHint: String?, tenant: TenantRecord, now: Int64
    ) async throws -> Started {
        guard let provider = try await domain.store.read({ try await $0.identityProvider(tenantID: tenant.id, name: name) }) else {
            throw DomainError.notFound("identity provider '\(name.prefix(64))'")
        }
        let metadata = try await metadata(of: provider)
        let state = Secrets.randomToken()
        let nonce = Secrets.randomToken()
        let browserSecret = Secrets.randomToken()
        try await domain.store.transaction { tx in
            try await tx.insertFederationLogin(
                FederationLoginRecord(
                    stateDigest: Secrets.digest(state), tenantID: tenant.id, providerID: provider.id, requestID: requestID,
                    invitationID: invitationID, browserDigest: Secrets.digest(browserSecret), nonce: nonce, expiresAt: now + Self.loginLifetime))
        }
        var parameters: [(String, String)] = [
            ("response_type", "code"), ("client_id", provider.clientID), ("redirect_uri", redirectURI(tenant: tenant)),
            ("scope", provider.scope), ("state", state), ("nonce", nonce),
            ("code_challenge", PKCE.challenge(forVerifier: verifier(forState: state))), ("code_challenge_method", "S256"),
        ]
        // The hint names a Tessera user, which means something to the provider only when
        // users are linked by username.
        if let loginHint, provider.linkField == "username" { parameters.append(("login_hint", loginHint)) }
        let query = parameters.map { "\($0.0)=\(FormEncoding.component($0.1))" }.joined(separator: "&")
        let separator = metadata.authorizationEndpoint.contains("?") ? "&" : "?"
        return Started(url: metadata.authorizationEndpoint + separator + query, browserSecret: browserSecret)
    }

    /// The PKCE verifier of a login: derived from its state under a key of the master
    /// key's, so the store keeps nothing a reader could redeem a code with.
    func verifier(forState state: String) -> String {
        let key = domain.box.derivedKey(label: "tessera federation pkce")
        return Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(state.utf8), using: key)))
    }

    // MARK: Finishing

    public enum Outcome: Sendable {
        /// The browser login `requestID` is approved: complete it as after a device.
        case login(RequestID)
        /// The invitation's user is now linked to the identity at the provider.
        case linked(provider: String, username: String)
        /// An invitation's sign-in at the provider: nothing is linked until this browser
        /// confirms, on a page naming both accounts (`confirmLink`).
        case confirm(PendingLink)
    }

    /// A link waiting for the browser's confirmation: who is who, and what the page posts back.
    public struct PendingLink: Sendable {
        /// The provider's display name, and its account as a person reads it (e-mail
        /// address, user name or name, else the subject).
        public let provider: String
        public let identity: String
        /// The Tessera account the invitation is for.
        public let username: String
        /// The link's claims, sealed under the master key: the confirmation posts them back.
        public let sealed: String
        /// The confirmation form's token: bound to the browser's federation cookie.
        public let csrf: String
    }

    /// How long a confirmation page stays good.
    public static let confirmationLifetime: Int64 = 600

    /// What a pending link carries between the callback and the confirmation.
    struct SealedLink: Codable {
        let provider: String
        let subject: String
        let invitation: String
        /// The provider's claims that the provider's claim mapping reads, as text.
        let mapped: [String: String]
        let expires: Int64
        /// The digest of the federation cookie of the browser that signed in.
        let browser: String
    }

    /// The callback: takes the login `state` stands for (once), redeems the code at the
    /// provider with the PKCE verifier, verifies the ID token, finds or links the user
    /// and approves the login. Only the browser that started it may finish it: `binding`
    /// is its federation cookie, and `browserSecret` reads a login request's cookie.
    public func finish(
        state: String?, code: String?, error: String?, binding: String?, tenant: TenantRecord,
        browserSecret: @Sendable (RequestID) -> String?, logger: Logger
    ) async throws -> Outcome {
        guard let state, !state.isEmpty, state.utf8.count <= 512 else { throw DomainError.invalidRequest("the callback has no state") }
        let now = domain.epochNow()
        guard
            let login = try await domain.store.transaction({ tx in
                try await tx.takeFederationLogin(stateDigest: Secrets.digest(state), tenantID: tenant.id, now: now)
            })
        else { throw DomainError.invalidGrant("this sign-in at another provider is unknown, finished or expired: start again") }
        guard let binding, Secrets.constantTimeEquals(Secrets.digest(binding), login.browserDigest) else {
            throw DomainError(.forbidden, .accessDenied, "this sign-in at another provider was started in another browser: start again")
        }
        guard let provider = try await domain.store.read({ try await $0.identityProvider(id: login.providerID) }) else {
            throw DomainError.notFound("identity provider")
        }
        // A login request is finished only by the browser that started it (no login CSRF).
        var request: AuthRequestRecord?
        if let requestID = login.requestID {
            request = try await domain.browserLogins.request(id: requestID, browserSecret: browserSecret(requestID), tenant: tenant)
        }
        if let error {
            throw DomainError(.forbidden, .accessDenied, "\(provider.displayName) did not sign you in (\(error.prefix(64)))")
        }
        guard let code, !code.isEmpty, code.utf8.count <= 2048 else { throw DomainError.invalidRequest("the callback has no code") }
        let claims = try await identity(code: code, state: state, nonce: login.nonce, provider: provider, tenant: tenant, now: now)
        if let invitationID = login.invitationID {
            return .confirm(try await pendingLink(invitationID: invitationID, provider: provider, claims: claims, binding: binding, tenant: tenant, now: now))
        }
        return try await settle(provider: provider, claims: claims, invitationID: nil, request: request, tenant: tenant, now: now, logger: logger)
    }

    /// Checks that the invitation's account may take the identity (the invitation good, the
    /// identity nobody else's, the account without another identity there), and seals
    /// what the confirmation needs. Writes nothing.
    func pendingLink(invitationID: String, provider: IdentityProviderRecord, claims: Claims, binding: String, tenant: TenantRecord, now: Int64)
        async throws -> PendingLink
    {
        let user: UserRecord = try await domain.store.read { tx in
            guard let invitation = try await tx.invitation(id: invitationID), invitation.tenantID == tenant.id, invitation.usedAt == nil,
                invitation.expiresAt > now, let user = try await tx.user(id: invitation.userID), user.disabledAt == nil
            else { throw DomainError.invalidGrant("the invitation was used already or has expired") }
            let link = try await tx.federatedIdentity(providerID: provider.id, subject: claims.subject)
            try await Self.checkLinkable(link, user: user, provider: provider, tx: tx)
            return user
        }
        let mapped = provider.claimMapping.keys.reduce(into: [String: String]()) { mapped, claim in mapped[claim] = claims.text(claim) }
        let link = SealedLink(
            provider: provider.id, subject: claims.subject, invitation: invitationID, mapped: mapped, expires: now + Self.confirmationLifetime,
            browser: Secrets.digest(binding))
        let sealed = try domain.box.seal(try JSONEncoder().encode(link), context: Self.linkContext(tenant))
        let identity = ["email", "preferred_username", "name"].lazy.compactMap { claims.text($0) }.first { !$0.isEmpty } ?? claims.subject
        return PendingLink(
            provider: provider.displayName, identity: String(identity.prefix(200)), username: user.username, sealed: sealed,
            csrf: confirmationToken(binding: binding))
    }

    static func linkContext(_ tenant: TenantRecord) -> String { "federation-link:\(tenant.id)" }

    /// The confirmation form's token: an HMAC of the browser's federation cookie, so that
    /// a page elsewhere can neither read nor make it.
    func confirmationToken(binding: String) -> String {
        let key = domain.box.derivedKey(label: "tessera federation link confirmation")
        return Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(binding.utf8), using: key)))
    }

    /// 409 when the identity (its `link`, if any) is another account's, or, unlinked, when
    /// the account has another identity at this provider.
    static func checkLinkable(_ link: FederatedIdentityRecord?, user: UserRecord, provider: IdentityProviderRecord, tx: StoreTransaction) async throws {
        if let link {
            guard link.userID == user.id else {
                throw DomainError(.conflict, notLinked, "your identity at \(provider.displayName) is linked to another account already")
            }
            return
        }
        if try await tx.federatedIdentities(userID: user.id).contains(where: { $0.providerID == provider.id }) {
            throw DomainError(.conflict, notLinked, "this account is linked to another identity at \(provider.displayName)")
        }
    }

    /// The confirmation of a pending link, posted from its page by the browser that signed
    /// in at the provider: links the identity and spends the invitation.
    public func confirmLink(sealed: String?, csrf: String?, binding: String?, tenant: TenantRecord, logger: Logger) async throws -> Outcome {
        let now = domain.epochNow()
        guard let sealed, sealed.utf8.count <= 8192, let opened = try? domain.box.open(sealed, context: Self.linkContext(tenant)),
            let link = try? JSONDecoder().decode(SealedLink.self, from: opened)
        else { throw DomainError.invalidRequest("the confirmation is not one this server made: start again from the invitation") }
        guard link.expires > now else { throw DomainError.invalidGrant("the confirmation has expired: start again from the invitation") }
        guard let binding, Secrets.constantTimeEquals(Secrets.digest(binding), link.browser), let csrf,
            Secrets.constantTimeEquals(csrf, confirmationToken(binding: binding))
        else { throw DomainError(.forbidden, .accessDenied, "this confirmation was not made in this browser: start again from the invitation") }
        guard let provider = try await domain.store.read({ try await $0.identityProvider(id: link.provider) }), provider.tenantID == tenant.id else {
            throw DomainError.notFound("identity provider")
        }
        return try await settle(
            provider: provider, claims: Claims(subject: link.subject, all: link.mapped), invitationID: link.invitation, request: nil, tenant: tenant,
            now: now, logger: logger)
    }

    /// Writes what a verified identity at the provider means: for an invitation, the link
    /// (the invitation spent); for a login request, the user found by the link or the
    /// link claim, and the request approved.
    private func settle(
        provider: IdentityProviderRecord, claims: Claims, invitationID: String?, request: AuthRequestRecord?, tenant: TenantRecord, now: Int64,
        logger: Logger
    ) async throws -> Outcome {
        enum Result {
            case approved
            case linked(UserRecord)
        }
        // A refusal throws, so that nothing of it stays (an invitation it would have spent).
        let result: Result
        do {
            result = try await domain.store.transaction { tx in
                var user: UserRecord?
                var linkedNow = false
                let link = try await tx.federatedIdentity(providerID: provider.id, subject: claims.subject)
                if let invitationID {
                    guard let invitation = try await tx.invitation(id: invitationID), try await tx.consumeInvitation(id: invitationID, now: now)
                    else { throw DomainError.invalidGrant("the invitation was used already or has expired") }
                    user = try await tx.user(id: invitation.userID)
                    if let user { try await Self.checkLinkable(link, user: user, provider: provider, tx: tx) }
                    linkedNow = user != nil && link == nil
                } else if let link {
                    user = try await tx.user(id: link.userID)
                }
                if user == nil, invitationID == nil, let claim = provider.linkClaim, let field = provider.linkField,
                    let value = claims.linkValue(claim)
                {
                    let found =
                        field == "username"
                        ? (try await tx.user(tenantID: tenant.id, username: value)).map { [$0] } ?? []
                        : try await tx.users(tenantID: tenant.id, filter: UserFilter(attribute: (field, value)), limit: 2)
                    if found.count == 1 {
                        user = found[0]
                        linkedNow = true
                    } else if found.count > 1 {
                        throw DomainError(.forbidden, Self.notLinked, "several accounts match this identity: ask for an invitation")
                    }
                }
                guard var user, user.tenantID == tenant.id else {
                    throw DomainError(
                        .forbidden, Self.notLinked,
                        "no account here is linked to your identity at \(provider.displayName): sign in with an invitation first")
                }
                guard user.disabledAt == nil else { throw DomainError(.forbidden, .accessDenied, "the user is disabled") }
                if linkedNow {
                    // Found by the link claim: the account may have another identity there. (An
                    // invitation's account was checked above.)
                    if invitationID == nil { try await Self.checkLinkable(link, user: user, provider: provider, tx: tx) }
                    try await tx.insertFederatedIdentity(
                        FederatedIdentityRecord(
                            providerID: provider.id, subject: claims.subject, tenantID: tenant.id, userID: user.id, createdAt: now, lastLoginAt: now))
                    try await Audit.record(
                        tx, tenantID: tenant.id, actor: .user(user.id), action: .federationLink, target: user.id.rawValue,
                        details: ["provider": provider.name, "by": invitationID == nil ? "claim" : "invitation"], at: now)
                } else {
                    try await tx.recordFederatedLogin(providerID: provider.id, subject: claims.subject, at: now)
                }
                // Mapped claims keep the user's attributes as the provider knows them.
                // Within the limits an operator's edit has: up to 64 attributes of up to 1024 characters.
                var attributes = user.attributes
                for (claim, attribute) in provider.claimMapping.sorted(by: { $0.key < $1.key }) {
                    guard let value = claims.text(claim), value.count <= 1024, attributes[attribute] != nil || attributes.count < 64 else { continue }
                    attributes[attribute] = value
                }
                if attributes != user.attributes {
                    try await tx.updateUserAttributes(id: user.id, attributes: attributes)
                    user.attributes = attributes
                }
                guard let request else { return .linked(user) }
                if let hint = request.loginHint, hint != user.username {
                    throw DomainError(.forbidden, .accessDenied, "this sign-in request is for another user")
                }
                let service = try await request.serviceID.asyncMap { try await domain.service(id: $0, in: tx) } ?? nil
                guard
                    try await tx.approveAuthRequest(
                        id: request.id, userID: user.id, securityKeyID: nil, factors: [.federation],
                        confirmedAttributes: service.map { ScopeClaims.requestedAttributes(of: $0, scope: request.scope) } ?? [], authTime: now)
                else { throw DomainError.requestClaimed("the sign-in request was taken up by a device or has ended") }
                return .approved
            }
        } catch let error as DomainError {
            logger.info("federated sign-in refused", metadata: ["tenant": "\(tenant.name)", "provider": "\(provider.name)"])
            throw error
        } catch let error as StoreError where error.code == .conflict {
            // The same identity (or user) was linked by another callback at the same moment.
            throw DomainError(.conflict, Self.notLinked, "this identity was linked at the same moment elsewhere: sign in again")
        }
        switch (result, request) {
        case (.linked(let user), _):
            logger.info("federated identity linked", metadata: ["tenant": "\(tenant.name)", "provider": "\(provider.name)"])
            return .linked(provider: provider.displayName, username: user.username)
        case (.approved, var approved?):
            logger.info("federated sign-in", metadata: ["tenant": "\(tenant.name)", "provider": "\(provider.name)"])
            let service = try await approved.serviceID.asyncMap { try await domain.service(id: $0) } ?? nil
            approved.status = .approved
            await domain.announce(RequestNotice(approved, service: service, answered: true), logger: logger)
            return .login(approved.id)
        case (.approved, nil):
            throw DomainError(.internal, .serverError, "a sign-in approved without its request")
        }
    }

    /// The claims of a verified ID token, as JSON values.
    struct Claims {
        let subject: String
        let all: [String: Any]

        func text(_ name: String) -> String? {
            switch all[name] {
            case let text as String: text
            case let number as NSNumber: number.stringValue
            default: nil
            }
        }

        /// The claim that links an account: an e-mail address only when the provider says
        /// it is verified (anyone may type an address into an account elsewhere).
        func linkValue(_ name: String) -> String? {
            guard let value = text(name), !value.isEmpty else { return nil }
            if name == "email" { return (all["email_verified"] as? Bool) == true || text("email_verified") == "true" ? value : nil }
            return value
        }
    }

    struct IDTokenClaims: JWTPayload {
        let iss: String
        let sub: String
        let aud: AudienceClaim
        let exp: ExpirationClaim
        let iat: IssuedAtClaim
        let nonce: String?
        let azp: String?

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
        }
    }

    /// Redeems the code at the provider and verifies its ID token (signature by a key of
    /// its JWKS, issuer, audience, expiry, nonce).
    private func identity(code: String, state: String, nonce: String, provider: IdentityProviderRecord, tenant: TenantRecord, now: Int64)
        async throws -> Claims
    {
        let metadata = try await metadata(of: provider)
        var fields = [
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI(tenant: tenant),
            "code_verifier": verifier(forState: state),
        ]
        var headers: [String: String] = ["Accept": "application/json"]
        if let sealed = provider.sealedClientSecret {
            let secret = String(decoding: try domain.box.open(sealed, context: SealingContext.identityProviderSecret(id: provider.id)), as: UTF8.self)
            // RFC 6749 §2.3.1: both form-encoded, then Basic.
            let credentials = "\(FormEncoding.component(provider.clientID)):\(FormEncoding.component(secret))"
            headers["Authorization"] = "Basic " + Data(credentials.utf8).base64EncodedString()
        } else {
            fields["client_id"] = provider.clientID
        }
        let answer = try await Self.fetch { try await http.postForm(metadata.tokenEndpoint, fields, headers: headers) }
        guard answer.status == 200,
            let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
            let idToken = object["id_token"] as? String
        else { throw DomainError(.upstream, Self.failed, "\(provider.displayName) did not redeem the sign-in's code") }
        let keysAnswer = try await Self.fetch { try await http.get(metadata.jwksURI) }
        guard keysAnswer.status == 200, let set = try? JSONSerialization.jsonObject(with: keysAnswer.body) as? [String: Any],
            let entries = set["keys"] as? [[String: Any]]
        else { throw DomainError(.upstream, Self.failed, "the keys of \(provider.displayName) could not be read") }
        // Each signing key on its own: one the library cannot take (no kid, another type)
        // must not shut out the provider's users; an encryption key (`use` enc) verifies nothing.
        let keys = JWTKeyCollection()
        let signing = entries.filter { $0["use"] as? String != "enc" }
        for entry in signing {
            guard let data = try? JSONSerialization.data(withJSONObject: entry), let jwk = try? JSONDecoder().decode(JWK.self, from: data)
            else { continue }
            _ = try? await keys.add(jwk: jwk, isDefault: signing.count == 1 ? true : nil)
        }
        let claims: IDTokenClaims
        do {
            claims = try await keys.verify(idToken, as: IDTokenClaims.self)
        } catch {
            throw DomainError(.forbidden, Self.failed, "the ID token of \(provider.displayName) did not verify with its keys")
        }
        guard claims.iss == metadata.issuer, claims.aud.value.contains(provider.clientID),
            claims.aud.value.count == 1 || claims.azp == provider.clientID,
            let tokenNonce = claims.nonce, Secrets.constantTimeEquals(tokenNonce, nonce),
            Int64(claims.iat.value.timeIntervalSince1970) <= now + 300
        else { throw DomainError(.forbidden, Self.failed, "the ID token of \(provider.displayName) is not this sign-in's") }
        // The payload as JSON, for the claims Tessera maps (verified above).
        let parts = idToken.split(separator: ".")
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
            let all = try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { throw DomainError(.forbidden, Self.failed, "the ID token's payload is not JSON") }
        return Claims(subject: claims.sub, all: all)
    }

    /// The provider's discovery document, whose issuer must be the URL it came from
    /// without `/.well-known/openid-configuration` (OpenID Discovery §4.3).
    func metadata(of provider: IdentityProviderRecord) async throws -> Metadata {
        try await Self.metadata(
            discoveryURL: provider.discoveryURL, name: provider.displayName, allowLoopbackHTTP: domain.allowsLoopbackProviders,
            allowsPrivate: domain.settings.allowsPrivateOutbound, http: http)
    }

    /// The document, whose endpoints must use its own URL's scheme: HTTPS, or plain HTTP
    /// to this machine where the server itself is not on HTTPS (a development or test setup);
    /// and the server's own calls (token, keys) go to no loopback, private or link-local
    /// address unless `allowsPrivate`. A failure does not say what the address answered:
    /// a tenant admin learns nothing of what else listens there.
    static func metadata(discoveryURL: String, name: String, allowLoopbackHTTP: Bool, allowsPrivate: Bool, http: any OutboundHTTP)
        async throws -> Metadata
    {
        let answer = try await Self.fetch { try await http.get(discoveryURL) }
        guard answer.status == 200, let metadata = try? JSONDecoder().decode(Metadata.self, from: answer.body) else {
            throw DomainError(.upstream, Self.failed, "the discovery document of \(name) could not be read")
        }
        let suffix = "/.well-known/openid-configuration"
        guard discoveryURL.hasSuffix(suffix), String(discoveryURL.dropLast(suffix.count)) == metadata.issuer else {
            throw DomainError(.upstream, Self.failed, "the discovery document of \(name) names another issuer (\(metadata.issuer.prefix(200)))")
        }
        let scheme = URL(string: discoveryURL)?.scheme
        for endpoint in [metadata.authorizationEndpoint, metadata.tokenEndpoint, metadata.jwksURI]
        where !Self.isAcceptableURL(endpoint, allowLoopbackHTTP: allowLoopbackHTTP) || URL(string: endpoint)?.scheme != scheme {
            throw DomainError(.upstream, Self.failed, "the discovery document of \(name) names an endpoint that is not HTTPS")
        }
        for endpoint in [metadata.tokenEndpoint, metadata.jwksURI] {
            if let refusal = OutboundTargets.refusal(endpoint, allowsPrivate: allowsPrivate) {
                throw DomainError(.upstream, Self.failed, "the discovery document of \(name) names an endpoint that is refused: \(refusal)")
            }
        }
        return metadata
    }

    private static func fetch(_ call: () async throws -> OutboundResponse) async throws -> OutboundResponse {
        do {
            return try await call()
        } catch let error as DomainError {
            throw error
        } catch {
            throw DomainError(.upstream, Self.failed, "the provider could not be reached")
        }
    }

    /// HTTPS; with `allowLoopbackHTTP`, also plain HTTP to this machine (a provider on the
    /// loopback, as in development and tests).
    static func isAcceptableURL(_ text: String, allowLoopbackHTTP: Bool) -> Bool {
        guard let url = URL(string: text), let host = url.host, !host.isEmpty, url.user == nil, url.fragment == nil else { return false }
        switch url.scheme {
        case "https": return true
        case "http": return allowLoopbackHTTP && (host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]")
        default: return false
        }
    }
}

extension Domain {
    /// Providers on this machine over plain HTTP are for a server that is not on HTTPS
    /// itself (development, tests); a server on HTTPS talks HTTPS to providers.
    var allowsLoopbackProviders: Bool { settings.publicURL.hasPrefix("http://") }

    /// Federation, fetching from providers with `http`.
    public func federation(_ http: any OutboundHTTP) -> Federation { Federation(domain: self, http: http) }

    /// The tenant's external providers as a directory (`GET {issuer}/directory/kk_apps`, the login page's links).
    public func identityProviderDirectory(tenant: TenantRecord) async throws -> [KKApp] {
        try await store.read { try await $0.identityProviders(tenantID: tenant.id) }
            .map { KKApp(id: $0.name, name: $0.displayName, logoURI: $0.logoURI) }
    }
}

// MARK: Administration

extension Administration {
    /// A provider's record as `input` describes it (its secret sealed), or why it is not
    /// valid: adding one and a configuration document's providers go through here.
    func identityProviderRecord(
        _ input: Components.Schemas.CreateIdentityProvider, tenant: TenantRecord, id: String, createdAt: Int64
    ) throws -> IdentityProviderRecord {
        guard Validation.isTenantName(input.name) else {
            throw DomainError.invalidRequest("name is 1 to 63 lower-case letters, digits and hyphens")
        }
        func text(_ value: String?, _ field: String, maximum: Int = 256) throws -> String? {
            guard let value else { return nil }
            guard !value.isEmpty, value.utf8.count <= maximum, !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw DomainError.invalidRequest("\(field) is 1 to \(maximum) characters") }
            return value
        }
        let displayName = try text(input.displayName, "display_name", maximum: 100)!
        let clientID = try text(input.clientId, "client_id")!
        let secret = try text(input.clientSecret, "client_secret", maximum: 1024)
        let scope = try text(input.scope, "scope", maximum: 512) ?? "openid email profile"
        guard scope.split(separator: " ").contains("openid") else { throw DomainError.invalidRequest("scope must include openid") }
        let loopback = domain.allowsLoopbackProviders
        if let logo = input.logoUri, !Federation.isAcceptableURL(logo, allowLoopbackHTTP: loopback) || logo.utf8.count > 1024 {
            throw DomainError.invalidRequest("logo_uri is an HTTPS URL")
        }
        guard Federation.isAcceptableURL(input.discoveryUrl, allowLoopbackHTTP: loopback), input.discoveryUrl.utf8.count <= 1024 else {
            throw DomainError.invalidRequest("discovery_url is an HTTPS URL (HTTP on the loopback only where this server is not on HTTPS)")
        }
        if let refusal = OutboundTargets.refusal(input.discoveryUrl, allowsPrivate: domain.settings.allowsPrivateOutbound) {
            throw DomainError.invalidRequest("discovery_url is refused: \(refusal)")
        }
        let linkClaim = try text(input.linkClaim, "link_claim", maximum: 64)
        let linkField = try text(input.linkField, "link_field", maximum: 64)
        guard (linkClaim == nil) == (linkField == nil) else {
            throw DomainError.invalidRequest("link_claim and link_field go together: the claim is compared with the user's username or attribute")
        }
        let mapping = input.claimMapping?.additionalProperties ?? [:]
        guard mapping.count <= 32, mapping.allSatisfy({ !$0.key.isEmpty && $0.key.count <= 64 && Validation.isAttributeName($0.value) })
        else { throw DomainError.invalidRequest("claim_mapping maps at most 32 claims to attribute names (lower-case identifiers)") }
        return IdentityProviderRecord(
            id: id, tenantID: tenant.id, name: input.name, displayName: displayName, logoURI: input.logoUri,
            discoveryURL: input.discoveryUrl, clientID: clientID,
            sealedClientSecret: try secret.map { try domain.box.seal(Data($0.utf8), context: SealingContext.identityProviderSecret(id: id)) },
            scope: scope, linkClaim: linkClaim, linkField: linkField, claimMapping: mapping, createdAt: createdAt)
    }

    /// The provider's discovery document, read now (so a wrong URL is found at once, not at a user's login).
    func discover(_ provider: IdentityProviderRecord, http: any OutboundHTTP) async throws -> Federation.Metadata {
        try await Federation.metadata(
            discoveryURL: provider.discoveryURL, name: provider.displayName, allowLoopbackHTTP: domain.allowsLoopbackProviders,
            allowsPrivate: domain.settings.allowsPrivateOutbound, http: http)
    }

    /// Adds a provider after reading its discovery document (so a wrong URL is found now,
    /// not at a user's login).
    package func addIdentityProvider(
        _ input: Components.Schemas.CreateIdentityProvider, tenant: TenantRecord, http: any OutboundHTTP, logger: Logger
    ) async throws -> Components.Schemas.IdentityProvider {
        let now = domain.epochNow()
        let record = try identityProviderRecord(input, tenant: tenant, id: Secrets.identifier(byteCount: 12), createdAt: now)
        let metadata = try await discover(record, http: http)
        try await domain.store.transaction { tx in
            do {
                try await tx.insertIdentityProvider(record)
            } catch let error as StoreError where error.code == .conflict {
                throw DomainError(.conflict, .conflict, "identity provider '\(input.name)' exists")
            }
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .identityProviderCreate, target: input.name,
                details: ["issuer": metadata.issuer], at: now)
        }
        logger.info("identity provider added", metadata: ["tenant": "\(tenant.name)", "provider": "\(input.name)"])
        return Components.Schemas.IdentityProvider(record, issuer: metadata.issuer, redirectURI: federationRedirectURI(tenant))
    }

    package func identityProviders(tenant: TenantRecord) async throws -> [Components.Schemas.IdentityProvider] {
        let redirectURI = federationRedirectURI(tenant)
        return try await domain.store.read { try await $0.identityProviders(tenantID: tenant.id) }
            .map { Components.Schemas.IdentityProvider($0, issuer: nil, redirectURI: redirectURI) }
    }

    /// Where every provider of the tenant sends its users back.
    private func federationRedirectURI(_ tenant: TenantRecord) -> String {
        Federation.redirectURI(issuer: domain.issuer(forTenantNamed: tenant.name))
    }

    /// Removes a provider and its users' links to it.
    public func removeIdentityProvider(name: String, tenant: TenantRecord, logger: Logger) async throws {
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            guard let provider = try await tx.identityProvider(tenantID: tenant.id, name: name),
                try await tx.deleteIdentityProvider(id: provider.id)
            else { throw DomainError.notFound("identity provider '\(name.prefix(64))'") }
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .identityProviderRemove, target: name, details: [:], at: now)
        }
        logger.info("identity provider removed", metadata: ["tenant": "\(tenant.name)", "provider": "\(name)"])
    }
}

extension Components.Schemas.IdentityProvider {
    /// A provider as the admin API shows it: never its client secret. The provider's issuer
    /// only in the answer that added it (read from its discovery document then).
    init(_ provider: IdentityProviderRecord, issuer: String?, redirectURI: String) {
        self.init(
            name: provider.name, displayName: provider.displayName, logoUri: provider.logoURI, discoveryUrl: provider.discoveryURL,
            issuer: issuer, clientId: provider.clientID, confidential: provider.sealedClientSecret != nil, scope: provider.scope,
            linkClaim: provider.linkClaim, linkField: provider.linkField, claimMapping: .init(additionalProperties: provider.claimMapping),
            redirectUri: redirectURI, createdAt: Double(provider.createdAt))
    }
}
