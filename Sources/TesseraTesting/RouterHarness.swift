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
import TesseraCore
import TesseraServer
import TesseraStore
import TesseraTestSupport

// The router-mode harness: the server and the SDK in one process, no sockets, shared
// by TesseraServerTests and TesseraKitTests (package access, no @testable import).

/// The server's router in Hummingbird's `.router` test mode: every route, middleware and
/// use case over a real SQLite file and a random master key, with no data directory
/// (`buildRouter` over a `ServerState`) and no sockets. The server's clock is a
/// `TestClock`, and its log lines are kept for the test to read.
package struct RouterHarness {
    package static let adminToken = "router-test-admin-token"
    /// In-process requests have no peer address: /metrics is read with its token.
    package static let metricsToken = "router-test-metrics-token"
    package let application: Application<RouterResponder<TesseraRequestContext>>
    package let store: SQLStore
    package let pusher: Pusher
    /// Every route the router has, as "METHOD /path".
    package let routes: [String]
    package let clock: TestClock
    package let log: LogRecorder
    package let databasePath: String
    /// The server's public URL. Each harness has its own origin (a port of its own on the
    /// loopback address, never listened on), since the SDK keeps state per origin for the
    /// whole process (its DPoP nonces): two servers at one origin would overwrite each
    /// other's nonces while their tests run side by side.
    package let publicURL: String

    private static let lastPort = Mutex(8079)

    /// Whether `run` closes the store and removes its file (one the harness opened).
    let ownsStore: Bool

    /// `store`: the caller's store (a PostgreSQL one, say), which `run` leaves open; by
    /// default a new SQLite file. `background`: whether the server's background work
    /// (outbox looks, purges) runs beside the requests.
    package static func make(
        store given: SQLStore? = nil, background: Bool = true, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> RouterHarness {
        let databasePath = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-router-\(UUID().uuidString).sqlite").path
        let clock = TestClock.running()
        let log = LogRecorder()
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, publicURL: "http://127.0.0.1:\(lastPort.withLock { $0 += 1; return $0 })",
            dataDirectory: "/nonexistent", adminToken: adminToken)
        configuration.metricsToken = metricsToken
        configure(&configuration)
        let logger = Logger(label: "router-test", factory: { _ in log })
        let store: SQLStore
        if let given { store = given } else { store = try await SQLStore.openSQLite(path: databasePath, logger: logger) }
        let pusher = try Pusher(configuration.push)
        let state = ServerState(
            configuration: configuration, store: store, box: try SecretBox(masterKey: Secrets.randomBytes(32)),
            adminTokenDigest: Secrets.digest(adminToken), pusher: pusher, now: { clock.now() })
        let router = try buildRouter(state: state)
        return RouterHarness(
            application: Application(router: router, services: background ? [state.background] : [], logger: logger), store: store,
            pusher: pusher, routes: router.routes.map(\.description), clock: clock, log: log, databasePath: databasePath,
            publicURL: configuration.publicURL, ownsStore: given == nil)
    }

    package func run<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        let result: Result<Value, any Error>
        do {
            result = .success(try await application.test(.router, body))
        } catch {
            result = .failure(error)
        }
        await pusher.shutdown()
        if ownsStore {
            try await store.close()
            try? FileManager.default.removeItem(atPath: databasePath)
        }
        return try result.get()
    }
}

extension TestClientProtocol {
    /// A JSON request with the admin token; the answer's status and JSON object.
    @discardableResult
    package func admin(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil) async throws -> (HTTPResponse.Status, [String: Any]) {
        let response = try await executeRequest(
            uri: path, method: method,
            headers: [.authorization: "Bearer \(RouterHarness.adminToken)", .contentType: "application/json"],
            body: body.map { ByteBuffer(string: $0) })
        return (response.status, response.json)
    }
}

extension TestClientProtocol {
    /// `POST /t/{tenant}/bc-authorize` (OpenID CIBA) with the form `form`, as the service
    /// `client` (its id and secret, HTTP Basic).
    package func backchannelRequest(tenant: String, client: (id: String, secret: String), form: String) async throws -> TestResponse {
        let credentials = Data("\(client.id):\(client.secret)".utf8).base64EncodedString()
        return try await executeRequest(
            uri: "/t/\(tenant)/bc-authorize", method: .post,
            headers: [.authorization: "Basic \(credentials)", .contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: form))
    }
}

extension TestResponse {
    package var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }
    package var text: String { String(buffer: body) }
}

/// The SDK's transport, answered by the router in-process: the SDK's requests take the
/// same path through middleware and use cases as over the network.
package struct RouterTransport: HTTPTransport {
    package let client: any TestClientProtocol

    package init(client: any TestClientProtocol) { self.client = client }

    package func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
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
package struct LogRecorder: LogHandler {
    package struct Line: Sendable {
        package let level: Logger.Level
        package let message: String
        package let metadata: [String: String]
    }

    package final class Lines: Sendable {
        let lines = Mutex<[Line]>([])
    }

    package let store = Lines()
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info

    package init() {}

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata.mapValues { "\($0)" }
        for (key, value) in event.metadata ?? [:] { merged[key] = "\(value)" }
        let line = Line(level: event.level, message: "\(event.message)", metadata: merged)
        store.lines.withLock { $0.append(line) }
    }

    package var recorded: [Line] { store.lines.withLock { $0 } }
}

/// A device of the SDK whose requests go through the router in-process.
package struct RouterDevice {
    package let keyStore: FileKeyStore
    package let personalizer: Personalizer
    package let authenticator: Authenticator

    package init(client: any TestClientProtocol, clock: TestClock) {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("router-device-\(UUID().uuidString)")
        let keyStore = try! FileKeyStore(directory: keys)
        self.keyStore = keyStore
        let transport = RouterTransport(client: client)
        personalizer = Personalizer(keyStore: keyStore, transport: transport, now: { clock.now() })
        authenticator = Authenticator(keyStore: keyStore, transport: transport, now: { clock.now() })
    }

    /// A new user of `tenant` (made with the bootstrap token) and the device activated for
    /// it with the PIN `approve` uses; the user's id.
    package static func activated(_ username: String, tenant: String, client: any TestClientProtocol, clock: TestClock) async throws
        -> (RouterDevice, userID: String)
    {
        let (_, user) = try await client.admin(.post, "/admin/tenants/\(tenant)/users", #"{"username":"\#(username)"}"#)
        let (_, invitation) = try await client.admin(.post, "/admin/tenants/\(tenant)/invitations", #"{"username":"\#(username)"}"#)
        let device = RouterDevice(client: client, clock: clock)
        let link = try required(invitation["url"] as? String, "an invitation link")
        _ = try await device.personalizer.activate(url: try required(URL(string: link), "a URL"), pin: "246810")
        return (device, try required(user["id"] as? String, "the user's id"))
    }

    /// The request a login page shows (its QR code's link names it).
    package static func requestID(on page: TestResponse) throws -> String {
        String(try required(page.text.firstMatch(of: /request=([A-Za-z0-9_-]+)/)?.1, "a request on the page"))
    }

    /// What the device is asked for the login page `page` shows, with the page's number picked.
    package func start(_ page: TestResponse) async throws -> AuthenticationUserInformation {
        let link = try required(Scenario.element("authentication-url", in: page.text), "the page's link for the device")
        var information = try await authenticator.start(url: try required(URL(string: link), "a URL"))
        if let number = page.text.firstMatch(of: /data-match-code="([0-9]+)"/)?.1 { try information.pickNumber(String(number)) }
        return information
    }

    /// Device and PIN; whether the login was approved.
    package func approve(_ information: AuthenticationUserInformation, pin: String = "246810") async throws -> Bool {
        var information = information
        try information.sign(factor: DeviceFactor())
        try information.sign(factor: PinFactor(pin))
        if case .userLogin = try await authenticator.finish(information) { return true }
        return false
    }
}


/// The value, or a test-support error naming what is missing.
func required<Value>(_ value: Value?, _ what: String) throws -> Value {
    guard let value else { throw TestSupportError("no \(what)") }
    return value
}
