import Foundation
import Testing
import TesseraCore
import TesseraKit
import TesseraTesting

@Suite("Single sign-on sessions", .tags(.live), .timeLimit(.minutes(5)))
struct SingleSignOnTests {
    /// Opens a login for `service` and claims it on the device.
    func claim(_ scenario: Scenario, _ service: Scenario.Service, device: TestDevice, extra: [String: String] = [:]) async throws
        -> (Scenario.BrowserLogin, AuthenticationUserInformation)
    {
        let login = try await scenario.openLogin(service, extra: extra)
        return (login, try await device.authenticator.start(url: login.authenticationURL))
    }

    func idClaims(_ scenario: Scenario, _ service: Scenario.Service, _ login: Scenario.BrowserLogin) async throws -> [String: Any] {
        let code = try #require(try await scenario.complete(login)["code"])
        let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
        return try await verifyIDToken(try #require(tokens["id_token"] as? String), scenario: scenario, clientID: service.clientID)
    }

    @Test("within the session a second service's login needs only the device and keeps the first login's acr and auth_time")
    func secondServiceWithFewerFactors() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, ssoLifetime: 600, ssoPolicy: "device")
            let mail = try await scenario.createService(policy: "device+pin")
            let wiki = try await scenario.createService(policy: "device+pin")
            try await scenario.createUser("eve")
            let (device, _) = try await activateDevice(scenario, username: "eve")

            // Before any login: the full policy.
            let (first, firstInfo) = try await claim(scenario, mail, device: device)
            #expect(firstInfo.requestedAuthenticators == [[.device, .pin]])
            #expect(try await signAndFinish(firstInfo, device: device, factors: [.device, .pin]).isUserLogin)
            let firstClaims = try await idClaims(scenario, mail, first)
            let authTime = try #require(firstClaims["auth_time"] as? Int)

            try await Task.sleep(for: .seconds(1.1))
            let (second, secondInfo) = try await claim(scenario, wiki, device: device)
            #expect(secondInfo.requestedAuthenticators.first == [.device], "the session asks for fewer factors first")
            #expect(secondInfo.requestedAuthenticators.contains([.device, .pin]))
            #expect(try await signAndFinish(secondInfo, device: device, factors: [.device]).isUserLogin)
            let secondClaims = try await idClaims(scenario, wiki, second)
            #expect(secondClaims["auth_time"] as? Int == authTime, "the login stands on the session's full login")
            #expect(secondClaims["acr"] as? String == "urn:tessera:acr:device+pin")
            #expect((secondClaims["amr"] as? [String])?.contains("pin") == true)

            // prompt=login and max_age=0 ask for a full login: the device alone is refused, changing nothing.
            for extra in [["prompt": "login"], ["max_age": "0"]] {
                let (fresh, freshInfo) = try await claim(scenario, wiki, device: device, extra: extra)
                #expect(freshInfo.requestedAuthenticators == [[.device, .pin]], "\(extra)")
                var deviceOnly = freshInfo
                try deviceOnly.sign(factor: DeviceFactor())
                await #expect(throws: TesseraKitError.self) { _ = try await device.authenticator.finish(deviceOnly) }
                #expect(try await scenario.status(fresh)["status"] as? String == "claimed")
            }

            // A wrong PIN ends the session.
            let (_, wrongInfo) = try await claim(scenario, mail, device: device, extra: ["prompt": "login"])
            #expect(try await signAndFinish(wrongInfo, device: device, factors: [.device, .pin], pin: "0000").lockout != nil)
            let (_, afterInfo) = try await claim(scenario, wiki, device: device)
            #expect(afterInfo.requestedAuthenticators == [[.device, .pin]])
            device.remove()
        }
    }

    @Test("no session without the tenant's consent, for another device, or for a backchannel step-up")
    func limits() async throws {
        try await withServer { server in
            let plain = try await Scenario.make(on: server)
            let service = try await plain.createService(policy: "device+pin")
            try await plain.createUser("fay")
            let (device, _) = try await activateDevice(plain, username: "fay")
            _ = try await approvedLogin(plain, service, device: device)
            let (_, info) = try await claim(plain, service, device: device)
            #expect(info.requestedAuthenticators == [[.device, .pin]], "a tenant without single sign-on")

            let sso = try await Scenario.make(on: server, ssoLifetime: 600)
            let web = try await sso.createService(policy: "device+pin", backchannelMode: "poll")
            try await sso.createUser("gus")
            let (phone, _) = try await activateDevice(sso, username: "gus")
            let (tablet, _) = try await activateDevice(sso, username: "gus")
            _ = try await approvedLogin(sso, web, device: phone)
            let (_, tabletInfo) = try await claim(sso, web, device: tablet)
            #expect(tabletInfo.requestedAuthenticators == [[.device, .pin]], "the session belongs to the phone")
            let started = try await sso.tokenRequest(["scope": "openid", "login_hint": "gus"], service: web, endpoint: "bc-authorize")
            let id = try #require(try started.json()["auth_req_id"] as? String)
            let request = try #require(try await phone.authenticator.pendingRequests().first { $0.requestID.rawValue == id })
            let stepUp = try await phone.authenticator.start(pending: request)
            #expect(stepUp.requestedAuthenticators == [[.device, .pin]], "a step-up always asks for the full policy")

            // A login that the single sign-on policy itself allows starts no session: a
            // device-only service never opens the way to one that asks for a PIN.
            let mixed = try await Scenario.make(on: server, ssoLifetime: 600, ssoPolicy: "device")
            let weak = try await mixed.createService(policy: "device")
            let strong = try await mixed.createService(policy: "device+pin")
            try await mixed.createUser("hal")
            let (laptop, _) = try await activateDevice(mixed, username: "hal")
            let (_, weakInfo) = try await claim(mixed, weak, device: laptop)
            #expect(try await signAndFinish(weakInfo, device: laptop, factors: [.device]).isUserLogin)
            let (_, strongInfo) = try await claim(mixed, strong, device: laptop)
            #expect(strongInfo.requestedAuthenticators == [[.device, .pin]])
            var deviceOnly = strongInfo
            try deviceOnly.sign(factor: DeviceFactor())
            await #expect(throws: TesseraKitError.self) { _ = try await laptop.authenticator.finish(deviceOnly) }
            for device in [device, phone, tablet, laptop] { device.remove() }
        }
    }
}
