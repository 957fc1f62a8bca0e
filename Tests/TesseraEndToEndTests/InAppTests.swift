import Foundation
import Synchronization
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraTesting
import TesseraTestSupport
import Testing
@testable import TesseraKit

@Suite("In-app login and the SDK's token manager", .tags(.live), .timeLimit(.minutes(5)))
struct InAppTests {
    @Test("in-app login: serviceLogin, a code for the backend's PKCE challenge, redeemed only with its verifier")
    func inAppCode() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let backend = try await scenario.createService(attributes: ["email"], redirectURI: "https://app.example/callback")
            try await scenario.createUser("zoe", attributes: ["email": "zoe@example.com"])
            let (device, _) = try await activateDevice(scenario, username: "zoe")
            let (other, _) = try await activateDevice(scenario, username: "zoe")

            // The backend makes the PKCE pair and gives the app only the challenge.
            let verifier = PKCE.makeVerifier()
            let request = InAppAuthenticationRequest(
                clientID: backend.clientID, redirectURI: backend.redirectURI, codeChallenge: PKCE.challenge(forVerifier: verifier),
                state: "s-123", nonce: "n-456")
            let information = try await device.authenticator.fetchInAppAuthenticationInitializationData(request)
            #expect(information.service?.clientID.rawValue == backend.clientID)
            #expect(information.requestedAttributes.map(\.name) == ["email"])
            guard case .serviceLogin(let login) = try await signAndFinish(information, device: device, factors: [.device, .pin]) else {
                Issue.record("an in-app login ends in serviceLogin")
                return
            }
            #expect(login.username == "zoe")
            // Another device of the user cannot fetch the code.
            let foreign = ServiceLoginResult(
                requestID: login.requestID, service: login.service, username: login.username, factors: login.factors,
                authenticatedAt: login.authenticatedAt, activation: try #require(try await other.personalizer.activations().first),
                role: nil, subject: nil, attributes: [:])
            await #expect(throws: TesseraKitError.self) { _ = try await other.authenticator.fetchAuthorizationCode(foreign) }
            let code = try await device.authenticator.fetchAuthorizationCode(login)
            #expect(code.state == "s-123")
            #expect(code.issuer == scenario.issuer)
            #expect(code.redirectURI == backend.redirectURI)
            // Once only.
            await #expect(throws: TesseraKitError.self) { _ = try await device.authenticator.fetchAuthorizationCode(login) }

            // Without the verifier the backend's code is worthless — and spent.
            let stolen = try await scenario.redeem(code: code.code, service: backend, verifier: nil)
            #expect(stolen.status == 400)
            #expect(try stolen.json()["error"] as? String == "invalid_grant")

            // A fresh login; the backend redeems with its verifier.
            let second = try await device.authenticator.fetchInAppAuthenticationInitializationData(request)
            guard case .serviceLogin(let again) = try await signAndFinish(second, device: device, factors: [.device, .pin]) else {
                Issue.record("an in-app login ends in serviceLogin")
                return
            }
            let secondCode = try await device.authenticator.fetchAuthorizationCode(again)
            let wrongVerifier = try await scenario.redeem(code: secondCode.code, service: backend, verifier: PKCE.makeVerifier())
            #expect(try wrongVerifier.json()["error"] as? String == "invalid_grant")

            let third = try await device.authenticator.fetchInAppAuthenticationInitializationData(request)
            guard case .serviceLogin(let last) = try await signAndFinish(third, device: device, factors: [.device, .pin]) else {
                Issue.record("an in-app login ends in serviceLogin")
                return
            }
            let lastCode = try await device.authenticator.fetchAuthorizationCode(last)
            let tokens = try await scenario.redeem(code: lastCode.code, service: backend, verifier: verifier)
            #expect(tokens.status == 200, "\(tokens.text)")
            let claims = try await verifyIDToken(try #require(try tokens.json()["id_token"] as? String), scenario: scenario, clientID: backend.clientID)
            #expect(claims["nonce"] as? String == "n-456")
            #expect(claims["email"] as? String == "zoe@example.com")
            device.remove()
            other.remove()
        }
    }

    @Test("in-app login refuses unknown services, unregistered redirect URIs, missing PKCE, and unapproved codes")
    func inAppRefusals() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let backend = try await scenario.createService(redirectURI: "https://app.example/callback")
            try await scenario.createUser("amy")
            let (device, _) = try await activateDevice(scenario, username: "amy")
            let challenge = PKCE.challenge(forVerifier: PKCE.makeVerifier())
            let bad = [
                InAppAuthenticationRequest(clientID: "unknown", redirectURI: backend.redirectURI, codeChallenge: challenge),
                InAppAuthenticationRequest(clientID: backend.clientID, redirectURI: "https://app.example/other", codeChallenge: challenge),
                InAppAuthenticationRequest(clientID: backend.clientID, redirectURI: backend.redirectURI, codeChallenge: "short"),
                InAppAuthenticationRequest(clientID: backend.clientID, redirectURI: backend.redirectURI, codeChallenge: challenge, scope: "email"),
            ]
            for request in bad {
                await #expect(throws: TesseraKitError.self, "\(request)") {
                    _ = try await device.authenticator.fetchInAppAuthenticationInitializationData(request)
                }
            }
            // A code before approval, or after a denial, is refused.
            let information = try await device.authenticator.fetchInAppAuthenticationInitializationData(
                InAppAuthenticationRequest(clientID: backend.clientID, redirectURI: backend.redirectURI, codeChallenge: challenge))
            let pending = ServiceLoginResult(
                requestID: information.requestID, service: try #require(information.service), username: "amy", factors: [],
                authenticatedAt: Date(), activation: information.activation, role: nil, subject: nil, attributes: [:])
            await #expect(throws: TesseraKitError.self) { _ = try await device.authenticator.fetchAuthorizationCode(pending) }
            try await device.authenticator.deny(information)
            await #expect(throws: TesseraKitError.self) { _ = try await device.authenticator.fetchAuthorizationCode(pending) }
            device.remove()
        }
    }

    @Test("token manager: a wrong PIN or a running lock tells its lockout; a code or tokens the app got elsewhere are kept and refreshed")
    func tokenManagerLockoutAndHandOver() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 0, waits: [60], permanentAfter: 10))
            let app = try await scenario.createService(isPublic: true, redirectURI: "com.example.app:/callback")
            try await scenario.createUser("di")
            try await scenario.createUser("el")
            let (device, _) = try await activateDevice(scenario, username: "di")
            let tokens = TokenManager(keyStore: device.keyStore, transport: device.transport)
            func login(_ pin: String) async -> LoginResult {
                await tokens.loginResult(authenticator: device.authenticator, clientID: app.clientID, redirectURI: app.redirectURI, username: "di") {
                    information in
                    try information.sign(factor: DeviceFactor())
                    try information.sign(factor: PinFactor(pin))
                }
            }
            // A wrong PIN: the lock it set, until when.
            let wrong = await login("0000")
            #expect(wrong.status == .cannotAcquireAuthorizationCode)
            let lock = try #require(wrong.lockout, "the lockout is told")
            #expect(!lock.isPermanent)
            let until = try #require(lock.lockedUntil)
            #expect(until > Date().addingTimeInterval(30))
            // While it runs even the right PIN is refused, with the same lock.
            let during = await login("2468")
            #expect(during.status == .cannotAcquireAuthorizationCode)
            #expect(abs((during.lockout?.lockedUntil ?? .distantPast).timeIntervalSince(until)) < 2)
            #expect(await tokens.login(authenticator: device.authenticator, clientID: app.clientID, redirectURI: app.redirectURI, username: "di") {
                try $0.sign(factor: DeviceFactor())
                try $0.sign(factor: PinFactor("2468"))
            } == .cannotAcquireAuthorizationCode)

            // A code the app got elsewhere (a browser login with its PKCE pair), redeemed and kept once.
            let (other, _) = try await activateDevice(scenario, username: "el")
            let otherTokens = TokenManager(keyStore: other.keyStore, transport: other.transport)
            let (login, code) = try await approvedLogin(scenario, app, device: other)
            func redeem() async -> LoginStatus {
                await otherTokens.login(
                    authorizationCode: code, codeVerifier: login.verifier, redirectURI: app.redirectURI, issuer: scenario.issuer,
                    clientID: app.clientID, username: "el")
            }
            #expect(await redeem() == .ok)
            let (status, access) = await otherTokens.accessToken(clientID: app.clientID, username: "el")
            #expect(status == .ok && access != nil)
            #expect(await redeem() == .cannotAcquireAccessTokenForAuthorizationCode, "a code works once")

            // Tokens the app got elsewhere: handed out as kept, refreshed when they run out.
            let (second, secondCode) = try await approvedLogin(scenario, app, device: other)
            let issued = try await scenario.redeem(code: secondCode, service: app, verifier: second.verifier).json()
            let issuedAccess = try #require(issued["access_token"] as? String)
            let keeper = TokenManager(keyStore: other.keyStore, transport: other.transport)
            #expect(
                await keeper.keep(
                    accessToken: issuedAccess, refreshToken: issued["refresh_token"] as? String, idToken: issued["id_token"] as? String,
                    expiresIn: 0, scope: "openid offline_access", issuer: scenario.issuer, clientID: app.clientID, username: "el2") == .ok)
            let (refreshed, fresh) = await keeper.accessToken(clientID: app.clientID, username: "el2")
            #expect(refreshed == .ok)
            #expect(fresh != nil && fresh != issuedAccess, "an expired kept token is refreshed")
            device.remove()
            other.remove()
        }
    }

    @Test("token manager: login as a public client, ok, refresh with rotation, reuse revokes, statuses, several users")
    func tokenManager() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let app = try await scenario.createService(isPublic: true, redirectURI: "com.example.app:/callback")
            try await scenario.createUser("bo")
            try await scenario.createUser("cy")
            let (device, _) = try await activateDevice(scenario, username: "bo")
            let url = try await scenario.invite("cy")
            _ = try await device.personalizer.activate(url: url, pin: "1357", alias: nil, enrollBiometric: false, enrollOTP: false)
            let clock = TestClock.running()
            let tokens = TokenManager(keyStore: device.keyStore, transport: device.transport, now: { clock.now() })

            #expect(await tokens.status(username: "bo") == .noTokenDataAvailable)
            let refusedLogin = await tokens.login(
                authenticator: device.authenticator, clientID: app.clientID, redirectURI: "com.example.app:/other", username: "bo"
            ) { information in
                try information.sign(factor: DeviceFactor())
                try information.sign(factor: PinFactor("2468"))
            }
            #expect(refusedLogin == .cannotAcquireAuthorizationCode)

            for (user, pin) in [("bo", "2468"), ("cy", "1357")] {
                let status = await tokens.login(
                    authenticator: device.authenticator, clientID: app.clientID, redirectURI: app.redirectURI, username: user
                ) { information in
                    try information.sign(factor: DeviceFactor())
                    try information.sign(factor: PinFactor(pin))
                }
                #expect(status == .ok, "\(user)")
            }
            #expect(try await tokens.users().map(\.username) == ["bo", "cy"])
            let (first, access) = await tokens.accessToken(username: "bo")
            #expect(first == .ok)
            // DPoP by default: the token is bound to a key the device made; a resource request
            // carries a proof, and the same token as a bearer token is refused.
            #expect(try await tokens.users().first { $0.username == "bo" }?.tokenType == "DPoP")
            let userinfoURL = try #require(URL(string: "\(scenario.issuer)/userinfo"))
            let (_, headers) = await tokens.authorizationHeaders(method: "GET", url: userinfoURL, username: "bo")
            #expect(headers?["Authorization"] == "DPoP \(try #require(access))")
            let userinfo = try await scenario.http.get(userinfoURL.absoluteString, headers: try #require(headers))
            #expect(userinfo.status == 200, "\(userinfo.text)")
            let asBearer = try await scenario.http.get(userinfoURL.absoluteString, headers: ["Authorization": "Bearer \(try #require(access))"])
            #expect(asBearer.status == 401)
            let before = try #require(try await tokens.users().first { $0.username == "bo" }?.refreshToken)

            // Past the access token's lifetime: refreshed, and the refresh token rotated.
            clock.advance(by: 600)
            let (refreshed, newAccess) = await tokens.accessToken(username: "bo")
            #expect(refreshed == .ok)
            #expect(newAccess != access)
            // The refresh carried a proof with the same key: the new token is bound too.
            let (_, renewedHeaders) = await tokens.authorizationHeaders(method: "GET", url: userinfoURL, username: "bo")
            #expect(try await scenario.http.get(userinfoURL.absoluteString, headers: try #require(renewedHeaders)).status == 200)
            let after = try #require(try await tokens.users().first { $0.username == "bo" }?.refreshToken)
            #expect(after != before)

            // Someone copied the refresh tokens: without the device's DPoP key they are
            // refused before they are looked at, so the copy neither works nor ends the session.
            let stolen = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": after], service: app)
            #expect(try stolen.json()["error"] as? String == "invalid_dpop_proof")
            clock.advance(by: 600)
            #expect(await tokens.status(username: "bo") == .ok)
            // A token manager without DPoP: a replayed refresh token revokes the session, and
            // the next refresh finds the tokens outdated. The other user is untouched.
            let bearerTokens = TokenManager(keyStore: device.keyStore, transport: device.transport, now: { clock.now() }, dpop: false)
            let relogin = await bearerTokens.login(
                authenticator: device.authenticator, clientID: app.clientID, redirectURI: app.redirectURI, username: "bo"
            ) { information in
                try information.sign(factor: DeviceFactor())
                try information.sign(factor: PinFactor("2468"))
            }
            #expect(relogin == .ok)
            #expect(try await bearerTokens.users().first { $0.username == "bo" }?.tokenType == "Bearer")
            let bearerBefore = try #require(try await bearerTokens.users().first { $0.username == "bo" }?.refreshToken)
            clock.advance(by: 600)
            #expect(await bearerTokens.status(username: "bo") == .ok)
            let replay = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": bearerBefore], service: app)
            #expect(try replay.json()["error"] as? String == "invalid_grant")
            clock.advance(by: 600)
            #expect(await bearerTokens.status(username: "bo") == .tokenDataIsOutdated)
            #expect(await tokens.status(username: "cy") == .ok)

            // No connection: the tokens stay, the status says to try later.
            clock.advance(by: 600)
            let offline = TokenManager(keyStore: device.keyStore, transport: UnreachableTransport(), now: { clock.now() })
            #expect(await offline.status(username: "cy") == .cannotAcquireTokenData)
            #expect(await tokens.status(username: "cy") == .ok)

            // Logout revokes and forgets.
            try await tokens.logout(username: "cy")
            #expect(await tokens.status(username: "cy") == .noTokenDataAvailable)

            // A code the token endpoint refuses: a confidential service's code without its secret.
            let confidential = try await scenario.createService(redirectURI: "com.example.app:/confidential")
            let refusedCode = await tokens.login(
                authenticator: device.authenticator, clientID: confidential.clientID, redirectURI: confidential.redirectURI,
                username: "cy"
            ) { information in
                try information.sign(factor: DeviceFactor())
                try information.sign(factor: PinFactor("1357"))
            }
            #expect(refusedCode == .cannotAcquireAccessTokenForAuthorizationCode)
            device.remove()
        }
    }
}
