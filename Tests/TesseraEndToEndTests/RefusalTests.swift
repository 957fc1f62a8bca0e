import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraTesting
import TesseraTestSupport
import Testing

@Suite("Replays, expiry and OAuth refusals", .tags(.live), .timeLimit(.minutes(5)))
struct RefusalTests {
    @Test("a replayed proof is refused and changes nothing")
    func replayedProof() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("alice")
            let (device, _) = try await activateDevice(scenario, username: "alice")
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            // A failed attempt, then its proof sent again: the challenge is spent.
            _ = try #require(try await signAndFinish(information, device: device, factors: [.device, .pin], pin: "0000").lockout)
            let finish = try #require(device.transport.requests.last { $0.url.path.hasSuffix("/finish") })
            let replay = try await scenario.http.send("POST", finish.url.absoluteString, headers: ["Content-Type": "application/json"], body: finish.body)
            #expect(replay.status == 400)
            #expect(try replay.json()["error"] as? String == "invalid_grant")
            #expect(try await scenario.activations(username: "alice").first?.failedAttempts == 1, "a replay does not count")

            // A device token replayed on the claim endpoint is refused as well.
            let claim = try #require(device.transport.requests.last { $0.url.path.hasSuffix("/claim") })
            let replayedClaim = try await scenario.http.send("POST", claim.url.absoluteString, headers: claim.headers, body: claim.body)
            #expect(replayedClaim.status == 401)
            #expect(try replayedClaim.json()["error"] as? String == "invalid_token")
            device.remove()
        }
    }

    @Test("an expired request is refused to the device and reported to the browser")
    func expiredRequest() async throws {
        try await withServer(requestLifetime: 1) { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("bob")
            let (device, _) = try await activateDevice(scenario, username: "bob")
            let login = try await scenario.openLogin(service)
            try await Task.sleep(for: .seconds(2.1))
            do {
                _ = try await device.authenticator.start(url: login.authenticationURL)
                Issue.record("an expired request was claimed")
            } catch TesseraKitError.server(let status, let error, _) {
                #expect(status == 400)
                #expect(error == "expired_token")
            }
            #expect(try await scenario.status(login)["status"] as? String == "expired")
            let redirect = try await scenario.complete(login)
            #expect(redirect["error"] == "access_denied")
            #expect(redirect["code"] == nil)
            device.remove()
        }
    }

    @Test("an approved login the browser does not complete before its request expires is refused, not turned into a code")
    func approvedThenExpired() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("bob")
            let (device, _) = try await activateDevice(scenario, username: "bob")
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
            #expect(try await scenario.status(login)["status"] as? String == "approved")
            server.clock.advance(by: 301)  // past the request's five minutes
            #expect(try await scenario.status(login)["status"] as? String == "expired")
            let redirect = try await scenario.complete(login)
            #expect(redirect["error"] == "access_denied")
            #expect(redirect["code"] == nil)
            device.remove()
        }
    }

    @Test("a code works once; its reuse is refused and revokes the tokens it gave")
    func reusedCode() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("carol")
            let (device, _) = try await activateDevice(scenario, username: "carol")
            let (login, code) = try await approvedLogin(scenario, service, device: device)
            let first = try await scenario.redeem(code: code, service: service, verifier: login.verifier)
            #expect(first.status == 200)
            let refresh = try #require(try first.json()["refresh_token"] as? String)
            let second = try await scenario.redeem(code: code, service: service, verifier: login.verifier)
            #expect(second.status == 400)
            #expect(try second.json()["error"] as? String == "invalid_grant")
            let refreshed = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": refresh], service: service)
            #expect(refreshed.status == 400, "tokens from a reused code are revoked")
            device.remove()
        }
    }

    @Test("refresh tokens rotate; a reused one revokes the whole family")
    func refreshRotation() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("dave", attributes: ["email": "dave@example.com"])
            let (device, _) = try await activateDevice(scenario, username: "dave")
            let (login, code) = try await approvedLogin(scenario, service, device: device)
            let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
            let firstRefresh = try #require(tokens["refresh_token"] as? String)
            let rotated = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": firstRefresh], service: service)
            #expect(rotated.status == 200)
            let rotatedJSON = try rotated.json()
            let secondRefresh = try #require(rotatedJSON["refresh_token"] as? String)
            #expect(secondRefresh != firstRefresh)
            let claims = try await verifyIDToken(try #require(rotatedJSON["id_token"] as? String), scenario: scenario, clientID: service.clientID)
            #expect(claims["nonce"] == nil)
            let access = try #require(rotatedJSON["access_token"] as? String)
            #expect(try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(access)"]).status == 200)

            let reuse = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": firstRefresh], service: service)
            #expect(reuse.status == 400)
            #expect(try reuse.json()["error"] as? String == "invalid_grant")
            let afterReuse = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": secondRefresh], service: service)
            #expect(afterReuse.status == 400, "the reuse revoked the family")
            let userinfo = try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(access)"])
            #expect(userinfo.status == 401, "access tokens of a revoked family stop working")
            device.remove()
        }
    }

    @Test("a wrong redirect URI is refused on the page and at the token endpoint")
    func wrongRedirectURI() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            for bad in ["http://127.0.0.1:9/callback/", "http://127.0.0.1:9/callback?x=1", "http://evil.example/callback"] {
                let response = try await scenario.http.get(
                    "\(scenario.issuer)/authorize?response_type=code&scope=openid&client_id=\(service.clientID)&redirect_uri=\(TestHTTP.encode(bad))"
                )
                #expect(response.status == 400)
                #expect(response.header("Location") == nil, "never redirect to an unregistered URI")
                #expect(response.text.contains("not registered"))
            }
            try await scenario.createUser("erin")
            let (device, _) = try await activateDevice(scenario, username: "erin")
            let (login, code) = try await approvedLogin(scenario, service, device: device)
            let mismatch = try await scenario.redeem(code: code, service: service, verifier: login.verifier, redirectURI: "http://127.0.0.1:9/other")
            #expect(mismatch.status == 400)
            #expect(try mismatch.json()["error"] as? String == "invalid_grant")
            device.remove()
        }
    }

    @Test("PKCE: required for public clients, plain refused, verifier missing or wrong refused")
    func pkce() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let publicService = try await scenario.createService(isPublic: true)
            #expect(publicService.clientSecret == nil)
            let base = "\(scenario.issuer)/authorize?response_type=code&scope=openid&client_id=\(publicService.clientID)&redirect_uri=\(TestHTTP.encode(publicService.redirectURI))&state=s"
            let missing = try await scenario.http.get(base)
            #expect(missing.status == 302)
            #expect(missing.header("Location")?.contains("error=invalid_request") == true)
            #expect(missing.header("Location")?.contains("state=s") == true)
            let plain = try await scenario.http.get(base + "&code_challenge=abcdefghijabcdefghijabcdefghijabcdefghij123&code_challenge_method=plain")
            #expect(plain.header("Location")?.contains("error=invalid_request") == true)

            try await scenario.createUser("frank")
            let (device, _) = try await activateDevice(scenario, username: "frank")
            let (_, code) = try await approvedLogin(scenario, publicService, device: device)
            let noVerifier = try await scenario.redeem(code: code, service: publicService, verifier: nil)
            #expect(noVerifier.status == 400)
            #expect(try noVerifier.json()["error"] as? String == "invalid_grant")

            let (_, code2) = try await approvedLogin(scenario, publicService, device: device)
            let wrong = try await scenario.redeem(code: code2, service: publicService, verifier: PKCE.makeVerifier())
            #expect(try wrong.json()["error"] as? String == "invalid_grant")

            let (login3, code3) = try await approvedLogin(scenario, publicService, device: device)
            let right = try await scenario.redeem(code: code3, service: publicService, verifier: login3.verifier)
            #expect(right.status == 200)
            device.remove()
        }
    }

    @Test("client authentication: basic and post work, wrong secrets and unknown clients do not")
    func clientAuthentication() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("gina")
            let (device, _) = try await activateDevice(scenario, username: "gina")
            let (login, code) = try await approvedLogin(scenario, service, device: device)
            let post = try await scenario.http.postForm(
                "\(scenario.issuer)/token",
                [
                    "grant_type": "authorization_code", "code": code, "redirect_uri": service.redirectURI,
                    "code_verifier": login.verifier ?? "", "client_id": service.clientID,
                    "client_secret": service.clientSecret ?? "",
                ])
            #expect(post.status == 200, "\(post.text)")
            let wrongSecret = Scenario.Service(clientID: service.clientID, clientSecret: "wrong", redirectURI: service.redirectURI)
            let refused = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": "x"], service: wrongSecret)
            #expect(refused.status == 401)
            #expect(try refused.json()["error"] as? String == "invalid_client")
            let unknown = Scenario.Service(clientID: "nobody", clientSecret: "x", redirectURI: service.redirectURI)
            #expect(try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": "x"], service: unknown).status == 401)
            let grantType = try await scenario.tokenRequest(["grant_type": "password"], service: service)
            #expect(try grantType.json()["error"] as? String == "unsupported_grant_type")
            device.remove()
        }
    }

    @Test("malformed bodies, wrong types, unknown ids and garbage tokens get 4xx JSON errors")
    func badInput() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let http = scenario.http
            let admin = ["Authorization": "Bearer \(server.adminToken)", "Content-Type": "application/json"]
            let cases: [(String, String, [String: String], Data?, Int)] = [
                ("POST", "\(server.baseURL)/admin/tenants", admin, Data("{".utf8), 400),
                ("POST", "\(server.baseURL)/admin/tenants", admin, Data(#"{"name": 12}"#.utf8), 400),
                ("POST", "\(server.baseURL)/admin/tenants", admin, Data(#"{"name": "Bad Name"}"#.utf8), 400),
                ("POST", "\(server.baseURL)/admin/tenants", admin, Data(#"{"name": "x", "lockout": {"free_attempts": 9, "waits": [1]}}"#.utf8), 400),
                ("POST", "\(server.baseURL)/admin/tenants", ["Authorization": "Bearer wrong"], Data(#"{"name":"x"}"#.utf8), 401),
                ("POST", "\(server.baseURL)/admin/tenants/nope/users", admin, Data(#"{"username":"a"}"#.utf8), 404),
                ("POST", "\(server.baseURL)/admin/activations/unknown/unlock", admin, nil, 404),
                ("POST", "\(scenario.issuer)/device/activation/start", [:], Data(#"{"code":"garbage"}"#.utf8), 400),
                ("POST", "\(scenario.issuer)/device/activation/complete", [:], Data(#"{"registration":"a.b.c"}"#.utf8), 400),
                ("POST", "\(scenario.issuer)/device/authentications/x/claim", ["Authorization": "Tessera-Device garbage"], nil, 401),
                ("POST", "\(scenario.issuer)/device/authentications/x/finish", [:], Data(#"{"proof": 5}"#.utf8), 400),
                ("POST", "\(scenario.issuer)/token", ["Content-Type": "application/x-www-form-urlencoded"], Data("grant_type=%ZZ".utf8), 400),
                ("GET", "\(scenario.issuer)/userinfo", ["Authorization": "Bearer not.a.token"], nil, 401),
                ("GET", "\(server.baseURL)/t/unknown-tenant/jwks", [:], nil, 404),
                ("POST", "\(scenario.issuer)/device/activation/start", [:], Data(repeating: 0x20, count: 100_000), 413),
            ]
            for (method, url, headers, body, status) in cases {
                let response = try await http.send(method, url, headers: headers, body: body)
                #expect(response.status == status, "\(method) \(url): \(response.status) \(response.text)")
                let json = try? response.json()
                #expect(json?["error"] is String, "\(method) \(url) answers an OAuth-style error")
                #expect(json?["error_description"] is String)
            }
            // Nothing was written by any of them.
            let tenants = try await http.get("\(server.baseURL)/admin/tenants", headers: admin).json()
            #expect((tenants["tenants"] as? [Any])?.count == 1)
        }
    }

    @Test("an invitation works once and not after it expires")
    func invitations() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("hank")
            let url = try await scenario.invite("hank")
            let device = try TestDevice()
            _ = try await device.personalizer.activate(url: url, pin: "2468")
            let other = try TestDevice()
            await #expect(throws: TesseraKitError.self) { try await other.personalizer.activate(url: url, pin: "2468") }
            #expect(try await other.personalizer.activations().isEmpty, "a failed activation leaves nothing on the device")
            let short = try await scenario.invite("hank", ttl: 1)
            try await Task.sleep(for: .seconds(2.1))
            await #expect(throws: TesseraKitError.self) { try await other.personalizer.activate(url: short, pin: "2468") }
            #expect(try await scenario.activations(username: "hank").count == 1)
            device.remove()
            other.remove()
        }
    }
}
