import Foundation
import TesseraTestSupport

/// Starts small local servers for tests (stand-ins for services and push services).
enum LocalServer {
    /// Runs `run` on a free port on 127.0.0.1 until `onRunning` says it listens. A port
    /// someone else took first ends `run` with an error; then another port is tried,
    /// five times in all. Returns the port and the task that runs the server.
    static func start(
        _ run: @escaping @Sendable (_ port: Int, _ onRunning: @escaping @Sendable () -> Void) async throws -> Void
    ) async throws -> (port: Int, task: Task<Void, any Error>) {
        var lastError: any Error = TestSupportError("the local server did not start")
        for _ in 0..<5 {
            let port = try TestServerPort.free()
            let (running, continuation) = AsyncStream<Void>.makeStream()
            let task = Task {
                defer { continuation.finish() }
                try await run(port) { continuation.yield() }
            }
            for await _ in running { return (port, task) }
            do {
                try await task.value
            } catch {
                lastError = error
            }
        }
        throw lastError
    }
}

/// A request a stand-in received, whose body a test reads as JSON.
public protocol ReceivedBody: Sendable {
    var body: Data { get }
}

extension ReceivedBody {
    public func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw TestSupportError("not a JSON object: \(String(decoding: body, as: UTF8.self))")
        }
        return object
    }
}

/// What a stand-in received, in order, for a test to take one by one.
actor Inbox<Item: Sendable> {
    private var items: [Item] = []

    func add(_ item: Item) { items.append(item) }
    func all() -> [Item] { items }

    /// The next item not yet taken, waiting up to `timeout` for one to arrive.
    func next(timeout: Duration, from place: String) async throws -> Item {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !items.isEmpty { return items.removeFirst() }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestSupportError("nothing arrived at \(place) within \(timeout)")
    }
}
