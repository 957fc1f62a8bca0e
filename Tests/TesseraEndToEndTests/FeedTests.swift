import Foundation
import SQLKit
import Synchronization
import Testing
import TesseraCore
import TesseraKit
import TesseraServer
import TesseraTesting
@testable import TesseraStore

/// Where each request came from (`X-Request-Id`, source address, user agent in audit and
/// history) and the feeds that page audit and history in commit order.
@Suite("Request ids, origins and the audit and history feeds", .tags(.live), .timeLimit(.minutes(5)))
struct FeedTests {
    struct Admin {
        let baseURL: String
        let token: String
        let http = TestHTTP()

        func get(_ path: String, headers: [String: String] = [:]) async throws -> TestHTTP.Response {
            try await http.get(baseURL + path, headers: headers.merging(["Authorization": "Bearer \(token)"]) { given, _ in given })
        }

        func post(_ path: String, _ body: [String: Any], headers: [String: String] = [:]) async throws -> TestHTTP.Response {
            try await http.send(
                "POST", baseURL + path,
                headers: headers.merging(["Authorization": "Bearer \(token)", "Content-Type": "application/json"]) { given, _ in given },
                body: try JSONSerialization.data(withJSONObject: body))
        }

        func send(_ method: String, _ path: String) async throws -> TestHTTP.Response {
            try await http.send(method, baseURL + path, headers: ["Authorization": "Bearer \(token)"])
        }

        /// Every entry of a feed from `cursor` on, `limit` at a time, and the cursor after them.
        func drain(_ feed: String, query: String = "", from cursor: String? = nil, limit: Int = 1000) async throws
            -> (entries: [[String: Any]], cursor: String)
        {
            var entries: [[String: Any]] = []
            var cursor = cursor
            while true {
                var path = "/admin/\(feed)/feed?limit=\(limit)\(query)"
                if let cursor { path += "&cursor=\(cursor)" }
                let response = try await get(path)
                try #require(response.status == 200, "\(response.status) \(response.text)")
                let json = try response.json()
                let page = try #require(json["entries"] as? [[String: Any]])
                cursor = try #require(json["next_cursor"] as? String)
                entries += page
                if page.count < limit { return (entries, cursor!) }
            }
        }
    }

    @Test("every answer carries X-Request-Id, a trusted proxy's kept and anyone else's replaced; audit entries say where their change came from")
    func requestIDs() async throws {
        // Not a proxy: a given id is replaced, on answers and errors alike.
        try await withServer { server in
            let http = TestHTTP()
            for path in ["/health", "/no-such-route", "/admin/tenants"] {
                let response = try await http.get(server.baseURL + path, headers: ["X-Request-Id": "mine-1234"])
                let id = try #require(response.header("X-Request-Id"), "\(path) answered \(response.status) without an id")
                #expect(id != "mine-1234" && id.count >= 16, "\(path): \(id)")
            }
            let first = try await http.get(server.baseURL + "/health").header("X-Request-Id")
            let second = try await http.get(server.baseURL + "/health").header("X-Request-Id")
            #expect(first != second)
        }
        // Behind a trusted proxy (here the loopback): its id and its client's address are kept.
        try await withServer(configure: { $0.throttle.trustedProxies = ["127.0.0.1"] }) { server in
            let admin = Admin(baseURL: server.baseURL, token: server.adminToken)
            let proxied = ["X-Request-Id": "proxy-id.42:a_b-c", "X-Forwarded-For": "198.51.100.1, 203.0.113.7", "User-Agent": "feed-test/1.0"]
            let created = try await admin.post("/admin/tenants", ["name": "origins"], headers: proxied)
            #expect(created.status == 201, "\(created.text)")
            #expect(created.header("X-Request-Id") == "proxy-id.42:a_b-c")
            // An id a log line or header could be bent by is replaced even from the proxy.
            let odd = try await admin.get("/admin/tenants", headers: ["X-Request-Id": "bad id;x=1"])
            #expect(odd.header("X-Request-Id").map { $0 != "bad id;x=1" && !$0.isEmpty } == true)
            let long = try await admin.get("/admin/tenants", headers: ["X-Request-Id": String(repeating: "a", count: 129)])
            #expect(long.header("X-Request-Id")?.count != 129)

            let entries = try #require(try await admin.get("/admin/audit?tenant=origins").json()["entries"] as? [[String: Any]])
            let entry = try #require(entries.first { $0["action"] as? String == "tenant.create" })
            #expect(entry["source_address"] as? String == "203.0.113.7", "the address the proxy saw: \(entry)")
            #expect(entry["user_agent"] as? String == "feed-test/1.0")
            #expect(entry["http_request_id"] as? String == "proxy-id.42:a_b-c")
        }
    }

    @Test("a login's history entries say which request wrote them, from where; the history feed names tenant and user")
    func historyOrigins() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("hana")
            let (device, _) = try await activateDevice(scenario, username: "hana")
            _ = try await approvedLogin(scenario, service, device: device)
            let admin = Admin(baseURL: server.baseURL, token: server.adminToken)
            let (entries, _) = try await admin.drain("history", query: "&tenant=\(scenario.tenant)")
            let login = try #require(entries.last { $0["purpose"] as? String == "login" }, "\(entries)")
            #expect(login["tenant"] as? String == scenario.tenant)
            #expect(login["username"] as? String == "hana")
            #expect(login["source_address"] as? String == "127.0.0.1")
            #expect((login["http_request_id"] as? String)?.isEmpty == false)
            #expect(login["http_request_id"] as? String != login["request_id"] as? String, "the HTTP request's id, not the login's")
            // The newest-first page shows the same entry with its origin.
            let page = try #require(
                try await admin.get("/admin/tenants/\(scenario.tenant)/history?limit=1").json()["entries"] as? [[String: Any]])
            #expect(page.first?["http_request_id"] as? String == login["http_request_id"] as? String)
            device.remove()
        }
    }

    @Test("the audit feed pages every entry once in commit order; an empty page keeps the cursor; tenants see their own; bad cursors are refused")
    func auditFeed() async throws {
        try await withServer { server in
            let admin = Admin(baseURL: server.baseURL, token: server.adminToken)
            let ours = try await Scenario.make(on: server)
            let theirs = try await Scenario.make(on: server)
            for index in 0..<23 { try await ours.createUser("user\(index)") }
            try await theirs.createUser("other")

            // Ten at a time: three pages, then an empty one with the same cursor.
            let (paged, cursor) = try await admin.drain("audit", limit: 10)
            let (whole, sameCursor) = try await admin.drain("audit")
            #expect(cursor == sameCursor)
            let seqs = paged.compactMap { $0["seq"] as? Int }
            #expect(seqs.count == paged.count && seqs == seqs.sorted() && Set(seqs).count == seqs.count, "\(seqs)")
            #expect(paged.compactMap { $0["id"] as? String } == whole.compactMap { $0["id"] as? String })
            let newestFirst = try #require(try await admin.get("/admin/audit?limit=1000").json()["entries"] as? [[String: Any]])
            #expect(Set(paged.compactMap { $0["id"] as? String }) == Set(newestFirst.compactMap { $0["id"] as? String }))
            let users = paged.filter { $0["action"] as? String == "user.create" && $0["tenant"] as? String == ours.tenant }
            #expect(users.count == 23)

            let empty = try await admin.get("/admin/audit/feed?cursor=\(cursor)")
            #expect(try empty.json()["next_cursor"] as? String == cursor)
            #expect((try empty.json()["entries"] as? [Any])?.isEmpty == true)
            // What commits next comes next.
            try await ours.createUser("late")
            let (later, _) = try await admin.drain("audit", from: cursor)
            #expect(later.count == 1 && later.first?["target"] != nil && (later.first?["seq"] as? Int ?? 0) > (seqs.last ?? 0))

            // Narrowed to a tenant: only its entries.
            let (narrowed, _) = try await admin.drain("audit", query: "&tenant=\(theirs.tenant)")
            #expect(!narrowed.isEmpty && narrowed.allSatisfy { $0["tenant"] as? String == theirs.tenant })
            // A tenant's key reads its own tenant only, with or without naming it.
            let key = try await admin.post("/admin/keys", ["name": "siem", "role": "auditor", "tenant": theirs.tenant])
            let scoped = Admin(baseURL: server.baseURL, token: try #require(try key.json()["key"] as? String))
            let (own, _) = try await scoped.drain("audit")
            #expect(!own.isEmpty && own.allSatisfy { $0["tenant"] as? String == theirs.tenant })
            let elsewhere = try await scoped.get("/admin/audit/feed?tenant=\(ours.tenant)")
            #expect(elsewhere.status == 404, "another tenant is not there for it: \(elsewhere.status) \(elsewhere.text)")
            let (history, _) = try await scoped.drain("history")
            #expect(history.allSatisfy { $0["tenant"] as? String == theirs.tenant })

            // The command line prints the same entries as JSON lines, and where to go on.
            let environment = ["TESSERA_SERVER": server.baseURL, "TESSERA_ADMIN_TOKEN": server.adminToken]
            let run = try await Program.run(tesseraBinary, ["admin", "feed", "audit", "--tenant", ours.tenant], environment: environment)
            #expect(run.status == 0, "\(run.errors)")
            let lines = run.output.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
            let (oursOnly, oursCursor) = try await admin.drain("audit", query: "&tenant=\(ours.tenant)")
            #expect(lines.compactMap { $0["id"] as? String } == oursOnly.compactMap { $0["id"] as? String })
            #expect(run.errors.contains("next_cursor: \(oursCursor)"), "\(run.errors)")
            let rest = try await Program.run(
                tesseraBinary, ["admin", "feed", "audit", "--tenant", ours.tenant, "--cursor", oursCursor], environment: environment)
            #expect(rest.status == 0 && rest.output.isEmpty && rest.errors.contains("next_cursor: \(oursCursor)"), "\(rest.errors)")

            for bad in ["abc", "-1", "1e3", "99999999999999999999"] {
                let refused = try await admin.get("/admin/audit/feed?cursor=\(bad)")
                #expect(refused.status == 400, "\(bad): \(refused.status) \(refused.text)")
            }
            #expect(try await admin.get("/admin/history/feed?limit=0").status == 400)
            #expect(try await admin.get("/admin/audit/feed?tenant=nobody").status == 404)
        }
    }
}

/// The feeds under load on two nodes: what a consumer paging every half second collects
/// is exactly what the database holds. Runs in the suite's PostgreSQL pass with a few
/// hundred changes and logins; `TESSERA_FEED_CHANGES` and `TESSERA_FEED_LOGINS` raise them
/// (scripts/feed-burst.sh measures the 3,000 and 2,000 on the release build).
@Suite("The feeds with writers on two nodes", .tags(.live, .cluster), .timeLimit(.minutes(10)),
    .enabled(if: TestDatabase.postgresURL != nil, "needs PostgreSQL; runs in the suite's PostgreSQL pass"))
struct FeedBurstTests {
    static func count(_ name: String, _ standard: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? standard
    }

    /// Pages a feed from `cursor` until a page is short, checking order on the way.
    static func page(_ admin: FeedTests.Admin, _ feed: String, from cursor: String?) async throws -> ([String], [Int], String?) {
        let (entries, next) = try await admin.drain(feed, from: cursor)
        return (entries.compactMap { $0["id"] as? String }, entries.compactMap { $0["seq"] as? Int }, next)
    }

    @Test("audited changes and logins on both nodes at once, read by a consumer paging the feeds every half second: each entry once, all of them")
    func burst() async throws {
        let changes = Self.count("TESSERA_FEED_CHANGES", 300)
        let logins = Self.count("TESSERA_FEED_LOGINS", 100)
        let cluster = try await TestCluster.start(nodes: 2)
        do {
            let scenario = try await Scenario.make(baseURL: cluster.baseURL, adminToken: cluster.adminToken)
            let service = try await scenario.createService(policy: "device+pin")
            var activated: [TestDevice] = []
            for index in 0..<8 {
                try await scenario.createUser("device\(index)")
                activated.append(try await activateDevice(scenario, username: "device\(index)").0)
            }
            let devices = activated
            let nodes = cluster.nodeURLs.map { Scenario(baseURL: $0, adminToken: cluster.adminToken, tenant: scenario.tenant) }
            let readers = cluster.nodeURLs.map { FeedTests.Admin(baseURL: $0, token: cluster.adminToken) }
            let started = ContinuousClock.now

            let done = Mutex(false)
            let writers = Task {
                defer { done.withLock { $0 = true } }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // Changes: eight writers, each on alternate nodes.
                    for writer in 0..<8 {
                        group.addTask {
                            for index in stride(from: writer, to: changes, by: 8) {
                                try await nodes[index % 2].createUser("burst\(index)")
                            }
                        }
                    }
                    // Logins: each device in turn, through the proxy (both nodes).
                    for (number, device) in devices.enumerated() {
                        group.addTask {
                            for _ in stride(from: number, to: logins, by: devices.count) {
                                let login = try await scenario.openLogin(service)
                                let information = try await device.authenticator.start(url: login.authenticationURL)
                                _ = try await signAndFinish(information, device: device, factors: [.device, .pin])
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }

            // The consumer: every half second, from alternate nodes.
            var audit: [String] = [], history: [String] = []
            var auditSeqs: [Int] = [], historySeqs: [Int] = []
            var auditCursor: String?, historyCursor: String?
            var round = 0
            func consume() async throws {
                let reader = readers[round % 2]
                round += 1
                let (a, aSeqs, aNext) = try await Self.page(reader, "audit", from: auditCursor)
                audit += a
                auditSeqs += aSeqs
                auditCursor = aNext
                let (h, hSeqs, hNext) = try await Self.page(reader, "history", from: historyCursor)
                history += h
                historySeqs += hSeqs
                historyCursor = hNext
            }
            while !done.withLock({ $0 }) {
                try await consume()
                try await Task.sleep(for: .milliseconds(500))
            }
            try await writers.value
            let elapsed = ContinuousClock.now - started
            try await consume()

            // Each entry once, in increasing order, and every entry the database holds.
            #expect(Set(audit).count == audit.count, "no audit entry twice")
            #expect(Set(history).count == history.count, "no history entry twice")
            #expect(auditSeqs == auditSeqs.sorted() && historySeqs == historySeqs.sorted())
            let (storedAudit, storedHistory) = try await TestDatabase.withStore(at: cluster.database) { store in
                try await store.read { tx in
                    (try await tx.ids(of: "audit_log"), try await tx.ids(of: "authentication_history"))
                }
            }
            #expect(Set(audit) == Set(storedAudit), "\(audit.count) read, \(storedAudit.count) stored")
            #expect(Set(history) == Set(storedHistory), "\(history.count) read, \(storedHistory.count) stored")
            #expect(storedAudit.count >= changes && storedHistory.count >= logins)
            print("feed burst: \(changes) changes and \(logins) logins in \(elapsed) on two nodes; the consumer read \(audit.count) audit and \(history.count) history entries in \(round) rounds")
            for device in devices { device.remove() }
            await cluster.stop()
        } catch {
            await cluster.stop()
            throw error
        }
    }
}

extension StoreTransaction {
    /// Every id of a table, as the database holds them.
    fileprivate func ids(of table: String) async throws -> [String] {
        try await db.raw("SELECT id FROM \(ident: table)").all().map { try $0.decode(column: "id", as: String.self) }
    }
}
