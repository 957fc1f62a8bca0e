import Foundation
import Testing
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraTesting

/// The whole admin API and its CLI: every change is refused with a clear 4xx when it is
/// bad, and what must end (sessions on a deleted service or a disabled user) ends.
@Suite("Administration: tenants, services, users, invitations, sessions, history", .tags(.live), .timeLimit(.minutes(5)))
struct AdministrationTests {
    struct Admin {
        let scenario: Scenario
        var http: TestHTTP { scenario.http }
        var headers: [String: String] { ["Authorization": "Bearer \(scenario.adminToken)", "Content-Type": "application/json"] }
        var base: String { "\(scenario.baseURL)/admin/tenants/\(scenario.tenant)" }

        func send(_ method: String, _ path: String, _ body: Any? = nil) async throws -> TestHTTP.Response {
            try await http.send(
                method, path.hasPrefix("http") ? path : base + path, headers: headers,
                body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
        }

        func cli(_ arguments: [String]) async throws -> (Int32, [String: Any], String) {
            try await tessera(arguments, environment: ["TESSERA_SERVER": scenario.baseURL, "TESSERA_ADMIN_TOKEN": scenario.adminToken])
        }
    }

    func tokens(_ scenario: Scenario, _ service: Scenario.Service, device: TestDevice) async throws -> (access: String, refresh: String) {
        let (login, code) = try await approvedLogin(scenario, service, device: device)
        let json = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
        return (try #require(json["access_token"] as? String), try #require(json["refresh_token"] as? String))
    }

    func refreshes(_ scenario: Scenario, _ service: Scenario.Service, _ token: String) async throws -> Int {
        try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": token], service: service).status
    }

    @Test("tenants: get, update within bounds, delete refused while it has users unless forced")
    func tenants() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = Admin(scenario: scenario)
            let (status, tenant, output) = try await admin.cli(["admin", "tenant", "get", scenario.tenant, "--json"])
            #expect(status == 0, "\(output)")
            #expect(tenant["session_lifetime"] as? Int == 2_592_000 && tenant["audit_retention"] == nil, "kept for good")

            let updated = try await admin.cli([
                "admin", "tenant", "update", scenario.tenant, "--session-lifetime", "86400", "--session-idle-lifetime", "3600",
                "--history-retention", "604800", "--audit-retention", "31536000", "--sso-lifetime", "600", "--access-token-lifetime", "120",
                "--json",
            ])
            #expect(updated.0 == 0, "\(updated.2)")
            #expect(updated.1["session_idle_lifetime"] as? Int == 3600 && updated.1["sso_policy"] as? String == "device")
            // Out of bounds, malformed or empty: 400, and nothing changes.
            let badBodies: [[String: Any]] = [
                ["session_idle_lifetime": 90_000], ["lockout": ["free_attempts": 9, "waits": [30]]], ["process_policy": "pin+nonsense"],
                ["history_retention": -1], ["audit_retention": 60], ["access_token_lifetime": 5], [:],
            ]
            for body in badBodies {
                let refused = try await admin.send("PATCH", "", body)
                #expect(refused.status == 400, "\(body): \(refused.text)")
            }
            #expect(try await admin.http.send("PATCH", admin.base, headers: admin.headers, body: Data("{".utf8)).status == 400)
            let after = try await admin.send("GET", "").json()
            #expect(after["session_lifetime"] as? Int == 86_400 && after["session_idle_lifetime"] as? Int == 3600)
            #expect(after["history_retention"] as? Int == 604_800 && after["audit_retention"] as? Int == 31_536_000)
            #expect(try await admin.send("PATCH", "", ["audit_retention": NSNull()]).json()["audit_retention"] == nil)
            // The token lifetime holds at /token.
            let service = try await scenario.createService()
            try await scenario.createUser("tom")
            let (device, _) = try await activateDevice(scenario, username: "tom")
            defer { device.remove() }
            let (login, code) = try await approvedLogin(scenario, service, device: device)
            #expect(try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()["expires_in"] as? Int == 120)

            try await scenario.createUser("uma")
            let refused = try await admin.cli(["admin", "tenant", "delete", scenario.tenant])
            #expect(refused.0 != 0 && refused.2.contains("409"), "\(refused.2)")
            #expect(try await admin.http.get("\(scenario.issuer)/.well-known/openid-configuration").status == 200)
            let forced = try await admin.cli(["admin", "tenant", "delete", scenario.tenant, "--force"])
            #expect(forced.0 == 0, "\(forced.2)")
            #expect(try await admin.http.get("\(scenario.issuer)/.well-known/openid-configuration").status == 404, "gone at once")
            #expect(try await admin.send("GET", "").status == 404)
            let audit = try await admin.send("GET", "\(scenario.baseURL)/admin/audit?limit=1000").json()
            let actions = (audit["entries"] as? [[String: Any]] ?? []).filter { $0["target"] as? String == scenario.tenant }
                .compactMap { $0["action"] as? String }
            #expect(actions.contains("tenant.update") && actions.contains("tenant.delete"))
        }
    }

    @Test("services: get, update, rotate the secret (the old one stops at once), delete (its sessions end); another tenant's is 404")
    func services() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let other = try await Scenario.make(on: server)
            let admin = Admin(scenario: scenario)
            let service = try await scenario.createService()
            let foreign = try await other.createService()
            try await scenario.createUser("sam")
            let (device, _) = try await activateDevice(scenario, username: "sam")
            defer { device.remove() }

            let shown = try await admin.cli(["admin", "service", "get", "--tenant", scenario.tenant, service.clientID, "--json"])
            #expect(shown.0 == 0 && shown.1["client_id"] as? String == service.clientID && shown.1["client_secret"] == nil, "\(shown.2)")
            #expect(try await admin.send("GET", "/services/\(foreign.clientID)").status == 404, "another tenant's service")
            #expect(try await admin.send("GET", "/services/unknown").status == 404)

            let renamed = try await admin.cli([
                "admin", "service", "update", "--tenant", scenario.tenant, service.clientID, "--name", "Shop 2", "--attributes", "email",
                "--session-lifetime", "7200", "--json",
            ])
            #expect(renamed.0 == 0 && renamed.1["name"] as? String == "Shop 2" && renamed.1["session_lifetime"] as? Int == 7200, "\(renamed.2)")
            // No redirect URI left, a bad policy, an unknown field's type: 400 and unchanged.
            let badBodies: [[String: Any]] = [["redirect_uris": [String]()], ["policy": ""], ["name": 5], ["session_idle_lifetime": 9_000]]
            for body in badBodies {
                #expect(try await admin.send("PATCH", "/services/\(service.clientID)", body).status == 400, "\(body)")
            }
            #expect(try await admin.send("GET", "/services/\(service.clientID)").json()["redirect_uris"] as? [String] == [service.redirectURI])

            let live = try await tokens(scenario, service, device: device)
            let rotated = try await admin.cli(["admin", "service", "rotate-secret", "--tenant", scenario.tenant, service.clientID, "--json"])
            let secret = try #require(rotated.1["client_secret"] as? String, "\(rotated.2)")
            #expect(try await refreshes(scenario, service, live.refresh) == 401, "the old secret stops at once")
            let renewed = Scenario.Service(clientID: service.clientID, clientSecret: secret, redirectURI: service.redirectURI)
            #expect(try await refreshes(scenario, renewed, live.refresh) == 200)

            let session = try await tokens(scenario, renewed, device: device)
            let deleted = try await admin.cli(["admin", "service", "delete", "--tenant", scenario.tenant, service.clientID])
            #expect(deleted.0 == 0, "\(deleted.2)")
            #expect(try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(session.access)"]).status == 401)
            #expect(try await admin.send("GET", "/services/\(service.clientID)").status == 404)
            #expect(try await admin.send("DELETE", "/services/\(service.clientID)").status == 404)
        }
    }

    @Test("users: list with search, attribute and cursor; get with devices and sessions; update; disable ends sessions and logins; delete")
    func users() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = Admin(scenario: scenario)
            let service = try await scenario.createService()
            for index in 0..<5 { try await scenario.createUser("user-\(index)", attributes: ["team": index % 2 == 0 ? "red" : "blue"]) }
            try await scenario.createUser("Zoe", attributes: ["team": "red\"quoted"])

            let first = try await admin.cli(["admin", "user", "list", "--tenant", scenario.tenant, "--search", "USER", "--limit", "3", "--json"])
            #expect((first.1["users"] as? [[String: Any]])?.compactMap { $0["username"] as? String } == ["user-0", "user-1", "user-2"], "\(first.2)")
            let cursor = try #require(first.1["next_cursor"] as? String)
            let second = try await admin.send("GET", "/users?search=user&limit=3&cursor=\(cursor)").json()
            #expect((second["users"] as? [[String: Any]])?.compactMap { $0["username"] as? String } == ["user-3", "user-4"])
            #expect(second["next_cursor"] == nil)
            let red = try await admin.send("GET", "/users?attribute=team%3Dred").json()
            #expect((red["users"] as? [[String: Any]])?.compactMap { $0["username"] as? String } == ["user-0", "user-2", "user-4"])
            let quoted = try await admin.send("GET", "/users?attribute=team%3Dred%22quoted").json()
            #expect((quoted["users"] as? [[String: Any]])?.compactMap { $0["username"] as? String } == ["Zoe"])
            for query in ["limit=0", "limit=-5", "limit=100000", "cursor=%25%25", "attribute=nope", "limit=abc"] {
                #expect(try await admin.send("GET", "/users?\(query)").status == 400, "\(query)")
            }

            let (device, _) = try await activateDevice(scenario, username: "user-0")
            defer { device.remove() }
            let session = try await tokens(scenario, service, device: device)
            let detail = try await admin.cli(["admin", "user", "get", "--tenant", scenario.tenant, "--username", "user-0", "--json"])
            #expect((detail.1["activations"] as? [Any])?.count == 1 && (detail.1["sessions"] as? [Any])?.count == 1, "\(detail.2)")
            let userID = try #require((detail.1["user"] as? [String: Any])?["id"] as? String)
            #expect(try await admin.send("GET", "/users/nope").status == 404)

            let updated = try await admin.cli(["admin", "user", "update", "--tenant", scenario.tenant, "--id", userID, "--attribute", "team=green", "--json"])
            #expect((updated.1["attributes"] as? [String: String]) == ["team": "green"], "\(updated.2)")
            #expect(try await admin.send("PATCH", "/users/\(userID)", ["attributes": ["Bad Name": "x"]]).status == 400)

            // Disabled: the session ends, the device cannot log in; enabled again it can.
            let disabled = try await admin.cli(["admin", "user", "disable", "--tenant", scenario.tenant, "--username", "user-0", "--json"])
            #expect(disabled.1["disabled"] as? Bool == true, "\(disabled.2)")
            #expect(try await refreshes(scenario, service, session.refresh) == 400)
            #expect(try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(session.access)"]).status == 401)
            let login = try await scenario.openLogin(service)
            await #expect(throws: (any Error).self) { _ = try await device.authenticator.start(url: login.authenticationURL) }
            #expect(try await admin.cli(["admin", "user", "enable", "--tenant", scenario.tenant, "--username", "user-0"]).0 == 0)
            _ = try await tokens(scenario, service, device: device)

            let removed = try await admin.cli(["admin", "user", "delete", "--tenant", scenario.tenant, "--id", userID])
            #expect(removed.0 == 0, "\(removed.2)")
            #expect(try await admin.send("GET", "/users/\(userID)").status == 404)
            #expect(try await scenario.activations(username: nil).isEmpty, "its device went with it")
        }
    }

    @Test("invitations and sessions: list and revoke an invitation; list a user's sessions, end one, end all")
    func invitationsAndSessions() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = Admin(scenario: scenario)
            let service = try await scenario.createService()
            try await scenario.createUser("ivy")
            let link = try await scenario.invite("ivy")
            let listed = try await admin.cli(["admin", "invitation", "list", "--tenant", scenario.tenant, "--json"])
            let invitations = try #require(listed.1["invitations"] as? [[String: Any]], "\(listed.2)")
            #expect(invitations.count == 1 && invitations[0]["username"] as? String == "ivy" && invitations[0]["kind"] as? String == "invitation")
            let invitationID = try #require(invitations[0]["id"] as? String)
            #expect(try await admin.cli(["admin", "invitation", "revoke", "--tenant", scenario.tenant, invitationID]).0 == 0)
            #expect(try await admin.send("DELETE", "/invitations/\(invitationID)").status == 409, "revoked already")
            #expect(try await admin.send("DELETE", "/invitations/unknown").status == 404)
            let device = try TestDevice()
            defer { device.remove() }
            await #expect(throws: (any Error).self) {
                _ = try await device.personalizer.activate(url: link, pin: "2468", alias: nil, enrollBiometric: false, enrollOTP: false)
            }

            let (phone, _) = try await activateDevice(scenario, username: "ivy")
            defer { phone.remove() }
            let one = try await tokens(scenario, service, device: phone)
            let two = try await tokens(scenario, service, device: phone)
            let three = try await tokens(scenario, service, device: phone)
            let sessions = try await admin.cli(["admin", "session", "list", "--tenant", scenario.tenant, "--username", "ivy", "--json"])
            let listedSessions = try #require(sessions.1["sessions"] as? [[String: Any]], "\(sessions.2)")
            #expect(listedSessions.count == 3)
            #expect(listedSessions.allSatisfy { $0["client_id"] as? String == service.clientID && $0["activation_id"] is String })
            // End the session of `three` only: the tokens' `sid` names it.
            let payload = try #require(Base64URL.decode(three.access.split(separator: ".")[1]))
            let newest = try #require((try JSONSerialization.jsonObject(with: payload) as? [String: Any])?["sid"] as? String)
            #expect(listedSessions.contains { $0["id"] as? String == newest })
            #expect(try await admin.cli(["admin", "session", "end", "--tenant", scenario.tenant, newest]).0 == 0)
            #expect(try await refreshes(scenario, service, three.refresh) == 400)
            #expect(try await refreshes(scenario, service, one.refresh) == 200)
            #expect(try await admin.send("DELETE", "/sessions/\(newest)").status == 409)
            #expect(try await admin.send("DELETE", "/sessions/unknown").status == 404)
            let all = try await admin.cli(["admin", "session", "end", "--tenant", scenario.tenant, "--all", "--username", "ivy", "--json"])
            #expect(all.1["ended"] as? Int == 2, "\(all.2)")
            #expect(try await refreshes(scenario, service, two.refresh) == 400)
        }
    }

    @Test("history: by user, outcome and time, paged newest first; bad filters are 400")
    func history() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = Admin(scenario: scenario)
            let service = try await scenario.createService()
            try await scenario.createUser("hal")
            try await scenario.createUser("kit")
            let (hal, _) = try await activateDevice(scenario, username: "hal")
            let (kit, _) = try await activateDevice(scenario, username: "kit")
            defer {
                hal.remove()
                kit.remove()
            }
            for _ in 0..<3 { _ = try await approvedLogin(scenario, service, device: hal) }
            _ = try await approvedLogin(scenario, service, device: kit)
            let login = try await scenario.openLogin(service)
            let information = try await kit.authenticator.start(url: login.authenticationURL)
            _ = try await signAndFinish(information, device: kit, factors: [.device, .pin], pin: "0000")

            let first = try await admin.cli(["admin", "history", "--tenant", scenario.tenant, "--username", "hal", "--limit", "2", "--json"])
            let entries = try #require(first.1["entries"] as? [[String: Any]], "\(first.2)")
            #expect(entries.count == 2 && entries.allSatisfy { $0["username"] as? String == "hal" && $0["outcome"] as? String == "approved" })
            let cursor = try #require(first.1["next_cursor"] as? String)
            let rest = try await admin.send("GET", "/history?username=hal&limit=2&cursor=\(cursor)").json()
            #expect((rest["entries"] as? [Any])?.count == 1 && rest["next_cursor"] == nil)
            let failed = try await admin.send("GET", "/history?outcome=failed").json()
            #expect((failed["entries"] as? [[String: Any]])?.map { $0["username"] as? String } == ["kit"])
            let future = try await admin.send("GET", "/history?since=\(Int(Date().timeIntervalSince1970) + 3600)").json()
            #expect((future["entries"] as? [Any])?.isEmpty == true)
            for query in ["outcome=maybe", "since=-1", "until=x", "cursor=bm9wZQ", "limit=1001", "username=nobody"] {
                let status = try await admin.send("GET", "/history?\(query)").status
                #expect(status == (query.hasPrefix("username") ? 404 : 400), "\(query)")
            }
        }
    }
}

@Suite("Scoped admin API keys", .tags(.live), .timeLimit(.minutes(5)))
struct AdminKeyTests {
    @Test("a tenant's keys reach only that tenant (404 elsewhere); helpdesk and auditor roles get 403 beyond theirs; revoked keys stop")
    func scopedKeys() async throws {
        try await withServer { server in
            let alpha = try await Scenario.make(on: server)
            let beta = try await Scenario.make(on: server)
            let bootstrap = AdministrationTests.Admin(scenario: alpha)
            let betaService = try await beta.createService()
            try await beta.createUser("bob")
            try await alpha.createUser("ann")
            let (device, _) = try await activateDevice(alpha, username: "ann")
            defer { device.remove() }
            let (betaDevice, betaActivation) = try await activateDevice(beta, username: "bob")
            defer { betaDevice.remove() }

            var keys: [String: String] = [:]
            var keyIDs: [String: String] = [:]
            for role in ["admin", "helpdesk", "auditor"] {
                let made = try await bootstrap.cli(["admin", "key", "create", "--name", "\(role) of alpha", "--role", role, "--tenant", alpha.tenant, "--json"])
                keys[role] = try #require(made.1["key"] as? String, "\(made.2)")
                keyIDs[role] = made.1["id"] as? String
            }
            func call(_ role: String, _ method: String, _ path: String, _ body: Any? = nil) async throws -> Int {
                try await bootstrap.http.send(
                    method, "\(alpha.baseURL)/admin\(path)", headers: ["Authorization": "Bearer \(keys[role] ?? "")", "Content-Type": "application/json"],
                    body: try body.map { try JSONSerialization.data(withJSONObject: $0) }
                ).status
            }
            let a = "/tenants/\(alpha.tenant)"
            let b = "/tenants/\(beta.tenant)"
            for role in ["admin", "helpdesk", "auditor"] {
                #expect(try await call(role, "GET", "\(a)/users") == 200, "\(role) reads its tenant")
                #expect(try await call(role, "GET", "\(b)/users") == 404, "\(role): another tenant is unknown")
                #expect(try await call(role, "GET", "\(b)/services/\(betaService.clientID)") == 404)
                // An auditor may not unlock at all: 403 whether the activation exists or not.
                #expect(try await call(role, "POST", "/activations/\(betaActivation.activation.id.rawValue)/unlock") == (role == "auditor" ? 403 : 404))
                #expect(try await call(role, "POST", "/tenants", ["name": "t-\(role)-x"]) == 403, "only an all-tenant admin makes tenants")
                #expect(try await call(role, "GET", "/stats") == 403)
            }
            let tenants = try await bootstrap.http.get("\(alpha.baseURL)/admin/tenants", headers: ["Authorization": "Bearer \(keys["auditor"] ?? "")"]).json()
            #expect((tenants["tenants"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == [alpha.tenant])

            // auditor: read only.
            #expect(try await call("auditor", "POST", "\(a)/users", ["username": "nope"]) == 403)
            #expect(try await call("auditor", "POST", "\(a)/invitations", ["username": "ann"]) == 403)
            #expect(try await call("auditor", "GET", "/audit") == 200)
            // helpdesk: invite, unlock, end sessions, but no new users or settings.
            #expect(try await call("helpdesk", "POST", "\(a)/invitations", ["username": "ann"]) == 201)
            let open = try await bootstrap.send("GET", "/invitations").json()["invitations"] as? [[String: Any]]
            let wrongInvitation = try #require(open?.first?["id"] as? String)
            #expect(try await call("helpdesk", "DELETE", "\(a)/invitations/\(wrongInvitation)") == 200, "the help desk undoes an invitation")
            #expect(try await call("helpdesk", "POST", "\(a)/users", ["username": "nope"]) == 403)
            #expect(try await call("helpdesk", "PATCH", a, ["sso_lifetime": 60]) == 403)
            let annID = try #require((try await bootstrap.send("GET", "/users?username=ann").json()["users"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await call("helpdesk", "DELETE", "\(a)/users/\(annID)/sessions") == 200)
            // admin of alpha: everything in alpha, nothing of beta, no keys for beta.
            #expect(try await call("admin", "POST", "\(a)/users", ["username": "cat"]) == 201)
            #expect(try await call("admin", "PATCH", a, ["session_idle_lifetime": 3600]) == 200)
            #expect(try await call("admin", "PATCH", a, ["audit_retention": 2_592_000]) == 403, "a tenant's key keeps its own audit trail")
            #expect(try await call("admin", "POST", "/keys", ["name": "x", "role": "auditor", "tenant": beta.tenant]) == 403)
            #expect(try await call("admin", "POST", "/keys", ["name": "x", "role": "auditor"]) == 403, "an all-tenant key from a tenant's key")
            #expect(try await call("helpdesk", "GET", "/keys") == 403)

            // The audit names the key, never the key itself.
            let audit = try await bootstrap.send("GET", "\(alpha.baseURL)/admin/audit?tenant=\(alpha.tenant)").json()
            let created = (audit["entries"] as? [[String: Any]] ?? []).first { $0["action"] as? String == "user.create" && $0["target"] != nil
                && ($0["actor"] as? String)?.hasPrefix("key:") == true }
            #expect(created?["actor"] as? String == "key:\(keyIDs["admin"] ?? "")")
            #expect(!audit.description.contains(keys["admin"] ?? "-"))

            // Listed without secrets; revoked, a key stops at once.
            let listed = try await bootstrap.cli(["admin", "key", "list", "--json"])
            let entries = try #require(listed.1["keys"] as? [[String: Any]], "\(listed.2)")
            #expect(entries.count == 3 && entries.allSatisfy { $0["key"] == nil && $0["tenant"] as? String == alpha.tenant })
            #expect(try await bootstrap.cli(["admin", "key", "revoke", keyIDs["auditor"] ?? ""]).0 == 0)
            #expect(try await call("auditor", "GET", "\(a)/users") == 401)
            #expect(try await bootstrap.send("DELETE", "\(alpha.baseURL)/admin/keys/\(keyIDs["auditor"] ?? "")").status == 409)
            #expect(try await call("auditor", "GET", "/keys") == 401)
        }
    }
}
