import Foundation
import Synchronization
import Tracing

/// What one call into the store (`transaction`, `read`, `lookup`, `write`) spent where, for
/// its trace span and the server's metrics:
/// - `queue`: from the call until its body began (the SQLite connection's lock and batch,
///   a pooled PostgreSQL connection, a queue's turn);
/// - `statements`: how many statements it sent (BEGIN, SAVEPOINT and COMMIT included);
/// - `commitWait`: from the end of its body until the call returned (the COMMIT's round
///   trip; on SQLite the group commit's WAL write and fsync it waited for).
public struct StoreCallReport: Sendable {
    public enum Kind: String, Sendable { case transaction, read, lookup, write }
    public let kind: Kind
    /// `sqlite` or `postgresql` (OpenTelemetry's `db.system.name`).
    public let backend: String
    public let duration: Duration
    public let queue: Duration
    public let commitWait: Duration
    public let statements: Int
    public let failed: Bool

    public init(
        kind: Kind, backend: String, duration: Duration, queue: Duration, commitWait: Duration, statements: Int, failed: Bool
    ) {
        self.kind = kind
        self.backend = backend
        self.duration = duration
        self.queue = queue
        self.commitWait = commitWait
        self.statements = statements
        self.failed = failed
    }
}

/// Who hears of every store call: the server's metrics. Set once, before the store serves.
///
/// The closure is kept in a class: a closure kept directly in a `Mutex` is reabstracted on
/// every `withLock` (read through its `inout` and written back), so that each call wrapped
/// it in two more thunks, and calls grew slower without end.
public final class StoreObservers: Sendable {
    private final class Observer: Sendable {
        let body: @Sendable (StoreCallReport) -> Void
        init(_ body: @escaping @Sendable (StoreCallReport) -> Void) { self.body = body }
    }

    private let observer = Mutex<Observer?>(nil)

    public init() {}

    public func observe(_ body: @escaping @Sendable (StoreCallReport) -> Void) { observer.withLock { $0 = Observer(body) } }

    public func tell(_ report: StoreCallReport) { observer.withLock { $0 }?.body(report) }
}

/// The request (or background task) a store call belongs to, as far as tracing goes: its
/// span, to which what it continues is linked, and the W3C `traceparent` of its trace,
/// which records that later requests continue carry.
///
/// A login spans several requests (the page, the device's claim and finish, the page's
/// completion, the token): the login request keeps the `traceparent` of the request that
/// made it, and so does the authorization code; each later request that reads them links
/// its own span to that first one (`continues`). A back-channel logout notice keeps the
/// `traceparent` of the request that ended the session, and is sent within that trace.
public final class RequestTrace: Sendable {
    @TaskLocal public static var current: RequestTrace?

    /// This request's own span.
    public let span: any Span
    private let state = Mutex(State())

    private struct State {
        /// This span's `traceparent`, once asked for (written by the propagator, so only
        /// for the few requests that keep it in a record).
        var own: String??
        /// The first trace this request continued (from a record it read), if any.
        var origin: String?
    }

    public init(span: any Span) {
        self.span = span
    }

    /// The `traceparent` of this request's span.
    public var own: String? {
        if let known = state.withLock({ $0.own }) { return known }
        let made = Self.headers(of: span.context)["traceparent"]
        state.withLock { $0.own = .some(made) }
        return made
    }

    /// What a record that a later request continues should carry: the trace this request
    /// continues, or its own.
    public var traceParent: String? { state.withLock { $0.origin } ?? own }

    /// Whether this request's span is recorded (sampled): store calls and links are
    /// traced only then.
    public var isRecording: Bool { span.isRecording }

    /// This request continues the trace a record carries: linked once, to the first.
    public func continues(_ traceParent: String?) {
        guard let traceParent else { return }
        let first = state.withLock { state -> Bool in
            guard state.origin == nil else { return false }
            state.origin = traceParent
            return true
        }
        guard first, span.isRecording, traceParent != own, let context = Self.context(of: traceParent) else { return }
        span.addLink(SpanLink(context: context, attributes: ["tessera.link": "continues"]))
    }

    /// A trace context from a `traceparent`, through the configured propagator.
    public static func context(of traceParent: String) -> ServiceContext? {
        var context = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(["traceparent": traceParent], into: &context, using: DictionaryCarrier())
        return context.isEmpty ? nil : context
    }

    /// The `traceparent` (and any other header the propagator writes) of a context.
    public static func headers(of context: ServiceContext) -> [String: String] {
        var headers: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &headers, using: DictionaryCarrier())
        return headers
    }
}

/// Headers as a dictionary, for the propagator.
public struct DictionaryCarrier: Extractor, Injector {
    public init() {}
    public func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
    public func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
}
