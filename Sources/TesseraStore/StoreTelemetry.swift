import Synchronization
import TesseraRecords

/// The measurements of the store call under way, found by the statements it sends.
final class StoreCall: Sendable {
    @TaskLocal static var current: StoreCall?

    let started = ContinuousClock.now
    private let state = Mutex(State())

    struct State {
        var bodyStarted: ContinuousClock.Instant?
        var bodyEnded: ContinuousClock.Instant?
        var statements = 0
    }

    func statement() { state.withLock { $0.statements += 1 } }
    /// The body starts (the first time only: a body run again after a deadlock keeps its queue).
    func bodyBegins() { state.withLock { if $0.bodyStarted == nil { $0.bodyStarted = .now } } }
    func bodyEnds() { state.withLock { $0.bodyEnded = .now } }

    func report(_ kind: StoreCallReport.Kind, backend: String, failed: Bool) -> StoreCallReport {
        let now = ContinuousClock.now
        let state = state.withLock { $0 }
        let began = state.bodyStarted ?? now
        return StoreCallReport(
            kind: kind, backend: backend, duration: now - started, queue: began - started,
            commitWait: state.bodyEnded.map { now - $0 } ?? .zero, statements: state.statements, failed: failed)
    }
}

