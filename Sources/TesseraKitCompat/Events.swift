import Foundation
import TesseraCore
import TesseraKit

/// What happens to the device's logins, as one stream (KOBIL's event handler): the pending
/// requests whenever they change, and a watched user's login status whenever it changes.
public enum TesseraEvent: Sendable {
    /// The requests waiting for this device's activations (all of them, each time).
    case pendingRequests([PendingAuthentication])
    /// A watched user's tokens changed state (`.ok`, `.tokenDataIsOutdated`, …).
    case loginStatus(clientID: String, username: String, status: LoginStatus)
}

/// The event stream: an `AsyncSequence` (`stream()`) or a callback (`observe`). Pending
/// requests come from the activations' long polls (`Authenticator.pendingRequestUpdates`);
/// the login status of each watched user is checked every `statusInterval` seconds (which
/// refreshes tokens about to expire, as `TokenManager.status` does) and told when it changes.
///
/// ```swift
/// let events = TesseraEvents(authenticator: authenticator, tokens: tokens, watching: [(appID, "alice")])
/// let observation = events.observe { event in
///     if case .pendingRequests(let requests) = event, let first = requests.first { showApproval(first) }
/// }
/// // later: observation.cancel()
/// ```
public struct TesseraEvents: Sendable {
    public struct Watched: Sendable, Hashable {
        public let clientID: String
        public let username: String

        public init(clientID: String, username: String) {
            self.clientID = clientID
            self.username = username
        }
    }

    let authenticator: Authenticator
    let tokens: TokenManager?
    let watching: [Watched]
    let statusInterval: TimeInterval
    let wait: Int

    public init(
        authenticator: Authenticator, tokens: TokenManager? = nil, watching: [(clientID: String, username: String)] = [],
        statusInterval: TimeInterval = 60, wait: Int = 25
    ) {
        self.authenticator = authenticator
        self.tokens = tokens
        self.watching = watching.map { Watched(clientID: $0.clientID, username: $0.username) }
        self.statusInterval = max(statusInterval, 1)
        self.wait = wait
    }

    /// The events for as long as the stream is iterated. A pending-requests poll that
    /// fails ends that part of the stream; the status checks go on.
    public func stream() -> AsyncStream<TesseraEvent> {
        let (stream, continuation) = AsyncStream<TesseraEvent>.makeStream()
        let task = Task { [authenticator, tokens, watching, statusInterval, wait] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        for try await requests in authenticator.pendingRequestUpdates(wait: wait) {
                            continuation.yield(.pendingRequests(requests))
                        }
                    } catch {}
                }
                if let tokens, !watching.isEmpty {
                    group.addTask {
                        var last: [Watched: LoginStatus] = [:]
                        while !Task.isCancelled {
                            for user in watching {
                                let status = await tokens.status(clientID: user.clientID, username: user.username)
                                if last[user] != status {
                                    last[user] = status
                                    continuation.yield(.loginStatus(clientID: user.clientID, username: user.username, status: status))
                                }
                            }
                            try? await Task.sleep(nanoseconds: UInt64(statusInterval * 1_000_000_000))
                        }
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The events handed to `handler` (on no particular thread) until the returned task is cancelled.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (TesseraEvent) -> Void) -> Task<Void, Never> {
        let events = stream()
        return Task {
            for await event in events { handler(event) }
        }
    }
}
