import Foundation
import TesseraCore
import TesseraKit
import TesseraTesting
import Testing

/// Configuration as code (`tessera admin export` and `apply`, `GET /admin/export`,
/// `POST /admin/apply`): random documents round-trip between two servers, a second apply
/// changes nothing, no secret is exported; prune, dry runs, a tenant's key and a chosen
/// client_id behave as documented.
@Suite("Configuration as code: export and apply", .tags(.live, .interop), .timeLimit(.minutes(8)))
struct ConfigurationAsCodeTests {
    @Test("Hypothesis: a random document applied, exported, applied to a second server and exported again gives the same document; nothing changes twice; no secret is exported")
    func roundTrip() async throws {
        try await withServer { first in
            try await withServer { second in
                let result = try await Python.run(
                    "config_roundtrip.py", [],
                    environment: [
                        "SERVER_A": first.baseURL, "TOKEN_A": first.adminToken, "SERVER_B": second.baseURL, "TOKEN_B": second.adminToken,
                        "TESSERA": tesseraBinary, "EXAMPLES": "8",
                    ], timeout: .seconds(420))
                #expect(result.status == 0, "\(result.output)\n\(result.errors)")
                let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") }, "\(result.errors)")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
                #expect(object["documents"] as? Int == 8, "\(object)")
            }
        }
    }

    @Test("apply: one audit entry with the digest, none when nothing changes; dry run changes nothing; prune removes a service and ends its sessions")
    func applyAndPrune() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            let secret = "shop-secret-0123456789abcdef"
            let document: [String: Any] = [
                "version": 1,
                "tenants": [[
                    "name": scenario.tenant, "settings": ["session_lifetime": 86_400, "session_idle_lifetime": 3600],
                    "services": [[
                        "client_id": "shop-\(scenario.tenant)", "client_secret": secret,
                        "settings": ["name": "Shop", "redirect_uris": ["http://127.0.0.1:9/shop"], "attributes": ["email", "name"], "number_matching": false],
                    ]],
                ]],
            ]
            func apply(_ body: [String: Any], query: String = "", headers: [String: String] = admin) async throws -> TestHTTP.Response {
                try await scenario.http.postJSON("\(server.baseURL)/admin/apply\(query)", body, headers: headers)
            }
            func applyEntries() async throws -> [[String: Any]] {
                try await scenario.http.get("\(server.baseURL)/admin/audit?action=apply", headers: admin).json()["entries"] as? [[String: Any]] ?? []
            }

            let dry = try await apply(document, query: "?dry_run=true").json()
            #expect((dry["changes"] as? [[String: Any]])?.map { "\($0["action"]!) \($0["kind"]!)" } == ["update tenant", "create service"], "\(dry)")
            #expect(try await applyEntries().isEmpty, "a dry run writes nothing")
            let service = Scenario.Service(clientID: "shop-\(scenario.tenant)", clientSecret: secret, redirectURI: "http://127.0.0.1:9/shop")
            #expect(try await scenario.tokenRequest(["grant_type": "client_credentials"], service: service).status == 401, "no service after a dry run")

            let applied = try await apply(document)
            #expect(applied.status == 200, "\(applied.text)")
            let digest = try #require(try applied.json()["digest"] as? String)
            let entries = try await applyEntries()
            #expect(entries.count == 1 && (entries.first?["details"] as? [String: String])?["digest"] == digest, "\(entries)")
            let again = try await apply(document).json()
            #expect((again["changes"] as? [Any])?.isEmpty == true && again["digest"] as? String == digest, "\(again)")
            #expect(try await applyEntries().count == 1, "an apply that changes nothing is not audited")

            // A session of the applied service, ended when a pruning apply removes it.
            try await scenario.createUser("pat")
            let (device, _) = try await activateDevice(scenario, username: "pat")
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
            let code = try #require(try await scenario.complete(login)["code"])
            let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
            let refresh = try #require(tokens["refresh_token"] as? String)

            var kept = document
            kept["tenants"] = [["name": scenario.tenant, "settings": ["session_lifetime": 86_400, "session_idle_lifetime": 3600]]]
            #expect((try await apply(kept).json()["changes"] as? [Any])?.isEmpty == true, "without prune, what the document leaves out stays")
            let pruned = try await apply(kept, query: "?prune=true").json()
            #expect((pruned["changes"] as? [[String: Any]])?.map { "\($0["action"]!) \($0["kind"]!) \($0["name"]!)" } == ["delete service shop-\(scenario.tenant)"], "\(pruned)")
            let refused = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": refresh], service: service)
            #expect(refused.status == 401, "the removed service's session is gone: \(refused.text)")
            let sessions = try await scenario.http.get("\(server.baseURL)/admin/tenants/\(scenario.tenant)/users/pat/sessions", headers: admin).json()
            #expect((sessions["sessions"] as? [[String: Any]])?.contains { $0["client_id"] as? String == service.clientID && $0["ended_at"] == nil } != true, "\(sessions)")

            // Bad documents change nothing.
            for (bad, status) in [
                (["version": 2] as [String: Any], 400),
                (["version": 1, "tenants": [["name": "Not A Name"]]], 400),
                (["version": 1, "tenants": [["name": scenario.tenant], ["name": scenario.tenant]]], 400),
                (["version": 1, "tenants": [["name": scenario.tenant, "services": [["client_id": "tessera-console", "settings": ["name": "x"]]]]]], 400),
                (["version": 1, "tenants": [["name": scenario.tenant, "settings": ["session_lifetime": 5]]]], 400),
                (["version": 1, "tenants": [["name": scenario.tenant, "webhooks": [["url": "ftp://hooks.example/h", "events": ["*"]]]]]], 400),
                (["version": 1, "tenants": "none"], 400),
                // An export posted as it is: its references would become secrets anyone can read off it.
                ([
                    "version": 1,
                    "tenants": [[
                        "name": scenario.tenant,
                        "services": [[
                            "client_id": "x-\(scenario.tenant)", "client_secret": "${env:TESSERA_SERVICE_X_0000}",
                            "settings": ["name": "x", "redirect_uris": ["https://x.example/cb"]],
                        ]],
                    ]],
                ], 400),
            ] {
                let answer = try await apply(bad)
                #expect(answer.status == status, "\(bad): \(answer.status) \(answer.text)")
            }
            #expect(try await applyEntries().count == 2)
        }
    }

    @Test("a tenant's key exports and applies its own tenant only: another tenant is 404, operators and global webhooks 403")
    func tenantKey() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            let other = try await scenario.http.postJSON("\(server.baseURL)/admin/tenants", ["name": "other-\(scenario.tenant)"], headers: admin)
            #expect(other.status == 201)
            let made = try await scenario.http.postJSON(
                "\(server.baseURL)/admin/keys", ["name": "team", "role": "admin", "tenant": scenario.tenant], headers: admin)
            let key = try #require(try made.json()["key"] as? String)
            let bearer = ["Authorization": "Bearer \(key)"]
            let export = try await scenario.http.get("\(server.baseURL)/admin/export", headers: bearer).json()
            #expect((export["tenants"] as? [[String: Any]])?.map { $0["name"] as? String } == [scenario.tenant], "\(export)")
            #expect(export["operators"] == nil && export["webhooks"] == nil)
            #expect(try await scenario.http.get("\(server.baseURL)/admin/export?tenant=other-\(scenario.tenant)", headers: bearer).status == 404)
            let elsewhere = try await scenario.http.postJSON(
                "\(server.baseURL)/admin/apply", ["version": 1, "tenants": [["name": "other-\(scenario.tenant)"]]], headers: bearer)
            #expect(elsewhere.status == 404, "\(elsewhere.text)")
            let new = try await scenario.http.postJSON("\(server.baseURL)/admin/apply", ["version": 1, "tenants": [["name": "new-\(scenario.tenant)"]]], headers: bearer)
            #expect(new.status == 404, "a tenant's key makes no tenant: \(new.text)")
            let operators = try await scenario.http.postJSON(
                "\(server.baseURL)/admin/apply", ["version": 1, "operators": [["username": "eve", "role": "admin"]]], headers: bearer)
            #expect(operators.status == 403, "\(operators.text)")
            let auditor = try await scenario.http.postJSON(
                "\(server.baseURL)/admin/keys", ["name": "reader", "role": "auditor", "tenant": scenario.tenant], headers: admin)
            let reader = ["Authorization": "Bearer \(try #require(try auditor.json()["key"] as? String))"]
            #expect(try await scenario.http.get("\(server.baseURL)/admin/export", headers: reader).status == 200)
            #expect(try await scenario.http.postJSON("\(server.baseURL)/admin/apply", export, headers: reader).status == 403)
            let own = try await scenario.http.postJSON("\(server.baseURL)/admin/apply", export, headers: bearer)
            let ownChanges = try own.json()["changes"] as? [Any]
            #expect(own.status == 200 && ownChanges?.isEmpty == true, "\(own.text)")
        }
    }

    @Test("a service's client_id may be chosen on creation: once on the server, never a built-in one")
    func chosenClientID() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            let url = "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services"
            let body: [String: Any] = ["client_id": "billing.api", "name": "Billing", "redirect_uris": ["https://billing.example/cb"]]
            let made = try await scenario.http.postJSON(url, body, headers: admin)
            let clientID = try made.json()["client_id"] as? String
            #expect(made.status == 201 && clientID == "billing.api", "\(made.text)")
            #expect(try await scenario.http.postJSON(url, body, headers: admin).status == 409)
            for bad in ["tessera-console", "tessera-account-x", "has space", ""] {
                var refused = body
                refused["client_id"] = bad
                #expect(try await scenario.http.postJSON(url, refused, headers: admin).status == 400, "\(bad)")
            }
        }
    }
}
