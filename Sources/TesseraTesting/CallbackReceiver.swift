import Foundation
import Hummingbird
import Logging

/// A local stand-in for a service's or a push gateway's HTTP endpoint: a real
/// Hummingbird server on 127.0.0.1 that answers every POST with `status` and keeps
/// what it received, for a test to inspect; a GET gets the file `files` has at its path
/// (its bytes, with no word on their type), or 404.
public final class CallbackReceiver: Sendable {
    public struct Received: ReceivedBody {
        public let path: String
        /// Header fields by lower-case name.
        public let headers: [String: String]
        public let body: Data
    }

    public let baseURL: String
    private let inbox: Inbox<Received>
    private let task: Task<Void, any Error>

    private init(baseURL: String, inbox: Inbox<Received>, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.inbox = inbox
        self.task = task
    }

    public static func start(status: HTTPResponse.Status = .noContent, files: [String: Data] = [:]) async throws -> CallbackReceiver {
        let inbox = Inbox<Received>()
        let (port, task) = try await LocalServer.start { port, onRunning in
            var logger = Logger(label: "callback-receiver")
            // Stopping by cancellation logs errors that mean nothing here.
            logger.logLevel = .critical
            let router = Router()
            router.post("**") { request, _ -> Response in
                var request = request
                let buffer = try await request.collectBody(upTo: 1 << 20)
                var headers: [String: String] = [:]
                for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
                await inbox.add(Received(path: request.uri.path, headers: headers, body: Data(buffer.readableBytesView)))
                return Response(status: status)
            }
            router.get("**") { request, _ -> Response in
                guard let file = files[request.uri.path] else { return Response(status: .notFound) }
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: file)))
            }
            let app = Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
                onServerRunning: { _ in onRunning() }, logger: logger)
            try await app.runService()
        }
        return CallbackReceiver(baseURL: "http://127.0.0.1:\(port)", inbox: inbox, task: task)
    }

    /// Waits for the next request not yet taken, up to `timeout`.
    public func next(timeout: Duration = .seconds(10)) async throws -> Received {
        try await inbox.next(timeout: timeout, from: baseURL)
    }

    /// Everything received and not yet taken.
    public func pending() async -> [Received] { await inbox.all() }

    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
