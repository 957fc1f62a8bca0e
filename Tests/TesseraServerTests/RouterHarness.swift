import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Synchronization
import TesseraKit
import TesseraTesting

@testable import TesseraServer

/// The real application in Hummingbird's `.router` test mode: every route, middleware and
/// use case, a real SQLite file, no sockets. The server's clock is a `TestClock`, and its
/// log lines are kept for the test to read.
struct RouterHarness {
    static let adminToken = "router-test-admin-token"
    /// In-process requests have no peer address: /metrics is read with its token.
    static let metricsToken = "router-test-metrics-token"
    let app: TesseraServerApp
    let clock: TestClock
    let log: LogRecorder
    let directory: URL

    static func make(configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> RouterHarness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-router-\(UUID().uuidString)")
        let clock = TestClock.running()
        let log = LogRecorder()
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, publicURL: "http://127.0.0.1:8080", dataDirectory: directory.path, adminToken: adminToken)
        configuration.metricsToken = metricsToken
        configure(&configuration)
        let logger = Logger(label: "router-test", factory: { _ in log })
        let app = try await buildApplication(configuration: configuration, logger: logger, now: { clock.now() }, handlingSignals: false)
        return RouterHarness(app: app, clock: clock, log: log, directory: directory)
    }

    func run<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        let value: Value
        do {
            value = try await app.application.test(.router, body)
        } catch {
            try? await app.closeWithoutRunning()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        try await app.closeWithoutRunning()
        try? FileManager.default.removeItem(at: directory)
        return value
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
