import Foundation
import Testing
import TesseraCore
import TesseraCrypto
@testable import TesseraKit
import TesseraTesting

/// Native single sign-on (gematik's SSO token and `refresh(ssoToken)`): after a full
/// login the app holds a token bound to its device key, and gets codes for the tenant's
/// other services with the device factor alone while the session lasts.
@Suite("Native single sign-on", .tags(.live), .timeLimit(.minutes(5)))
struct NativeSingleSignOnTests {
    @Test("a full in-app login brings the token; further services' codes need only the device; the code is PKCE-bound; the tokens keep the first login's acr and auth_time")
    func furtherServices() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, ssoLifetime: 600, ssoPolicy: "device")
            let app = try await scenario.createService(policy: "device+pin", isPublic: true, redirectURI: "com.example.app:/callback", name: "App")
            let pharmacy = try await scenario.createService(
                policy: "device+pin,device+biometric", attributes: ["email"], redirectURI: "https://pharmacy.example/cb", name: "Pharmacy")
            let vault = try await scenario.createService(policy: "device+pin+biometric", redirectURI: "https://vault.example/cb", name: "Vault")
            try await scenario.createUser("gina", attributes: ["email": "gina@example.com"])
            let (device, _) = try await activateDevice(scenario, username: "gina", biometric: true)
            let (other, _) = try await activateDevice(scenario, username: "gina")
            let tokens = TokenManager(keyStore: device.keyStore, transport: device.transport)
            let signs = Counter()
            func login(_ service: Scenario.Service, singleSignOn: Bool = true) async -> LoginResult {
                await tokens.loginResult(
                    authenticator: device.authenticator, clientID: service.clientID, redirectURI: service.redirectURI, singleSignOn: singleSignOn
                ) { information in
                    await signs.add()
                    try information.sign(factor: DeviceFactor())
                    try information.sign(factor: PinFactor("2468"))
                }
            }

            // No session yet: nothing to stand on.
            #expect(try await device.authenticator.singleSignOnSession() == nil)
            await #expect(throws: TesseraKitError.self) {
                _ = try await device.authenticator.fetchAuthorizationCode(
                    singleSignOn: InAppAuthenticationRequest(
                        clientID: pharmacy.clientID, redirectURI: pharmacy.redirectURI, codeChallenge: PKCE.challenge(forVerifier: PKCE.makeVerifier())))
            }
            // The full login: factors, and the session's token kept on the device.
            #expect(await login(app).status == .ok)
            #expect(await signs.value == 1)
            let session = try #require(try await device.authenticator.singleSignOnSession(), "the full login brought a token")
            #expect(session.username == "gina" && session.expiresAt > Date().addingTimeInterval(500))
            let (_, firstToken) = await tokens.accessToken(clientID: app.clientID, username: "gina")
            let firstClaims = try claims(of: try #require(firstToken))

            // A further service through the token manager: no factor asked for.
            try await Task.sleep(for: .seconds(1.1))
            let second = try await scenario.createService(policy: "device+pin", isPublic: true, redirectURI: "com.example.two:/cb", name: "Two")
            #expect(await login(second).status == .ok)
            #expect(await signs.value == 1, "the single sign-on session stood in for the factors")
            let (_, secondToken) = await tokens.accessToken(clientID: second.clientID, username: "gina")
            let secondClaims = try claims(of: try #require(secondToken))
            #expect(secondClaims["acr"] as? String == "urn:tessera:acr:device+pin")
            #expect(secondClaims["auth_time"] as? Int == firstClaims["auth_time"] as? Int, "the session's login time")

            // A code for a confidential backend, bound to its PKCE challenge and confirmed attributes.
            let verifier = PKCE.makeVerifier()
            let code = try await device.authenticator.fetchAuthorizationCode(
                singleSignOn: InAppAuthenticationRequest(
                    clientID: pharmacy.clientID, redirectURI: pharmacy.redirectURI, codeChallenge: PKCE.challenge(forVerifier: verifier),
                    state: "st", nonce: "nn"),
                attributes: ["email"])
            #expect(code.state == "st" && code.issuer == scenario.issuer)
            #expect(try await scenario.redeem(code: code.code, service: pharmacy, verifier: PKCE.makeVerifier()).status == 400)
            let again = try await device.authenticator.fetchAuthorizationCode(
                singleSignOn: InAppAuthenticationRequest(
                    clientID: pharmacy.clientID, redirectURI: pharmacy.redirectURI, codeChallenge: PKCE.challenge(forVerifier: verifier),
                    nonce: "nn"),
                attributes: ["email"])
            let redeemed = try await scenario.redeem(code: again.code, service: pharmacy, verifier: verifier)
            #expect(redeemed.status == 200, "\(redeemed.text)")
            let idClaims = try await verifyIDToken(
                try #require(try redeemed.json()["id_token"] as? String), scenario: scenario, clientID: pharmacy.clientID)
            #expect(idClaims["email"] as? String == "gina@example.com" && idClaims["nonce"] as? String == "nn")
            #expect((idClaims["amr"] as? [String])?.contains("pin") == true)
            // The device's history records the single sign-on logins with the device factor.
            let history = try await scenario.http.get(
                "\(scenario.baseURL)/admin/tenants/\(scenario.tenant)/history?username=gina", headers: ["Authorization": "Bearer \(scenario.adminToken)"])
                .json()["entries"] as? [[String: Any]] ?? []
            #expect(history.filter { ($0["factors"] as? [String]) == ["device"] }.count == 3)

            // Not for a service whose policy the session's login does not meet, nor an unregistered redirect.
            do {
                _ = try await device.authenticator.fetchAuthorizationCode(
                    singleSignOn: InAppAuthenticationRequest(
                        clientID: vault.clientID, redirectURI: vault.redirectURI, codeChallenge: PKCE.challenge(forVerifier: verifier)))
                Issue.record("the vault's policy needs more than the session's login")
            } catch TesseraKitError.singleSignOnUnavailable {}
            await #expect(throws: TesseraKitError.self) {
                _ = try await device.authenticator.fetchAuthorizationCode(
                    singleSignOn: InAppAuthenticationRequest(
                        clientID: pharmacy.clientID, redirectURI: "https://evil.example/cb", codeChallenge: PKCE.challenge(forVerifier: verifier)))
            }
            // Nor for the account page's own client (made by its first sign-in): it manages credentials.
            _ = try await scenario.http.get("\(scenario.issuer)/account/login")
            let tenantID = try #require(
                try await scenario.http.get(
                    "\(scenario.baseURL)/admin/tenants/\(scenario.tenant)", headers: ["Authorization": "Bearer \(scenario.adminToken)"]
                ).json()["id"] as? String)
            do {
                _ = try await device.authenticator.fetchAuthorizationCode(
                    singleSignOn: InAppAuthenticationRequest(
                        clientID: "tessera-account-\(tenantID)", redirectURI: "\(scenario.issuer)/account/callback",
                        codeChallenge: PKCE.challenge(forVerifier: verifier)))
                Issue.record("the account page's client takes no single sign-on")
            } catch TesseraKitError.singleSignOnUnavailable {}
            #expect(try await device.authenticator.singleSignOnSession() != nil, "refusals on the request leave the session")

            // The token is bound to its activation: another device of the user cannot use it.
            let stolen = try #require(try await device.authenticator.singleSignOnSession()).token
            let otherActivation = try #require(try await other.personalizer.activations().first)
            do {
                _ = try await other.authenticator.devicePost(
                    otherActivation, "device/sso/code",
                    body: SingleSignOnCodeRequest(
                        ssoToken: stolen,
                        login: InAppAuthenticationStart(
                            clientID: pharmacy.clientID, redirectURI: pharmacy.redirectURI, codeChallenge: PKCE.challenge(forVerifier: verifier))),
                    as: InAppAuthorizationCode.self)
                Issue.record("another activation used the token")
            } catch TesseraKitError.server(let status, let error, _) {
                #expect(status == 400 && error == "invalid_grant")
            }

            // A wrong factor ends the session: the next login asks for factors again.
            let failing = try await device.authenticator.fetchInAppAuthenticationInitializationData(
                InAppAuthenticationRequest(clientID: app.clientID, redirectURI: app.redirectURI, codeChallenge: PKCE.challenge(forVerifier: verifier)))
            _ = try await signAndFinish(failing, device: device, factors: [.device, .pin], pin: "0000")
            let third = try await scenario.createService(policy: "device+pin", isPublic: true, redirectURI: "com.example.three:/cb", name: "Three")
            #expect(await login(third).status == .ok)
            #expect(await signs.value == 2, "without a session the factors are asked for")
            // And the factor login started a new session, whose token replaced the old one.
            #expect(try await device.authenticator.singleSignOnSession()?.token != stolen)
        }
    }

    @Test("no token without single sign-on on the tenant, or when its policy needs more than the device")
    func tenantSettings() async throws {
        try await withServer { server in
            let plain = try await Scenario.make(on: server)
            let app = try await plain.createService(policy: "device+pin", isPublic: true, redirectURI: "com.example.app:/callback")
            try await plain.createUser("hal")
            let (device, _) = try await activateDevice(plain, username: "hal")
            let tokens = TokenManager(keyStore: device.keyStore, transport: device.transport)
            let status = await tokens.login(authenticator: device.authenticator, clientID: app.clientID, redirectURI: app.redirectURI) { information in
                try information.sign(factor: DeviceFactor())
                try information.sign(factor: PinFactor("2468"))
            }
            #expect(status == .ok)
            #expect(try await device.authenticator.singleSignOnSession() == nil)

            let strict = try await Scenario.make(on: server, ssoLifetime: 600, ssoPolicy: "device+biometric")
            let strictApp = try await strict.createService(policy: "device+pin", isPublic: true, redirectURI: "com.example.app:/callback")
            try await strict.createUser("ida")
            let (phone, _) = try await activateDevice(strict, username: "ida")
            let strictTokens = TokenManager(keyStore: phone.keyStore, transport: phone.transport)
            #expect(
                await strictTokens.login(authenticator: phone.authenticator, clientID: strictApp.clientID, redirectURI: strictApp.redirectURI) {
                    information in
                    try information.sign(factor: DeviceFactor())
                    try information.sign(factor: PinFactor("2468"))
                } == .ok)
            #expect(try await phone.authenticator.singleSignOnSession(issuer: strict.issuer) != nil)
            do {
                _ = try await phone.authenticator.fetchAuthorizationCode(
                    singleSignOn: InAppAuthenticationRequest(
                        clientID: strictApp.clientID, redirectURI: strictApp.redirectURI,
                        codeChallenge: PKCE.challenge(forVerifier: PKCE.makeVerifier()), issuer: strict.issuer))
                Issue.record("the tenant's single sign-on needs more than the device")
            } catch TesseraKitError.singleSignOnUnavailable(let reason) {
                #expect(reason.contains("access_denied"), "\(reason)")
            }
        }
    }

    /// The claims of a JWT, unverified (the token manager's own access token).
    func claims(of token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".")
        let payload = try #require(Base64URL.decode(String(parts[1])))
        return try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
    }
}

private actor Counter {
    var value = 0
    func add() { value += 1 }
}
