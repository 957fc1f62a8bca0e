import Foundation
import Hummingbird
import Prometheus
import Synchronization
import TesseraBuildInfo
import TesseraCore
import TesseraDomain
import TesseraRecords

/// This node's metrics in the Prometheus text format at `GET /metrics`: requests and
/// their latency per route, authentications by purpose and outcome, locks, open
/// backchannel requests and database connections. Each server has its own registry (no
/// process-wide state), so several servers in one process count apart.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    /// When this server started (the process's metrics describe the whole process).
    let startedAt = Date()
    /// One render at a time sets the process counters, so none is added twice.
    private let rendering = Mutex(())
    static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(30),
    ]

    init() {
        // What this node runs, as Prometheus's build_info convention has it: always 1.
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "tessera", metricName: "build", unitName: "info", helpText: "The version and commit of this build; always 1."),
            labels: [("version", BuildInfo.version), ("commit", BuildInfo.commit)]
        ).set(Double(1))
        // Every series a dashboard or an alert reads, at zero from the start: a quiet server
        // exports them, and a rate over them is 0, not "no data".
        for permanent in [false, true] { _ = lockouts(permanent: permanent) }
        for purpose in AuthenticationPurpose.allCases {
            for outcome in [AttemptOutcome.approved, .failed, .locked, .denied] { _ = authentications(purpose: purpose, outcome: outcome) }
        }
        _ = purgeRuns("ok")
        _ = purgeRuns("failed")
        _ = purgeLastSuccess
        _ = disabledWebhooks
    }

    static let databaseBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(5),
    ]

    /// Hears every call of the store: its duration, its wait before it ran and its
    /// statements, by backend and kind of call (`transaction`, `read`, `lookup`, `write`); the series exist from the
    /// start, as do those of what a purge deletes (`purgeKinds`).
    func registerStore(backend: String, observers: StoreObservers, purgeKinds: [String]) {
        for kind in purgeKinds { _ = purgedRows(kind) }
        // Looked up once: a store call records into its kind's instruments directly (a
        // registry lookup per call cost a login several per cent of its instructions).
        let instruments = Dictionary(
            uniqueKeysWithValues: [StoreCallReport.Kind.transaction, .read, .lookup, .write].map { kind in
                (
                    kind,
                    (
                        databaseDuration(backend: backend, kind: kind), databaseQueue(backend: backend, kind: kind),
                        databaseFailures(backend: backend, kind: kind), databaseStatements(backend: backend, kind: kind)
                    )
                )
            })
        observers.observe { report in
            guard let (duration, queue, failures, statements) = instruments[report.kind] else { return }
            duration.record(report.duration)
            queue.record(report.queue)
            if report.failed { failures.increment() }
            statements.increment(by: Int64(report.statements))
        }
    }

    private func databaseStatements(backend: String, kind: StoreCallReport.Kind) -> Counter {
        registry.makeCounter(
            descriptor: Self.name(
                "database_statements", "total",
                "Statements store calls sent (on PostgreSQL each a round trip, BEGIN and COMMIT included), by backend and kind."),
            labels: [("backend", backend), ("call", kind.rawValue)])
    }

    private func databaseDuration(backend: String, kind: StoreCallReport.Kind) -> DurationHistogram {
        registry.makeDurationHistogram(
            descriptor: Self.name(
                "database_transaction_duration", "seconds",
                "Store calls (transactions, reads, one-statement lookups and writes) from the call to their commit, by backend and kind."),
            labels: [("backend", backend), ("call", kind.rawValue)], buckets: Self.databaseBuckets)
    }

    private func databaseQueue(backend: String, kind: StoreCallReport.Kind) -> DurationHistogram {
        registry.makeDurationHistogram(
            descriptor: Self.name(
                "database_queue_wait", "seconds",
                "How long store calls waited before they ran (the SQLite connection, a pooled PostgreSQL connection, a hot row's turn)."),
            labels: [("backend", backend), ("call", kind.rawValue)], buckets: Self.databaseBuckets)
    }

    private func databaseFailures(backend: String, kind: StoreCallReport.Kind) -> Counter {
        registry.makeCounter(
            descriptor: Self.name("database_call_failures", "total", "Store calls that failed (rolled back), by backend and kind."),
            labels: [("backend", backend), ("call", kind.rawValue)])
    }

    /// A scheduled purge that finished: what it deleted, by kind.
    func purged(_ deleted: [String: Int]) {
        purgeRuns("ok").increment()
        purgeLastSuccess.set(Date().timeIntervalSince1970)
        for (kind, count) in deleted { purgedRows(kind).increment(by: Int64(count)) }
    }

    private func purgedRows(_ kind: String) -> Counter {
        registry.makeCounter(descriptor: Self.name("purged_rows", "total", "Rows the scheduled purges deleted, by kind."), labels: [("kind", kind)])
    }

    func purgeFailed() { purgeRuns("failed").increment() }

    private func purgeRuns(_ outcome: String) -> Counter {
        registry.makeCounter(
            descriptor: Self.name("purge_runs", "total", "Scheduled purges of expired and spent data, by outcome (ok, failed)."),
            labels: [("outcome", outcome)])
    }

    private var purgeLastSuccess: Gauge {
        registry.makeGauge(
            descriptor: Self.name("purge_last_success", "timestamp_seconds", "When this node's last scheduled purge finished (0: none yet)."))
    }

    private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "tessera", metricName: metric, unitName: unit, helpText: help)
    }

    /// The process's own metrics, named as Prometheus's client libraries name them (`process_…`).
    private static func process(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "process", metricName: metric, unitName: unit, helpText: help)
    }

    func request(method: String, route: String, status: Int, duration: Duration) {
        registry.makeCounter(
            descriptor: Self.name("http_requests", "total", "HTTP requests by method, route and status."),
            labels: [("method", method), ("route", route), ("status", String(status))]
        ).increment()
        registry.makeDurationHistogram(
            descriptor: Self.name("http_request_duration", "seconds", "HTTP request latency by method and route."),
            labels: [("method", method), ("route", route)], buckets: Self.latencyBuckets
        ).recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// A request the server could not complete (HTTP 5xx), by route.
    func serverError(route: String) {
        registry.makeCounter(
            descriptor: Self.name("http_server_errors", "total", "Requests answered with a server error (5xx), by route."),
            labels: [("route", route)]
        ).increment()
    }

    /// A request answered 503 because the database could not be reached (a restart, a
    /// switch-over, a network fault), not because of anything the request did.
    func databaseUnavailable(route: String) {
        registry.makeCounter(
            descriptor: Self.name("database_unavailable", "total", "Requests answered 503 because the database was unreachable, by route."),
            labels: [("route", route)]
        ).increment()
    }

    /// An answered authentication: `approved`, `failed`, `locked` or `denied`.
    func authentication(purpose: AuthenticationPurpose, outcome: AttemptOutcome) {
        authentications(purpose: purpose, outcome: outcome).increment()
    }

    private func authentications(purpose: AuthenticationPurpose, outcome: AttemptOutcome) -> Counter {
        registry.makeCounter(
            descriptor: Self.name("authentications", "total", "Answered authentications by purpose and outcome."),
            labels: [("purpose", purpose.rawValue), ("outcome", outcome.rawValue)])
    }

    func lockout(permanent: Bool) {
        lockouts(permanent: permanent).increment()
    }

    private func lockouts(permanent: Bool) -> Counter {
        registry.makeCounter(
            descriptor: Self.name("lockouts", "total", "Activations locked after failed attempts, by kind."),
            labels: [("kind", permanent ? "permanent" : "temporary")])
    }

    /// A delivery attempt of an outbox (`webhook`, `logout`) that came to nothing.
    func outboundFailure(kind: String) {
        outboundFailures(kind).increment()
    }

    private func outboundFailures(_ kind: String) -> Counter {
        registry.makeCounter(
            descriptor: Self.name("outbound_failures", "total", "Delivery attempts that failed (they are tried again), by kind."),
            labels: [("kind", kind)])
    }

    /// A webhook disabled after its deliveries failed past the maximum age.
    func webhookDisabled() {
        disabledWebhooks.increment()
    }

    private var disabledWebhooks: Counter {
        registry.makeCounter(descriptor: Self.name("webhooks_disabled", "total", "Webhooks disabled because deliveries failed past the maximum age."))
    }

    /// The exposition, with the gauges read now.
    /// `longPolls`: the long polls this node holds open now.
    func render(domain: Domain, longPolls: Int) async -> String {
        let gauges = await domain.storeGauges()
        // 1 while the database answers and the schema is this build's (what /ready says).
        registry.makeGauge(descriptor: Self.name("database_ready", "", "1 while the database answers and its schema is servable by this build, else 0."))
            .set(Double(await domain.schemaIsServable() ? 1 : 0))
        // Every outbox kind, also at zero: an alert on them needs the series.
        for (kind, waiting) in (try? await domain.outboxWaiting()) ?? [:] {
            registry.makeGauge(descriptor: Self.name("outbound_pending", "", "Messages waiting in an outbox, all nodes, by kind."), labels: [("kind", kind)])
                .set(Double(waiting))
            _ = outboundFailures(kind)
        }
        _ = disabledWebhooks
        if let pending = gauges.openBackchannelRequests {
            registry.makeGauge(descriptor: Self.name("backchannel_pending", "requests", "Open backchannel (CIBA) requests, all nodes."))
                .set(Double(pending))
        }
        registry.makeGauge(descriptor: Self.name("long_polls_open", "", "Long polls (devices' and login pages') this node holds open now."))
            .set(Double(longPolls))
        registry.makeGauge(descriptor: Self.name("database_connections_in_use", "connections", "Database connections this node uses now."))
            .set(Double(gauges.connectionsInUse))
        registry.makeGauge(descriptor: Self.name("database_connections_limit", "connections", "The most this node opens."))
            .set(Double(gauges.connectionLimit))
        // The process's own, under the names Prometheus's client libraries use: a bench (or
        // a dashboard) reads the CPU a flow costs the server from two scrapes.
        let usage = ProcessUsage.current()
        registry.makeGauge(descriptor: Self.process("resident_memory", "bytes", "Resident memory size in bytes.")).set(Double(usage.residentBytes))
        registry.makeGauge(descriptor: Self.process("start_time", "seconds", "Start time of the process since unix epoch in seconds."))
            .set(startedAt.timeIntervalSince1970)
        return rendering.withLock { _ in
            let cpu = registry.makeCounter(descriptor: Self.process("cpu_seconds", "total", "Total user and system CPU time spent in seconds."))
            cpu.reset()
            cpu.increment(by: usage.cpuSeconds)
            let user = registry.makeCounter(descriptor: Self.process("cpu_user_seconds", "total", "User CPU time spent in seconds."))
            user.reset()
            user.increment(by: usage.userSeconds)
            let system = registry.makeCounter(descriptor: Self.process("cpu_system_seconds", "total", "System CPU time spent in seconds."))
            system.reset()
            system.increment(by: usage.systemSeconds)
            return registry.emitToString()
        }
    }
}
