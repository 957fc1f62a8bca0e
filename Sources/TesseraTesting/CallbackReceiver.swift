import Foundation
import Hummingbird
import Logging

/// A local stand-in for a service's or a push gateway's HTTP endpoint: a real
/// Hummingbird server on 127.0.0.1 that answers every POST with `status` and keeps
/// what it received, for a test to inspect.
public final class CallbackReceiver: Sendable {
    public struct Received: Sendable {
        public let path: String
        /// Header fields by lower-case name.
        public let headers: [String: String]
        public let body: Data

        public func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                throw TestSupportError("not a JSON object: \(String(decoding: body, as: UTF8.self))")
            }
            return object
        }
    }

    public let baseURL: String
    private let inbox: Inbox
    private let task: Task<Void, any Error>

    private init(baseURL: String, inbox: Inbox, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.inbox = inbox
        self.task = task
    }

    public static func start(status: HTTPResponse.Status = .noContent) async throws -> CallbackReceiver {
        var lastError: any Error = TestSupportError("the receiver did not start")
        for _ in 0..<5 {
            do {
                return try await startOnce(status: status)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private static func startOnce(status: HTTPResponse.Status) async throws -> CallbackReceiver {
        let inbox = Inbox()
        let port = try TestServerPort.free()
        let router = Router()
        router.post("**") { request, _ -> Response in
            var request = request
            let buffer = try await request.collectBody(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
            await inbox.add(Received(path: request.uri.path, headers: headers, body: Data(buffer.readableBytesView)))
            return Response(status: status)
        }
        var logger = Logger(label: "callback-receiver")
        // Stopping by cancellation logs errors that mean nothing here.
        logger.logLevel = .critical
        let (running, continuation) = AsyncStream<Void>.makeStream()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { _ in continuation.yield() }, logger: logger)
        let task = Task {
            defer { continuation.finish() }
            try await app.runService()
        }
        var started = false
        for await _ in running {
            started = true
            break
        }
        guard started else {
            _ = try? await task.value
            throw TestSupportError("the receiver did not start on port \(port)")
        }
        return CallbackReceiver(baseURL: "http://127.0.0.1:\(port)", inbox: inbox, task: task)
    }

    /// Waits for the next request not yet taken, up to `timeout`.
    public func next(timeout: Duration = .seconds(10)) async throws -> Received {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let received = await inbox.take() { return received }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestSupportError("nothing arrived at \(baseURL) within \(timeout)")
    }

    /// Everything received and not yet taken.
    public func pending() async -> [Received] { await inbox.all() }

    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    private actor Inbox {
        var items: [Received] = []
        func add(_ item: Received) { items.append(item) }
        func take() -> Received? { items.isEmpty ? nil : items.removeFirst() }
        func all() -> [Received] { items }
    }
}
