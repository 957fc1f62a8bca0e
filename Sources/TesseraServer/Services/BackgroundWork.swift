import ServiceLifecycle

/// Work an answer starts and does not wait for (a wake-up push, a CIBA ping), run as child
/// tasks of this service in the server's service group: none outlives the server. At
/// graceful shutdown new work is refused, and what is under way gets up to `grace` to
/// finish before it is cancelled. Work handed in before the service runs waits for it.
package final class BackgroundWork: Service, Sendable {
    typealias Job = @Sendable () async -> Void
    private let jobs: AsyncStream<Job>
    private let queue: AsyncStream<Job>.Continuation
    let grace: Duration

    init(grace: Duration = .seconds(15)) {
        (jobs, queue) = AsyncStream<Job>.makeStream()
        self.grace = grace
    }

    /// Hands `job` over; false once shutdown began (the job will not run).
    @discardableResult
    func submit(_ job: @escaping Job) -> Bool {
        if case .enqueued = queue.yield(job) { return true }
        return false
    }

    package func run() async {
        await withTaskGroup(of: Void.self) { lifetime in
            lifetime.addTask { [jobs] in
                // Ends when the queue is finished and every job has.
                await withDiscardingTaskGroup { running in
                    for await job in jobs { running.addTask { await job() } }
                }
            }
            try? await gracefulShutdown()
            queue.finish()
            lifetime.addTask { [grace] in try? await Task.sleep(for: grace) }
            // The jobs' end or the grace's, whichever comes first; then the rest is cancelled.
            await lifetime.next()
            lifetime.cancelAll()
        }
    }
}
