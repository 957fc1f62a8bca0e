import Foundation
import TesseraCore
import TesseraKit
import TesseraTesting
import Testing

/// Machine-to-machine clients: the client-credentials grant and private_key_jwt client
/// authentication, driven by Authlib and joserfc (Tests/interop/machine_client.py).
@Suite("Machine clients: client credentials and private_key_jwt", .tags(.live, .interop), .timeLimit(.minutes(5)))
struct MachineClientTests {
    @Test("Authlib's client-credentials flow and joserfc's private_key_jwt assertions get tokens; a replayed assertion is refused")
    func machineClients() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let result = try await Python.run(
                "machine_client.py", [],
                environment: [
                    "TESSERA_SERVER": server.baseURL, "TESSERA_ADMIN_TOKEN": scenario.adminToken, "TESSERA_TENANT": scenario.tenant,
                    "TESSERA_ISSUER": scenario.issuer,
                ])
            #expect(result.status == 0, "\(result.output)\n\(result.errors)")
            let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") }, "\(result.errors)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
            #expect(object["replay_refused"] as? Bool == true)
            // The spent assertion ids are rows the purge removes once they expire.
            let stats = try await scenario.http.get("\(server.baseURL)/admin/stats", headers: ["Authorization": "Bearer \(scenario.adminToken)"]).json()
            let tables = try #require(stats["tables"] as? [String: Any])
            #expect((tables["single_use_ids"] as? Int ?? 0) >= 10, "\(tables)")
        }
    }

    @Test("a service's grant types, method and keys are checked: client_credentials for confidential services, private_key_jwt with keys, keys only with it")
    func settingsChecked() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let admin = ["Authorization": "Bearer \(scenario.adminToken)"]
            let services = "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services"
            let key: [String: Any] = ["kty": "EC", "crv": "P-256", "x": "MkiWMMyrrcKSkDER0aoUUp40wT417w-UbZkuoLyzM5g", "y": "KzeGfppIl_5bz9V-84yaHDxAgZJXL9cgool1rZALEXU"]
            let refusals: [[String: Any]] = [
                ["name": "a", "public": true, "grant_types": ["client_credentials"]],
                ["name": "b", "grant_types": ["password"]],
                ["name": "c", "grant_types": []],
                ["name": "d", "token_endpoint_auth_method": "private_key_jwt", "grant_types": ["client_credentials"]],
                ["name": "e", "jwks": ["keys": [key]], "grant_types": ["client_credentials"]],
                ["name": "f", "token_endpoint_auth_method": "private_key_jwt", "grant_types": ["client_credentials"], "jwks": ["keys": [key.merging(["d": "secret"]) { $1 }]]],
                ["name": "g", "token_endpoint_auth_method": "private_key_jwt", "grant_types": ["client_credentials"], "jwks_uri": "ftp://keys.example/jwks"],
                ["name": "h", "grant_types": ["client_credentials"], "scopes": ["openid"]],
                ["name": "i", "grant_types": ["client_credentials"], "access_token_lifetime": 10],
                ["name": "j", "public": false, "token_endpoint_auth_method": "none", "redirect_uris": ["https://j.example/cb"]],
                ["name": "k"],
            ]
            for body in refusals {
                let answer = try await scenario.http.postJSON(services, body, headers: admin)
                #expect(answer.status == 400, "\(body): \(answer.status) \(answer.text)")
            }
            // A secret client moves to private_key_jwt (its secret goes) and back (rotate-secret makes one).
            let created = try await scenario.http.postJSON(services, ["name": "mover", "grant_types": ["client_credentials"]], headers: admin)
            #expect(created.status == 201, "\(created.text)")
            let clientID = try #require(try created.json()["client_id"] as? String)
            let moved = try await scenario.http.patchJSON(
                "\(services)/\(clientID)", ["token_endpoint_auth_method": "private_key_jwt", "jwks": ["keys": [key]]], headers: admin)
            #expect(moved.status == 200, "\(moved.text)")
            #expect(try moved.json()["token_endpoint_auth_method"] as? String == "private_key_jwt")
            let rotate = try await scenario.http.postJSON("\(services)/\(clientID)/secret", [String: String](), headers: admin)
            #expect(rotate.status == 400, "a private_key_jwt service has no secret: \(rotate.text)")
            let back = try await scenario.http.patchJSON(
                "\(services)/\(clientID)", ["token_endpoint_auth_method": "client_secret_basic", "jwks": NSNull()], headers: admin)
            #expect(back.status == 200, "\(back.text)")
            #expect(try back.json()["jwks"] == nil)
            #expect(try await scenario.http.postJSON("\(services)/\(clientID)/secret", [String: String](), headers: admin).status == 200)
        }
    }

    @Test("a service whose grant types leave out refresh_token gets no refresh token, and the refresh grant is refused")
    func noRefreshTokens() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(redirectURI: "http://127.0.0.1:9/no-refresh")
            let patched = try await scenario.http.patchJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services/\(service.clientID)", ["grant_types": ["authorization_code"]],
                headers: ["Authorization": "Bearer \(scenario.adminToken)"])
            #expect(patched.status == 200, "\(patched.text)")
            try await scenario.createUser("rae")
            let (device, _) = try await activateDevice(scenario, username: "rae")
            let login = try await scenario.openLogin(service, extra: ["scope": "openid offline_access"])
            let information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
            let code = try #require(try await scenario.complete(login)["code"])
            let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
            #expect(tokens["access_token"] is String && tokens["id_token"] is String)
            #expect(tokens["refresh_token"] == nil, "\(tokens.keys.sorted())")
            let refused = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": "anything"], service: service)
            #expect(refused.status == 400)
            #expect(try refused.json()["error"] as? String == "unauthorized_client")
            let info = try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(try #require(tokens["access_token"] as? String))"])
            #expect(info.status == 200, "the access token works: \(info.text)")
        }
    }
}
