import Foundation
import TesseraCore
import TesseraKit
import TesseraTesting
import Testing

/// SCIM 2.0 provisioning (RFC 7643, RFC 7644) by a directory with a provisioner key:
/// scim2-tester's whole check, Entra ID's requests, the key's containment, and what
/// `active: false` does to a user's sessions.
@Suite("SCIM provisioning of users", .tags(.live, .interop), .timeLimit(.minutes(5)))
struct SCIMProvisioningTests {
    static func provisionerKey(_ scenario: Scenario, server: TestServer, tenant: String) async throws -> String {
        let made = try await scenario.http.postJSON(
            "\(server.baseURL)/admin/keys", ["name": "directory", "role": "provisioner", "tenant": tenant],
            headers: ["Authorization": "Bearer \(scenario.adminToken)"])
        #expect(made.status == 201, "\(made.text)")
        return try #require(try made.json()["key"] as? String)
    }

    @Test("scim2-tester reports no error against a fresh tenant; Entra ID's create, filter and PATCH are taken")
    func scimTester() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let key = try await Self.provisionerKey(scenario, server: server, tenant: scenario.tenant)
            let result = try await Python.run(
                "scim_check.py", [], environment: ["SCIM_BASE": "\(scenario.issuer)/scim/v2", "SCIM_TOKEN": key])
            #expect(result.status == 0, "\(result.output)\n\(result.errors)")
            let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") }, "\(result.errors)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
            let counts = try #require(object["counts"] as? [String: Int])
            #expect((counts["SUCCESS"] ?? 0) > 20, "\(counts)")
            #expect(counts["ERROR"] == nil && counts["CRITICAL"] == nil && counts["SKIPPED"] == nil, "\(counts) \(object["problems"] ?? [])")
        }
    }

    @Test("a provisioner key: one tenant only, nothing of the admin API, 404 at another tenant's SCIM; active=false ends the user's sessions")
    func containmentAndDeactivation() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = ["Authorization": "Bearer \(scenario.adminToken)"]
            let global = try await scenario.http.postJSON("\(server.baseURL)/admin/keys", ["name": "all", "role": "provisioner"], headers: admin)
            #expect(global.status == 400, "a provisioner key names its tenant: \(global.text)")
            let key = try await Self.provisionerKey(scenario, server: server, tenant: scenario.tenant)
            let bearer = ["Authorization": "Bearer \(key)"]
            for url in ["\(server.baseURL)/admin/tenants/\(scenario.tenant)/users", "\(server.baseURL)/admin/tenants/\(scenario.tenant)", "\(server.baseURL)/admin/keys"] {
                let answer = try await scenario.http.get(url, headers: bearer)
                #expect(answer.status == 403, "\(url): \(answer.status)")
            }
            // Another tenant's SCIM: as unknown as a missing tenant.
            let other = try await scenario.http.postJSON("\(server.baseURL)/admin/tenants", ["name": "other-\(scenario.tenant)"], headers: admin)
            #expect(other.status == 201)
            let elsewhere = try await scenario.http.get("\(server.baseURL)/t/other-\(scenario.tenant)/scim/v2/Users", headers: bearer)
            #expect(elsewhere.status == 404, "\(elsewhere.text)")
            let anonymous = try await scenario.http.get("\(scenario.issuer)/scim/v2/Users")
            #expect(anonymous.status == 401 && anonymous.header("Content-Type")?.hasPrefix("application/scim+json") == true)

            // A user with a device and a session, found and deactivated over SCIM.
            let service = try await scenario.createService(redirectURI: "http://127.0.0.1:9/scim")
            try await scenario.createUser("sam", attributes: ["email": "sam@example.com"])
            let (device, _) = try await activateDevice(scenario, username: "sam")
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
            let code = try #require(try await scenario.complete(login)["code"])
            let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
            let refresh = try #require(tokens["refresh_token"] as? String)
            let found = try await scenario.http.get(
                "\(scenario.issuer)/scim/v2/Users?filter=\("userName eq \"sam\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                headers: bearer
            ).json()
            let resources = try #require(found["Resources"] as? [[String: Any]])
            #expect(found["totalResults"] as? Int == 1 && resources.first?["active"] as? Bool == true, "\(found)")
            let id = try #require(resources.first?["id"] as? String)
            let emails = try #require(resources.first?["emails"] as? [[String: Any]])
            #expect(emails.first?["value"] as? String == "sam@example.com")
            let patched = try await scenario.http.send(
                "PATCH", "\(scenario.issuer)/scim/v2/Users/\(id)", headers: bearer.merging(["Content-Type": "application/scim+json"]) { $1 },
                body: Data(#"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]}"#.utf8))
            #expect(patched.status == 200, "\(patched.text)")
            let refused = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": refresh], service: service)
            #expect(refused.status == 400, "\(refused.text)")
            #expect(try refused.json()["error"] as? String == "invalid_grant")
            let again = try await scenario.openLogin(service)
            let attempt = try? await device.authenticator.start(url: again.authenticationURL)
            #expect(attempt == nil, "the disabled user's device logs in no more")
            // DELETE removes the user with their devices.
            let deleted = try await scenario.http.send("DELETE", "\(scenario.issuer)/scim/v2/Users/\(id)", headers: bearer)
            #expect(deleted.status == 204)
            #expect(try await scenario.http.get("\(scenario.issuer)/scim/v2/Users/\(id)", headers: bearer).status == 404)
        }
    }
}
