import Foundation
import TesseraQRCode
import Testing
import TesseraCore
import TesseraKit
import TesseraTesting

@Suite("The web console and the account page in Debian's Chromium", .tags(.live, .browser), .timeLimit(.minutes(8)))
struct ConsoleTests {
    /// Operators sign in by QR and device; create a tenant, service and user; invite and
    /// activate a device from the QR shown; unlock and revoke it; a helpdesk operator is
    /// refused a service edit; a form without its CSRF token changes nothing; a user
    /// removes a second device on the account page (Tests/interop/console_browser.py).
    /// On a desktop window and on a phone-sized one (390×844): the same walk must work on both.
    @Test(
        "operator sign-in, tenant, service, user, invitation, unlock, revoke, roles, CSRF, account page",
        arguments: ["1000,1400", "390,844"])
    func consoleInBrowser(windowSize: String) async throws {
        try await withServer { server in
            let http = TestHTTP()
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            func addOperator(_ username: String, role: String) async throws -> TestDevice {
                let response = try await http.postJSON(
                    "\(server.baseURL)/admin/console-users", ["username": username, "role": role], headers: admin)
                #expect(response.status == 201, "\(response.text)")
                let link = try #require(try response.json()["url"] as? String)
                let url = try #require(URL(string: link))
                let device = try TestDevice()
                _ = try await device.personalizer.activate(url: url, pin: "2468", alias: username, enrollBiometric: false, enrollOTP: false)
                return device
            }
            let olivia = try await addOperator("olivia", role: "admin")
            let hank = try await addOperator("hank", role: "helpdesk")
            // A role the API does not know is refused.
            let bad = try await http.postJSON("\(server.baseURL)/admin/console-users", ["username": "x", "role": "root"], headers: admin)
            #expect(bad.status == 400)

            let account = try await Scenario.make(on: server)
            let offered = try await http.send(
                "PATCH", "\(server.baseURL)/admin/tenants/\(account.tenant)", headers: admin.merging(["Content-Type": "application/json"]) { $1 },
                body: Data(#"{"recovery_codes":true}"#.utf8))
            #expect(offered.status == 200, "\(offered.text)")
            try await account.createUser("carol")
            let (carolPhone, _) = try await activateDevice(account, username: "carol")
            let (carolLaptop, _) = try await activateDevice(account, username: "carol")
            let acme = Scenario(baseURL: server.baseURL, adminToken: server.adminToken, tenant: "acme")

            let (lines, continuation) = AsyncStream<String>.makeStream()
            let devices = Task { () -> [String] in
                var done: [String] = []
                var bob: TestDevice?
                for await line in lines {
                    let parts = line.split(separator: " ").map(String.init)
                    guard parts.count >= 2 else { continue }
                    switch (parts[0], parts[1]) {
                    case ("SCAN", let who):
                        let device = who == "admin" ? olivia : who == "helpdesk" ? hank : carolPhone
                        let link = try #require(URL(string: parts[2]))
                        var information = try await device.authenticator.start(url: link)
                        // The built-in services ask for number matching: the number the browser read.
                        #expect(information.numberChoices.contains(parts.count > 3 ? parts[3] : "none"), "\(information.numberChoices)")
                        try information.pickNumber(parts.count > 3 ? parts[3] : "")
                        #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
                        done.append("scan \(who)")
                    case ("ACTIVATE", "bob"):
                        let device = try TestDevice()
                        let link = try #require(URL(string: parts[2]))
                        _ = try await device.personalizer.activate(
                            url: link, pin: "2468", alias: "bob's phone", enrollBiometric: false, enrollOTP: false)
                        bob = device
                        // Wrong PINs until the device is locked (three free attempts, then a wait).
                        let service = try await acme.createService()
                        let login = try await acme.openLogin(service)
                        var information = try await device.authenticator.start(url: login.authenticationURL)
                        for _ in 0..<4 {
                            let failure = try #require(try await signAndFinish(information, device: device, factors: [.device, .pin], pin: "0000").lockout)
                            information = failure.1
                        }
                        done.append("activate bob")
                    case ("UNLOCKED", "bob"):
                        done.append("unlocked bob")
                    default:
                        break
                    }
                }
                bob?.remove()
                return done
            }
            // The logo the walk uploads with the tenant's branding form.
            let logo = FileManager.default.temporaryDirectory.appendingPathComponent("console-logo-\(UUID().uuidString).png")
            try Data(try QRCode("Acme Bank").png(scale: 4)).write(to: logo)
            defer { try? FileManager.default.removeItem(at: logo) }
            let result = try await Python.run(
                "console_browser.py", [], environment: [
                    "TESSERA_BASE": server.baseURL, "ACCOUNT_TENANT": account.tenant, "WINDOW_SIZE": windowSize,
                    "TESSERA_ADMIN_TOKEN": server.adminToken, "SCREENSHOT_DIR": screenshotDirectory().path, "LOGO_FILE": logo.path,
                ],
                // Two Chromiums beside 47 other tests on two cores: the PostgreSQL pass once
                // took more than 180 s for this walk (it takes about 120 s in the SQLite pass).
                timeout: .seconds(420), onLine: { continuation.yield($0) })
            continuation.finish()
            let done = try await devices.value
            #expect(result.status == 0, "\(result.errors)\n\(result.output.suffix(2000))")
            #expect(done == ["scan admin", "activate bob", "unlocked bob", "scan helpdesk", "scan carol"])
            // axe-core on every page the walk photographed: no serious or critical violation.
            let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") })
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
            #expect((summary["axe_pages"] as? Int ?? 0) >= 30, "\(summary)")
            #expect(summary["console_languages"] as? [String] == ["en", "de", "fr"], "\(summary)")
            #expect((summary["accessibility"] as? [String])?.isEmpty == true, "\(summary["accessibility"] ?? "")")

            // What the pages did, seen through the admin API.
            #expect(try await account.activations(username: "carol").count == 1)
            let audit = try await http.get("\(server.baseURL)/admin/audit?tenant=acme", headers: admin).json()
            let entries = try #require(audit["entries"] as? [[String: Any]])
            #expect(entries.contains { $0["action"] as? String == "service.create" && $0["actor"] as? String == "operator:olivia" })
            #expect(!entries.contains { ($0["actor"] as? String) == "operator:hank" }, "the helpdesk changed nothing")
            // The account page's login lasts as long as its browser session (an hour), no longer.
            let carol = try #require(
                (try await http.get("\(server.baseURL)/admin/tenants/\(account.tenant)/users?username=carol", headers: admin).json()["users"]
                    as? [[String: Any]])?.first?["id"] as? String)
            let sessions = try #require(
                try await http.get("\(server.baseURL)/admin/tenants/\(account.tenant)/users/\(carol)/sessions", headers: admin).json()["sessions"]
                    as? [[String: Any]])
            for session in sessions where session["service"] as? String == "Tessera account" {
                let ends = try #require((session["expires_at"] as? NSNumber)?.doubleValue)
                #expect(ends <= Date().timeIntervalSince1970 + 3600 + 5)
            }
            // The audit log's filters run in the store: an action prefix (taken literally) and an actor.
            let filtered = try #require(
                try await http.get("\(server.baseURL)/admin/audit?tenant=acme&action=activation.&actor=operator:olivia", headers: admin).json()["entries"]
                    as? [[String: Any]])
            #expect(Set(filtered.compactMap { $0["action"] as? String }) == ["activation.unlock", "activation.revoke"])
            #expect(filtered.allSatisfy { $0["actor"] as? String == "operator:olivia" })
            let literal = try await http.get("\(server.baseURL)/admin/audit?tenant=acme&action=user_", headers: admin).json()
            #expect((literal["entries"] as? [[String: Any]])?.isEmpty == true, "_ is no wildcard")
            let users = try await http.get("\(server.baseURL)/admin/tenants/acme/users", headers: admin).json()
            let names = (users["users"] as? [[String: Any]] ?? []).compactMap { $0["username"] as? String }
            #expect(names == ["bob"], "the forged form created no user")
            // The console's own sign-in service is the server's: neither changed nor deleted.
            let weaken = try await http.send(
                "PATCH", "\(server.baseURL)/admin/tenants/operators/services/tessera-console",
                headers: admin.merging(["Content-Type": "application/json"]) { $1 }, body: Data(#"{"policy":"device"}"#.utf8))
            #expect(weaken.status == 409, "\(weaken.text)")
            let remove = try await http.send("DELETE", "\(server.baseURL)/admin/tenants/operators/services/tessera-console", headers: admin)
            #expect(remove.status == 409, "\(remove.text)")
            let console = try await http.get("\(server.baseURL)/admin/tenants/operators/services/tessera-console", headers: admin).json()
            #expect(console["policy"] as? String == "device+pin,device+biometric")
            for device in [olivia, hank, carolPhone, carolLaptop] { device.remove() }
        }
    }
}
