import Foundation
import Testing
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraTesting

@Suite("Web login with QR code, device factors and OIDC tokens", .tags(.live), .timeLimit(.minutes(5)))
struct LoginTests {
    @Test("activation, QR login with device + PIN, code exchange and an ID token verified against JWKS")
    func fullLogin() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(attributes: ["email", "name"])
            try await scenario.createUser("alice", attributes: ["email": "alice@example.com", "name": "Alice", "phone": "123"])
            let (device, activation) = try await activateDevice(scenario, username: "alice")
            #expect(activation.activation.factors == [.device, .pin])
            #expect(try await device.personalizer.activations().map(\.username) == ["alice"])

            let login = try await scenario.openLogin(service)
            // The page's QR code is the authentication link, as an outside decoder reads it.
            let decoded = try await ZBar.decode(try ZBar.pgm(fromSVGIn: login.page))
            #expect(decoded == login.authenticationURL.absoluteString)
            #expect(login.page.contains("href=\"\(login.authenticationURL.absoluteString)\""), "same-device link")
            #expect(login.page.contains("Test Service"))
            #expect(!login.page.contains("https://cdn"), "no external resources")
            #expect(try await scenario.status(login)["status"] as? String == "pending")

            var information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(information.service?.name == "Test Service")
            #expect(information.requestedAttributes.map(\.name) == ["email", "name"])
            #expect(information.requestedAttributes.first?.value == "alice@example.com")
            #expect(information.requestedAuthenticators == [[.device, .pin]])
            #expect(try await scenario.status(login)["status"] as? String == "claimed")
            information.confirmedAttributes = ["email"]

            let result = try await signAndFinish(information, device: device, factors: [.device, .pin])
            guard case .userLogin(let summary) = result else { Issue.record("expected userLogin, got \(result)"); return }
            #expect(summary.username == "alice")
            #expect(summary.factors == [.device, .pin])
            #expect(try await scenario.status(login)["status"] as? String == "approved")

            let redirect = try await scenario.complete(login)
            #expect(redirect["state"] == login.state)
            #expect(redirect["iss"] == scenario.issuer)
            let code = try #require(redirect["code"])
            let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier)
            #expect(tokens.status == 200, "\(tokens.text)")
            let json = try tokens.json()
            #expect(json["token_type"] as? String == "Bearer")
            let claims = try await verifyIDToken(try #require(json["id_token"] as? String), scenario: scenario, clientID: service.clientID)
            #expect(claims["nonce"] as? String == login.nonce)
            #expect(claims["amr"] as? [String] == ["hwk", "pin", "mfa"])
            #expect(claims["acr"] as? String == "urn:tessera:acr:device+pin")
            #expect(claims["email"] as? String == "alice@example.com")
            #expect(claims["name"] == nil, "an attribute the user did not confirm is not released")
            #expect(claims["phone"] == nil)
            #expect(claims["auth_time"] != nil)

            let access = try #require(json["access_token"] as? String)
            let userinfo = try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(access)"])
            #expect(userinfo.status == 200)
            #expect(try userinfo.json()["email"] as? String == "alice@example.com")
            #expect(try userinfo.json()["sub"] as? String == claims["sub"] as? String)
            device.remove()
        }
    }

    static let combinations: [[FactorType]] = [[.device, .pin], [.device, .biometric], [.device, .otp], [.biometric, .device, .pin]]

    @Test("each factor combination of the policy logs in", arguments: combinations)
    func combination(factors: [FactorType]) async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(policy: "device+pin,device+biometric,device+otp,device+pin+biometric")
            try await scenario.createUser("bob")
            let (device, _) = try await activateDevice(scenario, username: "bob", biometric: true, otp: true)
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(information.requestedAuthenticators.count == 4)
            let result = try await signAndFinish(information, device: device, factors: factors)
            #expect(result.isUserLogin)
            let code = try #require(try await scenario.complete(login)["code"])
            let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
            let claims = try await verifyIDToken(try #require(tokens["id_token"] as? String), scenario: scenario, clientID: service.clientID)
            #expect(claims["acr"] as? String == "urn:tessera:acr:\(FactorCombination(factors))")
            #expect(Set(claims["amr"] as? [String] ?? []) == Set(factors.map(\.authenticationMethodReference) + ["mfa"]))
            device.remove()
        }
    }

    @Test("the requested authenticators are filtered to what the activation enrolled, or the whole policy")
    func filtering() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(policy: "device+pin,device+biometric")
            let otpOnly = try await scenario.createService(policy: "device+otp")
            try await scenario.createUser("carol")
            let (device, _) = try await activateDevice(scenario, username: "carol")
            let first = try await device.authenticator.start(url: try await scenario.openLogin(service).authenticationURL)
            #expect(first.requestedAuthenticators == [[.device, .pin]])
            let second = try await device.authenticator.start(url: try await scenario.openLogin(otpOnly).authenticationURL)
            #expect(second.requestedAuthenticators == [[.device, .otp]])
            var information = second
            try information.sign(factor: DeviceFactor())
            #expect(throws: TesseraKitError.self) { try information.sign(factor: PinFactor("2468")) }
            await #expect(throws: TesseraKitError.self) { try await device.authenticator.finish(information) }
            device.remove()
        }
    }

    @Test("changed biometrics make the biometric factor fail with its own error; other combinations still work")
    func biometricsChanged() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("dave")
            let (device, _) = try await activateDevice(scenario, username: "dave", biometric: true)
            try await device.biometrics.simulateBiometricChange()
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            do {
                _ = try await device.authenticator.biometricFactor(for: information, reason: "test")
                Issue.record("the biometric factor was created after the biometrics changed")
            } catch TesseraKitError.biometricsChanged {
            }
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
            device.remove()
        }
    }

    @Test("a denied login tells the browser and redirects with access_denied")
    func denial() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("erin")
            let (device, _) = try await activateDevice(scenario, username: "erin")
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            try await device.authenticator.deny(information)
            #expect(try await scenario.status(login)["status"] as? String == "denied")
            let redirect = try await scenario.complete(login)
            #expect(redirect["error"] == "access_denied")
            #expect(redirect["state"] == login.state)
            #expect(redirect["code"] == nil)
            device.remove()
        }
    }
}
