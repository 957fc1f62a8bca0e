import Foundation
import Logging
import Testing
import TesseraServer
import TesseraTesting

@Suite("Readiness and transport security", .timeLimit(.minutes(5)))
struct OperationsTests {
    @Test("/ready answers once the database is open and migrated")
    func ready() async throws {
        try await withServer { server in
            let response = try await TestHTTP().get("\(server.baseURL)/ready")
            #expect(response.status == 200)
            #expect(try response.json()["status"] as? String == "ready")
        }
    }

    @Test("with --tls-certificate and --tls-key the server speaks HTTPS, verified by an outside client")
    func https() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try await Python.run("tls_check.py", ["make", directory.path])
        #expect(made.status == 0, "\(made.errors)")
        let files = ServerConfiguration.TLSFiles(
            certificateChain: directory.appendingPathComponent("cert.pem").path,
            privateKey: directory.appendingPathComponent("key.pem").path)
        let server = try await TestServer.start(tls: files)
        #expect(server.baseURL.hasPrefix("https://127.0.0.1:"))
        let discovery = try await Python.run(
            "tls_check.py", ["get", "\(server.baseURL)/health", directory.appendingPathComponent("cert.pem").path])
        await server.stop()
        #expect(discovery.status == 0, "\(discovery.errors)")
        #expect(discovery.output.contains(#""status":"ok""#))
    }

    @Test("a plain-HTTP public URL on a non-loopback host is refused unless explicitly allowed")
    func insecurePublicURL() async throws {
        let logger = Logger(label: "test")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("insecure-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        await #expect(throws: ServerStartupError.self) {
            _ = try await buildApplication(
                configuration: ServerConfiguration(publicURL: "http://id.example.com", dataDirectory: directory), logger: logger)
        }
        await #expect(throws: ServerStartupError.self) {
            _ = try await buildApplication(
                configuration: ServerConfiguration(host: "0.0.0.0", dataDirectory: directory), logger: logger)
        }
        // Nothing was created by a refused start.
        #expect(!FileManager.default.fileExists(atPath: directory))
        let allowed = try await buildApplication(
            configuration: ServerConfiguration(publicURL: "http://id.example.com", dataDirectory: directory, allowInsecureHTTP: true),
            logger: logger)
        try await allowed.closeWithoutRunning()
    }
}
