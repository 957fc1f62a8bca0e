import Foundation
import TesseraCore
import TesseraKit
import TesseraTesting
import TesseraTestSupport
import Testing

/// Logs, traces and metrics of `tessera serve` as an operator collects them. Logging and
/// tracing are set once per process, so each test runs the server as a child process:
/// JSON log lines on its standard error, spans exported over OTLP/HTTP to a collector
/// stand-in that decodes them with the protocol's own definitions (opentelemetry-proto
/// from PyPI, Tests/interop/otlp_receiver.py).
@Suite("Observability: JSON logs, OpenTelemetry traces, the dashboard's and alerts' metrics", .tags(.live), .timeLimit(.minutes(5)))
struct ObservabilityTests {
    /// The collector stand-in and what it recorded.
    final class Collector: Sendable {
        let directory: URL
        let process: ChildProcess
        let base: String

        static func start() async throws -> Collector {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-otlp-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let (process, port) = try await Python.serve("otlp_receiver.py", in: directory)
            return Collector(directory: directory, process: process, base: "http://127.0.0.1:\(port)")
        }

        private init(directory: URL, process: ChildProcess, base: String) {
            self.directory = directory
            self.process = process
            self.base = base
        }

        func records(_ name: String) -> [[String: Any]] { Python.records(name, in: directory) }

        var spans: [Span] { records("spans.jsonl").map(Span.init) }

        /// Waits until `done` holds for what arrived (spans are sent in batches).
        func waitFor(_ what: String, _ done: ([Span]) -> Bool) async throws -> [Span] {
            for _ in 0..<150 {
                let spans = self.spans
                if done(spans) { return spans }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw TestSupportError("the collector did not receive \(what)")
        }

        func stop() {
            process.kill()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    struct Span {
        let traceID: String
        let spanID: String
        let parentID: String
        let name: String
        let attributes: [String: Any]
        let links: [(traceID: String, spanID: String)]

        init(_ record: [String: Any]) {
            traceID = record["trace_id"] as? String ?? ""
            spanID = record["span_id"] as? String ?? ""
            parentID = record["parent_span_id"] as? String ?? ""
            name = record["name"] as? String ?? ""
            attributes = record["attributes"] as? [String: Any] ?? [:]
            links = (record["links"] as? [[String: String]] ?? []).map { ($0["trace_id"] ?? "", $0["span_id"] ?? "") }
        }

        var route: String? { attributes["http.route"] as? String }
        var requestID: String? { attributes["tessera.request_id"] as? String }
    }

    /// A `tessera serve` child with its JSON log in `log`.
    struct Node {
        let process: ChildProcess
        let base: String
        let token: String
        let log: URL
        let directory: URL

        static func start(arguments: [String], environment: [String: String?] = [:]) async throws -> Node {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-observe-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let port = try TestServerPort.free()
            let token = "observe-admin-token-\(UUID().uuidString)"
            let log = directory.appendingPathComponent("serve.jsonl")
            let process = try await serve(
                directory: directory.appendingPathComponent("data"), port: port, database: try await TestDatabase.fresh(), token: token,
                arguments: arguments, environment: environment, logging: (["--log-format", "json"], log.path))
            return Node(process: process, base: "http://127.0.0.1:\(port)", token: token, log: log, directory: directory)
        }

        /// Stops the node (its exporter sends what is left) and returns its log's lines.
        func stop() async throws -> [String] {
            process.terminate()
            try await process.waitForExit()
            let text = try String(contentsOf: log, encoding: .utf8)
            try? FileManager.default.removeItem(at: directory)
            return text.split(separator: "\n").map(String.init)
        }
    }

    static func randomHex(_ bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    @Test("a QR login's requests share its trace or link to its first span, with database spans below; a logout notice carries its request's trace; only a trusted proxy's traceparent is followed; the JSON log parses and keeps every secret out")
    func tracesAndLogs() async throws {
        let collector = try await Collector.start()
        defer { collector.stop() }
        let smtpPassword = "smtp-password-\(UUID().uuidString)"
        let passwordFile = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-\(UUID().uuidString)")
        try smtpPassword.write(to: passwordFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: passwordFile) }
        // Nothing listens on the SMTP port: the e-mailed invitation fails, and is logged.
        let closedPort = try TestServerPort.free()
        let node = try await Node.start(
            arguments: [
                "--log-level", "info", "--otlp-endpoint", collector.base, "--trace-ratio", "1", "--trusted-proxy", "127.0.0.2",
                "--smtp-url", "smtp://127.0.0.1:\(closedPort)", "--smtp-from", "noreply@tessera.test", "--smtp-user", "mailer",
                "--smtp-password-file", passwordFile.path,
            ],
            // The standard variables work below the flags: batches every 100 ms here.
            environment: ["OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"])
        var stopped = false
        defer { if !stopped { node.process.kill() } }

        let scenario = try await Scenario.make(baseURL: node.base, adminToken: node.token)
        let admin = ["Authorization": "Bearer \(node.token)"]
        let service = try await scenario.createService()
        let update = try await scenario.http.patchJSON(
            "\(node.base)/admin/tenants/\(scenario.tenant)/services/\(service.clientID)", ["backchannel_logout_uri": "\(collector.base)/logout"],
            headers: admin)
        #expect(update.status == 200, "\(update.text)")
        try await scenario.createUser("olga", attributes: ["email": "olga@example.test"])
        let (device, _) = try await activateDevice(scenario, username: "olga")
        defer { device.remove() }
        let mailed = try await scenario.http.postJSON(
            "\(node.base)/admin/tenants/\(scenario.tenant)/invitations", ["username": "olga", "deliver": "email"], headers: admin)
        #expect(mailed.status == 201, "\(mailed.text)")

        // One QR login: the page, the device's claim and finish, the completion, the token.
        let login = try await scenario.openLogin(service)
        let information = try await device.authenticator.start(url: login.authenticationURL)
        #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
        let code = try #require(try await scenario.complete(login)["code"])
        let redeemed = try await scenario.redeem(code: code, service: service, verifier: login.verifier)
        #expect(redeemed.status == 200, "\(redeemed.text)")
        let tokens = try redeemed.json()
        let idToken = try #require(tokens["id_token"] as? String)
        let accessToken = try #require(tokens["access_token"] as? String)

        // The session ends by RP-initiated logout: its back-channel notice goes out.
        let logout = try await scenario.http.get("\(scenario.issuer)/logout?id_token_hint=\(idToken)")
        let logoutRequest = try #require(logout.header("X-Request-Id"))

        // A traceparent from an untrusted peer starts a new trace; a trusted proxy's is followed.
        let foreignTrace = Self.randomHex(16)
        let foreign = "00-\(foreignTrace)-\(Self.randomHex(8))-01"
        let untrusted = try #require(try await TestHTTP().get("\(node.base)/health", headers: ["traceparent": foreign]).header("X-Request-Id"))
        let proxiedTrace = Self.randomHex(16)
        let proxiedParent = Self.randomHex(8)
        let sent = try await Python.run("otlp_receiver.py", ["send", "\(node.base)/health", "00-\(proxiedTrace)-\(proxiedParent)-01", "127.0.0.2"])
        let sentParts = sent.output.split(separator: " ")
        #expect(sent.status == 0 && sentParts.first == "200", "\(sent.output) \(sent.errors)")
        let trusted = String(sentParts.last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)

        // The logout notice arrives with the trace of the request that ended the session.
        var calls: [[String: Any]] = []
        for _ in 0..<150 {
            calls = collector.records("calls.jsonl").filter { $0["path"] as? String == "/logout" }
            if !calls.isEmpty { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let notice = try #require(calls.first, "no back-channel logout arrived")
        let noticeParent = try #require(notice["traceparent"] as? String, "the logout notice carries no traceparent")

        let tokenRoute = "/t/{tenant}/token"
        let spans = try await collector.waitFor("the login's, the logout's and the probes' spans") { spans in
            let ids = Set(spans.compactMap(\.requestID))
            return spans.contains { $0.route == tokenRoute } && ids.contains(logoutRequest) && ids.contains(untrusted) && ids.contains(trusted)
                && spans.contains { $0.name.hasPrefix("logout ") }
        }

        // The login: its first request's span, and every later request of it in its trace or linked to it.
        let first = try #require(spans.first { $0.route == "/t/{tenant}/authorize" }, "no span of the login page")
        let laterRoutes = [
            "/t/{tenant}/device/authentications/{request}/claim", "/t/{tenant}/device/authentications/{request}/finish",
            "/t/{tenant}/authorize/complete", tokenRoute,
        ]
        for route in laterRoutes {
            let span = try #require(spans.first { $0.route == route }, "no span of \(route)")
            let joined = span.traceID == first.traceID || span.links.contains { $0.traceID == first.traceID && $0.spanID == first.spanID }
            #expect(joined, "\(route) is neither in the login's trace nor linked to its first span")
        }
        for route in ["/t/{tenant}/authorize"] + laterRoutes {
            let span = try #require(spans.first { $0.route == route })
            let below = spans.filter { $0.parentID == span.spanID && $0.name.hasPrefix("db ") }
            #expect(!below.isEmpty, "no database span below \(route)")
            for database in below {
                #expect(["sqlite", "postgresql"].contains(database.attributes["db.system.name"] as? String ?? ""))
                #expect(database.attributes["tessera.db.statements"] != nil && database.attributes["tessera.db.queue_ms"] != nil)
                #expect(database.attributes["tessera.db.commit_wait_ms"] != nil)
            }
            #expect(span.attributes["tessera.tenant"] as? String == scenario.tenant, "\(route) names its tenant")
            #expect(span.attributes["http.response.status_code"] != nil)
        }

        // The logout's trace: its request, the outbound call's span, the notice's header.
        let logoutSpan = try #require(spans.first { $0.requestID == logoutRequest })
        #expect(noticeParent.split(separator: "-").count == 4 && noticeParent.split(separator: "-")[1] == logoutSpan.traceID[...])
        let outbound = try #require(spans.first { $0.name.hasPrefix("logout ") })
        #expect(outbound.traceID == logoutSpan.traceID)
        #expect(noticeParent.split(separator: "-")[2] == outbound.spanID[...], "the notice's parent is the outbound call's span")

        // Only the trusted peer's traceparent continues its trace.
        let untrustedSpan = try #require(spans.first { $0.requestID == untrusted })
        #expect(untrustedSpan.traceID != foreignTrace && untrustedSpan.parentID.isEmpty)
        let trustedSpan = try #require(spans.first { $0.requestID == trusted })
        #expect(trustedSpan.traceID == proxiedTrace && trustedSpan.parentID == proxiedParent)

        // The e-mail went nowhere and was logged; then the node stops and its log is read.
        for _ in 0..<100 {
            let log = (try? String(contentsOf: node.log, encoding: .utf8)) ?? ""
            if log.contains("\"msg\":\"message not sent yet\"") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        stopped = true
        let lines = try await node.stop()
        var requestLines = 0
        var traced = 0
        let spanTraces = Dictionary(spans.compactMap { span in span.requestID.map { ($0, span.traceID) } }) { first, _ in first }
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) else {
                Issue.record("a log line that is not JSON: \(line)")
                continue
            }
            let event = try #require(object as? [String: Any], "not a JSON object: \(line)")
            #expect(event["ts"] is String && event["level"] is String && event["msg"] is String, "\(line)")
            guard event["msg"] as? String == "request" else { continue }
            requestLines += 1
            #expect(event["request_id"] is String && event["route"] is String && event["method"] is String, "\(line)")
            #expect(event["status"] is Int && (event["duration_ms"] is Double || event["duration_ms"] is Int), "\(line)")
            if let route = event["route"] as? String, route.contains("{tenant}") { #expect(event["tenant"] as? String != nil, "\(line)") }
            if let id = event["request_id"] as? String, let trace = spanTraces[id] {
                #expect(event["trace_id"] as? String == trace, "the log line and the span of \(id) name one trace")
                traced += 1
            }
        }
        #expect(requestLines >= 10 && traced >= 6, "\(requestLines) request lines, \(traced) with their span's trace")
        #expect(lines.contains { $0.contains("\"msg\":\"message not sent yet\"") }, "the failed e-mail is logged")
        let log = lines.joined(separator: "\n")
        var secrets = [
            "code": code, "access token": accessToken, "ID token": idToken, "login cookie": login.cookie, "admin token": node.token,
            "SMTP password": smtpPassword,
        ]
        if let secret = service.clientSecret { secrets["client secret"] = secret }
        if let refresh = tokens["refresh_token"] as? String { secrets["refresh token"] = refresh }
        for (name, secret) in secrets {
            let value = name == "login cookie" ? String(secret.split(separator: "=", maxSplits: 1).last ?? "") : secret
            #expect(!log.contains(value), "the \(name) is in the log")
        }
    }

    @Test("every metric the shipped dashboard and alert rules name is exported by a running server, quiet or not")
    func dashboardMetricsExist() async throws {
        let node = try await Node.start(arguments: ["--log-level", "warning"])
        var stopped = false
        defer { if !stopped { node.process.kill() } }
        // A quiet server: one scrape for the request series to exist, then the one read.
        _ = try await TestHTTP().get("\(node.base)/metrics")
        let exposition = try await TestHTTP().get("\(node.base)/metrics").text
        var exported = Set<String>()
        for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
            exported.insert(String(line.prefix { $0 != "{" && $0 != " " }))
        }
        let root = Python.interopDirectory().deletingLastPathComponent().deletingLastPathComponent()
        let dashboard = try String(contentsOf: root.appendingPathComponent("packaging/grafana/tessera.json"), encoding: .utf8)
        let alerts = try String(contentsOf: root.appendingPathComponent("packaging/prometheus/alerts.yml"), encoding: .utf8)
        let expressions = try #require(try JSONSerialization.jsonObject(with: Data(dashboard.utf8)) as? [String: Any])
        let panels = try #require(expressions["panels"] as? [[String: Any]])
        let queries = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        #expect(queries.count >= 20)
        // The rules' expressions: each `expr:` and the lines indented below it.
        var rules: [String] = []
        var indent: Int?
        for line in alerts.split(separator: "\n", omittingEmptySubsequences: false) {
            let depth = line.prefix { $0 == " " }.count
            if let current = indent, depth > current, !line.trimmingCharacters(in: .whitespaces).isEmpty {
                rules[rules.count - 1] += " " + line
                continue
            }
            indent = nil
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("expr:") {
                rules.append(String(trimmed.dropFirst(5)))
                indent = depth
            }
        }
        #expect(rules.count >= 9, "\(rules)")
        let pattern = try Regex("\\b(?:tessera|process)_[a-z_]+")
        var named = Set<String>()
        for text in queries + rules {
            for match in text.matches(of: pattern) { named.insert(String(text[match.range])) }
        }
        #expect(named.count >= 15, "\(named.sorted())")
        for name in named.sorted() {
            #expect(exported.contains(name), "\(name) is named by the dashboard or the alerts but not exported")
        }
        stopped = true
        _ = try await node.stop()
    }
}
