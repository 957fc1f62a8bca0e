import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraRecords
import TesseraStore
import TesseraTestSupport
import Testing

/// CIBA, token revocation and introspection, and logout straight on the domain: the use
/// cases' decisions on a clock the test moves, without HTTP (the end-to-end suites keep
/// what needs sockets: pings, outside clients, browsers).
@Suite("Domain: CIBA, token lifecycle, logout, DPoP and dynamic registration")
struct OAuthFlowTests {
    /// A second confidential service of the tenant, made from the admin API's JSON.
    static func service(_ json: String, harness: Harness, tenant: TenantRecord) async throws -> ServiceRecord {
        let input = try JSONDecoder().decode(Components.Schemas.CreateService.self, from: Data(json.utf8))
        let created = try await harness.domain.administration().createService(input, tenant: tenant, logger: harness.logger)
        return try await harness.domain.authenticateClient(clientID: created.clientId, secret: created.clientSecret, tenant: tenant)
    }

    static func ciba(_ fields: [String: String]) -> BackchannelAuthenticationRequest {
        BackchannelAuthenticationRequest(parameters: fields)
    }

    @Test("CIBA in poll mode: pending, slow_down for a poll too soon (the interval grows), the tokens once approved, then never again")
    func cibaPoll() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let (tenant, _, _) = try await harness.tenant()
        var phone = Phone()
        try await phone.activate(code: try await harness.invitationCode(tenant), harness: harness, tenant: tenant)
        let service = try await Self.service(
            #"{"name":"Bank","redirect_uris":["https://bank.example/cb"],"policy":"device+pin","backchannel_token_delivery_mode":"poll","number_matching":false}"#,
            harness: harness, tenant: tenant)
        let backchannel = harness.domain.backchannel

        let started = try await backchannel.authenticate(
            Self.ciba(["scope": "openid", "login_hint": "alice", "binding_message": "Pay 12 EUR"]), client: service, tenant: tenant,
            logger: harness.logger)
        #expect(started.interval == 5 && started.expiresIn == 300)
        #expect(harness.notices.keys.contains("user:\(try #require(try await harness.store.read { try await $0.user(tenantID: tenant.id, username: "alice") }).id)"),
            "the user's devices hear of the request")
        let pending = await #expect(throws: DomainError.self) {
            _ = try await backchannel.redeem(authReqID: started.authReqID.rawValue, client: service, tenant: tenant)
        }
        #expect(pending?.code == .authorizationPending)
        harness.clock.advance(by: 2)
        let tooSoon = await #expect(throws: DomainError.self) {
            _ = try await backchannel.redeem(authReqID: started.authReqID.rawValue, client: service, tenant: tenant)
        }
        #expect(tooSoon?.code == .slowDown)
        #expect(tooSoon?.message.contains("10 seconds") == true, "the interval grows by five seconds: \(tooSoon?.message ?? "")")

        let approved = try await phone.login(started.authReqID, harness: harness, tenant: tenant)
        #expect(approved.response.result == .userLogin)
        harness.clock.advance(by: 11)
        let tokens = try await backchannel.redeem(authReqID: started.authReqID.rawValue, client: service, tenant: tenant)
        #expect(try await harness.domain.grants.userInfo(accessToken: tokens.accessToken, tenant: tenant)["sub"] != nil)
        let again = await #expect(throws: DomainError.self) {
            _ = try await backchannel.redeem(authReqID: started.authReqID.rawValue, client: service, tenant: tenant)
        }
        #expect(again?.code == .invalidGrant)
    }

    @Test("CIBA refusals: an unknown, a disabled and an unhinted user alike; a request past its expiry; a sixth open request of one service")
    func cibaRefusals() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let (tenant, plain, _) = try await harness.tenant()
        var phone = Phone()
        try await phone.activate(code: try await harness.invitationCode(tenant), harness: harness, tenant: tenant)
        let service = try await Self.service(
            #"{"name":"Bank","redirect_uris":["https://bank.example/cb"],"policy":"device+pin","backchannel_token_delivery_mode":"poll"}"#,
            harness: harness, tenant: tenant)
        let backchannel = harness.domain.backchannel
        func ask(_ fields: [String: String], as client: ServiceRecord? = nil) async throws -> BackchannelAuthenticationResponse {
            try await backchannel.authenticate(Self.ciba(fields), client: client ?? service, tenant: tenant, logger: harness.logger)
        }

        let notRegistered = await #expect(throws: DomainError.self) { _ = try await ask(["scope": "openid", "login_hint": "alice"], as: plain) }
        #expect(notRegistered?.code == .unauthorizedClient)
        let unknown = await #expect(throws: DomainError.self) { _ = try await ask(["scope": "openid", "login_hint": "mallory"]) }
        #expect(unknown?.code == .unknownUserID)
        let input = try JSONDecoder().decode(Components.Schemas.CreateUser.self, from: Data(#"{"username":"bob"}"#.utf8))
        _ = try await harness.domain.administration().createUser(input, tenant: tenant, logger: harness.logger)
        let noDevice = await #expect(throws: DomainError.self) { _ = try await ask(["scope": "openid", "login_hint": "bob"]) }
        #expect(noDevice == unknown, "a user without a device is answered as an unknown one")
        let noOpenID = await #expect(throws: DomainError.self) { _ = try await ask(["scope": "email", "login_hint": "alice"]) }
        #expect(noOpenID?.code == .invalidScope)
        let twoHints = await #expect(throws: DomainError.self) {
            _ = try await ask(["scope": "openid", "login_hint": "alice", "id_token_hint": "x.y.z"])
        }
        #expect(twoHints?.code == .invalidRequest)
        let hidden = await #expect(throws: DomainError.self) {
            _ = try await ask(["scope": "openid", "login_hint": "alice", "binding_message": "Pay\u{202E}21 EUR"])
        }
        #expect(hidden?.code.rawValue == "invalid_binding_message")

        let short = try await ask(["scope": "openid", "login_hint": "alice", "requested_expiry": "30"])
        #expect(short.expiresIn == 30)
        harness.clock.advance(by: 31)
        let expired = await #expect(throws: DomainError.self) {
            _ = try await backchannel.redeem(authReqID: short.authReqID.rawValue, client: service, tenant: tenant)
        }
        #expect(expired?.code == .expiredToken)

        for _ in 0..<Backchannel.maximumOpenPerService { _ = try await ask(["scope": "openid", "login_hint": "alice"]) }
        let flooding = await #expect(throws: DomainError.self) { _ = try await ask(["scope": "openid", "login_hint": "alice"]) }
        #expect(flooding?.code == .accessDenied)
        let stranger = await #expect(throws: DomainError.self) {
            _ = try await backchannel.redeem(authReqID: short.authReqID.rawValue, client: plain, tenant: tenant)
        }
        #expect(stranger?.code == .unauthorizedClient)
    }

    @Test("revocation ends the whole session; introspection describes only a live token of the asking client")
    func revokeAndIntrospect() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let (tenant, service, _) = try await harness.tenant()
        let other = try await Self.service(
            #"{"name":"Other","redirect_uris":["https://other.example/cb"],"policy":"device+pin"}"#, harness: harness, tenant: tenant)
        let tokens = try await harness.redeem(try await harness.approvedCode(service, tenant: tenant), service, tenant: tenant)
        let lifecycle = harness.domain.tokenLifecycle

        let access = try await lifecycle.introspect(tokens.accessToken, client: service, tenant: tenant)
        #expect(access.active && access.tokenType == "Bearer" && access.clientID == service.clientID.rawValue)
        let refresh = try await lifecycle.introspect(tokens.refreshToken, client: service, tenant: tenant)
        #expect(refresh.active && refresh.tokenType == "refresh_token")
        #expect(try await lifecycle.introspect(tokens.accessToken, client: other, tenant: tenant).active == false, "another client's token")
        #expect(try await lifecycle.introspect("not-a-token", client: service, tenant: tenant).active == false)

        // Another client's revocation is answered like an unknown token's, and changes nothing.
        try await lifecycle.revoke(tokens.refreshToken, client: other, tenant: tenant, logger: harness.logger)
        #expect(try await lifecycle.introspect(tokens.refreshToken, client: service, tenant: tenant).active)

        try await lifecycle.revoke(tokens.accessToken, client: service, tenant: tenant, logger: harness.logger)
        #expect(try await lifecycle.introspect(tokens.accessToken, client: service, tenant: tenant).active == false)
        #expect(try await lifecycle.introspect(tokens.refreshToken, client: service, tenant: tenant).active == false, "the session went with it")
        let refused = await #expect(throws: DomainError.self) {
            _ = try await harness.domain.grants.refresh(try #require(tokens.refreshToken), scope: nil, client: service, tenant: tenant)
        }
        #expect(refused?.code == .invalidGrant)
        await #expect(throws: DomainError.invalidRequest("token is missing")) {
            try await lifecycle.revoke(nil, client: service, tenant: tenant, logger: harness.logger)
        }
    }

    @Test("logout by ID token: the session ends once, the service hears of it by a signed logout token, and redirects go only where registered")
    func logout() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let (tenant, _, _) = try await harness.tenant()
        let service = try await Self.service(
            #"{"name":"Shop2","redirect_uris":["https://shop.example/cb"],"policy":"device+pin","post_logout_redirect_uris":["https://shop.example/bye"],"backchannel_logout_uri":"https://shop.example/backchannel-logout","number_matching":false}"#,
            harness: harness, tenant: tenant)
        let tokens = try await harness.redeem(try await harness.approvedCode(service, tenant: tenant), service, tenant: tenant)
        let logout = harness.domain.logout

        let elsewhere = await #expect(throws: DomainError.self) {
            _ = try await logout.endSession(
                Logout.Request(["id_token_hint": tokens.idToken, "post_logout_redirect_uri": "https://evil.example/"]), tenant: tenant,
                logger: harness.logger)
        }
        #expect(elsewhere?.code == .invalidRequest)
        #expect(try await harness.domain.grants.userInfo(accessToken: tokens.accessToken, tenant: tenant)["sub"] != nil, "a refused logout ends nothing")
        let noHint = await #expect(throws: DomainError.self) {
            _ = try await logout.endSession(Logout.Request(["post_logout_redirect_uri": "https://shop.example/bye"]), tenant: tenant, logger: harness.logger)
        }
        #expect(noHint?.code == .invalidRequest)

        let ended = try await logout.endSession(
            Logout.Request(["id_token_hint": tokens.idToken, "post_logout_redirect_uri": "https://shop.example/bye", "state": "s1"]), tenant: tenant,
            logger: harness.logger)
        #expect(ended.ended && ended.signedOut && ended.redirectURI == "https://shop.example/bye" && ended.state == "s1")
        await #expect(throws: DomainError.invalidToken("the access token is not valid")) {
            _ = try await harness.domain.grants.userInfo(accessToken: tokens.accessToken, tenant: tenant)
        }
        let twice = try await logout.endSession(Logout.Request(["id_token_hint": tokens.idToken]), tenant: tenant, logger: harness.logger)
        #expect(!twice.ended && twice.signedOut, "the second logout finds the session ended")

        let due = try await logout.takeDue()
        let delivery = try #require(due.first)
        #expect(due.count == 1 && delivery.uri == "https://shop.example/backchannel-logout" && delivery.clientID == service.clientID.rawValue)
        let claims = try await harness.domain.tokenIssuer(for: tenant).verify(delivery.logoutToken, as: LogoutTokenClaims.self)
        #expect(claims.aud == service.clientID.rawValue)
        #expect(try await logout.takeDue().isEmpty, "a notice taken is leased to this node")
        try await logout.delivered(noticeID: delivery.noticeID)
        harness.clock.advance(by: 3600)
        #expect(try await logout.takeDue().isEmpty, "a delivered notice is not sent again")
    }

    struct ProofClaims: Encodable {
        let htm: String
        let htu: String
        let iat: Int
        let jti: String
        var nonce: String?
        var ath: String?
    }

    @Test("DPoP proofs: the server's nonce, method and URL, age, the access token's hash, and each jti once")
    func dpopProofs() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let dpop = harness.domain.dpop
        let key = SoftwareSigningKey()
        let url = "https://id.example/t/demo/token"
        func proof(_ method: String = "POST", _ target: String = url, nonce: String? = nil, ath: String? = nil, jti: String? = nil) throws -> String {
            let claims = ProofClaims(
                htm: method, htu: target, iat: Int(harness.clock.now().timeIntervalSince1970), jti: jti ?? Secrets.randomToken(),
                nonce: nonce ?? dpop.nonce(), ath: ath)
            return try CompactJWS.sign(
                payload: try JSONEncoder().encode(claims), header: JWSHeader(typ: "dpop+jwt", jwk: key.publicJWK), signer: key)
        }
        func refusal(_ proof: String, method: String = "POST", url target: String = url, accessToken: String? = nil) async -> DomainError? {
            await #expect(throws: DomainError.self) { _ = try await dpop.check(proof, method: method, url: target, accessToken: accessToken) }
        }

        let good = try proof(jti: "once")
        let checked = try await dpop.check(good, method: "POST", url: url + "?ignored=query")
        #expect(checked.jkt.count == 43, "a SHA-256 thumbprint, base64url")
        #expect(await refusal(good)?.message.contains("used already") == true)
        #expect(await refusal(try proof(nonce: "stale"))?.code == DPoP.useNonce)
        #expect(await refusal(try proof("GET"))?.message.contains("htm") == true)
        #expect(await refusal(try proof("POST", "https://id.example/t/other/token"))?.message.contains("htu") == true)
        #expect(await refusal(try proof(ath: Secrets.digest("another token")), accessToken: "the token")?.message.contains("ath") == true)
        #expect(try await dpop.check(try proof(ath: Secrets.digest("the token")), method: "POST", url: url, accessToken: "the token").jkt == checked.jkt)
        #expect(await refusal("a.b")?.code == DPoP.invalidProof)

        // Made now, checked six minutes later: too old, and its nonce is two windows back.
        let early = try proof(nonce: dpop.nonce())
        harness.clock.advance(by: 360)
        #expect(await refusal(early)?.message.contains("iat") == true)
        harness.clock.advance(by: 300)
        let nonceOfThen = dpop.nonce(at: harness.domain.epochNow() - 660)
        #expect(await refusal(try proof(nonce: nonceOfThen))?.code == DPoP.useNonce)
    }

    @Test("dynamic registration: off until the tenant allows it; a refused registration spends no token use; each registration manages only itself")
    func registration() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let (created, _, _) = try await harness.tenant()
        let registration = harness.domain.clientRegistration
        func metadata(_ json: String) throws -> ClientRegistration.Metadata {
            try JSONDecoder().decode(ClientRegistration.Metadata.self, from: Data(json.utf8))
        }
        let off = await #expect(throws: DomainError.self) {
            _ = try await registration.register(try metadata(#"{"redirect_uris":["https://rp.example/cb"]}"#), initialAccessToken: "x", tenant: created, logger: harness.logger)
        }
        #expect(off?.kind == .notFound)

        let change = try JSONDecoder().decode(TenantChanges.self, from: Data(#"{"dynamic_registration":true}"#.utf8))
        _ = try await harness.domain.administration().updateTenant(change, tenant: created, logger: harness.logger)
        let tenant = try await harness.domain.tenant(named: "demo")
        let input = try JSONDecoder().decode(Components.Schemas.CreateRegistrationToken.self, from: Data(#"{"uses":1}"#.utf8))
        let token = try #require(try await harness.domain.administration().createRegistrationToken(input, tenant: tenant, logger: harness.logger).token)

        let noURIs = await #expect(throws: DomainError.self) {
            _ = try await registration.register(try metadata(#"{"client_name":"RP"}"#), initialAccessToken: token, tenant: tenant, logger: harness.logger)
        }
        #expect(noURIs?.code == ClientRegistration.invalidRedirectURI)
        let badMethod = await #expect(throws: DomainError.self) {
            _ = try await registration.register(
                try metadata(#"{"redirect_uris":["https://rp.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}"#), initialAccessToken: token,
                tenant: tenant, logger: harness.logger)
        }
        #expect(badMethod?.code == ClientRegistration.invalidMetadata)

        // The refusals spent nothing: the one use registers now, and only once.
        let registered = try await registration.register(
            try metadata(#"{"redirect_uris":["https://rp.example/cb"],"client_name":"RP"}"#), initialAccessToken: token, tenant: tenant,
            logger: harness.logger)
        #expect(registered.clientSecret != nil)
        let spent = await #expect(throws: DomainError.self) {
            _ = try await registration.register(try metadata(#"{"redirect_uris":["https://rp.example/cb"]}"#), initialAccessToken: token, tenant: tenant, logger: harness.logger)
        }
        #expect(spent?.code == .invalidToken)

        let manager = try #require(registered.registrationAccessToken)
        #expect(try await registration.read(clientID: registered.clientID, registrationToken: manager, tenant: tenant).clientID == registered.clientID)
        await #expect(throws: DomainError.self) { _ = try await registration.read(clientID: registered.clientID, registrationToken: token, tenant: tenant) }
        let toPublic = await #expect(throws: DomainError.self) {
            _ = try await registration.update(
                clientID: registered.clientID, try metadata(#"{"redirect_uris":["https://rp.example/cb"],"token_endpoint_auth_method":"none"}"#),
                registrationToken: manager, tenant: tenant, logger: harness.logger)
        }
        #expect(toPublic?.code == ClientRegistration.invalidMetadata)
        try await registration.delete(clientID: registered.clientID, registrationToken: manager, tenant: tenant, logger: harness.logger)
        await #expect(throws: DomainError.self) { _ = try await registration.read(clientID: registered.clientID, registrationToken: manager, tenant: tenant) }
    }

    @Test("an authorization request keeps the parameters it knows under their names, drops the others, and gives them back as sent")
    func authorizationParameters() {
        let sent = [
            "client_id": "c1", "redirect_uri": "https://rp.example/cb", "response_type": "code", "scope": "openid email", "max_age": "60",
            "code_challenge_method": "S256", "request_uri": "urn:ietf:params:oauth:request_uri:x", "unknown": "dropped",
        ]
        let request = AuthorizationRequest(parameters: sent)
        #expect(request.clientID == "c1" && request.maxAge == "60" && request.codeChallengeMethod == "S256" && request.state == nil)
        var expected = sent
        expected["unknown"] = nil
        #expect(request.parameters == expected)
        #expect(AuthorizationRequest(parameters: [:]).parameters.isEmpty)
    }
}
