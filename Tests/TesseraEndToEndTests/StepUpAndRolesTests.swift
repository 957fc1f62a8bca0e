import Foundation
import TesseraCore
import TesseraCrypto
import TesseraTesting
import TesseraTestSupport
import Testing
@testable import TesseraKit

/// What the app learns from a login (XignSys's role and MappedId, the confirmed
/// attributes) and the step-up answered on the phone itself (VeridiumID's
/// `authenticateWith(profile:sessionId)` and its identity token).
@Suite("Step-up on the app, roles, pairwise subjects", .tags(.live), .timeLimit(.minutes(5)))
struct StepUpAndRolesTests {
    static let grantType = "urn:openid:params:grant-type:ciba"

    /// A service made through the admin API with the settings of this suite.
    func createService(_ scenario: Scenario, _ settings: [String: Any]) async throws -> Scenario.Service {
        var body: [String: Any] = [
            "name": "Bank", "redirect_uris": ["http://127.0.0.1:9/callback"], "policy": "device+pin,device+biometric",
            "attributes": ["email"], "number_matching": false,
        ]
        for (key, value) in settings { body[key] = value }
        let response = try await scenario.http.postJSON(
            "\(scenario.baseURL)/admin/tenants/\(scenario.tenant)/services", body, headers: ["Authorization": "Bearer \(scenario.adminToken)"])
        #expect(response.status == 201, "\(response.text)")
        let json = try response.json()
        return Scenario.Service(
            clientID: try #require(json["client_id"] as? String), clientSecret: json["client_secret"] as? String,
            redirectURI: "http://127.0.0.1:9/callback")
    }

    func startStepUp(_ scenario: Scenario, _ service: Scenario.Service, _ hint: [String: String]) async throws -> String {
        var form = ["scope": "openid", "binding_message": "Pay 20 EUR"]
        for (key, value) in hint { form[key] = value }
        let started = try await scenario.tokenRequest(form, service: service, endpoint: "bc-authorize")
        #expect(started.status == 200, "\(started.text)")
        return try #require(try started.json()["auth_req_id"] as? String)
    }

    @Test("authenticate(sessionID:) answers a step-up by the id the app's server got, returns the identity token, and reports each status")
    func stepUpOnTheApp() async throws {
        try await withServer(backchannelInterval: 1) { server in
            let scenario = try await Scenario.make(on: server)
            let bank = try await createService(
                scenario, ["backchannel_token_delivery_mode": "poll", "app_identity_token": true, "roles": [["name": "everyday", "policy": "device+pin"]]])
            let plain = try await createService(scenario, ["backchannel_token_delivery_mode": "poll", "name": "Shop"])
            try await scenario.createUser("vera", attributes: ["email": "vera@example.com"])
            let (device, _) = try await activateDevice(scenario, username: "vera")
            let (second, _) = try await activateDevice(scenario, username: "vera")

            // The app's server started the step-up and handed its id to the app.
            let id = try await startStepUp(scenario, bank, ["login_hint": "vera"])
            guard case .sign(let information) = try await device.authenticator.authenticate(sessionID: id) else {
                Issue.record("a waiting request is to be signed")
                return
            }
            #expect(information.requestID.rawValue == id && information.bindingMessage == "Pay 20 EUR")
            // The user's other device now sees it taken up.
            guard case .ended(.ongoingOnAnotherDevice) = try await second.authenticator.authenticate(sessionID: id) else {
                Issue.record("another device sees the request taken")
                return
            }
            guard case .userLogin(let result) = try await signAndFinish(information, device: device, factors: [.device, .pin]) else {
                Issue.record("a step-up ends in userLogin")
                return
            }
            #expect(result.role == "everyday")
            #expect(result.attributes == ["email": "vera@example.com"])
            // The identity token verifies offline against the JWKS and names the request.
            let token = try #require(result.identityToken, "the service allows the app an identity token")
            let claims = try await verifyIDToken(token, scenario: scenario, clientID: bank.clientID)
            #expect(claims["auth_req_id"] as? String == id)
            #expect(claims["sub"] as? String == result.subject)
            #expect(claims["acr"] as? String == "urn:tessera:acr:device+pin" && claims["role"] as? String == "everyday")
            #expect(claims["nonce"] == nil && claims["email"] as? String == "vera@example.com")
            // The service's own tokens say the same.
            let tokens = try await scenario.tokenRequest(["grant_type": Self.grantType, "auth_req_id": id], service: bank)
            #expect(tokens.status == 200, "\(tokens.text)")
            let idToken = try await verifyIDToken(try #require(try tokens.json()["id_token"] as? String), scenario: scenario, clientID: bank.clientID)
            #expect(idToken["sub"] as? String == claims["sub"] as? String && idToken["role"] as? String == "everyday")
            // Answered: every later look says so.
            guard case .ended(.authenticated) = try await device.authenticator.authenticate(sessionID: id) else {
                Issue.record("an approved request reads authenticated")
                return
            }

            // Declined on the phone: canceled. A service without the setting gives no token.
            let declined = try await startStepUp(scenario, plain, ["login_hint": "vera"])
            guard case .sign(let toDeny) = try await device.authenticator.authenticate(sessionID: declined) else {
                Issue.record("a waiting request is to be signed")
                return
            }
            try await device.authenticator.deny(toDeny)
            guard case .ended(.canceled) = try await device.authenticator.authenticate(sessionID: declined) else {
                Issue.record("a denied request reads canceled")
                return
            }
            let other = try await startStepUp(scenario, plain, ["login_hint": "vera"])
            guard case .sign(let shop) = try await device.authenticator.authenticate(sessionID: other),
                case .userLogin(let shopResult) = try await signAndFinish(shop, device: device, factors: [.device, .pin])
            else {
                Issue.record("the shop's step-up logs in")
                return
            }
            #expect(shopResult.identityToken == nil && shopResult.role == nil)

            // Ids nobody knows, or that are not ids at all.
            await #expect(throws: TesseraKitError.self) { _ = try await device.authenticator.authenticate(sessionID: "unknown-request") }
            await #expect(throws: TesseraKitError.self) { _ = try await device.authenticator.authenticate(sessionID: "../pending") }
            await #expect(throws: TesseraKitError.self) {
                _ = try await device.authenticator.authenticate(sessionID: id, issuer: "https://other.example.com/t/x")
            }
        }
    }

    @Test("roles and pairwise subjects: the result and the ID token name the role; a pairwise service sees its own stable sub everywhere")
    func rolesAndPairwise() async throws {
        try await withServer(backchannelInterval: 1) { server in
            let scenario = try await Scenario.make(on: server)
            let admin = ["Authorization": "Bearer \(scenario.adminToken)", "Content-Type": "application/json"]
            // Roles must stay within the policy; subject types are public or pairwise.
            for bad: [String: Any] in [
                ["roles": [["name": "strong", "policy": "device+pin+otp"]]], ["roles": [["name": "a b", "policy": "device+pin"]]],
                ["roles": [["name": "x", "policy": "device+pin"], ["name": "x", "policy": "device+biometric"]]], ["subject_type": "secret"],
            ] {
                var body: [String: Any] = ["name": "Bad", "redirect_uris": ["http://127.0.0.1:9/callback"], "policy": "device+pin,device+biometric"]
                for (key, value) in bad { body[key] = value }
                let refused = try await scenario.http.postJSON("\(scenario.baseURL)/admin/tenants/\(scenario.tenant)/services", body, headers: admin)
                #expect(refused.status == 400, "\(bad): \(refused.text)")
            }
            let roles: [[String: String]] = [["name": "pin", "policy": "device+pin"], ["name": "biometric", "policy": "device+biometric"]]
            let first = try await createService(
                scenario, ["subject_type": "pairwise", "roles": roles, "backchannel_token_delivery_mode": "poll"])
            let second = try await createService(scenario, ["subject_type": "pairwise", "name": "Other"])
            let open = try await createService(scenario, ["name": "Public"])
            try await scenario.createUser("pia", attributes: ["email": "pia@example.com"])
            let (device, activated) = try await activateDevice(scenario, username: "pia", biometric: true)
            let userID = try #require(try await scenario.http.get(
                "\(scenario.baseURL)/admin/tenants/\(scenario.tenant)/users?search=pia", headers: admin).json()["users"] as? [[String: Any]])
                .first?["id"] as? String

            func browserLogin(_ service: Scenario.Service, _ factors: [FactorType]) async throws -> (UserLoginResult, [String: Any], String) {
                let login = try await scenario.openLogin(service)
                let information = try await device.authenticator.start(url: login.authenticationURL)
                guard case .userLogin(let result) = try await signAndFinish(information, device: device, factors: factors) else {
                    throw TestSupportError("not a user login")
                }
                let code = try #require(try await scenario.complete(login)["code"])
                let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
                let claims = try await verifyIDToken(try #require(tokens["id_token"] as? String), scenario: scenario, clientID: service.clientID)
                return (result, claims, try #require(tokens["access_token"] as? String))
            }

            let (viaPin, pinClaims, access) = try await browserLogin(first, [.device, .pin])
            #expect(viaPin.role == "pin" && pinClaims["role"] as? String == "pin")
            let (viaBiometric, biometricClaims, _) = try await browserLogin(first, [.device, .biometric])
            #expect(viaBiometric.role == "biometric" && biometricClaims["role"] as? String == "biometric")
            // Pairwise: stable for one service, different for another, never the user's id.
            let pairwise = try #require(pinClaims["sub"] as? String)
            #expect(biometricClaims["sub"] as? String == pairwise && viaPin.subject == pairwise && pairwise != userID)
            let (_, otherClaims, _) = try await browserLogin(second, [.device, .pin])
            #expect(otherClaims["sub"] as? String != pairwise && otherClaims["sub"] as? String != userID)
            let (openResult, openClaims, _) = try await browserLogin(open, [.device, .pin])
            #expect(openClaims["sub"] as? String == userID && openResult.subject == userID && openClaims["role"] == nil)
            // userinfo and introspection agree with the ID token.
            let info = try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(access)"]).json()
            #expect(info["sub"] as? String == pairwise && info["email"] as? String == "pia@example.com")
            let introspected = try await scenario.tokenRequest(["token": access], service: first, endpoint: "introspect").json()
            #expect(introspected["active"] as? Bool == true && introspected["sub"] as? String == pairwise)
            // CIBA with the pairwise ID token as the hint reaches the same user.
            let hinted = try await startStepUp(scenario, first, ["id_token_hint": try makeHint(scenario, first, device: device)])
            guard case .sign = try await device.authenticator.authenticate(sessionID: hinted) else {
                Issue.record("the hinted request reaches the user's device")
                return
            }

            // An in-app login's result carries the role, the pairwise id and the confirmed attributes.
            let verifier = PKCE.makeVerifier()
            let inApp = try await device.authenticator.fetchInAppAuthenticationInitializationData(
                InAppAuthenticationRequest(clientID: first.clientID, redirectURI: first.redirectURI, codeChallenge: PKCE.challenge(forVerifier: verifier)))
            guard case .serviceLogin(let service) = try await signAndFinish(inApp, device: device, factors: [.device, .pin]) else {
                Issue.record("an in-app login ends in serviceLogin")
                return
            }
            #expect(service.role == "pin" && service.subject == pairwise && service.attributes == ["email": "pia@example.com"])
            #expect(activated.activation.issuer == scenario.issuer)

            // Turning pairwise off and on again keeps the service's identifiers.
            let off = try await scenario.http.send(
                "PATCH", "\(scenario.baseURL)/admin/tenants/\(scenario.tenant)/services/\(first.clientID)", headers: admin,
                body: try JSONSerialization.data(withJSONObject: ["subject_type": "public", "roles": NSNull()]))
            let offRoles = try off.json()["roles"] as? [Any]
            #expect(off.status == 200 && offRoles?.isEmpty == true, "\(off.text)")
            let (publicAgain, _, _) = try await browserLogin(first, [.device, .pin])
            #expect(publicAgain.subject == userID && publicAgain.role == nil)
            _ = try await scenario.http.send(
                "PATCH", "\(scenario.baseURL)/admin/tenants/\(scenario.tenant)/services/\(first.clientID)", headers: admin,
                body: try JSONSerialization.data(withJSONObject: ["subject_type": "pairwise"]))
            let (pairwiseAgain, _, _) = try await browserLogin(first, [.device, .pin])
            #expect(pairwiseAgain.subject == pairwise)
        }
    }

    @Test("tessera admin service create and update set roles, the subject type and the app's identity token")
    func commandLine() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let environment = ["TESSERA_SERVER": scenario.baseURL, "TESSERA_ADMIN_TOKEN": scenario.adminToken]
            let created = try await tessera(
                [
                    "admin", "service", "create", "--tenant", scenario.tenant, "--name", "Bank", "--redirect-uri", "https://bank.example/cb",
                    "--role", "everyday=device+pin", "--role", "strong=device+biometric", "--subject-type", "pairwise",
                    "--app-identity-token", "--json",
                ], environment: environment)
            #expect(created.0 == 0, "\(created.2)")
            let roles = try #require(created.1["roles"] as? [[String: String]])
            #expect(roles.map { $0["name"] ?? "" } == ["everyday", "strong"] && created.1["subject_type"] as? String == "pairwise")
            #expect(created.1["app_identity_token"] as? Bool == true)
            let clientID = try #require(created.1["client_id"] as? String)
            let bad = try await tessera(
                ["admin", "service", "update", "--tenant", scenario.tenant, clientID, "--role", "everyday"], environment: environment)
            #expect(bad.0 != 0)
            let outside = try await tessera(
                ["admin", "service", "update", "--tenant", scenario.tenant, clientID, "--role", "x=device+otp"], environment: environment)
            #expect(outside.0 != 0 && outside.2.contains("policy"), "\(outside.2)")
            let updated = try await tessera(
                ["admin", "service", "update", "--tenant", scenario.tenant, clientID, "--no-roles", "--subject-type", "public", "--no-app-identity-token"],
                environment: environment)
            #expect(updated.0 == 0 && updated.2.contains("subject_type: public") && !updated.2.contains("roles:"), "\(updated.2)")
        }
    }

    /// An ID token of the service for the device's user, to hint a backchannel request with.
    func makeHint(_ scenario: Scenario, _ service: Scenario.Service, device: TestDevice) async throws -> String {
        let login = try await scenario.openLogin(service)
        let information = try await device.authenticator.start(url: login.authenticationURL)
        _ = try await signAndFinish(information, device: device, factors: [.device, .pin])
        let code = try #require(try await scenario.complete(login)["code"])
        return try #require(try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()["id_token"] as? String)
    }
}
