import Foundation
import Testing
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraTesting

@Suite("Hostile timing values and racing token requests", .timeLimit(.minutes(5)))
struct HardeningTests {
    @Test("a registration with extreme iat/exp is refused and the server keeps running")
    func extremeTimes() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let key = SoftwareSigningKey()
            let jwk = key.publicJWK
            for (iat, exp) in [(Int.min, 100), (-1, Int.max), (Int.max - 1, Int.max), (0, Int.min)] {
                let registration = ActivationRegistration(
                    code: "unknown", aud: scenario.issuer, deviceKey: DeviceJWK(kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y),
                    biometricKey: nil, pinKey: Base64URL.encode(Data(repeating: 1, count: 32)), totpSecret: nil, alias: nil,
                    iat: iat, exp: exp)
                let token = try CompactJWS.sign(payload: try WireCoding.encoder().encode(registration), header: JWSHeader(), signer: key)
                let response = try await scenario.http.postJSON(
                    "\(scenario.issuer)/device/activation/complete", ["registration": token])
                #expect(response.status == 401, "iat \(iat) exp \(exp): \(response.text)")
            }
            #expect(try await scenario.http.get("\(server.baseURL)/health").status == 200)
        }
    }

    @Test("two parallel uses of one refresh token leave no working token in the family")
    func parallelRefreshReuse() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("alice")
            let (device, _) = try await activateDevice(scenario, username: "alice")
            let (login, code) = try await approvedLogin(scenario, service, device: device)
            let refresh = try #require(try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()["refresh_token"] as? String)

            let answers = try await withThrowingTaskGroup(of: TestHTTP.Response.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": refresh], service: service)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.filter { $0.status == 200 }.count <= 1)
            for answer in answers where answer.status == 200 {
                let next = try #require(try answer.json()["refresh_token"] as? String)
                let again = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": next], service: service)
                #expect(again.status == 400, "the token issued in the race was revoked with its family")
            }
            device.remove()
        }
    }

    @Test("a code refused for its verifier cannot be tried again; a narrower refresh scope is applied")
    func oneTryPerCode() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("bob")
            let (device, _) = try await activateDevice(scenario, username: "bob")
            let (login, code) = try await approvedLogin(scenario, service, device: device)
            let wrong = try await scenario.redeem(code: code, service: service, verifier: PKCE.makeVerifier())
            #expect(try wrong.json()["error"] as? String == "invalid_grant")
            let right = try await scenario.redeem(code: code, service: service, verifier: login.verifier)
            #expect(right.status == 400, "the code was spent by the failed try")

            let (second, secondCode) = try await approvedLogin(
                scenario, service, device: device, extra: ["scope": "openid offline_access"])
            let tokens = try await scenario.redeem(code: secondCode, service: service, verifier: second.verifier).json()
            #expect(tokens["scope"] as? String == "openid offline_access")
            let narrowed = try await scenario.tokenRequest(
                ["grant_type": "refresh_token", "refresh_token": try #require(tokens["refresh_token"] as? String), "scope": "openid"],
                service: service)
            #expect(try narrowed.json()["scope"] as? String == "openid")
            device.remove()
        }
    }

    @Test("links whose code or request id is not base64url are refused by the SDK before any call")
    func hostileLinks() async throws {
        let device = try TestDevice()
        for link in [
            "http://127.0.0.1:1/t/demo/authenticate?request=..%2F..%2Fadmin", "http://127.0.0.1:1/t/demo/authenticate?request=a%3Fb",
            "ftp://127.0.0.1/t/demo/authenticate?request=abc", "http://127.0.0.1:1/t/demo/other?request=abc",
        ] {
            await #expect(throws: TesseraKitError.self) { try await device.authenticator.start(url: try #require(URL(string: link))) }
        }
        await #expect(throws: TesseraKitError.self) {
            try await device.personalizer.activate(url: try #require(URL(string: "http://127.0.0.1:1/t/demo/activate?code=%2F")), pin: "2468")
        }
        #expect(device.transport.requests.isEmpty)
        device.remove()
    }
}
