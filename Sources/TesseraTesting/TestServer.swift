import Foundation
import Logging
import Synchronization
import TesseraServer
import TesseraTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real `tessera serve` inside the test process: its own data directory with a real
/// SQLite file, listening on 127.0.0.1 on a free port.
public final class TestServer: Sendable {
    public let baseURL: String
    public let adminToken: String
    public let dataDirectory: URL
    /// The server's clock: a test moves it past an expiry instead of sleeping.
    public let clock: TestClock
    private let databaseURL: String?
    private let app: TesseraServerApp
    private let task: Task<Void, any Error>

    private init(
        baseURL: String, adminToken: String, dataDirectory: URL, clock: TestClock, databaseURL: String?, app: TesseraServerApp,
        task: Task<Void, any Error>
    ) {
        self.baseURL = baseURL
        self.clock = clock
        self.adminToken = adminToken
        self.dataDirectory = dataDirectory
        self.databaseURL = databaseURL
        self.app = app
        self.task = task
    }

    public static func start(
        requestLifetime: TimeInterval = 300, tls: ServerConfiguration.TLSFiles? = nil, backchannelInterval: Int = 5,
        push: PushConfiguration = .init(), configure: @Sendable (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        // The free port can be taken by someone else's connection before the server binds
        // it (many tests run at once): then try another one instead of waiting forever.
        var lastError: any Error = TestSupportError("the server did not start")
        for _ in 0..<5 {
            do {
                return try await startOnce(
                    requestLifetime: requestLifetime, tls: tls, backchannelInterval: backchannelInterval, push: push, clock: .running(),
                    configure: configure)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// A server on data another build wrote (the upgrade test): `dataDirectory` and, on
    /// PostgreSQL, the database at `databaseURL`, as they are, served on `port` (the
    /// issuer URLs in the data name it) with `clock`. `stop` removes both, as for any
    /// test server: hand it copies.
    public static func open(
        dataDirectory: URL, port: Int, databaseURL: String?, clock: TestClock, configure: @Sendable (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        try await startOnce(
            requestLifetime: 300, tls: nil, backchannelInterval: 5, push: .init(), clock: clock, configure: configure,
            existing: (dataDirectory, port, databaseURL))
    }

    private static func startOnce(
        requestLifetime: TimeInterval, tls: ServerConfiguration.TLSFiles?, backchannelInterval: Int, push: PushConfiguration,
        clock: TestClock, configure: @Sendable (inout ServerConfiguration) -> Void,
        existing: (directory: URL, port: Int, databaseURL: String?)? = nil
    ) async throws -> TestServer {
        let directory = existing?.directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("tessera-test-\(UUID().uuidString)")
        let port = try existing?.port ?? TestServerPort.free()
        let databaseURL: String?
        if let existing { databaseURL = existing.databaseURL } else { databaseURL = try await TestDatabase.fresh() }
        let token = "test-admin-token-\(UUID().uuidString)"
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: port, dataDirectory: directory.path, adminToken: token, requestLifetime: requestLifetime,
            tls: tls, backchannelInterval: backchannelInterval, push: push, databaseURL: databaseURL,
            // Many test servers run at once against one PostgreSQL server: small pools.
            databaseConnections: 4)
        configure(&configuration)
        let logger = SuiteLogs.logger(label: "tessera-test")
        let (running, continuation) = AsyncStream<Void>.makeStream()
        let app = try await buildApplication(
            configuration: configuration, logger: logger, now: { clock.now() }, handlingSignals: false,
            onServerRunning: { _ in continuation.yield() })
        // The stream ends when the server stops, so a server that fails to bind ends the wait.
        let task = Task {
            defer { continuation.finish() }
            try await app.run()
        }
        var started = false
        for await _ in running {
            started = true
            break
        }
        guard started else {
            _ = try? await task.value
            try? FileManager.default.removeItem(at: directory)
            await TestDatabase.drop(databaseURL)
            throw TestSupportError("the test server did not start on port \(port)")
        }
        return TestServer(
            baseURL: configuration.publicURL, adminToken: token, dataDirectory: directory, clock: clock, databaseURL: databaseURL,
            app: app, task: task)
    }

    /// Stops the server (graceful shutdown) and removes its data directory and database.
    public func stop() async {
        await app.shutdown()
        _ = try? await task.value
        try? FileManager.default.removeItem(at: dataDirectory)
        await TestDatabase.drop(databaseURL)
    }

    public func issuer(_ tenant: String) -> String { "\(baseURL)/t/\(tenant)" }

    /// Where the server's data is: its PostgreSQL database's URL, or its SQLite file
    /// (for `TestDatabase.runOutside`, to damage a row as a fault would).
    public var databaseLocation: String { databaseURL ?? dataDirectory.appendingPathComponent("tessera.sqlite").path }

}

public enum TestServerPort {
    /// A free loopback port below the kernel's ephemeral range (32768 and up), so the
    /// many outgoing connections of a test run cannot take it before a server binds it.
    ///
    /// `restartable`: for a test that stops its server and starts it again on the same
    /// port (its issuer URL names the port). Those come from a range of their own, so the
    /// many other test servers cannot take the port while it is free in between.
    ///
    /// A port is handed out once per test process: two tests that pick ports at the same
    /// moment cannot both get one that is free until the first of them binds it.
    public static func free(restartable: Bool = false) throws -> Int {
        for _ in 0..<200 {
            let port = restartable ? Int.random(in: 30_000..<32_000) : Int.random(in: 20_000..<30_000)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            if try isFree(port) { return port }
        }
        throw TestSupportError("no free port found")
    }

    private static let handedOut = Mutex<Set<Int>>([])

    static func isFree(_ port: Int) throws -> Bool {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw TestSupportError("socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        return bound == 0
    }
}
