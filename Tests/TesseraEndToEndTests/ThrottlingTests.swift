import Foundation
import Testing
import TesseraCore
import TesseraKit
import TesseraServer
import TesseraTesting

/// What an unauthenticated caller can make a node do, and the headers every answer
/// carries (the hardening review's findings 6 and 8).
@Suite("Rate limits, long-poll caps, idle connections and security headers", .tags(.live), .timeLimit(.minutes(5)))
struct ThrottlingTests {
    @Test("one address past its burst at /authorize gets 429 with Retry-After; the token endpoint keeps its own budget")
    func perAddress() async throws {
        // One request a second, two in a burst: twenty at once cannot all pass, however slow the machine.
        try await withServer(configure: { $0.throttle.perAddress = 1 }) { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            let url = "\(server.baseURL)/t/\(scenario.tenant)/authorize?response_type=code&scope=openid&client_id=\(service.clientID)"
                + "&redirect_uri=\(service.redirectURI.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&state=s&nonce=n"
            let http = scenario.http
            let answers = try await withThrowingTaskGroup(of: TestHTTP.Response.self) { group in
                for _ in 0..<20 { group.addTask { try await http.get(url) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let statuses = answers.map(\.status)
            #expect(Set(statuses).isSubset(of: [200, 429]), "\(statuses)")
            #expect(statuses.filter { $0 == 200 }.count >= 2, "the burst passes: \(statuses)")
            let refused = try #require(answers.first { $0.status == 429 }, "\(statuses)")
            #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
            #expect(try refused.json()["error"] as? String == "too_many_requests")
            // The token endpoint is counted apart: a bad grant is still answered as such.
            let token = try await scenario.tokenRequest(["grant_type": "authorization_code", "code": "nothing"], service: service)
            #expect(token.status == 400, "\(token.text)")
            #expect(try token.json()["error"] as? String == "invalid_grant")
        }
    }

    @Test("one client past its burst at /token gets 429; another client of the same address does not")
    func perClient() async throws {
        try await withServer(configure: { $0.throttle.perClient = 1 }) { server in
            let scenario = try await Scenario.make(on: server)
            let busy = try await scenario.createService()
            let quiet = try await scenario.createService()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await scenario.tokenRequest(["grant_type": "authorization_code", "code": "x"], service: busy).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.contains(429), "\(statuses)")
            #expect(Set(statuses).isSubset(of: [400, 429]), "\(statuses)")
            #expect(try await scenario.tokenRequest(["grant_type": "authorization_code", "code": "x"], service: quiet).status == 400)
        }
    }

    @Test("one device past its burst at a device endpoint gets 429; another device does not")
    func perDevice() async throws {
        try await withServer(configure: { $0.throttle.perClient = 1 }) { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("dan")
            try await scenario.createUser("eve")
            let (busy, _) = try await activateDevice(scenario, username: "dan")
            let (quiet, _) = try await activateDevice(scenario, username: "eve")
            // One a second and two in a burst: eight at once cannot all pass.
            let outcomes = await withTaskGroup(of: String.self) { group -> [String] in
                for _ in 0..<8 {
                    group.addTask {
                        do {
                            _ = try await busy.authenticator.pendingRequests()
                            return "answered"
                        } catch TesseraKitError.server(let status, let code, _) {
                            return "\(status) \(code)"
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.contains("429 too_many_requests"), "\(outcomes)")
            #expect(Set(outcomes).isSubset(of: ["answered", "429 too_many_requests"]), "\(outcomes)")
            #expect(try await quiet.authenticator.pendingRequests().isEmpty)
            busy.remove()
            quiet.remove()
        }
    }

    @Test("a caller past its long-poll cap is answered 429 at once, and may wait again when its first poll ends")
    func longPollCap() async throws {
        try await withServer(configure: { $0.throttle.longPollsPerAddress = 1 }) { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            let login = try await scenario.openLogin(service)
            let waiting = "\(login.statusURL)&wait=8&known=pending"
            let http = scenario.http
            // Two polls of one address: one waits its 8 s, the other is refused at once. Which
            // reaches the server first is the machine's business (a loaded one may swap them).
            @Sendable func poll() async throws -> (TestHTTP.Response, Duration) {
                let started = ContinuousClock.now
                let response = try await http.get(waiting, headers: ["Cookie": login.cookie])
                return (response, ContinuousClock.now - started)
            }
            let first = Task { try await poll() }
            try await Task.sleep(for: .milliseconds(500))
            let second = Task { try await poll() }
            let answers = [try await first.value, try await second.value]
            let refused = try #require(answers.first { $0.0.status == 429 }, "\(answers.map { $0.0.status })")
            let waited = try #require(answers.first { $0.0.status == 200 }, "\(answers.map { $0.0.status })")
            #expect(refused.1 < .seconds(4) && waited.1 > .seconds(6), "refused at once, while the other poll still waits: \(refused.1), \(waited.1)")
            #expect(refused.0.header("Retry-After") != nil)
            #expect(try await http.get(login.statusURL, headers: ["Cookie": login.cookie]).status == 200)
        }
    }

    @Test("an idle connection is closed after the idle timeout")
    func idleTimeout() async throws {
        try await withServer(configure: { $0.idleTimeout = 1 }) { server in
            let port = try #require(URLComponents(string: server.baseURL)?.port)
            // A client that connects and says nothing: the server hangs up on it.
            let script = """
                import socket, time
                s = socket.create_connection(("127.0.0.1", \(port)), timeout=10)
                started = time.monotonic()
                data = s.recv(1)
                print("closed" if data == b"" else "data", round(time.monotonic() - started, 1))
                """
            let result = try await Program.run("/usr/bin/env", ["python3", "-c", script], timeout: .seconds(30))
            let words = result.output.split(separator: " ")
            #expect(words.first == "closed", "\(result.output) \(result.errors)")
            #expect((Double(words.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 99) < 5)
        }
    }

    @Test("pages carry nosniff, no-referrer and frame-ancestors 'none'; JSON and error answers nosniff")
    func headers() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            let login = try await scenario.openLogin(service)
            #expect(!login.page.isEmpty)
            let url = "\(server.baseURL)/t/\(scenario.tenant)/authorize?client_id=unknown"
            let page = try await scenario.http.get(url)
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            #expect(page.header("Referrer-Policy") == "no-referrer")
            #expect(page.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            #expect(page.header("Strict-Transport-Security") == nil, "plain HTTP on loopback: no HSTS")
            for path in ["/health", "/t/\(scenario.tenant)/jwks", "/no/such/path", "/console/login"] {
                let answer = try await scenario.http.get("\(server.baseURL)\(path)")
                #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(path)")
                if answer.header("Content-Type")?.hasPrefix("text/html") == true {
                    #expect(answer.header("Referrer-Policy") == "no-referrer", "\(path)")
                }
            }
        }
    }

    @Test("with --metrics-token, /metrics answers only that bearer token")
    func metricsToken() async throws {
        let token = "metrics-token-\(UUID().uuidString)"
        try await withServer(configure: { $0.metricsToken = token }) { server in
            let http = TestHTTP()
            let anonymous = try await http.get("\(server.baseURL)/metrics")
            #expect(anonymous.status == 401)
            #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try await http.get("\(server.baseURL)/metrics", headers: ["Authorization": "Bearer wrong-\(token)"]).status == 401)
            let scraped = try await http.get("\(server.baseURL)/metrics", headers: ["Authorization": "Bearer \(token)"])
            #expect(scraped.status == 200 && scraped.text.contains("tessera_"))
        }
    }

    @Test("without a metrics token, /metrics answers loopback callers only")
    func metricsLoopback() async throws {
        // The machine's own non-loopback address: a caller from "outside".
        let hostname = try await Program.run("/usr/bin/env", ["hostname", "-I"])
        let address = try #require(
            hostname.output.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .first { !$0.isEmpty && !$0.contains(":") && !$0.hasPrefix("127.") }, "a non-loopback IPv4 address: \(hostname.output)")
        try await withServer(configure: {
            $0.host = "0.0.0.0"
            $0.allowInsecureHTTP = true
        }) { server in
            let port = try #require(URLComponents(string: server.baseURL)?.port)
            let http = TestHTTP()
            #expect(try await http.get("\(server.baseURL)/metrics").status == 200)
            // A request a proxy on this host forwarded is someone else's.
            #expect(try await http.get("\(server.baseURL)/metrics", headers: ["X-Forwarded-For": "203.0.113.9"]).status == 403)
            let outside = try await http.get("http://\(address):\(port)/metrics")
            #expect(outside.status == 403, "\(outside.text)")
            #expect(try await http.get("http://\(address):\(port)/health").status == 200)
        }
    }
}
