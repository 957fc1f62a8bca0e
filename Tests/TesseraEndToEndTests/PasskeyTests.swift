import Foundation
import Synchronization
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraServer
import TesseraTesting
import TesseraTestSupport
import Testing

/// Passkeys (WebAuthn) in the browser: registered from invitations, signing in through
/// /authorize, refused when anything is off, removed by an operator. The authenticators
/// and the relying-party client are outside the project (Tests/interop/passkey_client.py:
/// fido2's CBOR and COSE, cryptography's keys, soft-webauthn, Authlib, joserfc).
@Suite("Passkeys", .tags(.live, .interop), .timeLimit(.minutes(5)))
struct PasskeyTests {
    /// A server whose public URL is `http://localhost:…`: WebAuthn takes no IP address as RP ID.
    static func withPasskeyServer<T>(_ body: (TestServer) async throws -> T) async throws -> T {
        try await withServer(configure: { $0.publicURL = "http://localhost:\($0.port)" }, body)
    }

    @Test("register from invitations, sign in through /authorize, the refusals, and removal (outside authenticators, Authlib, joserfc)")
    func passkeysWithOutsideClients() async throws {
        try await Self.withPasskeyServer { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("wanda", attributes: ["email": "wanda@example.com"])
            let service = try await scenario.createService(policy: "securitykey,device+pin")
            let deviceOnly = try await scenario.createService(policy: "device+pin")
            var codes: [String] = []
            for _ in 0..<3 {
                let link = try await scenario.invite("wanda")
                codes.append(try #require(URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value))
            }
            let users = try await scenario.http.get(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/users?username=wanda", headers: ["Authorization": "Bearer \(server.adminToken)"]
            ).json()
            let userID = try #require((users["users"] as? [[String: Any]])?.first?["id"] as? String)
            let result = try await Python.run(
                "passkey_client.py", [],
                environment: [
                    "TESSERA_ISSUER": scenario.issuer, "ORIGIN": server.baseURL, "CLIENT_ID": service.clientID,
                    "CLIENT_SECRET": service.clientSecret ?? "", "REDIRECT_URI": service.redirectURI, "OTHER_CLIENT_ID": deviceOnly.clientID,
                    "ADMIN_BASE": server.baseURL, "ADMIN_TOKEN": server.adminToken, "TENANT": scenario.tenant, "USER_ID": userID,
                    "INVITATIONS": codes.joined(separator: " "),
                ])
            #expect(result.status == 0, "\(result.errors)\n\(result.output.suffix(3000))")
            let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
            #expect((object["refusals"] as? [String])?.count == 17)

            // The audit log has the three enrolments (by the invited user) and the removal (by the admin).
            let audit = try await scenario.audit()
            let enrolments = audit.filter { $0.action == "securitykey.enrol" }
            #expect(enrolments.count == 3)
            #expect(enrolments.allSatisfy { $0.actor == "user:\(userID)" })
            let removal = try #require(audit.first { $0.action == "securitykey.remove" })
            #expect(removal.actor == "admin")
            #expect(removal.details.additionalProperties["sessions_ended"] == "1")
            // Two keys are left; the user's detail lists them.
            let detail = try await scenario.http.get(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/users/\(userID)", headers: ["Authorization": "Bearer \(server.adminToken)"]
            ).json()
            #expect((detail["security_keys"] as? [[String: Any]])?.count == 2)

            // The command line lists them (the blocked one says so) and removes the blocked one.
            let common = ["--server", server.baseURL, "--token", server.adminToken, "--tenant", scenario.tenant, "--username", "wanda"]
            let listed = try await Program.run(tesseraBinary, ["admin", "securitykey", "list"] + common)
            #expect(listed.status == 0, "\(listed.errors)")
            let lines = listed.output.split(separator: "\n")
            #expect(lines.count == 2)
            let blocked = try #require(lines.first { $0.contains("BLOCKED") })
            #expect(blocked.contains("EdDSA"))
            let blockedID = String(blocked.split(separator: "\t")[0])
            let (status, answer, output) = try await tessera(["admin", "securitykey", "remove", "--json"] + common + [blockedID])
            #expect(status == 0, "\(output)")
            #expect(answer["removed"] as? String == blockedID)
            let (again, _, _) = try await tessera(["admin", "securitykey", "remove"] + common + [blockedID])
            #expect(again != 0, "a removed key is gone")
        }
    }

    /// Chromium's virtual authenticator through the pages: an invitation's page registers
    /// a passkey, the login page signs in with it, the account page (signed in with a
    /// device) adds a second and removes the first, an operator removes the second in the
    /// console, and the login page refuses it (Tests/interop/passkey_browser.py).
    @Test("invitation page, login page, account page, console and removal in Debian's Chromium with a virtual authenticator")
    func passkeysInBrowser() async throws {
        try await Self.withPasskeyServer { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("vera")
            let (phone, _) = try await activateDevice(scenario, username: "vera")
            let service = try await scenario.createService(policy: "securitykey,device+pin")
            let invitation = try await scenario.invite("vera")
            // A console operator (the operators' tenant, its user and device) who removes a key on the user's page.
            let added = try await scenario.http.postJSON(
                "\(server.baseURL)/admin/console-users", ["username": "otto", "role": "helpdesk"],
                headers: ["Authorization": "Bearer \(server.adminToken)"])
            #expect(added.status == 201, "\(added.text)")
            let operatorDevice = try TestDevice()
            _ = try await operatorDevice.personalizer.activate(
                url: try #require(URL(string: try added.json()["url"] as? String ?? "")), pin: "2468", alias: "otto", enrollBiometric: false,
                enrollOTP: false)
            let users = try await scenario.http.get(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/users?username=vera", headers: ["Authorization": "Bearer \(server.adminToken)"]
            ).json()
            let userID = try #require((users["users"] as? [[String: Any]])?.first?["id"] as? String)
            let (lines, continuation) = AsyncStream<String>.makeStream()
            let approvals = Task { () -> Int in
                var approved = 0
                for await line in lines {
                    let parts = line.split(separator: " ").map(String.init)
                    guard parts.count >= 4, parts[0] == "SCAN", let link = URL(string: parts[2]) else { continue }
                    let device = parts[1] == "operator" ? operatorDevice : phone
                    var information = try await device.authenticator.start(url: link)
                    if parts[3] != "none" { try information.pickNumber(parts[3]) }
                    if try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin { approved += 1 }
                }
                return approved
            }
            let result = try await Python.run(
                "passkey_browser.py", [],
                environment: [
                    "TESSERA_ISSUER": scenario.issuer, "CLIENT_ID": service.clientID, "CLIENT_SECRET": service.clientSecret ?? "",
                    "REDIRECT_URI": service.redirectURI, "INVITATION_URL": invitation.absoluteString, "ADMIN_BASE": server.baseURL,
                    "ADMIN_TOKEN": server.adminToken, "TENANT": scenario.tenant, "USER_ID": userID,
                ],
                timeout: .seconds(240), onLine: { continuation.yield($0) })
            continuation.finish()
            #expect(try await approvals.value == 2, "the devices approved the account page's and the console's sign-ins")
            #expect(result.status == 0, "\(result.errors)\n\(result.output.suffix(3000))")
            let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
            #expect((object["claims"] as? [String: Any])?["sub"] as? String == userID)
            // Chromium offers conditional mediation: the login page's autofill request signed in.
            #expect(object["conditional_mediation"] as? Bool == true)
            #expect((object["conditional"] as? [Bool])?.contains(true) == true, "\(object)")
            // The account page's removal is audited with the device that signed in.
            let audit = try await scenario.audit()
            let removals = audit.filter { $0.action == "securitykey.remove" }
            #expect(Set(removals.compactMap { $0.details.additionalProperties["via"] }) == ["account_page", "admin"])
            #expect(removals.contains { $0.actor.hasPrefix("activation:") == true })
            // The console's removal is the operator's (the admin API's path, with the operator as actor).
            #expect(removals.contains { $0.actor == "operator:otto" })
            phone.remove()
            operatorDevice.remove()
        }
    }

    /// A security key as a device's factor: enrolled in an `add_factor` process through the
    /// SDK's authenticator protocol (its software authenticator), asked for an assertion in
    /// each proof, counted by the lockout when wrong, blocked when a clone's counter goes
    /// back, and gone from the activation when an operator removes it.
    @Test("device+securitykey: enrolment, login with amr and acr, a wrong assertion counted, a clone blocked, removal")
    func deviceAndSecurityKey() async throws {
        try await Self.withPasskeyServer { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("kai")
            let (device, _) = try await activateDevice(scenario, username: "kai")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-key-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let keyFile = directory.appendingPathComponent("key.json")
            let key = try SoftwareSecurityKey(file: keyFile, verifiesUser: true)

            // Enrolment: an add_factor process approved with device+pin, completed with a new credential.
            let activation = try #require(try await device.personalizer.activations().first)
            var start = try await device.personalizer.startAddAuthenticationFactor(.securitykey, activation: activation)
            let process = try #require(
                { if case .apiAccessAddFactor(let process) = $0 { return process } else { return nil } }(
                    try await signAndFinish(start, device: device, factors: [.device, .pin])))
            let added = try await device.personalizer.finishAddFactor(process, securityKey: key, name: "Blue key")
            #expect(added.activation.factors.contains(.securitykey))
            #expect(await key.count == 1)
            // The same key cannot be registered twice for the user (it is in the exclude list).
            start = try await device.personalizer.startAddAuthenticationFactor(.securitykey, activation: added.activation)
            if case .apiAccessAddFactor(let again) = try await signAndFinish(start, device: device, factors: [.device, .pin]) {
                await #expect(throws: TesseraKitError.self) { try await device.personalizer.finishAddFactor(again, securityKey: key) }
            } else {
                Issue.record("the second add_factor process was not approved")
            }

            // A login with device+securitykey through /authorize.
            let service = try await scenario.createService(policy: "device+securitykey")
            func login(with authenticator: any SecurityKeyAuthenticator) async throws -> (Scenario.BrowserLogin, AuthenticationResult) {
                let page = try await scenario.openLogin(service)
                var information = try await device.authenticator.start(url: page.authenticationURL)
                #expect(information.requestedAuthenticators == [[.device, .securitykey]])
                try information.sign(factor: DeviceFactor())
                try information.sign(factor: try await device.authenticator.securityKeyFactor(for: information, using: authenticator))
                return (page, try await device.authenticator.finish(information))
            }
            let (page, result) = try await login(with: key)
            #expect(result.isUserLogin)
            let code = try #require(try await scenario.complete(page)["code"])
            let tokens = try await scenario.redeem(code: code, service: service, verifier: page.verifier).json()
            let claims = try await verifyIDToken(try #require(tokens["id_token"] as? String), scenario: scenario, clientID: service.clientID)
            #expect(claims["amr"] as? [String] == ["hwk", "user", "mfa"])
            #expect(claims["acr"] as? String == "urn:tessera:acr:device+securitykey")

            // A wrong assertion (another authenticator's signature) is a failed attempt, counted.
            let stranger = TamperingSecurityKey(inner: key)
            let (_, failed) = try await login(with: stranger)
            #expect(failed.lockout != nil)
            #expect(try await scenario.activations(username: "kai").first?.failedAttempts == 1)

            // A clone (a copy of the key's file made now) lags behind once the original is used:
            // its counter goes back, the key is blocked, and the original fails from then on.
            let cloneFile = directory.appendingPathComponent("clone.json")
            try FileManager.default.copyItem(at: keyFile, to: cloneFile)
            let clone = try SoftwareSecurityKey(file: cloneFile, verifiesUser: true)
            #expect(try await login(with: key).1.isUserLogin)
            #expect(try await login(with: clone).1.lockout != nil)
            #expect(try await login(with: key).1.lockout != nil, "a blocked key signs in no more")
            let users = try await scenario.http.get(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/users?username=kai", headers: ["Authorization": "Bearer \(server.adminToken)"]
            ).json()
            let userID = try #require((users["users"] as? [[String: Any]])?.first?["id"] as? String)
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            let listed = try #require(
                try await scenario.http.get("\(server.baseURL)/admin/tenants/\(scenario.tenant)/users/\(userID)/security-keys", headers: admin)
                    .json()["security_keys"] as? [[String: Any]])
            #expect(listed.count == 1 && listed[0]["suspicious"] as? Bool == true && listed[0]["name"] as? String == "Blue key")

            // Removed by an operator: the activation has the factor no more.
            let keyID = try #require(listed[0]["id"] as? String)
            let removed = try await scenario.http.send(
                "DELETE",
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/users/\(userID)/security-keys/\(keyID)", headers: admin)
            #expect(removed.status == 200)
            let factors = try #require(try await scenario.activations(username: "kai").first?.factors)
            #expect(!factors.contains("securitykey"))
            device.remove()
        }
    }
}

extension PasskeyTests {
    /// The SDK's software authenticator against an outside relying party: py_webauthn
    /// verifies its packed self attestation and an assertion (Tests/interop/webauthn_verify.py).
    @Test("the SDK's software security key is verified by py_webauthn")
    func softwareKeyAgainstPyWebAuthn() async throws {
        let key = try SoftwareSecurityKey(file: nil, verifiesUser: true)
        let origin = "https://login.example.com"
        let registrationChallenge = Array(Secrets.randomBytes(32))
        let createData = DeviceCeremony.clientDataJSON(type: "webauthn.create", challenge: registrationChallenge, origin: origin)
        let made = try await key.makeCredential(
            MakeCredentialRequest(
                clientDataHash: DeviceCeremony.clientDataHash(createData), rpID: "login.example.com", userHandle: Array("user-1".utf8),
                userName: "kai", algorithms: [-7, -257], excludeCredentialIDs: [], requireUserVerification: true))
        let assertionChallenge = Array(Secrets.randomBytes(32))
        let getData = DeviceCeremony.clientDataJSON(type: "webauthn.get", challenge: assertionChallenge, origin: origin)
        let assertion = try await key.getAssertion(
            GetAssertionRequest(
                clientDataHash: DeviceCeremony.clientDataHash(getData), rpID: "login.example.com", allowCredentialIDs: [made.credentialID],
                requireUserVerification: true))
        let id = Base64URL.encode(made.credentialID)
        let document: [String: Any] = [
            "rp_id": "login.example.com", "origin": origin, "registration_challenge": Base64URL.encode(registrationChallenge),
            "assertion_challenge": Base64URL.encode(assertionChallenge),
            "registration": [
                "id": id, "rawId": id, "type": "public-key",
                "response": ["clientDataJSON": Base64URL.encode(createData), "attestationObject": Base64URL.encode(made.attestationObject)],
            ],
            "assertion": [
                "id": id, "rawId": id, "type": "public-key",
                "response": [
                    "clientDataJSON": Base64URL.encode(getData), "authenticatorData": Base64URL.encode(assertion.authenticatorData),
                    "signature": Base64URL.encode(assertion.signature), "userHandle": Base64URL.encode(assertion.userHandle ?? []),
                ],
            ],
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webauthn-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: document).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Python.run("webauthn_verify.py", [file.path])
        #expect(result.status == 0, "\(result.errors)")
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
        #expect(object["fmt"] as? String == "packed")
        #expect(object["credential_id"] as? String == id)
        #expect(object["user_verified"] as? Bool == true)
        #expect(object["new_sign_count"] as? Int == 1)
    }

    /// The software key writes its file off the actor's thread, so assertions may overlap
    /// their writes: each still gets a counter of its own, and the file keeps the last.
    @Test("the software security key's counter under concurrent assertions: each its own, the file keeps the last")
    func softwareKeyConcurrentCounter() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-key-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let key = try SoftwareSecurityKey(file: file, verifiesUser: true)
        let made = try await key.makeCredential(
            MakeCredentialRequest(
                clientDataHash: Array(repeating: 1, count: 32), rpID: "login.example.com", userHandle: Array("user-1".utf8),
                userName: "kai", algorithms: [-7], excludeCredentialIDs: [], requireUserVerification: true))
        let request = GetAssertionRequest(
            clientDataHash: Array(repeating: 2, count: 32), rpID: "login.example.com", allowCredentialIDs: [made.credentialID],
            requireUserVerification: true)
        let counters = try await withThrowingTaskGroup(of: UInt32.self) { group -> [UInt32] in
            for _ in 0..<20 {
                group.addTask {
                    let data = try await key.getAssertion(request).authenticatorData
                    // authenticatorData: rpIdHash (32), flags (1), signCount (4, big-endian).
                    return data[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counters.sorted() == Array(1...20))
        // A key loaded from the file goes on from the last counter.
        let reloaded = try SoftwareSecurityKey(file: file, verifiesUser: true)
        let next = try await reloaded.getAssertion(request).authenticatorData
        #expect(next[33..<37].reduce(0) { $0 << 8 | UInt32($1) } == 21)
    }

    /// The terminal authenticator: `tessera device add-factor securitykey` registers a key
    /// on its software authenticator, and `tessera device login --factors device,securitykey`
    /// signs in with it.
    @Test("tessera device add-factor securitykey, then login with device,securitykey")
    func commandLine() async throws {
        try await Self.withPasskeyServer { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("lena")
            let store = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-cli-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: store) }
            let url = try await scenario.invite("lena").absoluteString
            let (activated, _, activation) = try await tessera(["device", "activate", url, "--pin", "2468", "--store", store, "--json"])
            #expect(activated == 0, "\(activation)")
            let (added, answer, output) = try await tessera(
                ["device", "add-factor", "securitykey", "--pin", "2468", "--name", "Terminal key", "--store", store, "--json"])
            #expect(added == 0, "\(output)")
            #expect((answer["factors"] as? [String])?.contains("securitykey") == true, "\(answer)")
            #expect(FileManager.default.fileExists(atPath: store + "/security-key.json"))
            let service = try await scenario.createService(policy: "device+securitykey")
            let login = try await scenario.openLogin(service)
            let (status, report, text) = try await tessera(
                ["device", "login", login.authenticationURL.absoluteString, "--factors", "device,securitykey", "--store", store, "--json"])
            #expect(status == 0, "\(text)")
            #expect(report["result"] as? String == "userLogin")
            #expect(report["factors"] as? [String] == ["device", "securitykey"])
            #expect(try await scenario.complete(login)["code"] != nil)
        }
    }
}

extension PasskeyTests {
    /// WebAuthn challenges expire after five minutes and the purge deletes them; an
    /// answer to an expired one is refused.
    @Test("ceremony challenges expire and are purged")
    func ceremoniesArePurged() async throws {
        try await Self.withPasskeyServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(policy: "securitykey")
            let login = try await scenario.openLogin(service)
            let optionsURL = login.completeURL.replacingOccurrences(of: "/authorize/complete?", with: "/authorize/passkey/options?")
            var challenges: [String] = []
            for _ in 0..<3 {
                let answer = try await scenario.http.postJSON(optionsURL, [:], headers: ["Cookie": login.cookie])
                #expect(answer.status == 200, "\(answer.text)")
                challenges.append(try #require(try answer.json()["challenge"] as? String))
            }
            #expect(Set(challenges).count == 3, "every call gives a fresh challenge")
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            func ceremonies() async throws -> Int {
                let stats = try await scenario.http.get("\(server.baseURL)/admin/stats", headers: admin).json()
                return (stats["tables"] as? [String: Any])?["webauthn_ceremonies"] as? Int ?? -1
            }
            #expect(try await ceremonies() == 3)
            // Past five minutes an answer finds no challenge (the request has expired too).
            server.clock.advance(by: 3_600)
            let clientData = DeviceCeremony.clientDataJSON(
                type: "webauthn.get", challenge: Array(Base64URL.decode(challenges[0]) ?? Data()), origin: server.baseURL)
            let late = try await scenario.http.postJSON(
                login.completeURL.replacingOccurrences(of: "/authorize/complete?", with: "/authorize/passkey?"),
                [
                    "id": "AAAA", "rawId": "AAAA", "type": "public-key",
                    "response": [
                        "clientDataJSON": Base64URL.encode(clientData), "authenticatorData": Base64URL.encode(Data(count: 37)),
                        "signature": "AAAA",
                    ],
                ], headers: ["Cookie": login.cookie])
            #expect(late.status >= 400 && late.status < 500, "\(late.status) \(late.text)")
            let purge = try await scenario.http.postJSON("\(server.baseURL)/admin/purge", [:], headers: admin).json()
            #expect((purge["deleted"] as? [String: Any])?["webauthn_ceremonies"] as? Int == 3)
            #expect(try await ceremonies() == 0)
        }
    }
}

extension PasskeyTests {
    /// A device's security key that answers wrongly — no user presence, another relying
    /// party's hash, another credential, a signature over other data — fails the factor,
    /// and each failure is counted by the lockout (five free attempts here, so no wait comes between).
    @Test("device+securitykey: presence missing, another RP, another credential, a bad signature: each a counted failure")
    func deviceSecurityKeyRefusals() async throws {
        try await Self.withPasskeyServer { server in
            let scenario = try await Scenario.make(on: server)
            let lockout = try await scenario.http.send(
                "PATCH", "\(server.baseURL)/admin/tenants/\(scenario.tenant)", headers: ["Authorization": "Bearer \(server.adminToken)", "Content-Type": "application/json"],
                body: Data(#"{"lockout": {"free_attempts": 5, "waits": [60], "permanent_after": 20}}"#.utf8))
            #expect(lockout.status == 200, "\(lockout.text)")
            try await scenario.createUser("mo")
            let (device, _) = try await activateDevice(scenario, username: "mo")
            defer { device.remove() }
            let key = MisbehavingSecurityKey()
            let activation = try #require(try await device.personalizer.activations().first)
            let start = try await device.personalizer.startAddAuthenticationFactor(.securitykey, activation: activation)
            guard case .apiAccessAddFactor(let process) = try await signAndFinish(start, device: device, factors: [.device, .pin]) else {
                Issue.record("the add_factor process was not approved")
                return
            }
            _ = try await device.personalizer.finishAddFactor(process, securityKey: key)
            let service = try await scenario.createService(policy: "device+securitykey")
            var expected = 0
            for fault in [MisbehavingSecurityKey.Fault.noPresence, .otherRelyingParty, .otherCredential, .badSignature] {
                key.fault.withLock { $0 = fault }
                let page = try await scenario.openLogin(service)
                var information = try await device.authenticator.start(url: page.authenticationURL)
                try information.sign(factor: DeviceFactor())
                try information.sign(factor: try await device.authenticator.securityKeyFactor(for: information, using: key))
                let result = try await device.authenticator.finish(information)
                expected += 1
                #expect(result.lockout != nil, "\(fault)")
                let counted = try await scenario.activations(username: "mo").first?.failedAttempts
                #expect(counted == expected, "\(fault)")
            }
            // Answered properly, it signs in; the count starts again.
            key.fault.withLock { $0 = nil }
            let page = try await scenario.openLogin(service)
            var information = try await device.authenticator.start(url: page.authenticationURL)
            try information.sign(factor: DeviceFactor())
            try information.sign(factor: try await device.authenticator.securityKeyFactor(for: information, using: key))
            #expect(try await device.authenticator.finish(information).isUserLogin)
            #expect(try await scenario.activations(username: "mo").first?.failedAttempts == 0)

            // A stored key that no longer decodes is the server's fault: a 500, nothing counted, however often.
            try await TestDatabase.runOutside("UPDATE security_keys SET public_key = 'AAAA'", on: server.databaseLocation)
            for _ in 0..<3 {
                let page = try await scenario.openLogin(service)
                var information = try await device.authenticator.start(url: page.authenticationURL)
                try information.sign(factor: DeviceFactor())
                try information.sign(factor: try await device.authenticator.securityKeyFactor(for: information, using: key))
                await #expect(throws: TesseraKitError.self) { _ = try await device.authenticator.finish(information) }
            }
            #expect(try await scenario.activations(username: "mo").first?.failedAttempts == 0, "a corrupt row counts nothing")
        }
    }
}

/// A security key made in the test: one P-256 credential, packed self attestation, and a
/// fault to answer with.
final class MisbehavingSecurityKey: SecurityKeyAuthenticator, Sendable {
    enum Fault: Sendable { case noPresence, otherRelyingParty, otherCredential, badSignature }
    let fault = Mutex<Fault?>(nil)
    private let key = SoftwareCredentialKey()
    private let state = Mutex<(id: [UInt8], handle: [UInt8], counter: UInt32)>(([], [], 0))

    func makeCredential(_ request: MakeCredentialRequest) async throws -> MadeCredential {
        let id = Array(Secrets.randomBytes(16))
        state.withLock { $0 = (id, request.userHandle, 0) }
        let authenticatorData = AuthenticatorOutput.authenticatorData(
            rpID: request.rpID, flags: [.userPresent], signCount: 0,
            credential: (aaguid: SoftwareSecurityKey.aaguid, id: id, publicKey: key.cosePublicKey))
        let statement = CBOR.map([.init(.text("alg"), .integer(-7)), .init(.text("sig"), .bytes(try key.sign(authenticatorData + request.clientDataHash)))])
        let object = CBOR.map([.init(.text("fmt"), .text("packed")), .init(.text("attStmt"), statement), .init(.text("authData"), .bytes(authenticatorData))])
        return MadeCredential(credentialID: id, attestationObject: object.encoded, transports: ["usb"])
    }

    func getAssertion(_ request: GetAssertionRequest) async throws -> SecurityKeyAssertion {
        let fault = fault.withLock { $0 }
        let (id, handle, counter) = state.withLock { state -> ([UInt8], [UInt8], UInt32) in
            state.counter += 1
            return (state.id, state.handle, state.counter)
        }
        let authenticatorData = AuthenticatorOutput.authenticatorData(
            rpID: fault == .otherRelyingParty ? "evil.example" : request.rpID, flags: fault == .noPresence ? [] : [.userPresent],
            signCount: counter)
        let signed = fault == .badSignature ? authenticatorData + Array(repeating: 0, count: 32) : authenticatorData + request.clientDataHash
        return SecurityKeyAssertion(
            credentialID: fault == .otherCredential ? Array(Secrets.randomBytes(16)) : id, authenticatorData: authenticatorData,
            signature: try key.sign(signed), userHandle: handle)
    }
}

extension PasskeyTests {
    /// A tenant's RP ID is the public URL's host or a parent domain of it; the options name it.
    @Test("the tenant's RP ID: checked against the public URL, shown, and used in the options")
    func tenantRelyingPartyID() async throws {
        try await Self.withPasskeyServer { server in
            let scenario = try await Scenario.make(on: server)
            let headers = ["Authorization": "Bearer \(server.adminToken)", "Content-Type": "application/json"]
            let url = "\(server.baseURL)/admin/tenants/\(scenario.tenant)"
            #expect(try await scenario.http.get(url, headers: headers).json()["webauthn_rp_id"] as? String == "localhost")
            for bad in ["example.com", "LOCALHOST", "", ".localhost"] {
                let refused = try await scenario.http.send("PATCH", url, headers: headers, body: Data(#"{"webauthn_rp_id": "\#(bad)"}"#.utf8))
                #expect(refused.status == 400, "\(bad): \(refused.text)")
            }
            let set = try await scenario.http.send("PATCH", url, headers: headers, body: Data(#"{"webauthn_rp_id": "localhost"}"#.utf8))
            #expect(set.status == 200, "\(set.text)")
            let cleared = try await scenario.http.send("PATCH", url, headers: headers, body: Data(#"{"webauthn_rp_id": null}"#.utf8))
            #expect(try cleared.json()["webauthn_rp_id"] as? String == "localhost")
            let service = try await scenario.createService(policy: "securitykey")
            let login = try await scenario.openLogin(service)
            let options = try await scenario.http.postJSON(
                login.completeURL.replacingOccurrences(of: "/authorize/complete?", with: "/authorize/passkey/options?"), [:],
                headers: ["Cookie": login.cookie]
            ).json()
            #expect(options["rpId"] as? String == "localhost")
        }
    }
}

/// An authenticator whose assertions do not verify: another key's, as a stolen device
/// with the wrong security key would send.
struct TamperingSecurityKey: SecurityKeyAuthenticator {
    let inner: SoftwareSecurityKey
    func makeCredential(_ request: MakeCredentialRequest) async throws -> MadeCredential { try await inner.makeCredential(request) }
    func getAssertion(_ request: GetAssertionRequest) async throws -> SecurityKeyAssertion {
        let real = try await inner.getAssertion(request)
        var signature = real.signature
        signature[signature.count - 3] ^= 0x5A
        return SecurityKeyAssertion(
            credentialID: real.credentialID, authenticatorData: real.authenticatorData, signature: signature, userHandle: real.userHandle)
    }
}
