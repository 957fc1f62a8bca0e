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
    /// On PostgreSQL: the serving lock and the LISTEN (`SQLStore.serve`).
    private let serving: Task<SQLStore.ServingEnd, Never>?
    private let group: ServiceGroup

    init(
        application: Application<RouterResponder<TesseraRequestContext>>, generatedAdminToken: String?, routes: [String], store: SQLStore,
        directoryLock: DataDirectoryLock, serving: Task<SQLStore.ServingEnd, Never>?, pusher: Pusher, before: [any Service],
        after: [any Service], handlingSignals: Bool
    ) {
        self.application = application
        self.generatedAdminToken = generatedAdminToken
        self.routes = routes
        self.store = store
        self.directoryLock = directoryLock
        self.serving = serving
        self.pusher = pusher
        // Services shut down in reverse order: what comes `after` the application stops
        // before it (long polls, so that its wait for in-flight requests is not a wait for
        // their timeouts), what comes `before` it stops after it (the pushes it started).
        group = ServiceGroup(
            configuration: .init(
                services: before + [application] + after,
                gracefulShutdownSignals: handlingSignals ? [.sigterm, .sigint] : [], logger: application.logger))
    }

    /// Runs until SIGTERM or SIGINT (when handling signals) or `shutdown()`, finishing
    /// in-flight requests, then closes the database.
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
        serving?.cancel()
        try await Task { try await store.close() }.value
        directoryLock.release()
        try result.get()
    }

    /// Closes the database of a server that was built but will not run.
    public func closeWithoutRunning() async throws {
        await pusher.shutdown()
        serving?.cancel()
        _ = await serving?.value
        try await store.close()
        directoryLock.release()
    }

    /// Stops accepting connections and lets `run()` return once in-flight requests finish.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }
}

/// Builds the server: opens (or creates) the data directory and its SQLite file,
/// loads the master key, and wires the routes.
public func buildApplication(
    configuration: ServerConfiguration,
    logger: Logger,
    now: @escaping @Sendable () -> Date = { Date() },
    handlingSignals: Bool = true,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> TesseraServerApp {
    try configuration.checkTransportSecurity()
    let server: HTTPServerBuilder
    // A connection with no request in flight is closed after the idle timeout.
    let http = HTTPServerBuilder.http1(configuration: .init(idleTimeout: .seconds(Int64(configuration.idleTimeout))))
    if let files = configuration.tls {
        var tlsConfiguration: TLSConfiguration
        do {
            tlsConfiguration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(files.certificateChain).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: files.privateKey, format: .pem)))
        } catch {
            throw ServerStartupError("cannot load the TLS certificate or key: \(error)")
        }
        // TLS 1.0 and 1.1 are deprecated (RFC 8996).
        tlsConfiguration.minimumTLSVersion = .tlsv12
        server = try .tls(http, tlsConfiguration: tlsConfiguration)
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
    let store: SQLStore
    if let url = configuration.databaseURL {
        store = try await SQLStore.openPostgres(url: url, logger: logger, maximumConnections: configuration.databaseConnections)
    } else {
        store = try await SQLStore.openSQLite(path: directory.databasePath, logger: logger)
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
    // On PostgreSQL: the serving lock (no rekey meanwhile) and the other nodes' notifications.
    // Under the lock (on SQLite the data directory's), the master key must open the data.
    let serving: Task<SQLStore.ServingEnd, Never>?
    do {
        serving = try await store.serve(listeningOn: EventKey.channel, check: { [store, box] in
            try await checkMasterKey(box, opens: store)
        }) { [state] key in
            await state.receive(key)
        }
    } catch {
        await pusher.shutdown()
        try? await store.close()
        throw error
    }

    let router = try buildRouter(state: state)

    let application = Application(
        router: router,
        server: server,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "tessera"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
    // Services stop in reverse order: long polls first, then the HTTP server (finishing
    // in-flight requests), then the pushes and CIBA pings those requests started.
    return TesseraServerApp(
        application: application, generatedAdminToken: generated, routes: router.routes.map(\.description), store: store, directoryLock: directoryLock, serving: serving,
        pusher: pusher,
        before: [PushShutdown(pusher: pusher), PingShutdown(pings: state.pings)],
        after: [
            EventRelay(serving: serving), LongPollRelease(events: state.requestEvents),
            Purger(maintenance: state.domain.maintenance, interval: configuration.purgeInterval, logger: logger),
            LogoutSender(
                logout: state.domain.logout, outbound: Outbound(state.domain, maximumBody: 64 * 1024), interval: .seconds(1), logger: logger),
        ],
        handlingSignals: handlingSignals)
}

/// Keeps the node's serving lock and acts on what other nodes announce (PostgreSQL
/// LISTEN, started by `SQLStore.serve`) until shutdown; stops the node if a rekey took
/// the lock while its connection was lost.
struct EventRelay: Service {
    let serving: Task<SQLStore.ServingEnd, Never>?

    func run() async throws {
        if let serving {
            let end = await cancelWhenGracefulShutdown {
                await withTaskCancellationHandler { await serving.value } onCancel: { serving.cancel() }
            }
            if end == .rekeyed {
                let message = "a tessera rekey took the database while this node's connection was lost: start it again with the new master key"
                Logger(label: "tessera").critical("\(message)")
                throw ServerStartupError(message)
            }
        }
        // On SQLite there is nothing to listen to. A service that returns early would
        // stop the whole group: wait for the shutdown like the others.
        try? await gracefulShutdown()
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
