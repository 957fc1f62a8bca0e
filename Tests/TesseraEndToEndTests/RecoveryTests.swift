import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraKit
import TesseraTestSupport
import TesseraTesting
import Testing

/// Recovery codes: made with a device (the account process `recovery_codes`), used on a
/// new device after losing every one, confirmed by an operator's approval where no e-mail
/// confirms it; single use; wrong codes lock like a factor.
@Suite("Recovery codes: a new activation after losing every device", .tags(.live), .timeLimit(.minutes(5)))
struct RecoveryTests {
    @Test("a user with recovery codes and no device gets a new working activation after an operator's approval; a used code fails; guessing locks")
    func recoveryWithApproval() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 1, waits: [60], permanentAfter: 4))
            let admin = ["Authorization": "Bearer \(scenario.adminToken)"]
            let tenantURL = "\(server.baseURL)/admin/tenants/\(scenario.tenant)"
            try await scenario.createUser("rita")
            let (device, _) = try await activateDevice(scenario, username: "rita")
            let activation = try #require(try await device.personalizer.activations().first)

            // Not offered: the process is refused.
            await #expect(throws: (any Error).self) { _ = try await device.personalizer.startRecoveryCodes(activation: activation) }
            let offered = try await scenario.http.patchJSON(tenantURL, ["recovery_codes": true], headers: admin)
            #expect(offered.status == 200, "\(offered.text)")
            #expect(try offered.json()["recovery_codes"] as? Bool == true)

            // Ten codes, made with the device's factors, shown once.
            let codes = try await makeRecoveryCodes(device)
            #expect(codes.count == 10 && Set(codes).count == 10)
            #expect(codes.allSatisfy { $0.range(of: #"^[0-9A-Z]{5}(-[0-9A-Z]{5}){3}$"#, options: .regularExpression) != nil }, "\(codes)")

            // Every device lost: the user's new phone asks with a code (typed in lower case, without dashes).
            let phone = try TestDevice()
            let issuer = try #require(URL(string: scenario.issuer))
            let typed = codes[0].lowercased().replacingOccurrences(of: "-", with: " ")
            let started = try await phone.personalizer.recover(issuer: issuer, username: "rita", code: typed)
            #expect(started.status == "awaiting_approval" && started.handle != nil && started.url == nil)
            let handle = try #require(started.handle)
            let waiting = try await phone.personalizer.recoveryStatus(issuer: issuer, recoveryID: started.recoveryID, handle: handle)
            #expect(waiting.status == "awaiting_approval" && waiting.url == nil)
            // A wrong handle learns nothing.
            await #expect(throws: (any Error).self) {
                _ = try await phone.personalizer.recoveryStatus(issuer: issuer, recoveryID: started.recoveryID, handle: "guess")
            }

            // The help desk approves it, once.
            let users = try await scenario.http.get("\(tenantURL)/users?username=rita", headers: admin).json()
            let ritaID = try #require((users["users"] as? [[String: Any]])?.first?["id"] as? String)
            // The help desk finds it by the user, in the API and on the command line.
            let listed = try await scenario.http.get("\(tenantURL)/users/\(ritaID)/recoveries", headers: admin).json()
            let pending = try #require((listed["recoveries"] as? [[String: Any]])?.first, "\(listed)")
            #expect(pending["id"] as? String == started.recoveryID && pending["status"] as? String == "awaiting_approval", "\(listed)")
            #expect(pending["handle"] == nil, "the handle is the user's alone")
            let cli = try await Program.run(
                tesseraBinary, ["admin", "user", "recoveries", "--tenant", scenario.tenant, "--username", "rita"],
                environment: ["TESSERA_SERVER": server.baseURL, "TESSERA_ADMIN_TOKEN": server.adminToken])
            #expect(cli.status == 0 && cli.output.contains("\(started.recoveryID)  awaiting_approval"), "\(cli.output)\(cli.errors)")
            let approveURL = "\(tenantURL)/users/\(ritaID)/recoveries/\(started.recoveryID)/approve"
            let approved = try await scenario.http.postJSON(approveURL, [String: String](), headers: admin)
            #expect(approved.status == 200, "\(approved.text)")
            #expect(try approved.json()["status"] as? String == "approved")
            #expect(try await scenario.http.postJSON(approveURL, [String: String](), headers: admin).status == 409)

            // The phone gets its activation link once, activates, and logs in.
            let ready = try await phone.personalizer.recoveryStatus(issuer: issuer, recoveryID: started.recoveryID, handle: handle)
            let link = try #require(ready.url.flatMap(URL.init(string:)), "\(ready)")
            #expect(ready.status == "approved")
            let again = try await phone.personalizer.recoveryStatus(issuer: issuer, recoveryID: started.recoveryID, handle: handle)
            #expect(again.status == "used" && again.url == nil)
            _ = try await phone.personalizer.activate(url: link, pin: "1357", alias: "new phone", enrollBiometric: false, enrollOTP: false)
            let service = try await scenario.createService(redirectURI: "http://127.0.0.1:9/recovered")
            let login = try await scenario.openLogin(service)
            let claim = try await phone.authenticator.start(url: login.authenticationURL)
            #expect(try await signAndFinish(claim, device: phone, factors: [.device, .pin], pin: "1357").isUserLogin)

            // A used code fails the second time, and counts as a wrong one.
            let used = try await scenario.http.postJSON("\(scenario.issuer)/recover", ["username": "rita", "code": codes[0]])
            #expect(used.status == 400, "\(used.text)")
            #expect(try used.json()["error"] as? String == "invalid_grant")

            // Guessing locks like a factor: one free failure, then a wait in which even a right
            // code is not looked at. The answers are alike (nothing says the user exists).
            let locking = try await scenario.http.postJSON("\(scenario.issuer)/recover", ["username": "rita", "code": "BBBBB-BBBBB-BBBBB-BBBBB"])
            #expect(locking.status == 400, "\(locking.text)")
            let right = try await scenario.http.postJSON("\(scenario.issuer)/recover", ["username": "rita", "code": codes[1]])
            #expect(right.status == 400, "a right code during the wait: \(right.text)")
            #expect(try right.json()["error"] as? String == "invalid_grant")
            // An unknown user is answered as a wrong code is.
            let nobody = try await scenario.http.postJSON("\(scenario.issuer)/recover", ["username": "nobody", "code": codes[1]])
            #expect(nobody.status == 400)
            #expect(try nobody.json()["error"] as? String == "invalid_grant")

            // Every use is audited.
            let audit = try await scenario.http.get("\(server.baseURL)/admin/audit?tenant=\(scenario.tenant)&limit=200", headers: admin).json()
            let actions = Set((audit["entries"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String })
            #expect(actions.isSuperset(of: ["recovery_codes.create", "recovery.use", "recovery.approve", "recovery.refused"]), "\(actions)")
            let entries = audit["entries"] as? [[String: Any]] ?? []
            #expect(entries.filter { $0["action"] as? String == "recovery.use" }.count == 1, "the right code during the wait was not used")
            let refusals = entries.filter { $0["action"] as? String == "recovery.refused" }
            #expect(refusals.count == 2 && refusals.contains { ($0["details"] as? [String: String])?["locked_until"] != "-" }, "\(refusals)")

            // The recovery is purged after its day and the week of reuse detection; stats count it until then.
            let stats = try await scenario.http.get("\(server.baseURL)/admin/stats", headers: admin).json()
            #expect((stats["tables"] as? [String: Int])?["recoveries"] == 1 && (stats["tables"] as? [String: Int])?["recovery_codes"] == 10, "\(stats)")
            server.clock.advance(by: 86_400 + 7 * 86_400 + 60)
            let purged = try await scenario.http.postJSON("\(server.baseURL)/admin/purge", [String: String](), headers: admin).json()
            #expect((purged["deleted"] as? [String: Int])?["recoveries"] == 1, "\(purged)")
        }
    }
}
