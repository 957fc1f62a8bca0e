/// The one first-come, first-served lock for async code, held across suspension points:
/// SQLite's single connection serves one transaction at a time with it, and the SDK
/// changes its activation and token records under it.
public final class AsyncMutex: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    public init() {}

    public func withLock<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async rethrows -> R {
        await lock()
        defer { unlock() }
        return try await body()
    }

    /// Whether someone is queued for the lock now.
    public var hasWaiters: Bool { state.withLock { !$0.waiters.isEmpty } }

    private func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state -> Bool in
                if state.locked {
                    state.waiters.append(continuation)
                    return false
                }
                state.locked = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    private func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
