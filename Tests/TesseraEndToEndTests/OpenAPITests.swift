import Foundation
import Testing
import TesseraTesting

@Suite("The OpenAPI document against the live server (schemathesis)", .timeLimit(.minutes(10)))
struct OpenAPITests {
    @Test("every admin and device operation: positive and negative cases conform in status code, content type and schema; no 5xx")
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
            try Data("[parameters]\n\"path.tenant\" = \"\(scenario.tenant)\"\n".utf8).write(to: configuration)
            // Time-bounded: a fixed number of examples per operation and a seed, so a run
            // takes the same work each time (about a minute on two cores).
            let result = try await Subprocess.run(
                "/usr/bin/env",
                [
                    "python3", "-m", "schemathesis.cli", "--config-file", configuration.path, "run", "\(server.baseURL)/openapi.json",
                    "--header", "Authorization: Bearer \(server.adminToken)",
                    "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
                    "--max-examples", "25", "--seed", "20261123", "--generation-allow-x00", "false", "--no-color",
                ],
                environment: ["NO_COLOR": "1"], timeout: .seconds(480))
            let summary = result.output.split(separator: "\n").suffix(40).joined(separator: "\n")
            #expect(result.status == 0, "schemathesis: \(summary)\n\(result.errors.suffix(2000))")
            #expect(result.output.contains("Selected: 52/52"), "every operation is tested: \(summary)")
        }
    }
}
