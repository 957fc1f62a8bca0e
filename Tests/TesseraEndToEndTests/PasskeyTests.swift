import Foundation
import Testing
import TesseraCore
import TesseraTesting

/// Passkeys (WebAuthn) in the browser: registered from invitations, signing in through
/// /authorize, refused when anything is off, removed by an operator. The authenticators
/// and the relying-party client are outside the project (Tests/interop/passkey_client.py:
/// fido2's CBOR and COSE, cryptography's keys, soft-webauthn, Authlib, joserfc).
@Suite("Passkeys", .timeLimit(.minutes(5)))
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
            let enrolments = audit.filter { $0["action"] as? String == "securitykey.enrol" }
            #expect(enrolments.count == 3)
            #expect(enrolments.allSatisfy { $0["actor"] as? String == "user:\(userID)" })
            let removal = try #require(audit.first { $0["action"] as? String == "securitykey.remove" })
            #expect(removal["actor"] as? String == "admin")
            #expect((removal["details"] as? [String: String])?["sessions_ended"] == "1")
            // Two keys are left; the user's detail lists them.
            let detail = try await scenario.http.get(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/users/\(userID)", headers: ["Authorization": "Bearer \(server.adminToken)"]
            ).json()
            #expect((detail["security_keys"] as? [[String: Any]])?.count == 2)

            // The command line lists them (the blocked one says so) and removes the blocked one.
            let common = ["--server", server.baseURL, "--token", server.adminToken, "--tenant", scenario.tenant, "--username", "wanda"]
            let listed = try await Subprocess.run(tesseraBinary, ["admin", "securitykey", "list"] + common)
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
            let removals = audit.filter { $0["action"] as? String == "securitykey.remove" }
            #expect(Set(removals.compactMap { ($0["details"] as? [String: String])?["via"] }) == ["account_page", "admin"])
            #expect(removals.contains { ($0["actor"] as? String)?.hasPrefix("activation:") == true })
            // The console's removal is the operator's (the admin API's path, with the operator as actor).
            #expect(removals.contains { $0["actor"] as? String == "operator:otto" })
            phone.remove()
            operatorDevice.remove()
        }
    }
}
