import Foundation
import Logging
import Synchronization
import TesseraAdminAPI
import TesseraBuildInfo
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraOperations
import TesseraRecords
import TesseraServer
import TesseraStore
import TesseraTesting
import TesseraTestSupport
import Testing

@Suite("Readiness, metrics and transport security", .tags(.live), .timeLimit(.minutes(5)))
struct OperationsTests {
    @Test("/metrics counts requests per route, authentications by purpose and outcome, locks, open step-ups and connections")
    func metrics() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 0, waits: [5, 60], permanentAfter: 10))
            let service = try await scenario.createService(backchannelMode: "poll")
            try await scenario.createUser("max")
            let (device, _) = try await activateDevice(scenario, username: "max")
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin], pin: "0000").lockout != nil)
            server.clock.advance(by: 6)  // past the five-second wait, rounded up to whole seconds
            let (_, code) = try await approvedLogin(scenario, service, device: device)
            #expect(!code.isEmpty)
            _ = try await scenario.tokenRequest(["scope": "openid", "login_hint": "max"], service: service, endpoint: "bc-authorize")

            let response = try await TestHTTP().get("\(server.baseURL)/metrics")
            #expect(response.status == 200)
            #expect(response.header("Content-Type")?.hasPrefix("text/plain") == true)
            let text = response.text
            let lines = text.split(separator: "\n").map(String.init)
            func value(_ prefix: String) -> Double? {
                lines.first { $0.hasPrefix(prefix) }.flatMap { Double($0.split(separator: " ").last ?? "") }
            }
            #expect(value(#"tessera_authentications_total{purpose="login",outcome="approved"}"#) == 1, "\(text)")
            #expect(value(#"tessera_authentications_total{purpose="login",outcome="failed"}"#) == 1)
            #expect(value(#"tessera_lockouts_total{kind="temporary"}"#) == 1)
            #expect(value("tessera_backchannel_pending_requests") == 1)
            #expect(value("tessera_long_polls_open") == 0, "no device waits now")
            #expect(value("tessera_database_connections_limit_connections") != nil)
            #expect(lines.contains { $0.hasPrefix("tessera_http_requests_total{") && $0.contains(#"route="/t/"#) && $0.contains(#"status="201""#) })
            #expect(lines.contains { $0.hasPrefix("tessera_http_request_duration_seconds_bucket{") })
            #expect(value(#"tessera_build_info{version="\#(BuildInfo.version)",commit="\#(BuildInfo.commit)"}"#) == 1, "\(text)")
            // Routes, never paths: no tenant name or request id in a label.
            #expect(!text.contains(scenario.tenant))
            device.remove()
        }
    }

    @Test("tessera seed writes its rows in batches, two transactions at a time, and every row arrives")
    func seedInBatches() async throws {
        let postgres = try await TestDatabase.fresh()
        let location = postgres ?? FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString).sqlite").path
        try await TestDatabase.withStore(at: location) { store in
            try await store.transaction {
                try await $0.insertTenant(
                    TenantRecord(id: "t1", name: "demo", lockoutPolicy: .standard, processPolicy: try AuthenticatorPolicy(parsing: "device+pin"), createdAt: 1))
            }
            let reported = Mutex<[Int]>([])
            // Three batches of 500 and one of 250 (the last): two in flight at any time.
            let report = try await BulkEnrolment.fill(
                store: store, box: try SecretBox(masterKey: Data(repeating: 7, count: 32)), tenant: "demo", count: 1_750, batch: 500
            ) { count in reported.withLock { $0.append(count) } }
            #expect(report.created == 1_750 && report.activations == 1_750)
            let progress = reported.withLock { $0 }
            #expect(progress.count == 4 && progress.last == 1_750 && progress == progress.sorted(), "\(progress)")
            let unknown = await #expect(throws: (any Error).self) {
                try await BulkEnrolment.fill(store: store, box: try SecretBox(masterKey: Data(repeating: 7, count: 32)), tenant: "nobody", count: 5) { _ in }
            }
            #expect("\(unknown.map { "\($0)" } ?? "")".contains("no tenant named nobody"))
        }
        await TestDatabase.drop(postgres)
    }

    @Test("/ready answers once the database is open and migrated")
    func ready() async throws {
        try await withServer { server in
            let response = try await TestHTTP().get("\(server.baseURL)/ready")
            #expect(response.status == 200)
            let body = try response.json()
            #expect(body["status"] as? String == "ready")
            #expect(body["version"] as? String == BuildInfo.version && body["commit"] as? String == BuildInfo.commit)
        }
    }

    @Test("with --tls-certificate and --tls-key the server speaks HTTPS (TLS 1.2 and 1.3 only, with HSTS), verified by an outside client")
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
        let headers = try await Python.run(
            "tls_check.py", ["headers", "\(server.baseURL)/health", directory.appendingPathComponent("cert.pem").path])
        let port = try #require(URLComponents(string: server.baseURL)?.port)
        let versions = try await Python.run(
            "tls_check.py",
            ["versions", "127.0.0.1", "\(port)", directory.appendingPathComponent("cert.pem").path, directory.appendingPathComponent("key.pem").path])
        await server.stop()
        #expect(discovery.status == 0, "\(discovery.errors)")
        #expect(discovery.output.contains(#""status":"ok""#))
        // HTTPS answers tell browsers to stay on HTTPS.
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(headers.output.utf8)) as? [String: String], "\(headers.errors)")
        #expect(fields["Strict-Transport-Security"]?.hasPrefix("max-age=") == true, "\(fields)")
        // TLS 1.2 and 1.3 only (RFC 8996).
        let lines = Set(versions.output.split(separator: "\n").map(String.init))
        #expect(lines == ["TLSv1 refused", "TLSv1_1 refused", "TLSv1_2 accepted", "TLSv1_3 accepted"], "\(versions.output) \(versions.errors)")
    }

    @Test("the TLS certificate and key are loaded again when their files change: new handshakes get the new pair, a broken pair is refused and the old one stays")
    func tlsReloadOnChange() async throws {
        let tls = try await TLSSwap.make()
        defer { tls.remove() }
        let server = try await TestServer.start(tls: .init(certificateChain: tls.certificate.path, privateKey: tls.key.path)) {
            $0.tlsWatchInterval = 0.2
        }
        let port = try #require(URLComponents(string: server.baseURL)?.port)
        #expect(try await tls.serves(tls.first, port: port))

        // A certificate whose key is not there yet: refused, the first pair still shows.
        #expect(tls.swapCertificate())
        // Three looks at the files (every 0.2 s) later, the first pair still shows.
        try await Task.sleep(for: .milliseconds(600))
        #expect(try await tls.serves(tls.first, port: port), "a half-replaced pair is not used")
        // Its key arrives: the new pair is used for new handshakes.
        #expect(tls.swapKey())
        #expect(try await tls.serves(tls.certificate, port: port, within: 10), "the new pair is served")
        await server.stop()
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
