import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraTesting
import Testing
@testable import TesseraKit

@Suite("Hostile timing values and racing token requests", .tags(.live), .timeLimit(.minutes(5)))
struct HardeningTests {
    @Test("a registration with extreme iat/exp is refused and the server keeps running")
    func extremeTimes() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let key = SoftwareSigningKey()
            let jwk = key.publicJWK
            for (iat, exp) in [(Int.min, 100), (-1, Int.max), (Int.max - 1, Int.max), (0, Int.min)] {
                let registration = ActivationRegistration(
                    code: "unknown", aud: scenario.issuer, deviceKey: jwk,
                    biometricKey: nil, pinKey: Base64URL.encode(Data(repeating: 1, count: 32)), totpSecret: nil, alias: nil,
                    iat: iat, exp: exp)
                let token = try CompactJWS.sign(
                    payload: try WireCoding.encoder().encode(registration), header: JWSHeader(typ: "tessera-registration+jwt"), signer: key)
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

    @Test("the SDK refuses a plain-http issuer unless it is on a loopback host, before any call")
    func plainHTTPIssuer() async throws {
        let device = try TestDevice()
        for link in ["http://id.example.com/t/demo/authenticate?request=abc", "http://10.0.0.1/t/demo/authenticate?request=abc"] {
            do {
                _ = try await device.authenticator.start(url: try #require(URL(string: link)))
                Issue.record("\(link) was accepted")
            } catch TesseraKitError.invalidLink(let reason) {
                #expect(reason.contains("https"), "\(reason)")
            }
        }
        await #expect(throws: TesseraKitError.self) {
            try await device.personalizer.activate(url: try #require(URL(string: "http://id.example.com/t/demo/activate?code=abc")), pin: "2468")
        }
        #expect(device.transport.requests.isEmpty)
        device.remove()
    }

    @Test("device JWS with a crit or b64 header, or of another kind (typ), are refused however well signed")
    func joseHeaders() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("jo")
            let (device, activated) = try await activateDevice(scenario, username: "jo")
            let activation = activated.activation
            let signer = try await device.authenticator.registry.signer(activation.deviceKeyLabel)
            let path = "/t/\(scenario.tenant)/device/history"
            func deviceToken(_ header: [String: Any]) throws -> String {
                let now = Int(Date().timeIntervalSince1970)
                let claims: [String: Any] = [
                    "sub": activation.id.rawValue, "aud": scenario.issuer, "htm": "GET", "htu": path, "iat": now, "exp": now + 60,
                    "jti": Secrets.randomToken(byteCount: 16),
                ]
                let input = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: .sortedKeys)) + "."
                    + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys))
                return input + "." + Base64URL.encode(try signer.es256Signature(for: Data(input.utf8)))
            }
            let good: [String: Any] = ["alg": "ES256", "typ": "tessera-device+jwt", "kid": activation.id.rawValue]
            let history = "\(server.baseURL)\(path)"
            let accepted = try await scenario.http.get(history, headers: ["Authorization": "Tessera-Device \(try deviceToken(good))"])
            #expect(accepted.status == 200, "\(accepted.text)")
            var critical = good
            critical["crit"] = ["urn:example:must-understand"]
            critical["urn:example:must-understand"] = true
            var unencoded = good
            unencoded["b64"] = false
            unencoded["crit"] = ["b64"]
            var proofType = good
            proofType["typ"] = "tessera-proof+jwt"
            var untyped = good
            untyped["typ"] = nil
            for header in [critical, unencoded, proofType, untyped] {
                let answer = try await scenario.http.get(history, headers: ["Authorization": "Tessera-Device \(try deviceToken(header))"])
                #expect(answer.status == 401, "\(header): \(answer.status) \(answer.text)")
            }
            // A proof is only a proof: the same claims under the device token's type are refused.
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            let now = Int(Date().timeIntervalSince1970)
            let claims = AuthenticationProofClaims(
                rid: information.requestID.rawValue, chal: information.challenge.rawValue, aud: information.audience,
                sub: activation.id.rawValue, comb: [.device], attrs: [], pin: nil, otp: nil, iat: now, exp: now + 60,
                jti: Secrets.randomToken(byteCount: 16))
            let mistyped = try CompactJWS.sign(
                payload: try WireCoding.encoder().encode(claims), header: JWSHeader(typ: "tessera-device+jwt", kid: activation.id.rawValue),
                signer: signer)
            let finish = try await scenario.http.postJSON(
                "\(scenario.issuer)/device/authentications/\(information.requestID.rawValue)/finish", ["proof": mistyped])
            #expect(finish.status == 400, "\(finish.text)")
            #expect(try await scenario.activations(username: "jo").first?.failedAttempts == 0)
            device.remove()
        }
    }

    @Test("the server's own tokens are accepted only as issued: a padded signature is another, unknown token")
    func paddedTokens() async throws {
        try await withServer(backchannelInterval: 1) { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(backchannelMode: "poll")
            try await scenario.createUser("pat")
            let (device, _) = try await activateDevice(scenario, username: "pat")
            let (login, code) = try await approvedLogin(scenario, service, device: device)
            let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
            let access = try #require(tokens["access_token"] as? String)
            let idToken = try #require(tokens["id_token"] as? String)
            func active(_ token: String) async throws -> Bool? {
                try await scenario.tokenRequest(["token": token], service: service, endpoint: "introspect").json()["active"] as? Bool
            }
            #expect(try await active(access) == true)
            #expect(try await active(access + "==") == false)
            #expect(try await active(access + "=") == false)
            let hinted = try await scenario.tokenRequest(
                ["scope": "openid", "id_token_hint": idToken + "="], service: service, endpoint: "bc-authorize")
            #expect(hinted.status == 400, "\(hinted.text)")
            #expect(try await scenario.tokenRequest(["scope": "openid", "id_token_hint": idToken], service: service, endpoint: "bc-authorize").status == 200)
            device.remove()
        }
    }

    @Test("a registration whose biometric key is its device key is refused")
    func biometricIsNotTheDeviceKey() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("bo")
            let url = try await scenario.invite("bo")
            let code = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)
            let key = SoftwareSigningKey()
            let jwk = key.publicJWK
            let wire = jwk
            let now = Int(Date().timeIntervalSince1970)
            let registration = ActivationRegistration(
                code: code, aud: scenario.issuer, deviceKey: wire, biometricKey: wire,
                pinKey: Base64URL.encode(Data(repeating: 7, count: 32)), totpSecret: nil, alias: nil, iat: now, exp: now + 60)
            let token = try CompactJWS.sign(
                payload: try WireCoding.encoder().encode(registration), header: JWSHeader(typ: "tessera-registration+jwt"), signer: key)
            let response = try await scenario.http.postJSON(
                "\(scenario.issuer)/device/activation/complete", ["registration": token, "biometric_registration": token])
            #expect(response.status == 400, "\(response.text)")
            #expect(response.text.contains("biometric key must differ"))
            #expect(try await scenario.activations(username: "bo").isEmpty)
        }
    }
}
