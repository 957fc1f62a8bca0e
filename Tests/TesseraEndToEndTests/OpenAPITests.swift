import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraTesting
import Testing

@Suite("The OpenAPI document against the live server (schemathesis)", .tags(.live, .interop), .timeLimit(.minutes(10)))
struct OpenAPITests {
    @Test("every admin and device operation: positive and negative cases conform in status code, content type and schema; what the document forbids is refused; no 5xx")
    func schemathesis() async throws {
        try await withServer { server in
            // A real tenant for the path's {tenant}, so positive cases reach the use cases.
            let scenario = try await Scenario.make(on: server)
            let document = try await TestHTTP().get("\(server.baseURL)/openapi.json")
            #expect(document.status == 200 && document.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect((try document.json()["openapi"] as? String) == "3.1.0")

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-schemathesis-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let configuration = directory.appendingPathComponent("schemathesis.toml")
            // A body over the 64 KiB limit is refused with 413, which is a rejection too.
            try Data(
                """
                [parameters]
                "path.tenant" = "\(scenario.tenant)"

                [checks.negative_data_rejection]
                expected-statuses = [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429]

                """.utf8
            ).write(to: configuration)
            // Time-bounded: a fixed number of examples per operation and a seed, so a run
            // takes the same work each time (about a minute on two cores).
            let result = try await Program.run(
                "/usr/bin/env",
                [
                    "python3", "-m", "schemathesis.cli", "--config-file", configuration.path, "run", "\(server.baseURL)/openapi.json",
                    "--header", "Authorization: Bearer \(server.adminToken)",
                    "--checks",
                    "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,negative_data_rejection",
                    "--max-examples", "25", "--seed", "20261123", "--generation-allow-x00", "false", "--no-color",
                    // The suite runs many servers on two cores: a request that meets a busy
                    // machine is retried rather than counted (a server that drops a request
                    // every time still fails).
                    "--request-timeout", "30", "--request-retries", "2",
                ],
                environment: ["NO_COLOR": "1"], timeout: .seconds(480))
            let summary = result.output.split(separator: "\n").suffix(150).joined(separator: "\n")
            #expect(result.status == 0, "schemathesis: \(summary)\n\(result.errors.suffix(2000))")
            #expect(result.output.contains("Selected: 83/83"), "every operation is tested: \(summary)")
        }
    }

    @Test("the device API's answers in real flows match the document's schemas (activation, claim, finish, deny, pending, state, push, processes, history)")
    func deviceAnswers() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 1, waits: [60], permanentAfter: 10))
            let service = try await scenario.createService(backchannelMode: "poll")
            try await scenario.createUser("dee")
            let (device, activated) = try await activateDevice(scenario, username: "dee")
            defer { device.remove() }
            // A login approved, one failed, one denied.
            _ = try await approvedLogin(scenario, service, device: device)
            let failing = try await scenario.openLogin(service)
            _ = try await signAndFinish(try await device.authenticator.start(url: failing.authenticationURL), device: device, factors: [.device, .pin], pin: "0000")
            let declined = try await scenario.openLogin(service)
            try await device.authenticator.deny(try await device.authenticator.start(url: declined.authenticationURL))
            // A backchannel request: pending list and state; push targets; a process; history.
            _ = try await scenario.tokenRequest(["scope": "openid", "login_hint": "dee"], service: service, endpoint: "bc-authorize")
            let pending = try await device.authenticator.pendingRequests()
            _ = try await device.authenticator.status(of: try #require(pending.first))
            try await device.authenticator.registerPush(kind: "webhook", token: "push-dee")
            try await device.authenticator.unregisterPush()
            let listed = try await approve(try await device.personalizer.startListDevices(activation: activated.activation), device: device)
            _ = try await device.personalizer.finishListDevices(try #require(listed.process))
            _ = try await device.personalizer.history(activation: activated.activation)
            // An in-app login: start, finish, code.
            let inApp = InAppAuthenticationRequest(
                clientID: service.clientID, redirectURI: service.redirectURI, codeChallenge: PKCE.challenge(forVerifier: PKCE.makeVerifier()),
                state: "s", nonce: "n")
            let information = try await device.authenticator.fetchInAppAuthenticationInitializationData(inApp)
            if case .serviceLogin(let login) = try await signAndFinish(information, device: device, factors: [.device, .pin]) {
                _ = try await device.authenticator.fetchAuthorizationCode(login)
            } else {
                Issue.record("an in-app login ends in serviceLogin")
            }

            let exchanges = device.transport.exchanges.map { exchange -> [String: Any] in
                [
                    "method": exchange.request.method, "path": exchange.request.url.path, "status": exchange.response.status,
                    "body": String(decoding: exchange.response.body, as: UTF8.self),
                ]
            }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-answers-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try JSONSerialization.data(withJSONObject: exchanges).write(to: file)
            let result = try await Python.run("openapi_answers.py", ["\(server.baseURL)/openapi.json", file.path])
            #expect(result.status == 0, "\(result.output)\n\(result.errors)")
            for operation in [
                "POST /t/{tenant}/device/activation/start 200", "POST /t/{tenant}/device/activation/complete 201",
                "POST /t/{tenant}/device/authentications/{request}/claim 200", "POST /t/{tenant}/device/authentications/{request}/finish 200",
                "POST /t/{tenant}/device/authentications/{request}/deny 200", "GET /t/{tenant}/device/pending 200",
                "GET /t/{tenant}/device/authentications/{request} 200", "POST /t/{tenant}/device/push 200",
                "DELETE /t/{tenant}/device/push 200", "POST /t/{tenant}/device/processes 201",
                "POST /t/{tenant}/device/processes/{request}/complete 200", "GET /t/{tenant}/device/history 200",
                "POST /t/{tenant}/device/in-app 201", "POST /t/{tenant}/device/in-app/{request}/code 200",
            ] {
                #expect(result.output.contains("checked \(operation)"), "\(operation) was checked: \(result.output)")
            }
        }
    }
}
