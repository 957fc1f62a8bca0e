import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import ServiceLifecycle
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraOperations
import TesseraRecords
import TesseraStore
import UnixSignals

/// A configured server: the Hummingbird application and the store behind it.
/// `tessera serve` and the end-to-end tests build it the same way.
public final class TesseraServerApp: Sendable {
    public let application: Application<RouterResponder<TesseraRequestContext>>
    /// The admin token generated at this start, when none existed; shown once.
    public let generatedAdminToken: String?
    /// Every route the router has, as "METHOD /path" (the containment test checks each one).
    let routes: [String]
    let store: SQLStore
    let pusher: Pusher
    /// Held while the server runs: no `tessera rekey` on its data directory meanwhile.
    private let directoryLock: DataDirectoryLock
    private let group: ServiceGroup

    init(
        application: Application<RouterResponder<TesseraRequestContext>>, generatedAdminToken: String?, routes: [String], store: SQLStore,
        directoryLock: DataDirectoryLock, pusher: Pusher, before: [any Service],
        after: [any Service], handlingSignals: Bool
    ) {
        self.application = application
        self.generatedAdminToken = generatedAdminToken
        self.routes = routes
        self.store = store
        self.directoryLock = directoryLock
        self.pusher = pusher
        // Services shut down in reverse order: what comes `after` the application stops
        // before it (long polls, so that its wait for in-flight requests is not a wait for
        // their timeouts), what comes `before` it stops after it (the pushes it started,
        // and last the database's connections).
        group = ServiceGroup(
            configuration: .init(
                services: before + [application] + after,
                gracefulShutdownSignals: handlingSignals ? [.sigterm, .sigint] : [], logger: application.logger))
    }

    /// Runs until SIGTERM or SIGINT (when handling signals) or `shutdown()`, finishing
    /// in-flight requests, then closes the database (on PostgreSQL its pool, a service of
    /// the group, has closed by then).
    public func run() async throws {
        let result: Result<Void, any Error>
        do {
            try await group.run()
            result = .success(())
        } catch {
            result = .failure(error)
        }
        // Close even if this task was cancelled: in a task that does not inherit it.
        let store = self.store
        try await Task { try await store.close() }.value
        directoryLock.release()
        try result.get()
    }

    /// Closes the database of a server that was built but will not run.
    public func closeWithoutRunning() async throws {
        await pusher.shutdown()
        try await store.close()
        directoryLock.release()
    }

    /// Stops accepting connections and lets `run()` return once in-flight requests finish.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }
}

/// Builds the server: opens (or creates) the data directory and its SQLite file,
/// loads the master key, and wires the routes. `services` run beside it and stop after it
/// (the span exporter, which sends what the last requests recorded).
public func buildApplication(
    configuration: ServerConfiguration,
    logger: Logger,
    now: @escaping @Sendable () -> Date = { Date() },
    handlingSignals: Bool = true,
    services: [any Service] = [],
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
    onShutdown: @escaping @Sendable () -> Void = {}
) async throws -> TesseraServerApp {
    try configuration.checkTransportSecurity()
    let server: HTTPServerBuilder
    // A connection with no request in flight is closed after the idle timeout.
    let http = HTTPServerBuilder.loopBoundHTTP1(configuration: .init(idleTimeout: .seconds(Int64(configuration.idleTimeout))))
    // The built-in TLS's pair, read again on SIGHUP and when its files change.
    let certificates = try configuration.tls.map { try TLSCertificates($0) }
    if let certificates {
        server = try .tls(http, tlsConfiguration: certificates.serverConfiguration())
    } else {
        server = http
    }
    let directory = DataDirectory(path: configuration.dataDirectory)
    try directory.prepare()
    let directoryLock = try DataDirectoryLock.take(.serving, in: directory)
    // Made and flushed on first start: on a thread of its own (`BlockingWork`).
    let box = try SecretBox(masterKey: try await BlockingWork.run { try directory.masterKey(logger: logger) })
    let adminToken = configuration.adminToken
    let (digest, generated) = try await BlockingWork.run { try directory.adminTokenDigest(configured: adminToken) }
    // Under the serving lock (on SQLite the data directory's), the master key must open
    // the data. On PostgreSQL the schema is brought up to date and the check made on
    // connections of their own: the store's pool opens when the service group runs it.
    let store: SQLStore
    if let url = configuration.databaseURL {
        try await SQLStore.withPostgres(url: url, logger: logger, maximumConnections: 2) { startup in
            try await startup.checkServing { try await checkMasterKey(box, opens: startup) }
        }
        store = try SQLStore.postgres(url: url, logger: logger, maximumConnections: configuration.databaseConnections)
        try await store.chooseHost()
    } else {
        store = try await SQLStore.openSQLite(path: directory.databasePath, logger: logger)
        do {
            try await store.checkServing { try await checkMasterKey(box, opens: store) }
        } catch {
            try? await store.close()
            throw error
        }
    }
    let pusher: Pusher
    do {
        pusher = try Pusher(configuration.push)
    } catch {
        try? await store.close()
        throw error
    }
    let state = ServerState(
        configuration: configuration, store: store, box: box, adminTokenDigest: digest, pusher: pusher,
        now: now)
    // On PostgreSQL: the serving lock (no rekey meanwhile) and the other nodes'
    // notifications, held by the relay; the server takes requests once it holds them.
    let relay = EventRelay(
        store: store, check: { [store, box] in try await checkMasterKey(box, opens: store) }, receive: { [state] key in await state.receive(key) })

    let router = try buildRouter(state: state)

    var application = Application(
        router: router,
        server: server,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "tessera"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
    application.beforeServerStarts { try await relay.holding() }
    // Services stop in reverse order: long polls first, then the HTTP server (finishing
    // in-flight requests), then the pushes and CIBA pings those requests started.
    return TesseraServerApp(
        application: application, generatedAdminToken: generated, routes: router.routes.map(\.description), store: store, directoryLock: directoryLock,
        pusher: pusher,
        before: services + [store.service, PushShutdown(pusher: pusher), state.background].compactMap { $0 },
        after: [
            ShutdownNotice(notify: onShutdown), relay, LongPollRelease(events: state.requestEvents),
            Purger(maintenance: state.domain.maintenance, metrics: state.metrics, interval: configuration.purgeInterval, logger: logger),
            LogoutSender(
                logout: state.domain.logout, outbound: Outbound(state.domain, maximumBody: 64 * 1024), metrics: state.metrics,
                interval: .seconds(1), logger: logger),
            MessageSender(
                messages: state.domain.messages, smtp: configuration.smtp.map { SMTPClient(settings: $0) },
                gateway: configuration.messageWebhook, outbound: Outbound(allowsPrivate: true, maximumBody: 64 * 1024), metrics: state.metrics,
                interval: configuration.deliveryInterval, logger: logger),
            WebhookSender(
                outbox: state.domain.webhookOutbox(maximumAge: Int64(configuration.deliveryMaxAge)),
                outbound: Outbound(state.domain, maximumBody: 64 * 1024), metrics: state.metrics, interval: configuration.deliveryInterval,
                logger: logger),
        ] + (certificates.map {
            [
                TLSReloader(
                    certificates: $0, handlingSignals: handlingSignals,
                    interval: configuration.tlsWatchInterval > 0 ? .milliseconds(Int64(configuration.tlsWatchInterval * 1000)) : nil, logger: logger)
            ]
        } ?? []),
        handlingSignals: handlingSignals)
}

/// Keeps the node's serving lock and acts on what other nodes announce (PostgreSQL
/// LISTEN, `SQLStore.serving`) until shutdown; stops the node if a rekey took the lock
/// while its connection was lost. The application waits for it (`holding`) before it
/// takes requests, and stops with its error if the lock cannot be taken.
struct EventRelay: Service {
    let store: SQLStore
    let check: @Sendable () async throws -> Void
    let receive: @Sendable (String) async -> Void
    /// Once: nil when the lock is held, or why it is not.
    private let held: AsyncStream<(any Error)?>
    private let holds: AsyncStream<(any Error)?>.Continuation

    init(store: SQLStore, check: @escaping @Sendable () async throws -> Void, receive: @escaping @Sendable (String) async -> Void) {
        self.store = store
        self.check = check
        self.receive = receive
        (held, holds) = AsyncStream<(any Error)?>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Returns once the lock is held and the LISTEN in place; throws why not.
    func holding() async throws {
        for await failure in held {
            if let failure { throw failure }
            return
        }
        throw CancellationError()
    }

    func run() async throws {
        defer { holds.finish() }
        let end: SQLStore.ServingEnd
        do {
            end = try await cancelWhenGracefulShutdown {
                try await store.serving(listeningOn: EventKey.channel, check: check, ready: { holds.yield(nil) }, receive)
            }
        } catch {
            holds.yield(error)
            // Stopped before the lock was taken: a shutdown, not a failure.
            if Task.isShuttingDownGracefully || Task.isCancelled { return }
            throw error
        }
        if end == .rekeyed {
            let message = "a tessera rekey took the database while this node's connection was lost: start it again with the new master key"
            Logger(label: "tessera").critical("\(message)")
            throw ServerStartupError(message)
        }
        // On SQLite there is nothing to listen to. A service that returns early would
        // stop the whole group: wait for the shutdown like the others.
        try? await gracefulShutdown()
    }
}

/// Says that a graceful shutdown began, before anything stops (systemd's `STOPPING=1`).
struct ShutdownNotice: Service {
    let notify: @Sendable () -> Void

    func run() async throws {
        try? await gracefulShutdown()
        notify()
    }
}

/// Ends every waiting long poll when the server shuts down.
struct LongPollRelease: Service {
    let events: RequestEvents

    func run() async throws {
        try? await gracefulShutdown()
        await events.close()
    }
}

/// Who may read `/metrics`: with `--metrics-token`, a caller presenting it as a bearer
/// token; without, a caller on a loopback address only, and not through a proxy (a
/// request a trusted proxy forwarded, or one that carries forwarding headers, is
/// someone else's).
enum MetricsAccess {
    static func check(_ request: Request, context: TesseraRequestContext, token: String?, proxies: Set<String>) throws {
        if let token {
            let presented = request.headers[.authorization].flatMap { header -> String? in
                header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)) : nil
            }
            guard let presented, Secrets.constantTimeEquals(presented, token) else {
                var error = OAuthError(.unauthorized, "invalid_token", "/metrics needs the metrics token")
                error.headers = [.wwwAuthenticate: #"Bearer realm="tessera-metrics""#]
                throw error
            }
            return
        }
        let peer = SourceAddress.normalized(context.remoteAddress?.ipAddress ?? "")
        let forwarded = request.headers[.xForwardedFor] != nil || request.headers[.forwarded] != nil
        guard SourceAddress.isLoopback(peer), !proxies.contains(peer), !forwarded else {
            throw OAuthError(.forbidden, "access_denied", "/metrics is served to loopback callers only, unless the server has a --metrics-token")
        }
    }
}

extension Request {
    /// The host the request was sent to: HTTP/1's `Host` (which the server reads into the
    /// authority), HTTP/2's `:authority`.
    var hostName: String? { headers[HTTPField.Name("Host")!] ?? head.authority }
}

/// HTTP connections whose requests run on the connection's own event loop.
///
/// Hummingbird runs each connection's loop (read a request, call the router, write the
/// answer) as a task on Swift's cooperative pool, so every request crossed threads twice
/// more than it needs to: from the event loop that read it to the pool, and back for the
/// answer. With the connection's event loop as the task's preferred executor, the
/// request, the route and the answer stay on the thread that owns the socket; a
/// transaction still runs on the SQLite thread (or its PostgreSQL connection's loop) and
/// comes back here. Nothing a route does blocks a thread: files that need an fsync
/// are written by `BlockingWork`, and the store's statements run on threads of their own.
struct LoopBoundConnections<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1, each connection on its own event loop (`LoopBoundConnections`).
    static func loopBoundHTTP1(configuration: HTTP1Channel.Configuration) -> HTTPServerBuilder {
        .init { responder in LoopBoundConnections(base: HTTP1Channel(responder: responder, configuration: configuration)) }
    }
}
