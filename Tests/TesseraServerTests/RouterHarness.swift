import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Synchronization
import TesseraCrypto
import TesseraKit
import TesseraStore
import TesseraTesting
import TesseraTestSupport

@testable import TesseraServer

/// The server's router in Hummingbird's `.router` test mode: every route, middleware and
/// use case over a real SQLite file and a random master key, with no data directory
/// (`buildRouter` over a `ServerState`) and no sockets. The server's clock is a
/// `TestClock`, and its log lines are kept for the test to read.
struct RouterHarness {
    static let adminToken = "router-test-admin-token"
    /// In-process requests have no peer address: /metrics is read with its token.
    static let metricsToken = "router-test-metrics-token"
    let application: Application<RouterResponder<TesseraRequestContext>>
    let store: SQLStore
    let pusher: Pusher
    /// Every route the router has, as "METHOD /path".
    let routes: [String]
    let clock: TestClock
    let log: LogRecorder
    let databasePath: String

    static func make(configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> RouterHarness {
        let databasePath = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-router-\(UUID().uuidString).sqlite").path
        let clock = TestClock.running()
        let log = LogRecorder()
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, publicURL: "http://127.0.0.1:8080", dataDirectory: "/nonexistent", adminToken: adminToken)
        configuration.metricsToken = metricsToken
        configure(&configuration)
        let logger = Logger(label: "router-test", factory: { _ in log })
        let store = try await SQLStore.openSQLite(path: databasePath, logger: logger)
        let pusher = try Pusher(configuration.push)
        let state = ServerState(
            configuration: configuration, store: store, box: try SecretBox(masterKey: Secrets.randomBytes(32)),
            adminTokenDigest: Secrets.digest(adminToken), pusher: pusher, now: { clock.now() })
        let router = try buildRouter(state: state)
        return RouterHarness(
            application: Application(router: router, services: [state.background], logger: logger), store: store, pusher: pusher,
            routes: router.routes.map(\.description), clock: clock, log: log, databasePath: databasePath)
    }

    func run<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        let result: Result<Value, any Error>
        do {
            result = .success(try await application.test(.router, body))
        } catch {
            result = .failure(error)
        }
        await pusher.shutdown()
        try await store.close()
        try? FileManager.default.removeItem(atPath: databasePath)
        return try result.get()
    }
}

extension TestClientProtocol {
    /// A JSON request with the admin token; the answer's status and JSON object.
    @discardableResult
    func admin(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil) async throws -> (HTTPResponse.Status, [String: Any]) {
        let response = try await executeRequest(
            uri: path, method: method,
            headers: [.authorization: "Bearer \(RouterHarness.adminToken)", .contentType: "application/json"],
            body: body.map { ByteBuffer(string: $0) })
        return (response.status, response.json)
    }
}

extension TestResponse {
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }
    var text: String { String(buffer: body) }
}

/// The SDK's transport, answered by the router in-process: the SDK's requests take the
/// same path through middleware and use cases as over the network.
struct RouterTransport: HTTPTransport {
    let client: any TestClientProtocol

    func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        var fields = HTTPFields()
        for (name, value) in request.headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        let uri = request.url.path + (request.url.query.map { "?\($0)" } ?? "")
        let response = try await client.executeRequest(
            uri: uri, method: HTTPRequest.Method(request.method) ?? .get, headers: fields, body: request.body.map { ByteBuffer(bytes: $0) })
        var headers: [String: String] = [:]
        for field in response.headers { headers[field.name.rawName] = field.value }
        return HTTPResponseData(status: response.status.code, body: Data(buffer: response.body), headers: headers)
    }
}

/// Keeps every log line at info level and above, with its metadata. Logger copies its
/// handler with each metadata change; every copy writes to the same `Lines`.
struct LogRecorder: LogHandler {
    struct Line: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    final class Lines: Sendable {
        let lines = Mutex<[Line]>([])
    }

    let store = Lines()
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata.mapValues { "\($0)" }
        for (key, value) in event.metadata ?? [:] { merged[key] = "\(value)" }
        let line = Line(level: event.level, message: "\(event.message)", metadata: merged)
        store.lines.withLock { $0.append(line) }
    }

    var recorded: [Line] { store.lines.withLock { $0 } }
}
