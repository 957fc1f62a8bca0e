import Crypto
import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraTesting
import TesseraTestSupport
import Testing

/// OpenID Connect as off-the-shelf clients expect it: ID-token algorithms per service,
/// the authorization request's prompt, acr_values, login_hint, ui_locales and scopes,
/// RP-initiated logout and back-channel logout.
@Suite("OpenID Connect for off-the-shelf clients", .tags(.live, .interop), .timeLimit(.minutes(5)))
struct StandardsTests {
    /// Approves every authentication link a Python script prints, with device+pin.
    /// With `gematik`, the signed challenges go encrypted to its `puk_idp_enc`.
    static func approving(_ device: TestDevice, gematik: IDPClient.DiscoveryDocument? = nil) -> (AsyncStream<String>.Continuation, Task<Int, any Error>) {
        let (lines, continuation) = AsyncStream<String>.makeStream()
        let task = Task {
            var approved = 0
            var matchCode: String?
            for await line in lines {
                if line.hasPrefix("MATCH_CODE ") { matchCode = String(line.dropFirst("MATCH_CODE ".count)) }
                guard line.hasPrefix("AUTHENTICATION_URL ") else { continue }
                let url = try #require(URL(string: String(line.dropFirst("AUTHENTICATION_URL ".count))))
                var information = try await device.authenticator.start(url: url)
                // With number matching, the user picks the number the page showed.
                if !information.numberChoices.isEmpty { try information.pickNumber(try #require(matchCode)) }
                matchCode = nil
                if let gematik {
                    try information.sign(factor: DeviceFactor())
                    try information.sign(factor: PinFactor("2468"))
                    let result = try await IDPClient(issuer: URL(string: gematik.issuer)!, transport: device.transport)
                        .verify(information, authenticator: device.authenticator, using: gematik)
                    if result.isUserLogin { approved += 1 }
                } else if try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin {
                    approved += 1
                }
            }
            return approved
        }
        return (continuation, task)
    }

    /// Runs a relying-party script against the service while the device approves each
    /// login it starts; the script's exit must be 0 and its logins `logins`. Its RESULT.
    static func runRelyingParty(
        _ script: String, service: Scenario.Service, scenario: Scenario, device: TestDevice, logins: Int, extra: [String: String],
        gematik: IDPClient.DiscoveryDocument? = nil
    ) async throws -> [String: Any] {
        let (continuation, approvals) = approving(device, gematik: gematik)
        let environment = [
            "TESSERA_ISSUER": scenario.issuer, "CLIENT_ID": service.clientID, "CLIENT_SECRET": service.clientSecret ?? "",
            "REDIRECT_URI": service.redirectURI,
        ].merging(extra) { $1 }
        let result = try await Python.run(script, [], environment: environment, onLine: { continuation.yield($0) })
        continuation.finish()
        #expect(result.status == 0, "\(result.output)\n\(result.errors)")
        #expect(try await approvals.value == logins, "the device approved \(logins) logins")
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") })
        return try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
    }

    @Test("Authlib: RS256 and EdDSA ID tokens, prompt, acr_values, max_age, login_hint, ui_locales, scopes, PAR, logout and back-channel logout (joserfc)")
    func authlibStandards() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(attributes: ["email", "name"], redirectURI: "http://127.0.0.1:9/standards/callback")
            try await scenario.createUser("kim", attributes: ["email": "kim@example.com", "name": "Kim"])
            let (device, activation) = try await activateDevice(scenario, username: "kim")
            let object = try await Self.runRelyingParty(
                "oidc_standards.py", service: service, scenario: scenario, device: device, logins: 4,
                extra: [
                    "TESSERA_SERVER": server.baseURL, "TESSERA_ADMIN_TOKEN": scenario.adminToken, "TESSERA_TENANT": scenario.tenant,
                    "USERNAME": "kim", "ACTIVATION_ID": activation.activation.id.rawValue,
                ])
            // The retry waited for the first back-off (5 s), not for the receiver's next visit.
            let retry = try #require(object["retry_after"] as? Double)
            #expect(retry >= 4 && retry < 30, "retried after \(retry) s")
            // Every notice was delivered: none waits.
            let stats = try await scenario.http.get("\(server.baseURL)/admin/stats", headers: ["Authorization": "Bearer \(scenario.adminToken)"]).json()
            let tables = try #require(stats["tables"] as? [String: Any])
            #expect(tables["logout_notices"] as? Int == 0, "\(tables)")
        }
    }

    @Test("pyoidc (oic), unmodified, runs the code flow as a second relying party: RS256 and ES256 ID tokens it verifies itself", arguments: ["RS256", "ES256"])
    func pyoidcCodeFlow(algorithm: String) async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(attributes: ["email"], redirectURI: "http://127.0.0.1:9/pyoidc")
            let update = try await scenario.http.patchJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services/\(service.clientID)", ["id_token_signed_response_alg": algorithm],
                headers: ["Authorization": "Bearer \(scenario.adminToken)"])
            #expect(update.status == 200, "\(update.text)")
            try await scenario.createUser("oli", attributes: ["email": "oli@example.com"])
            let (device, _) = try await activateDevice(scenario, username: "oli")
            let object = try await Self.runRelyingParty(
                "oic_client.py", service: service, scenario: scenario, device: device, logins: 1, extra: ["ALGORITHM": algorithm])
            #expect((object["userinfo"] as? [String: Any])?["email"] as? String == "oli@example.com")
            #expect((object["id_token"] as? [String: Any])?["acr"] as? String == "urn:tessera:acr:device+pin")
        }
    }

    @Test(
        "DPoP with joserfc proofs: nonces, bound tokens at token, userinfo and introspection, replays and wrong proofs refused, public refresh tokens bound",
        arguments: [("ES256", true), ("EdDSA", true), ("RS256", false)])
    func dpop(algorithm: String, isPublic: Bool) async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(isPublic: isPublic, redirectURI: "http://127.0.0.1:9/dpop")
            try await scenario.createUser("dee")
            let (device, _) = try await activateDevice(scenario, username: "dee")
            let object = try await Self.runRelyingParty(
                "dpop_client.py", service: service, scenario: scenario, device: device, logins: 1, extra: ["ALGORITHM": algorithm])
            #expect(object["token_type"] as? String == "DPoP")
            // A service registered for DPoP-bound tokens gets none without a proof.
            let update = try await scenario.http.patchJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services/\(service.clientID)", ["dpop_bound_access_tokens": true],
                headers: ["Authorization": "Bearer \(scenario.adminToken)"])
            #expect(try update.json()["dpop_bound_access_tokens"] as? Bool == true)
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
            let code = try #require(try await scenario.complete(login)["code"])
            let refused = try await scenario.redeem(code: code, service: service, verifier: login.verifier)
            let refusal = try refused.json()["error"] as? String
            #expect(refused.status == 400 && refusal == "invalid_dpop_proof", "\(refused.text)")
        }
    }

    @Test("dynamic client registration: off unless the tenant takes it, initial access tokens spent once, RFC 7592 read, replace and delete; pyoidc signs in as the registered client")
    func dynamicRegistration() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = ["Authorization": "Bearer \(scenario.adminToken)"]
            let tenantURL = "\(server.baseURL)/admin/tenants/\(scenario.tenant)"
            let metadata: [String: Any] = [
                "client_name": "Registered app", "redirect_uris": ["http://127.0.0.1:9/registered"], "scope": "openid email",
            ]
            #expect(try await scenario.http.postJSON("\(scenario.issuer)/register", metadata).status == 404, "off by default")
            var discovery = try await scenario.http.get("\(scenario.issuer)/.well-known/openid-configuration").json()
            #expect(discovery["registration_endpoint"] == nil)
            #expect(try await scenario.http.patchJSON(tenantURL, ["dynamic_registration": true], headers: admin).status == 200)
            discovery = try await scenario.http.get("\(scenario.issuer)/.well-known/openid-configuration").json()
            #expect(discovery["registration_endpoint"] as? String == "\(scenario.issuer)/register")

            let issued = try await scenario.http.postJSON("\(tenantURL)/registration-tokens", ["uses": 1], headers: admin)
            #expect(issued.status == 201, "\(issued.text)")
            let token = try #require(try issued.json()["token"] as? String)
            let bearer = ["Authorization": "Bearer \(token)"]
            let anonymous = try await scenario.http.postJSON("\(scenario.issuer)/register", metadata)
            #expect(anonymous.status == 401 && anonymous.header("WWW-Authenticate")?.contains("invalid_token") == true)
            // Refusals spend no use of the token.
            let noRedirect = try await scenario.http.postJSON("\(scenario.issuer)/register", ["client_name": "x"], headers: bearer)
            #expect(try noRedirect.status == 400 && (noRedirect.json()["error"] as? String) == "invalid_redirect_uri")
            let fragment = try await scenario.http.postJSON(
                "\(scenario.issuer)/register", ["redirect_uris": ["https://app.example/cb#x"]], headers: bearer)
            #expect(try fragment.json()["error"] as? String == "invalid_redirect_uri")
            let loopback = try await scenario.http.postJSON(
                "\(scenario.issuer)/register", metadata.merging(["backchannel_logout_uri": "https://127.0.0.1/bcl"]) { $1 }, headers: bearer)
            #expect(try loopback.json()["error"] as? String == "invalid_client_metadata", "no loopback target for a registered client")
            let method = try await scenario.http.postJSON(
                "\(scenario.issuer)/register", metadata.merging(["token_endpoint_auth_method": "private_key_jwt"]) { $1 }, headers: bearer)
            #expect(try method.json()["error"] as? String == "invalid_client_metadata")

            let registered = try await scenario.http.postJSON("\(scenario.issuer)/register", metadata, headers: bearer)
            #expect(registered.status == 201 && registered.header("Cache-Control") == "no-store", "\(registered.text)")
            let client = try registered.json()
            let clientID = try #require(client["client_id"] as? String)
            let secret = try #require(client["client_secret"] as? String)
            let registrationToken = try #require(client["registration_access_token"] as? String)
            let clientURI = try #require(client["registration_client_uri"] as? String)
            #expect(clientURI == "\(scenario.issuer)/register/\(clientID)")
            #expect(client["id_token_signed_response_alg"] as? String == "RS256", "OpenID Registration's default")
            #expect(client["client_secret_expires_at"] as? Int == 0)
            let again = try await scenario.http.postJSON("\(scenario.issuer)/register", metadata, headers: bearer)
            #expect(again.status == 401, "the token had one use")

            // The registered client is a service like any other: pyoidc signs in with it.
            try await scenario.createUser("reg", attributes: ["email": "reg@example.com"])
            let (device, _) = try await activateDevice(scenario, username: "reg")
            let service = Scenario.Service(clientID: clientID, clientSecret: secret, redirectURI: "http://127.0.0.1:9/registered")
            let object = try await Self.runRelyingParty(
                "oic_client.py", service: service, scenario: scenario, device: device, logins: 1, extra: ["ALGORITHM": "RS256"])
            #expect((object["userinfo"] as? [String: Any])?["email"] as? String == "reg@example.com")

            // RFC 7592: read, replace, delete, each with the registration access token only.
            let managing = ["Authorization": "Bearer \(registrationToken)"]
            #expect(try await scenario.http.get(clientURI, headers: bearer).status == 401, "the initial token does not manage it")
            let read = try await scenario.http.get(clientURI, headers: managing)
            #expect(try read.status == 200 && (read.json()["client_secret"]) == nil, "\(read.text)")
            let replaced = try await scenario.http.send(
                "PUT", clientURI, headers: managing.merging(["Content-Type": "application/json"]) { $1 },
                body: try JSONSerialization.data(withJSONObject: [
                    "client_id": clientID, "redirect_uris": ["http://127.0.0.1:9/moved"], "id_token_signed_response_alg": "ES256",
                ]))
            #expect(try replaced.status == 200 && (replaced.json()["redirect_uris"] as? [String]) == ["http://127.0.0.1:9/moved"], "\(replaced.text)")
            let viewed = try await scenario.http.get("\(tenantURL)/services/\(clientID)", headers: admin).json()
            #expect(viewed["id_token_signed_response_alg"] as? String == "ES256")
            let audit = try await scenario.audit()
            #expect(audit.contains { $0.action == "service.register" && $0.actor.hasPrefix("registration:") == true })
            let deleted = try await scenario.http.send("DELETE", clientURI, headers: managing)
            #expect(deleted.status == 204)
            #expect(try await scenario.http.get(clientURI, headers: managing).status == 401)
            let gone = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": "x"], service: service)
            #expect(gone.status == 401, "the client is gone")
        }
    }

    @Test("the signed discovery document (gematik profile): the x5c certificate's key verifies it (joserfc, cryptography), 24 hours, the plain document's members")
    func signedDiscovery() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let result = try await Python.run("signed_discovery.py", [], environment: ["TESSERA_ISSUER": scenario.issuer])
            #expect(result.status == 0, "\(result.output)\n\(result.errors)")
            #expect(result.output.contains(#""typ": "JWT""#), "\(result.output)")
        }
    }

    @Test("the gematik profile's key_verifier: joserfc sends a token_key to puk_idp_enc and decrypts the tokens it gets back")
    func gematikTokenEncryption() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(redirectURI: "http://127.0.0.1:9/gematik")
            let update = try await scenario.http.patchJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services/\(service.clientID)", ["gematik_profile": true],
                headers: ["Authorization": "Bearer \(scenario.adminToken)"])
            #expect(try update.json()["gematik_profile"] as? Bool == true)
            try await scenario.createUser("gem")
            let (device, _) = try await activateDevice(scenario, username: "gem")
            let document = try await IDPClient(issuer: URL(string: scenario.issuer)!, transport: device.transport).loadDiscoveryDocument()
            let object = try await Self.runRelyingParty(
                "gematik_tokens.py", service: service, scenario: scenario, device: device, logins: 1, extra: [:], gematik: document)
            #expect(object["sub"] as? String != nil)
        }
    }

    @Test(
        "the gematik profile on the device: IDPClient loads the signed discovery, registers the device and answers challenges (also altVerify) as JWE to puk_idp_enc, and exchange decrypts its tokens"
    )
    func gematikDevice() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(
                policy: "device+pin,device+biometric", isPublic: true, redirectURI: "http://127.0.0.1:9/gematik-app")
            let update = try await scenario.http.patchJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services/\(service.clientID)", ["gematik_profile": true],
                headers: ["Authorization": "Bearer \(scenario.adminToken)"])
            #expect(update.status == 200)
            try await scenario.createUser("gem", attributes: ["email": "gem@example.org"])
            let device = try TestDevice()
            defer { device.remove() }
            let idp = IDPClient(issuer: URL(string: scenario.issuer)!, transport: device.transport)
            let document = try await idp.loadDiscoveryDocument()
            #expect(document.issuer == scenario.issuer && document.expiresAt > Date().addingTimeInterval(23 * 3600))
            let published = try await scenario.http.get("\(scenario.issuer)/puk_idp_enc").json()
            #expect(published["kid"] as? String == document.encryptionKeyID)

            // registerDevice: the registration data travels as a JWE.
            let activated = try await idp.registerDevice(
                url: try await scenario.invite("gem"), pin: "2468", alias: "gematik", enrollBiometric: true, personalizer: device.personalizer,
                using: document)
            #expect(Set(activated.activation.factors) == [.device, .pin, .biometric])
            let registration = try #require(device.transport.requests.last { $0.url.path.hasSuffix("/device/activation/complete") })
            #expect(registration.headers["Content-Type"] == "application/jose")
            #expect(String(decoding: registration.body ?? Data(), as: UTF8.self).split(separator: ".", omittingEmptySubsequences: false).count == 5)

            // A challenge signed but sent in the clear is refused and spends nothing; the same
            // answer as a JWE to puk_idp_enc signs in.
            let login = try await scenario.openLogin(service)
            var information = try await device.authenticator.start(url: login.authenticationURL)
            try information.sign(factor: DeviceFactor())
            try information.sign(factor: PinFactor("2468"))
            do {
                _ = try await device.authenticator.finish(information)
                Issue.record("a clear answer was taken")
            } catch TesseraKitError.server(let status, let error, let description) {
                #expect(status == 400 && error == "invalid_request" && description.contains("gematik"), "\(description)")
            }
            // Nor does a JWE to another key open.
            let stranger = P256.KeyAgreement.PrivateKey().publicKey
            do {
                _ = try await device.authenticator.finish(information, encryptingTo: stranger, keyID: nil)
                Issue.record("a JWE to another key was taken")
            } catch TesseraKitError.server(let status, _, let description) {
                #expect(status == 400 && description.contains("puk_idp_enc"), "\(description)")
            }
            #expect(try await idp.verify(information, authenticator: device.authenticator, using: document).isUserLogin)
            let code = try #require(try await scenario.complete(login)["code"])
            let tokens = try await idp.exchange(
                code: code, verifier: try #require(login.verifier), redirectURI: service.redirectURI, clientID: service.clientID, using: document)
            let claims = try await verifyIDToken(tokens.idToken, scenario: scenario, clientID: service.clientID)
            #expect(claims["amr"] as? [String] != nil && tokens.refreshToken != nil)

            // altVerify: the biometric alternative, also encrypted; without a biometric factor it is not sent.
            let second = try await scenario.openLogin(service)
            var again = try await device.authenticator.start(url: second.authenticationURL)
            try again.sign(factor: DeviceFactor())
            do {
                _ = try await idp.altVerify(again, authenticator: device.authenticator, using: document)
                Issue.record("altVerify without biometrics")
            } catch TesseraKitError.factorsDoNotMatchPolicy {}
            try again.sign(factor: try await device.authenticator.biometricFactor(for: again, reason: "gematik"))
            #expect(try await idp.altVerify(again, authenticator: device.authenticator, using: document).isUserLogin)
            let altCode = try #require(try await scenario.complete(second)["code"])
            let altTokens = try await idp.exchange(
                code: altCode, verifier: try #require(second.verifier), redirectURI: service.redirectURI, clientID: service.clientID, using: document)
            let altClaims = try await verifyIDToken(altTokens.idToken, scenario: scenario, clientID: service.clientID)
            #expect((altClaims["amr"] as? [String])?.contains("bio") == true)
        }
    }

    @Test("discovery announces what is built; the JWKS gains RS256 and EdDSA keys as services need them; each rotates on its own")
    func algorithmsAndKeys() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = ["Authorization": "Bearer \(scenario.adminToken)"]
            let discovery = try await scenario.http.get("\(scenario.issuer)/.well-known/openid-configuration").json()
            #expect(discovery["id_token_signing_alg_values_supported"] as? [String] == ["ES256", "RS256", "EdDSA"])
            #expect(discovery["end_session_endpoint"] as? String == "\(scenario.issuer)/logout")
            #expect(discovery["backchannel_logout_supported"] as? Bool == true)
            #expect(discovery["request_uri_parameter_supported"] as? Bool == false)
            #expect((discovery["ui_locales_supported"] as? [String])?.contains("de") == true)

            func jwks() async throws -> [[String: Any]] {
                try #require(try await scenario.http.get("\(scenario.issuer)/jwks").json()["keys"] as? [[String: Any]])
            }
            #expect(try await jwks().map { $0["kty"] as? String } == ["EC"], "a new tenant signs with ES256 only")
            // A service set to RS256: the tenant's RSA key is made then, before any token.
            let rsa = try await scenario.http.postJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services",
                ["name": "RSA", "redirect_uris": ["http://127.0.0.1:9/rsa"], "id_token_signed_response_alg": "RS256"], headers: admin)
            #expect(rsa.status == 201, "\(rsa.text)")
            #expect(try rsa.json()["id_token_signed_response_alg"] as? String == "RS256")
            let keys = try await jwks()
            let rsaKey = try #require(keys.first { $0["kty"] as? String == "RSA" })
            #expect(rsaKey["alg"] as? String == "RS256" && rsaKey["e"] as? String == "AQAB")
            #expect((rsaKey["n"] as? String)?.count == 342, "a 2048-bit modulus, base64url without padding")
            let bad = try await scenario.http.postJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services",
                ["name": "Bad", "redirect_uris": ["http://127.0.0.1:9/bad"], "id_token_signed_response_alg": "HS256"], headers: admin)
            #expect(bad.status == 400, "HS256 is refused: \(bad.text)")
            // Rotating RS256 leaves ES256 alone.
            let rotation = try await scenario.http.postJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/signing-keys", ["algorithm": "RS256"], headers: admin)
            #expect(rotation.status == 200 || rotation.status == 201, "\(rotation.text)")
            let listed = try #require(
                try await scenario.http.get("\(server.baseURL)/admin/tenants/\(scenario.tenant)/signing-keys", headers: admin).json()["keys"]
                    as? [[String: Any]])
            let active = listed.filter { $0["active"] as? Bool == true }.compactMap { $0["algorithm"] as? String }.sorted()
            #expect(active == ["ES256", "RS256"], "one active key per algorithm: \(listed)")
            #expect(listed.filter { $0["algorithm"] as? String == "RS256" }.count == 2, "the old RSA key stays published")
            let unknown = try await scenario.http.postJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/signing-keys", ["algorithm": "PS256"], headers: admin)
            #expect(unknown.status == 400)
        }
    }

    @Test("prompt, acr_values, login_hint, ui_locales and claim scopes on the authorization request")
    func authorizationParameters() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(attributes: ["email", "name", "employee_number"])
            try await scenario.createUser("lou", attributes: ["email": "lou@example.com", "name": "Lou", "employee_number": "7"])
            try await scenario.createUser("max", attributes: ["email": "max@example.com"])
            let (lou, _) = try await activateDevice(scenario, username: "lou")
            let (max, _) = try await activateDevice(scenario, username: "max")

            func refusal(_ extra: [String: String]) async throws -> [String: String] {
                var parameters = [
                    "response_type": "code", "client_id": service.clientID, "redirect_uri": service.redirectURI, "scope": "openid",
                    "state": "s1", "code_challenge": PKCE.challenge(forVerifier: PKCE.makeVerifier()), "code_challenge_method": "S256",
                ]
                for (key, value) in extra { parameters[key] = value }
                let response = try await scenario.http.get("\(scenario.issuer)/authorize?\(Scenario.query(parameters))")
                #expect(response.status == 302, "\(extra): \(response.status)")
                let location = try #require(response.header("Location").flatMap { URLComponents(string: $0) })
                var result: [String: String] = [:]
                for item in location.queryItems ?? [] { result[item.name] = item.value ?? "" }
                return result
            }
            #expect(try await refusal(["prompt": "none"])["error"] == "login_required")
            #expect(try await refusal(["prompt": "none consent"])["error"] == "invalid_request")
            #expect(try await refusal(["prompt": "sideways"])["error"] == "invalid_request")
            #expect(try await refusal(["acr_values": "urn:tessera:acr:device+otp"])["error"] == "unmet_authentication_requirements")

            // Another scheme's acr values are voluntary: the login goes ahead under the policy.
            let voluntary = try await scenario.openLogin(service, extra: ["acr_values": "urn:example:gold"])
            #expect(voluntary.page.contains("<html lang=\"en\">"))
            // A claim scope narrows the standard claims asked for; the service's own attributes stay.
            let narrowed = try await scenario.openLogin(service, extra: ["scope": "openid email", "ui_locales": "es de"])
            #expect(narrowed.page.contains("<html lang=\"de\">") && narrowed.page.contains("anmelden</h1>"))
            #expect(narrowed.page.contains("<li>email</li>") && narrowed.page.contains("<li>employee_number</li>"))
            #expect(!narrowed.page.contains("<li>name</li>"))
            let information = try await lou.authenticator.start(url: narrowed.authenticationURL)
            #expect(information.requestedAttributes.map(\.name) == ["email", "employee_number"])

            // login_hint: only the named user's device may take the request up.
            let hinted = try await scenario.openLogin(service, extra: ["login_hint": "lou", "acr_values": "urn:tessera:acr:device+pin"])
            await #expect(throws: (any Error).self, "max's device cannot answer lou's request") {
                _ = try await max.authenticator.start(url: hinted.authenticationURL)
            }
            let claimed = try await lou.authenticator.start(url: hinted.authenticationURL)
            // acr_values narrowed the policy to device+pin.
            #expect(claimed.requestedAuthenticators.map { Set($0) } == [[.device, .pin]])
            #expect(try await signAndFinish(claimed, device: lou, factors: [.device, .pin]).isUserLogin)
            let code = try #require(try await scenario.complete(hinted)["code"])
            let tokens = try await scenario.redeem(code: code, service: service, verifier: hinted.verifier).json()
            let claims = try decodeJWTPayload(try #require(tokens["id_token"] as? String))
            #expect(claims["acr"] as? String == "urn:tessera:acr:device+pin")
            #expect(claims["email"] as? String == "lou@example.com" && claims["name"] as? String == "Lou", "scope openid: as registered")
        }
    }

    @Test("PAR: a pushed request signs in once; its request_uri is single use, bound to its client, and refused when unknown")
    func pushedRequests() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            let other = try await scenario.createService(name: "Other")
            try await scenario.createUser("pat")
            let (device, _) = try await activateDevice(scenario, username: "pat")
            let verifier = PKCE.makeVerifier()
            let parameters = [
                "response_type": "code", "client_id": service.clientID, "redirect_uri": service.redirectURI, "scope": "openid",
                "state": "pushed", "nonce": "n1", "code_challenge": PKCE.challenge(forVerifier: verifier), "code_challenge_method": "S256",
            ]
            func push(_ fields: [String: String], as client: Scenario.Service) async throws -> TestHTTP.Response {
                try await scenario.tokenRequest(fields, service: client, endpoint: "par")
            }
            #expect(try await push(parameters.merging(["prompt": "none"]) { $1 }, as: service).json()["error"] as? String == "login_required")
            #expect(try await push(parameters, as: other).status == 401, "client_id names another client than the one authenticated")
            #expect(try await push(parameters.merging(["request_uri": "urn:x"]) { $1 }, as: service).status == 400)
            let pushed = try await push(parameters, as: service)
            #expect(pushed.status == 201 && pushed.header("Cache-Control") == "no-store", "\(pushed.status) \(pushed.text)")
            let requestURI = try #require(try pushed.json()["request_uri"] as? String)
            // Another client cannot use it, and the attempt spends it.
            let stolen = try await scenario.http.get(
                "\(scenario.issuer)/authorize?\(Scenario.query(["client_id": other.clientID, "request_uri": requestURI]))")
            #expect(stolen.status == 400 && stolen.header("Location") == nil)
            let again = try await push(parameters, as: service)
            let uri = try #require(try again.json()["request_uri"] as? String)
            let login = try await scenario.openLogin(service, pkce: false, extra: ["request_uri": uri])
            let information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
            let completion = try await scenario.complete(login)
            #expect(completion["state"] == "pushed", "the pushed state, not the query's")
            let tokens = try await scenario.redeem(code: try #require(completion["code"]), service: service, verifier: verifier)
            #expect(tokens.status == 200, "\(tokens.text)")
            let replay = try await scenario.http.get("\(scenario.issuer)/authorize?\(Scenario.query(["client_id": service.clientID, "request_uri": uri]))")
            #expect(replay.status == 400, "a request_uri works once")
            let unknown = try await scenario.http.get(
                "\(scenario.issuer)/authorize?\(Scenario.query(["client_id": service.clientID, "request_uri": "urn:ietf:params:oauth:request_uri:nope"]))")
            #expect(unknown.status == 400)
        }
    }

    @Test("RP-initiated logout: exact post-logout addresses, hints checked, the session and the device's single sign-on end; notices only where asked")
    func logout() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = ["Authorization": "Bearer \(scenario.adminToken)"]
            let service = try await scenario.createService()
            try await scenario.createUser("ned")
            let (device, _) = try await activateDevice(scenario, username: "ned")
            let update = try await scenario.http.patchJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services/\(service.clientID)",
                ["post_logout_redirect_uris": ["http://127.0.0.1:9/bye"]], headers: admin)
            #expect(update.status == 200, "\(update.text)")
            let bad = try await scenario.http.patchJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services/\(service.clientID)",
                ["backchannel_logout_uri": "http://example.com/bcl"], headers: admin)
            #expect(bad.status == 400, "plain http off loopback is refused")

            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
            let code = try #require(try await scenario.complete(login)["code"])
            let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
            let idToken = try #require(tokens["id_token"] as? String)

            // Refusals change nothing: the session lives on.
            for (parameters, why) in [
                (["id_token_hint": idToken, "post_logout_redirect_uri": "http://127.0.0.1:9/bye/"], "an address not registered"),
                (["id_token_hint": String(idToken.dropLast(2)), "post_logout_redirect_uri": "http://127.0.0.1:9/bye"], "a bad signature"),
                (["post_logout_redirect_uri": "http://127.0.0.1:9/bye"], "no hint and no client"),
                (["id_token_hint": idToken, "client_id": "someone-else"], "another client"),
            ] {
                let answer = try await scenario.http.get("\(scenario.issuer)/logout?\(Scenario.query(parameters))")
                #expect(answer.status == 400 && answer.header("Location") == nil, "\(why): \(answer.status)")
            }
            let introspected = try await scenario.tokenRequest(["token": try #require(tokens["access_token"] as? String)], service: service, endpoint: "introspect").json()
            #expect(introspected["active"] as? Bool == true)

            let bye = try await scenario.http.get(
                "\(scenario.issuer)/logout?\(Scenario.query(["id_token_hint": idToken, "post_logout_redirect_uri": "http://127.0.0.1:9/bye", "state": "x y"]))")
            #expect(bye.status == 302 && bye.header("Location") == "http://127.0.0.1:9/bye?state=x%20y", "\(bye.status) \(bye.header("Location") ?? "")")
            let after = try await scenario.tokenRequest(["token": try #require(tokens["access_token"] as? String)], service: service, endpoint: "introspect").json()
            #expect(after["active"] as? Bool == false, "the session ended")
            // Again: nothing left to end; the page says so in the asked language without going anywhere.
            let page = try await scenario.http.get("\(scenario.issuer)/logout?\(Scenario.query(["id_token_hint": idToken, "ui_locales": "de"]))")
            #expect(page.status == 200 && page.text.contains("Abgemeldet"))
            // The service has no back-channel logout URI: no notice was written.
            let stats = try await scenario.http.get("\(server.baseURL)/admin/stats", headers: admin).json()
            #expect((stats["tables"] as? [String: Any])?["logout_notices"] as? Int == 0)
        }
    }
}

/// The claims of a compact JWS, unverified (the tests that verify use joserfc or JWKS).
func decodeJWTPayload(_ token: String) throws -> [String: Any] {
    let parts = token.split(separator: ".")
    guard parts.count == 3, let data = Base64URL.decode(String(parts[1])),
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { throw TestSupportError("not a JWT") }
    return object
}
