import Foundation
import Testing
import TesseraAdminAPI
import TesseraCore
import TesseraKit
import TesseraServer
import TesseraTestSupport
import TesseraTesting

/// Webhooks against a real receiver that verifies every delivery with the Standard
/// Webhooks reference library (`standardwebhooks` from PyPI, Tests/interop/webhook_receiver.py).
@Suite("Webhooks: signed, ordered, at least once, per tenant, disabled past the maximum age", .tags(.live), .timeLimit(.minutes(5)))
struct WebhookTests {
    /// The receiver: a Python process and its directory of secrets, switches and records.
    final class Receiver: Sendable {
        let directory: URL
        let process: ChildProcess
        let base: String

        static func start() async throws -> Receiver {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-hooks-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let (process, port) = try await Python.serve("webhook_receiver.py", in: directory)
            return Receiver(directory: directory, process: process, base: "http://127.0.0.1:\(port)/hook/")
        }

        private init(directory: URL, process: ChildProcess, base: String) {
            self.directory = directory
            self.process = process
            self.base = base
        }

        func url(_ name: String) -> String { base + name }

        func secret(_ name: String, _ secret: String) throws {
            try secret.write(to: directory.appendingPathComponent("secret-\(name)"), atomically: true, encoding: .utf8)
        }

        /// While set, `name`'s deliveries are answered with `status`.
        func failing(_ name: String, _ status: Int?) throws {
            let file = directory.appendingPathComponent("fail-\(name)")
            if let status { try String(status).write(to: file, atomically: true, encoding: .utf8) } else { try? FileManager.default.removeItem(at: file) }
        }

        func records(_ file: String) -> [[String: Any]] { Python.records(file, in: directory) }

        func received(_ name: String) -> [[String: Any]] { records("received.jsonl").filter { $0["name"] as? String == name } }

        /// Waits (up to `seconds`) until `condition` holds of what `name` received.
        func wait(_ name: String, seconds: Int = 30, until condition: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
            for _ in 0..<(seconds * 10) {
                let got = received(name)
                if condition(got) { return got }
                try await Task.sleep(for: .milliseconds(100))
            }
            return received(name)
        }

        func stop() {
            process.kill()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    func withReceiver(configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer, Receiver) async throws -> Void)
        async throws
    {
        let receiver = try await Receiver.start()
        defer { receiver.stop() }
        try await withServer(configure: { configuration in
            configuration.deliveryInterval = .milliseconds(200)
            configure(&configuration)
        }) { server in try await body(server, receiver) }
    }

    static func metrics(_ server: TestServer) async throws -> String {
        try await TestHTTP().get(server.baseURL + "/metrics").text
    }

    @Test("each tenant's hook gets its own tenant's events only, every one signed and verified, in commit order: audit, logins, session ends, a test")
    func tenantsAndSignatures() async throws {
        try await withReceiver { server, receiver in
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            let ours = try await Scenario.make(on: server)
            let theirs = try await Scenario.make(on: server)
            // Refused, and nothing made: a URL that is no http(s) URL, an unknown event.
            for body: [String: Any] in [
                ["url": "ftp://hooks.example/in", "events": ["*"]], ["url": receiver.url("x"), "events": ["user.create"]],
                ["url": receiver.url("x"), "events": [] as [String]], ["url": receiver.url("x"), "events": ["*"], "tenant": "nobody"],
            ] {
                let refused = try await admin.post("/admin/webhooks", body)
                #expect([400, 404].contains(refused.status), "\(body): \(refused.status) \(refused.text)")
            }
            let none = try await admin.get("/admin/webhooks").json()["webhooks"] as? [Any]
            #expect(none?.isEmpty == true, "nothing was made")

            let created = try await admin.post("/admin/webhooks", ["url": receiver.url("ours"), "events": ["*"], "tenant": ours.tenant])
            #expect(created.status == 201, "\(created.text)")
            let hook = try created.json()
            let hookID = try #require(hook["id"] as? String)
            let secret = try #require(hook["secret"] as? String)
            #expect(secret.hasPrefix("whsec_"))
            try receiver.secret("ours", secret)
            let other = try await admin.post("/admin/webhooks", ["url": receiver.url("theirs"), "events": ["audit.user.*", "login.*"], "tenant": theirs.tenant])
            #expect(other.status == 400, "audit.user.* is not a pattern: \(other.text)")
            let theirHook = try await admin.post("/admin/webhooks", ["url": receiver.url("theirs"), "events": ["audit.*", "login.*"], "tenant": theirs.tenant])
            try receiver.secret("theirs", try #require(try theirHook.json()["secret"] as? String))
            // The secret is shown once.
            #expect(try await admin.get("/admin/webhooks/\(hookID)").json()["secret"] == nil)

            // Our tenant: users, a device, a login with a session, the device revoked (its session ends).
            let service = try await ours.createService()
            for index in 0..<5 { try await ours.createUser("u\(index)") }
            try await ours.createUser("ann")
            let (device, _) = try await activateDevice(ours, username: "ann")
            let (login, code) = try await approvedLogin(ours, service, device: device)
            #expect(try await ours.redeem(code: code, service: service, verifier: login.verifier).status == 200)
            let activation = try #require(try await ours.activations(username: "ann").first?.id)
            try await ours.revoke(activation)
            // Theirs: a user.
            try await theirs.createUser("bob")

            let got = try await receiver.wait("ours") { events in
                events.contains { $0["type"] as? String == "session.ended" } && events.contains { $0["type"] as? String == "login.succeeded" }
                    && events.contains { $0["type"] as? String == "audit.activation.revoke" }
            }
            let types = got.compactMap { $0["type"] as? String }
            #expect(types.filter { $0 == "audit.user.create" }.count == 6, "\(types)")
            for type in ["audit.service.create", "audit.invitation.create", "audit.activation.create", "login.succeeded", "audit.activation.revoke", "session.ended"] {
                #expect(types.contains(type), "\(type) not among \(types)")
            }
            #expect(got.allSatisfy { $0["tenant"] as? String == ours.tenant }, "only our tenant's events")
            // In commit order: the audit entries' numbers increase as they arrive.
            let seqs = got.filter { ($0["type"] as? String)?.hasPrefix("audit.") == true }.compactMap { ($0["data"] as? [String: Any])?["seq"] as? Int }
            #expect(seqs == seqs.sorted() && seqs.count == types.filter { $0.hasPrefix("audit.") }.count, "\(seqs)")
            // Each event once, each with its own delivery id.
            #expect(Set(got.compactMap { $0["id"] as? String }).count == got.count)
            #expect(Set(got.compactMap { $0["webhook-id"] as? String }).count == got.count)
            let users = got.filter { $0["type"] as? String == "audit.user.create" }.compactMap { ($0["data"] as? [String: Any])?["details"] as? [String: Any] }
            #expect(users.count == 6)

            let theirs_ = try await receiver.wait("theirs") { $0.contains { ($0["data"] as? [String: Any])?["target"] != nil && $0["type"] as? String == "audit.user.create" } }
            #expect(!theirs_.isEmpty && theirs_.allSatisfy { $0["tenant"] as? String == theirs.tenant }, "\(theirs_)")
            #expect(receiver.records("refused.jsonl").isEmpty, "every signature verified: \(receiver.records("refused.jsonl"))")

            // A test event, then a new secret: what follows is signed with it.
            #expect(try await admin.post("/admin/webhooks/\(hookID)/test", [:]).status == 200)
            _ = try await receiver.wait("ours") { $0.contains { $0["type"] as? String == "webhook.test" } }
            let rotated = try await admin.post("/admin/webhooks/\(hookID)/rotate", [:])
            let newSecret = try #require(try rotated.json()["secret"] as? String)
            #expect(newSecret != secret)
            try receiver.secret("ours", newSecret)
            try await ours.createUser("after-rotation")
            let afterRotation = try await receiver.wait("ours") { $0.contains { ($0["data"] as? [String: Any])?["target"] != nil && $0["type"] as? String == "audit.webhook.rotate_secret" } && $0.filter { $0["type"] as? String == "audit.user.create" }.count == 7 }
            #expect(afterRotation.filter { $0["type"] as? String == "audit.user.create" }.count == 7)
            #expect(receiver.records("refused.jsonl").isEmpty)

            // The delivery log, and a tenant's key sees its own hooks only.
            let deliveries = try #require(try await admin.get("/admin/webhooks/\(hookID)/deliveries?limit=5").json()["deliveries"] as? [[String: Any]])
            #expect(deliveries.count == 5 && deliveries.allSatisfy { $0["delivered_at"] != nil && $0["last_status"] as? Int == 204 })
            let key = try await admin.post("/admin/keys", ["name": "hooks", "role": "admin", "tenant": theirs.tenant])
            let scoped = FeedTests.Admin(baseURL: server.baseURL, token: try #require(try key.json()["key"] as? String))
            #expect(try await scoped.get("/admin/webhooks/\(hookID)").status == 404)
            let visible = try #require(try await scoped.get("/admin/webhooks").json()["webhooks"] as? [[String: Any]])
            #expect(visible.count == 1 && visible.first?["tenant"] as? String == theirs.tenant)
            #expect(try await scoped.post("/admin/webhooks", ["url": receiver.url("x"), "events": ["*"], "tenant": ours.tenant]).status == 404)
            #expect(try await scoped.post("/admin/webhooks", ["url": receiver.url("x"), "events": ["*"]]).status == 201, "its own tenant's by default")

            // The command line: add, list, test, deliveries, remove.
            let environment = ["TESSERA_SERVER": server.baseURL, "TESSERA_ADMIN_TOKEN": server.adminToken]
            let added = try await Program.run(
                tesseraBinary, ["admin", "webhook", "add", "--url", receiver.url("cli"), "--events", "webhook.test,audit.*", "--tenant", ours.tenant],
                environment: environment)
            #expect(added.status == 1 && added.errors.contains("webhook.test"), "webhook.test is no event to subscribe to: \(added.output)\(added.errors)")
            let cli = try await Program.run(
                tesseraBinary, ["admin", "webhook", "add", "--url", receiver.url("cli"), "--events", "audit.*", "--tenant", ours.tenant],
                environment: environment)
            #expect(cli.status == 0, "\(cli.errors)")
            let cliID = try #require(cli.output.split(separator: "\n").first { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) })
            let cliSecret = try #require(cli.output.split(separator: "\n").first { $0.hasPrefix("secret: whsec_") }.map { String($0.dropFirst(8)) })
            try receiver.secret("cli", cliSecret)
            let listed = try await Program.run(tesseraBinary, ["admin", "webhook", "list"], environment: environment)
            #expect(listed.output.contains(cliID) && listed.output.contains(receiver.url("cli")) && !listed.output.contains("whsec_"))
            #expect(try await Program.run(tesseraBinary, ["admin", "webhook", "test", cliID], environment: environment).output.hasPrefix("delivery: msg_"))
            _ = try await receiver.wait("cli") { $0.contains { $0["type"] as? String == "webhook.test" } }
            let log = try await Program.run(tesseraBinary, ["admin", "webhook", "deliveries", cliID], environment: environment)
            #expect(log.output.contains("webhook.test") && log.output.contains("delivered"), "\(log.output)")
            #expect(try await Program.run(tesseraBinary, ["admin", "webhook", "remove", cliID], environment: environment).output == "removed: \(cliID)\n")

            // Removed: nothing more arrives.
            #expect(try await admin.send("DELETE", "/admin/webhooks/\(hookID)").status == 200)
            #expect(try await admin.get("/admin/webhooks/\(hookID)").status == 404)
            device.remove()
        }
    }

    @Test("a CIBA request approved on the device, and one denied, are ciba.answered events with their outcome and request")
    func cibaAnswered() async throws {
        try await withReceiver { server, receiver in
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            let scenario = try await Scenario.make(on: server)
            let created = try await admin.post("/admin/webhooks", ["url": receiver.url("ciba"), "events": ["ciba.answered"], "tenant": scenario.tenant])
            try receiver.secret("ciba", try #require(try created.json()["secret"] as? String))
            let service = try await scenario.createService(backchannelMode: "poll", name: "Bank")
            try await scenario.createUser("sia")
            let (device, _) = try await activateDevice(scenario, username: "sia")
            var ids: [String] = []
            for approve in [true, false] {
                let started = try await scenario.tokenRequest(
                    ["scope": "openid", "login_hint": "sia", "binding_message": "pay 10"], service: service, endpoint: "bc-authorize")
                let id = try #require(try started.json()["auth_req_id"] as? String)
                ids.append(id)
                let request = try #require(try await device.authenticator.pendingRequests().first { $0.requestID.rawValue == id })
                let information = try await device.authenticator.start(pending: request)
                if approve {
                    #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
                } else {
                    try await device.authenticator.deny(information)
                }
            }
            let got = try await receiver.wait("ciba") { $0.count >= 2 }
            let answers = got.compactMap { $0["data"] as? [String: Any] }
            #expect(answers.map { $0["outcome"] as? String } == ["approved", "denied"], "\(answers)")
            #expect(answers.map { $0["request_id"] as? String } == ids)
            #expect(got.allSatisfy { $0["type"] as? String == "ciba.answered" && $0["tenant"] as? String == scenario.tenant })
            device.remove()
        }
    }

    @Test("a receiver answering 500 for a while gets the events later, in order; one that never recovers is disabled at the maximum age, and enabled gets what it missed")
    func failuresAndDisabling() async throws {
        try await withReceiver(configure: { $0.deliveryMaxAge = 600 }) { server, receiver in
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            let scenario = try await Scenario.make(on: server)
            let created = try await admin.post("/admin/webhooks", ["url": receiver.url("flaky"), "events": ["audit.user.create"], "tenant": scenario.tenant])
            let hookID = try #require(try created.json()["id"] as? String)
            try receiver.secret("flaky", try #require(try created.json()["secret"] as? String))

            // Failing: the first delivery is tried again and again, the others wait behind it.
            try receiver.failing("flaky", 500)
            for index in 0..<5 { try await scenario.createUser("first\(index)") }
            // Up to 30 s: the retries back off, and beside the suite's other tests on two
            // cores 10 s once saw only one of them.
            for _ in 0..<300 where receiver.records("failed.jsonl").count < 3 { try await Task.sleep(for: .milliseconds(100)) }
            let failed = receiver.records("failed.jsonl")
            #expect(failed.count >= 3 && Set(failed.compactMap { $0["id"] as? String }).count == 1, "one delivery retried: \(failed.count)")
            #expect(receiver.received("flaky").isEmpty)
            // All five wait (each is dispatched within a look or two of its commit).
            var waiting: Int?
            for _ in 0..<100 {
                waiting = try await admin.get("/admin/webhooks/\(hookID)").json()["waiting"] as? Int
                if waiting == 5 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(waiting == 5)
            #expect(try await Self.metrics(server).contains(#"tessera_outbound_pending{kind="webhook"} 5"#))

            // Recovered: all five, in the order they were made, each once.
            try receiver.failing("flaky", nil)
            let arrived = try await receiver.wait("flaky") { $0.count >= 5 }
            let targets = arrived.compactMap { (($0["data"] as? [String: Any])?["details"] as? [String: Any])?["username"] as? String }
            #expect(targets == (0..<5).map { "first\($0)" }, "\(targets)")
            #expect(arrived.count == 5)

            // Never recovers: past the maximum age the hook is disabled, with an audit entry and a metric.
            try receiver.failing("flaky", 503)
            try await scenario.createUser("missed0")
            let before = receiver.records("failed.jsonl").count
            for _ in 0..<100 where receiver.records("failed.jsonl").count == before { try await Task.sleep(for: .milliseconds(100)) }
            server.clock.advance(by: 601)
            var disabled: [String: Any] = [:]
            for _ in 0..<200 {
                disabled = try await admin.get("/admin/webhooks/\(hookID)").json()
                if disabled["disabled_at"] != nil { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(disabled["disabled_at"] != nil && (disabled["disabled_reason"] as? String)?.contains("503") == true, "\(disabled)")
            let audit = try #require(try await admin.get("/admin/audit?action=webhook.disable").json()["entries"] as? [[String: Any]])
            #expect(audit.count == 1 && audit.first?["target"] as? String == hookID && audit.first?["actor"] as? String == "system")
            // The counter moves once the disabling transaction has returned, just after the
            // hook reads as disabled.
            #expect(try await eventually { try await Self.metrics(server).contains("tessera_webhooks_disabled_total 1") })
            #expect(try await Self.metrics(server).contains(#"tessera_outbound_failures_total{kind="webhook"}"#))

            // What happens while it is disabled waits; enabled, it all arrives in order.
            try await scenario.createUser("missed1")
            try receiver.failing("flaky", nil)
            try await Task.sleep(for: .seconds(1))
            #expect(receiver.received("flaky").count == 5, "nothing is sent to a disabled hook")
            let enabled = try await admin.post("/admin/webhooks/\(hookID)/enable", [:])
            let enabledHook = try enabled.json()
            #expect(enabled.status == 200 && enabledHook["disabled_at"] == nil)
            let all = try await receiver.wait("flaky") { $0.count >= 7 }
            let names = all.compactMap { (($0["data"] as? [String: Any])?["details"] as? [String: Any])?["username"] as? String }
            #expect(names.suffix(2) == ["missed0", "missed1"], "\(names)")
            #expect(receiver.records("refused.jsonl").isEmpty)
        }
    }
}

/// Webhooks with two `tessera serve` processes on one PostgreSQL database, one killed with
/// SIGKILL in the middle of a burst: every event reaches its tenant's hook (at least
/// once), none another tenant's. Runs in the suite's PostgreSQL pass.
@Suite("Webhooks across two nodes, one killed mid-burst", .tags(.live, .cluster), .timeLimit(.minutes(5)),
    .enabled(if: TestDatabase.postgresURL != nil, "needs PostgreSQL; runs in the suite's PostgreSQL pass"))
struct WebhookClusterTests {
    @Test("a burst of changes in two tenants on two nodes, one node killed halfway: each tenant's hook gets every one of its events, signed, and none of the other's")
    func killedMidBurst() async throws {
        let receiver = try await WebhookTests.Receiver.start()
        defer { receiver.stop() }
        let database = try #require(try await TestDatabase.fresh())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-hooks-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let token = "hooks-cluster-token-\(UUID().uuidString)"
        let ports = [try TestServerPort.free(), try TestServerPort.free()]
        // One after the other: the first makes the shared master key.
        let first = try await serve(directory: directory, port: ports[0], database: database, token: token)
        let second = try await serve(directory: directory, port: ports[1], database: database, token: token)
        do {
            let nodes = ports.map { FeedTests.Admin(baseURL: "http://127.0.0.1:\($0)", token: token) }
            var hooks: [String: String] = [:]
            for name in ["north", "south"] {
                #expect(try await nodes[0].post("/admin/tenants", ["name": name]).status == 201)
                let created = try await nodes[0].post("/admin/webhooks", ["url": receiver.url(name), "events": ["*"], "tenant": name])
                hooks[name] = try #require(try created.json()["id"] as? String)
                try receiver.secret(name, try #require(try created.json()["secret"] as? String))
            }
            // 120 users in each tenant: a third written on both nodes, then the first node is
            // killed (whatever it was dispatching or sending), the rest written on the second.
            let burst = 120
            func write(_ range: Range<Int>, on pick: @escaping @Sendable (Int) -> FeedTests.Admin) async throws {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for tenant in ["north", "south"] {
                        group.addTask {
                            for index in range {
                                let answer = try await pick(index).post("/admin/tenants/\(tenant)/users", ["username": "\(tenant)-\(index)"])
                                #expect(answer.status == 201, "\(answer.status) \(answer.text)")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await write(0..<(burst / 3)) { nodes[$0 % 2] }
            first.kill()
            try await first.waitForExit()
            try await write((burst / 3)..<burst) { _ in nodes[1] }

            // What each tenant's audit log holds since its hook (the tenant's creation came
            // before it): every entry arrives at its hook.
            for name in ["north", "south"] {
                let (entries, _) = try await nodes[1].drain("audit", query: "&tenant=\(name)")
                let expected = Set(entries.filter { $0["action"] as? String != "tenant.create" }.compactMap { $0["id"] as? String }.map { "evt_" + $0 })
                let got = try await receiver.wait(name, seconds: 90) { events in
                    expected.isSubset(of: Set(events.compactMap { $0["id"] as? String }))
                }
                let ids = Set(got.compactMap { $0["id"] as? String })
                #expect(expected.count >= burst && expected.isSubset(of: ids), "\(name): \(expected.subtracting(ids).count) of \(expected.count) missing")
                #expect(got.allSatisfy { $0["tenant"] as? String == name }, "none of the other tenant's events")
                let users = got.filter { $0["type"] as? String == "audit.user.create" }.compactMap { $0["id"] as? String }
                #expect(Set(users).count == burst)
            }
            #expect(receiver.records("refused.jsonl").isEmpty, "every signature verified")
            second.terminate()
            try await second.waitForExit()
        } catch {
            first.kill()
            second.kill()
            throw error
        }
        await TestDatabase.drop(database)
        try? FileManager.default.removeItem(at: directory)
    }
}
