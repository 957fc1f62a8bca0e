import Foundation
import Testing
import TesseraTesting

/// `tessera serve --config`, the TESSERA_* environment and secrets from files, through the
/// real binary: what wins, what is refused (exit 64, naming the key and where it came
/// from), and that a secret read from a file is the one the server uses.
@Suite("Configuration file, environment and secret files", .tags(.live), .timeLimit(.minutes(5)))
struct ConfigurationTests {
    /// A directory for one test's files, removed afterwards.
    func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    func write(_ text: String, to url: URL, mode: Int = 0o600) throws {
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }

    /// `--print-config`'s lines as key → (value, origin).
    func printed(_ output: String) -> [String: (value: String, origin: String)] {
        var lines: [String: (String, String)] = [:]
        for line in output.split(separator: "\n") {
            guard let match = line.firstMatch(of: /^(\S+)\s+(.*?)\s+\((.*)\)$/) else { continue }
            lines[String(match.1)] = (String(match.2), String(match.3))
        }
        return lines
    }

    @Test("a flag beats the environment, which beats the file, which beats the default; --print-config says which, secrets redacted")
    func precedence() async throws {
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("tessera.yaml")
            let token = directory.appendingPathComponent("metrics.token")
            try write("a-metrics-token-from-a-file\n", to: token)
            try write(
                """
                port: 9000
                host: 127.0.0.1
                rate_limit_per_address: 7
                idle_timeout: 30
                trusted_proxy: [10.0.0.1, 10.0.0.2]
                allow_private_outbound: true
                metrics_token_file: \(token.path)
                database: postgres://tessera:hunter2@db.example:5432/tessera
                """, to: file)
            let (status, _, output) = try await tessera(
                ["serve", "--config", file.path, "--port", "9001", "--print-config"],
                environment: ["TESSERA_RATE_LIMIT_PER_ADDRESS": "9", "TESSERA_IDLE_TIMEOUT": ""])
            #expect(status == 0, "\(output)")
            let lines = printed(output)
            #expect(lines["port"]?.value == "9001" && lines["port"]?.origin == "--port")
            #expect(lines["rate_limit_per_address"]?.value == "9" && lines["rate_limit_per_address"]?.origin == "TESSERA_RATE_LIMIT_PER_ADDRESS")
            #expect(lines["idle_timeout"]?.value == "30" && lines["idle_timeout"]?.origin == "idle_timeout in \(file.path)", "an empty variable is unset")
            #expect(lines["trusted_proxy"]?.value == "10.0.0.1,10.0.0.2")
            #expect(lines["allow_private_outbound"]?.value == "true")
            #expect(lines["long_polls_per_node"]?.value == "2000" && lines["long_polls_per_node"]?.origin == "default")
            #expect(lines["metrics_token"]?.value == "(secret from \(token.path))" && lines["metrics_token"]?.origin == "metrics_token_file in \(file.path)")
            #expect(!output.contains("a-metrics-token-from-a-file") && !output.contains("hunter2"), "\(output)")
            #expect(lines["database"]?.value == "postgres://tessera:REDACTED@db.example:5432/tessera")
        }
    }

    @Test("an unknown key, a wrong type or a value out of range stops the start with exit 64 and names the key and the file or variable")
    func refusals() async throws {
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("tessera.yaml")
            let cases: [(String, [String: String], String)] = [
                ("prot: 8080\n", [:], "unknown key prot in \(file.path)"),
                ("port: eighty\n", [:], "port in \(file.path): not a whole number"),
                ("port: 70000\n", [:], "port in \(file.path): port is 1 to 65535, not 70000"),
                ("purge_interval: 5\n", [:], "purge_interval is 0 (never) or 60 to 86400, not 5"),
                ("allow_insecure_http: maybe\n", [:], "allow_insecure_http in \(file.path): not true or false"),
                ("- port\n", [:], "the configuration is a mapping"),
                ("port: [1\n", [:], "is not valid YAML"),
                ("", ["TESSERA_PORT": "http"], "TESSERA_PORT: not a whole number"),
                ("", ["TESSERA_LOG_LEVEL": "loud"], "unknown log_level loud"),
                ("database_password: secret\n", [:], "unknown key database_password in \(file.path)"),
                ("log_format: xml\n", [:], "log_format must be text or json"),
                ("", ["TESSERA_TRACE_RATIO": "2"], "trace_ratio must be a number from 0 to 1"),
                ("otlp_endpoint: ftp://collector\n", [:], "otlp_endpoint must be the collector's http(s) base URL"),
            ]
            for (text, environment, message) in cases {
                try write(text, to: file)
                let (status, _, output) = try await tessera(["serve", "--config", file.path, "--print-config"], environment: environment)
                #expect(status == 64, "\(text) \(environment): \(output)")
                #expect(output.contains(message), "\(text) \(environment): \(output)")
            }
            let (missing, _, said) = try await tessera(["serve", "--config", directory.appendingPathComponent("none.yaml").path])
            #expect(missing == 64 && said.contains("cannot read the configuration file"), "\(said)")
            // rekey and seed read the same file for where the data is.
            try write("data_dir: \(directory.appendingPathComponent("nothing-here").path)\nport: 1\n", to: file)
            let (rekey, _, rekeySaid) = try await tessera(["rekey", "--config", file.path])
            #expect(rekey != 0 && rekeySaid.contains("master.key does not exist"), "\(rekeySaid)")
        }
    }

    @Test("a secret's file: one trailing newline dropped, refused when others may write it, a warning when they may read it; the server uses it")
    func secretFiles() async throws {
        try await withDirectory { directory in
            let metrics = directory.appendingPathComponent("metrics.token")
            let admin = directory.appendingPathComponent("admin.token")
            try write("metrics-token-0123456789\n", to: metrics, mode: 0o666)
            let (writable, _, refused) = try await tessera(["serve", "--metrics-token-file", metrics.path, "--print-config"])
            #expect(writable == 64 && refused.contains("may be written by anyone"), "\(refused)")
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: metrics.path)
            let (readable, _, warned) = try await tessera(["serve", "--metrics-token-file", metrics.path, "--print-config"])
            #expect(readable == 0 && warned.contains("may be read by anyone"), "\(warned)")
            let (both, _, twice) = try await tessera(["serve", "--metrics-token", "x", "--metrics-token-file", metrics.path])
            #expect(both == 64 && twice.contains("not both"), "\(twice)")
            try write("admin-token-from-a-file-0123456789\r\n", to: admin)

            let port = try TestServerPort.free()
            let process = try await ChildProcess.start(
                tesseraBinary,
                [
                    "serve", "--port", "\(port)", "--data-dir", directory.appendingPathComponent("data").path, "--log-level", "warning",
                    "--metrics-token-file", metrics.path,
                ], environment: ["TESSERA_ADMIN_TOKEN": nil, "TESSERA_ADMIN_TOKEN_FILE": admin.path], collectOutput: true)
            defer { if process.isRunning { process.terminate() } }
            let http = TestHTTP()
            let base = "http://127.0.0.1:\(port)"
            for _ in 0..<100 {
                if (try? await http.get("\(base)/ready"))?.status == 200 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(!process.output.text.contains("Generated the admin token"), "the file's token is the admin token")
            #expect(try await http.get("\(base)/metrics", headers: ["Authorization": "Bearer metrics-token-0123456789"]).status == 200)
            let (listed, _, text) = try await tessera(
                ["admin", "tenant", "list", "--server", base, "--json"], environment: ["TESSERA_ADMIN_TOKEN": "admin-token-from-a-file-0123456789"])
            #expect(listed == 0, "\(text)")
            // The admin commands read the same file.
            let (fromFile, _, fileText) = try await tessera(["admin", "tenant", "list", "--server", base, "--token-file", admin.path])
            #expect(fromFile == 0, "\(fileText)")
            let (wrong, _, _) = try await tessera(["admin", "tenant", "list", "--server", base, "--token-file", metrics.path])
            #expect(wrong == 1, "another file's token is refused by the server")
            process.terminate()
            try await process.waitForExit()
        }
    }

    @Test(
        "the PostgreSQL password from a file, put into a URL of two hosts: in no URL, process list or environment",
        .enabled(if: TestDatabase.postgresURL != nil, "needs PostgreSQL; runs in the suite's PostgreSQL pass"))
    func databasePasswordFile() async throws {
        try await withDirectory { directory in
            let url = try #require(try await TestDatabase.fresh())
            defer { Task { await TestDatabase.drop(url) } }
            var components = try #require(URLComponents(string: url))
            let password = try #require(components.password)
            components.password = nil
            let secret = directory.appendingPathComponent("db.password")
            try write(password + "\n", to: secret)
            // Two hosts, the first with nothing listening: the password goes into the URL
            // libpq's way, and the node takes the host that answers and accepts writes.
            let host = "\(components.host ?? ""):\(components.port ?? 5432)"
            let hosts = try #require(components.string).replacingOccurrences(of: "@\(host)", with: "@127.0.0.1:1,\(host)")
                + "&target_session_attrs=read-write"
            let port = try TestServerPort.free()
            let process = try await ChildProcess.start(
                tesseraBinary,
                [
                    "serve", "--port", "\(port)", "--data-dir", directory.appendingPathComponent("data").path, "--log-level", "warning",
                    "--database", hosts, "--database-password-file", secret.path, "--database-connections", "4",
                ],
                // Not the test run's own variable, which holds the URL with its password.
                environment: ["TESSERA_ADMIN_TOKEN": "database-password-test-token", "TESSERA_TEST_DATABASE_URL": nil], collectOutput: true)
            defer { if process.isRunning { process.terminate() } }
            var ready = false
            for _ in 0..<150 where !ready {
                ready = (try? await TestHTTP().get("http://127.0.0.1:\(port)/ready"))?.status == 200
                if !ready { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(ready, "\(process.output.text)")
            let commandLine = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/cmdline", encoding: .utf8)) ?? ""
            let environ = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/environ"))) ?? Data()
            // As a URL's password (the role's name may be the same word).
            #expect(!commandLine.contains(":\(password)@") && !String(decoding: environ, as: UTF8.self).contains(":\(password)@"), "\(commandLine)")
            #expect(commandLine.contains("--database-password-file"))
            // The wrong password is refused by the database: the file's content is what is used.
            try write("not-the-password\n", to: secret)
            let (refused, _, said) = try await tessera(
                [
                    "serve", "--port", "\(try TestServerPort.free())", "--data-dir", directory.appendingPathComponent("data2").path,
                    "--database", try #require(components.string), "--database-password-file", secret.path,
                ], environment: ["TESSERA_ADMIN_TOKEN": "database-password-test-token"])
            #expect(refused != 0, "\(said)")
            process.terminate()
            try await process.waitForExit()
        }
    }
}
