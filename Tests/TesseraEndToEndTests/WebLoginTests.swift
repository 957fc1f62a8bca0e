import Foundation
import TesseraCore
import TesseraCrypto
import TesseraTesting
import TesseraTestSupport
import Testing
@testable import TesseraKit

@Suite("The SDK's web login: the IdP's pages for an app without an activation", .tags(.live), .timeLimit(.minutes(5)))
struct WebLoginTests {
    @Test("the authorization URL carries PKCE, state and nonce; the callback of this login gives its code, another's or a forged one is refused; the tokens are kept under the user the ID token names, and refresh with the login's DPoP key")
    func webLogin() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let app = try await scenario.createService(attributes: ["preferred_username"], isPublic: true, redirectURI: "com.example.app:/login")
            try await scenario.createUser("fay", attributes: ["preferred_username": "fay"])
            // The user's phone approves; the app's device has no activation.
            let (phone, _) = try await activateDevice(scenario, username: "fay", biometric: true)
            let appDevice = try TestDevice()
            defer { appDevice.remove() }
            let tokens = TokenManager(keyStore: appDevice.keyStore, transport: appDevice.transport)

            let login = try WebLogin(issuer: scenario.issuer, clientID: app.clientID, redirectURI: app.redirectURI, uiLocales: "de")
            let items = URLComponents(url: login.authorizationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let query = Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
            #expect(query["code_challenge"] == PKCE.challenge(forVerifier: login.codeVerifier) && query["code_challenge_method"] == "S256")
            #expect(query["state"] == login.state && query["nonce"] == login.nonce && query["redirect_uri"] == app.redirectURI)
            // Kept across the app's end and read back.
            let kept = try JSONDecoder().decode(WebLogin.self, from: try JSONEncoder().encode(login))
            #expect(kept == login)

            // The browser shows the IdP's page (in the language asked for); the phone approves.
            let page = try await scenario.openLoginPage(at: login.authorizationURL.absoluteString)
            #expect(page.page.contains(#"<html lang="de""#))
            let information = try await phone.authenticator.start(url: page.authenticationURL)
            #expect(try await signAndFinish(information, device: phone, factors: [.device, .pin]).isUserLogin)
            let returned = try await scenario.complete(page)
            let callback = try #require(URL(string: app.redirectURI + "?" + Scenario.query(returned)))

            // Only this login's return counts.
            let another = try WebLogin(issuer: scenario.issuer, clientID: app.clientID, redirectURI: app.redirectURI)
            #expect(throws: TesseraKitError.self) { try another.code(from: callback) }
            var forged = returned
            forged["iss"] = "https://id.example.net/t/other"
            #expect(throws: TesseraKitError.self) { try login.code(from: URL(string: app.redirectURI + "?" + Scenario.query(forged))!) }
            #expect(throws: TesseraKitError.self) { try login.code(from: URL(string: "com.example.app:/elsewhere?" + Scenario.query(returned))!) }

            // Redeemed with the login's verifier; the user learnt from the ID token.
            let code = try kept.code(from: callback)
            let (status, username) = await tokens.login(authorizationCode: code, webLogin: kept)
            #expect(status == .ok && username == "fay")
            let (tokenStatus, access) = await tokens.accessToken(clientID: app.clientID, username: "fay")
            #expect(tokenStatus == .ok && access != nil)
            #expect(try await tokens.users().first?.tokenType == "DPoP")
            // An hour later the access token is refreshed, proved with the DPoP key the web login made.
            let later = TokenManager(keyStore: appDevice.keyStore, transport: appDevice.transport, now: { Date().addingTimeInterval(3600) })
            let (refreshed, fresh) = await later.accessToken(clientID: app.clientID, username: "fay")
            #expect(refreshed == .ok && fresh != nil && fresh != access, "\(refreshed)")
            let (headersStatus, headers) = await later.authorizationHeaders(
                method: "GET", url: URL(string: scenario.issuer + "/userinfo")!, clientID: app.clientID, username: "fay")
            #expect(headersStatus == .ok && headers?["DPoP"] != nil)
            // A code works once; presented again, the server ends what it gave (RFC 9700 §4.2.4).
            #expect(await tokens.login(authorizationCode: code, webLogin: kept).0 == .cannotAcquireAccessTokenForAuthorizationCode, "a code works once")
            let evenLater = TokenManager(keyStore: appDevice.keyStore, transport: appDevice.transport, now: { Date().addingTimeInterval(7200) })
            #expect(await evenLater.status(clientID: app.clientID, username: "fay") == .tokenDataIsOutdated)

            // The user cancels the biometric prompt: told apart from missing biometrics. Then
            // declines on the phone: the server's refusal comes back as such.
            let declined = try WebLogin(issuer: scenario.issuer, clientID: app.clientID, redirectURI: app.redirectURI)
            let declinedPage = try await scenario.openLoginPage(at: declined.authorizationURL.absoluteString)
            let asked = try await phone.authenticator.start(url: declinedPage.authenticationURL)
            let cancelling = Authenticator(keyStore: phone.keyStore, transport: phone.transport, biometrics: CancellingGate())
            await #expect {
                _ = try await cancelling.biometricFactor(for: asked, reason: "Sign in")
            } throws: { error in
                if case TesseraKitError.cancelled = error { return true }
                return false
            }
            try await phone.authenticator.deny(asked)
            let refusal = try #require(URL(string: app.redirectURI + "?" + Scenario.query(try await scenario.complete(declinedPage))))
            #expect {
                try declined.code(from: refusal)
            } throws: { error in
                if case TesseraKitError.server(_, let code, _) = error { return code == "access_denied" }
                return false
            }
            phone.remove()
        }
    }

    /// A platform prompt the user closes (on Apple, `LAError.userCancel`).
    struct CancellingGate: BiometricGate {
        func evaluate(reason: String) async throws -> Data { throw TesseraKitError.cancelled }
    }

    @Test("every error of the SDK has a sentence for users (LocalizedError), a cancel its own")
    func sentences() {
        let lock = LockoutInformation(isPermanent: true, lockedUntil: nil)
        let all: [TesseraKitError] = [
            .invalidLink("x"), .noActivation(issuer: "x"), .severalActivations(usernames: []), .pendingLockout(lock), .biometricsChanged,
            .biometricsUnavailable, .cancelled, .factorsDoNotMatchPolicy("x"), .unacceptablePIN, .server(status: 400, error: "x", description: ""),
            .transport("x"), .keyStore("x"), .wrongProcess("x"), .numberNotPicked("x"), .singleSignOnUnavailable("x"), .securityKey("x"),
        ]
        let sentences = all.map { ($0 as any Error).localizedDescription }
        #expect(sentences.allSatisfy { $0.hasSuffix(".") && !$0.contains("TesseraKitError") }, "\(sentences)")
        #expect(Set(sentences).count == all.count, "each case says something of its own: \(sentences)")
        #expect(TesseraKitError.cancelled.errorDescription != TesseraKitError.biometricsUnavailable.errorDescription)
        #expect(TesseraKitError.pendingLockout(lock).recoverySuggestion == "Ask your administrator to unlock it.")
    }
}
