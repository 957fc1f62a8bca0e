import Foundation

/// Wakes long polls when what they watch changed: a user's pending requests (`user:{id}`,
/// watched by devices) or one request's status (`request:{id}`, watched by the login page).
/// The same keys carry other changes every node must hear of (`signing-keys:{tenant id}`,
/// see `ServerState.receive`).
///
/// A waiter registers before it reads, so a change that lands between the read and the
/// wait still wakes it. Within one node `publish` is called directly; across nodes on
/// PostgreSQL, `EdgeNotifier` (behind `Domain.announce`) also sends the key by NOTIFY and every node's
/// `EventRelay` publishes what it hears.
actor RequestEvents {
    private struct Waiter {
        let keys: Set<String>
        var fired = false
        var continuation: CheckedContinuation<Void, Never>?
    }

    private var waiters: [UUID: Waiter] = [:]
    private var closed = false

    func register(keys: Set<String>) -> UUID {
        let id = UUID()
        waiters[id] = Waiter(keys: keys, fired: closed)
        return id
    }

    /// Releases every waiter, now and from now on (the server is shutting down).
    func close() {
        closed = true
        for id in waiters.keys { fire(id) }
    }

    func publish(_ key: String) {
        for (id, waiter) in waiters where waiter.keys.contains(key) { fire(id) }
    }

    /// Wakes every waiter: each reads again what it watches (after the node may have
    /// missed other nodes' notifications).
    func publishAll() {
        for id in waiters.keys { fire(id) }
    }

    /// Returns when the waiter's users changed since it registered, or after `timeout`
    /// (or at once when the calling task is cancelled). The waiter is gone afterwards.
    func wait(_ id: UUID, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.suspend(id) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                await self.fire(id)
            }
            await group.next()
            group.cancelAll()
            await group.waitForAll()
        }
        waiters[id] = nil
    }

    /// The longest a long poll waits, in seconds.
    static let maximumWait = 30

    func discard(_ id: UUID) { waiters.removeValue(forKey: id)?.continuation?.resume() }

    private func fire(_ id: UUID) {
        guard var waiter = waiters[id] else { return }
        if let continuation = waiter.continuation {
            waiters[id] = nil
            continuation.resume()
        } else {
            waiter.fired = true
            waiters[id] = waiter
        }
    }

    private func suspend(_ id: UUID) async {
        await withCheckedContinuation { continuation in
            guard let waiter = waiters[id], !waiter.fired else { return continuation.resume() }
            waiters[id]?.continuation = continuation
        }
    }
}
