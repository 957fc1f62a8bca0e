import Foundation
import Logging
import TesseraCore
import TesseraServer
import TesseraTestSupport

/// Several `tessera serve` nodes on one PostgreSQL database and one data directory (so
/// one master key), behind a real nginx on 127.0.0.1 that spreads requests round-robin.
/// Needs `TESSERA_TEST_DATABASE_URL` and Debian's nginx (scripts/test.sh installs it).
public final class TestCluster: Sendable {
    /// nginx: the public URL every node issues tokens for.
    public let baseURL: String
    /// Each node directly, for a test that wants to start on one and finish on another.
    public let nodeURLs: [String]
    public let adminToken: String
    private let nodes: [(app: AppBox, task: Task<Void, any Error>)]
    private let proxy: ChildProcess
    private let directory: URL
    /// The PostgreSQL database the nodes share.
    public let database: String

    private init(
        baseURL: String, nodeURLs: [String], adminToken: String, nodes: [(app: AppBox, task: Task<Void, any Error>)], proxy: ChildProcess,
        directory: URL, database: String
    ) {
        self.baseURL = baseURL
        self.nodeURLs = nodeURLs
        self.adminToken = adminToken
        self.nodes = nodes
        self.proxy = proxy
        self.directory = directory
        self.database = database
    }

    actor AppBox {
        var app: TesseraServerApp?
        func set(_ app: TesseraServerApp) { self.app = app }
    }

    public static func start(nodes count: Int = 2) async throws -> TestCluster {
        // The proxy's port is picked before the nodes start (it is their public URL); another
        // test may take it meanwhile, and then nginx cannot bind it: start again.
        for _ in 0..<3 {
            if let cluster = try await startOnce(nodes: count) { return cluster }
        }
        throw TestSupportError("nginx lost its port three times")
    }

    private static func startOnce(nodes count: Int) async throws -> TestCluster? {
        guard let database = try await TestDatabase.fresh() else {
            throw TestSupportError("a cluster needs PostgreSQL: set TESSERA_TEST_DATABASE_URL (scripts/test.sh does)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let token = "test-admin-token-\(UUID().uuidString)"
        let proxyPort = try TestServerPort.free()
        let publicURL = "http://127.0.0.1:\(proxyPort)"
        let logger = SuiteLogs.logger(label: "tessera-cluster")
        var nodes: [(app: AppBox, task: Task<Void, any Error>)] = []
        var ports: [Int] = []
        // One after the other: the first node creates the shared master key.
        for _ in 0..<count {
            let box = AppBox()
            let (port, task) = try await LocalServer.start { [logger] port, onRunning in
                var configuration = ServerConfiguration(
                    host: "127.0.0.1", port: port, publicURL: publicURL, dataDirectory: directory.appendingPathComponent("data").path,
                    adminToken: token, databaseURL: database, databaseConnections: 10)
                // nginx forwards from loopback: the limits count what its X-Forwarded-For names.
                configuration.throttle.trustedProxies = ["127.0.0.1"]
                let app = try await buildApplication(
                    configuration: configuration, logger: logger, handlingSignals: false, onServerRunning: { _ in onRunning() })
                await box.set(app)
                try await app.run()
            }
            nodes.append((box, task))
            ports.append(port)
        }
        let proxy = try await startNginx(port: proxyPort, upstreams: ports, directory: directory.appendingPathComponent("nginx"))
        let cluster = TestCluster(
            baseURL: publicURL, nodeURLs: ports.map { "http://127.0.0.1:\($0)" }, adminToken: token, nodes: nodes, proxy: proxy,
            directory: directory, database: database)
        let http = TestHTTP()
        for _ in 0..<100 {
            if (try? await http.get("\(publicURL)/ready"))?.status == 200 {
                // Whoever answered, nginx must still be running: it exits when its port was taken.
                try await Task.sleep(for: .milliseconds(200))
                if proxy.isRunning { return cluster }
                await cluster.stop()
                return nil
            }
            if !proxy.isRunning {
                await cluster.stop()
                return nil
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        await cluster.stop()
        throw TestSupportError("nginx did not answer on \(publicURL)")
    }

    /// nginx in the foreground with its own prefix: round-robin over the nodes, long polls
    /// passed through unbuffered.
    static func startNginx(port: Int, upstreams: [Int], directory: URL) async throws -> ChildProcess {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let servers = upstreams.map { "        server 127.0.0.1:\($0);" }.joined(separator: "\n")
        let configuration = """
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                upstream tessera {
            \(servers)
                    keepalive 16;
                }
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://tessera;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $http_host;
                        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                        proxy_buffering off;
                        proxy_read_timeout 90s;
                        proxy_next_upstream off;
                    }
                }
            }
            """
        let file = directory.appendingPathComponent("nginx.conf")
        try await BlockingWork.run { try configuration.write(to: file, atomically: true, encoding: .utf8) }
        return try await ChildProcess.start("/usr/sbin/nginx", ["-p", directory.path, "-c", file.path, "-g", "daemon off;"])
    }

    public func stop() async {
        proxy.terminate()
        try? await proxy.waitForExit()
        for node in nodes {
            await node.app.app?.shutdown()
            _ = try? await node.task.value
        }
        try? FileManager.default.removeItem(at: directory)
        await TestDatabase.drop(database)
    }
}
