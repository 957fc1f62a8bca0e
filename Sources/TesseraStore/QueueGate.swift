import Foundation
import TesseraRecords

/// How many transactions of one queue (`SQLStore.transaction(queue:)`) a node lets hold
/// a pooled connection at once. The others wait here, in memory, for a bounded time: a
/// burst on one activation then occupies one or two connections, not the whole pool,
/// and a wait that runs out is a clear `StoreError(.busy)` instead of a stalled node.
actor QueueGate {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    private var holders: [String: Int] = [:]
    private var waiters: [String: [Waiter]] = [:]
    private var nextID: UInt64 = 0
    let perQueue: Int
    let maximumWait: Duration

    init(perQueue: Int, maximumWait: Duration) {
        self.perQueue = perQueue
        self.maximumWait = maximumWait
    }

    /// Waits for a place in `queue`; throws `busy` when none comes within the bound.
    func enter(_ queue: String) async throws {
        if holders[queue, default: 0] < perQueue {
            holders[queue, default: 0] += 1
            return
        }
        nextID += 1
        let id = nextID
        let limit = maximumWait
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            await self?.expire(id, queue: queue)
        }
        let admitted = await withCheckedContinuation { continuation in
            waiters[queue, default: []].append(Waiter(id: id, continuation: continuation))
        }
        timer.cancel()
        guard admitted else { throw StoreError.busy(queue: queue) }
    }

    /// Gives the place to the longest waiter, or frees it.
    func leave(_ queue: String) {
        if var queued = waiters[queue], !queued.isEmpty {
            let next = queued.removeFirst()
            waiters[queue] = queued.isEmpty ? nil : queued
            next.continuation.resume(returning: true)  // the place passes on; holders unchanged
            return
        }
        let left = holders[queue, default: 1] - 1
        holders[queue] = left > 0 ? left : nil
    }

    private func expire(_ id: UInt64, queue: String) {
        guard var queued = waiters[queue], let index = queued.firstIndex(where: { $0.id == id }) else { return }
        let waiter = queued.remove(at: index)
        waiters[queue] = queued.isEmpty ? nil : queued
        waiter.continuation.resume(returning: false)
    }
}
