import Foundation

/// Work that blocks its thread (a file written and flushed with fsync) runs on a thread of
/// its own, never on one of Swift's cooperative threads: there are only as many of those
/// as cores, and an fsync behind a busy disk holds its thread for as long as the disk
/// takes, with every task queued behind it. Two such writes at once on a 2-core machine
/// stopped every server and test in the test process for a minute.
public enum BlockingWork {
    /// Runs `work` on a new thread and answers what it returns or throws.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.name = "tessera-blocking-io"
            thread.start()
        }
    }
}
