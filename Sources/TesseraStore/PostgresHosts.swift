import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import ServiceLifecycle
import Synchronization
import TesseraRecords

/// The PostgreSQL servers a database URL names, a connection pool for each, and the one
/// the store uses now.
///
/// PostgresNIO connects to one host, so the choice is made here, as libpq makes it for
/// a URL with several hosts (`target_session_attrs`): `any` takes the first host that
/// answers, `read-write` the first that accepts writes (`transaction_read_only` off: a
/// primary, not a standby). A host is chosen before first use when there is a choice to
/// make, and again after a connection failed: the host in use first, then the others in
/// the URL's order, each asked on a connection of its own (never the pools', which may
/// wait a minute for a host that is gone). When none qualifies the database is
/// unavailable: requests are answered at once (503) instead of waiting on a pool, and
/// the next request after a second asks again. The pool of a host left behind (the node
/// switched away from it, or found no host at all) is stopped, which fails the requests
/// still waiting on it for a connection at once, and a new pool takes its place.
final class PostgresHosts: Sendable {
    struct Host: Sendable {
        /// `host:port`, for the logs.
        let name: String
        /// Its pools' configuration.
        let configuration: PostgresClient.Configuration
        /// How to ask it, on a connection of its own.
        let probe: PostgresConnection.Configuration
    }

    /// A host's pool now, and how to stop it.
    private struct Pool: Sendable {
        let client: PostgresClient
        let stop: AsyncStream<Void>.Continuation
    }

    let hosts: [Host]
    /// `target_session_attrs=read-write`: only a host that accepts writes will do.
    let writableOnly: Bool
    private let logger: Logger
    private let current = Atomic<Int>(0)
    private let pools: Mutex<[Pool]>
    /// Each pool made, with what stops it, for `Pools` to run.
    private let made: AsyncStream<(PostgresClient, AsyncStream<Void>)>
    private let make: AsyncStream<(PostgresClient, AsyncStream<Void>)>.Continuation
    private let usable = Atomic<Bool>(true)
    private let probing = Mutex<Probing>(Probing())

    private struct Probing {
        var task: Task<Bool, Never>?
        var finished: ContinuousClock.Instant?
    }

    /// How long a host may take to accept a connection when it is asked, in seconds.
    static let probeTimeoutSeconds: Int64 = 2
    /// How often a database found unavailable is asked again (at most).
    static let probeInterval: Duration = .seconds(1)

    init(url: PostgresURL, maximumConnections: Int, logger: Logger) throws {
        let probeTLS: PostgresConnection.Configuration.TLS
        do {
            switch url.tls {
            case .disable: probeTLS = .disable
            case .prefer: probeTLS = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: probeTLS = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw StoreError(.unavailable, "TLS for the database could not be set up: \(error)")
        }
        hosts = url.hosts.map { endpoint in
            var configuration = PostgresClient.Configuration(
                host: endpoint.host, port: endpoint.port, username: url.user, password: url.password, database: url.database,
                tls: url.clientTLS)
            configuration.options.maximumConnections = maximumConnections
            configuration.options.connectionIdleTimeout = .seconds(60)
            // PostgresNIO 1.33 opens a connection in place of one that closed only while
            // the pool is below its minimum: with none, requests queued when a restart
            // closed every connection waited for the next request's new connection, and a
            // graceful stop (which waits for requests before it closes the pool) for ever.
            configuration.options.minimumConnections = 1
            var probe = PostgresConnection.Configuration(
                host: endpoint.host, port: endpoint.port, username: url.user, password: url.password, database: url.database, tls: probeTLS)
            probe.options.connectTimeout = .seconds(Self.probeTimeoutSeconds)
            return Host(name: "\(endpoint.host):\(endpoint.port)", configuration: configuration, probe: probe)
        }
        writableOnly = url.writableOnly
        self.logger = logger
        let (made, make) = AsyncStream<(PostgresClient, AsyncStream<Void>)>.makeStream()
        self.made = made
        self.make = make
        let hosts = self.hosts
        pools = Mutex(hosts.map { host in Self.makePool(host, logger: logger, announcing: make) })
    }

    private static func makePool(
        _ host: Host, logger: Logger, announcing make: AsyncStream<(PostgresClient, AsyncStream<Void>)>.Continuation
    ) -> Pool {
        let client = PostgresClient(configuration: host.configuration, backgroundLogger: logger)
        let (stopped, stop) = AsyncStream<Void>.makeStream()
        make.yield((client, stopped))
        return Pool(client: client, stop: stop)
    }

    /// Stops the pool of the host at `index` (the requests waiting on it for a connection
    /// fail, as on a lost connection) and puts a new one in its place.
    private func replacePool(_ index: Int) {
        let fresh = Self.makePool(hosts[index], logger: logger, announcing: make)
        let old = pools.withLock { pools in
            let old = pools[index]
            pools[index] = fresh
            return old
        }
        old.stop.finish()
    }

    /// Whether a host must be chosen before first use: several to choose from, or one
    /// that must accept writes.
    var choosesFirst: Bool { hosts.count > 1 || writableOnly }

    /// The pool of the host in use; `unavailable` at once when the last look found none
    /// (and, a second after it, a new look begins in the background).
    func client() throws -> PostgresClient {
        guard usable.load(ordering: .relaxed) else {
            _ = lookIfDue()
            throw StoreError(.unavailable, "no database host \(writableOnly ? "accepting writes " : "")answers")
        }
        let index = current.load(ordering: .relaxed)
        return pools.withLock { $0[index].client }
    }

    /// After a connection failed: looks for a host again (or waits for the look under
    /// way) and says whether one qualifies. Looks at most once a second; in between it
    /// answers with the last look.
    func recover() async -> Bool {
        guard let look = lookIfDue() else { return usable.load(ordering: .relaxed) }
        return await look.value
    }

    /// The look under way, or a new one when the last ended a second ago or more; nil
    /// when it ended less than a second ago.
    private func lookIfDue() -> Task<Bool, Never>? {
        probing.withLock { probing in
            if let task = probing.task { return task }
            if let finished = probing.finished, ContinuousClock.now - finished < Self.probeInterval { return nil }
            let task = Task { await self.look() }
            probing.task = task
            return task
        }
    }

    /// `recover` until a host qualifies, for at most `limit` (a node's start).
    func choose(within limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        while true {
            if await recover() { return }
            guard ContinuousClock.now < deadline else {
                let names = hosts.map(\.name).joined(separator: ", ")
                throw StoreError(.unavailable, "no database host of \(names) \(writableOnly ? "accepted writes" : "answered") within \(limit)")
            }
            try await Task.sleep(for: Self.probeInterval)
        }
    }

    /// Asks the host in use, then the others in order; the first that qualifies is used.
    private func look() async -> Bool {
        let now = current.load(ordering: .relaxed)
        let order = [now] + hosts.indices.filter { $0 != now }
        var found: Int?
        for index in order {
            if await qualifies(hosts[index]) {
                found = index
                break
            }
        }
        if let found { current.store(found, ordering: .relaxed) }
        let wasUsable = usable.exchange(found != nil, ordering: .relaxed)
        // What waits on the pool of a host left behind (switched away from, or none
        // found) would wait for its connections, a minute for a host that is gone: it
        // fails now instead.
        if let found {
            if probing.withLock({ $0.finished == nil }) {
                logger.info("database host chosen", metadata: ["host": "\(hosts[found].name)"])
            } else if found != now {
                logger.warning("database host switched", metadata: ["from": "\(hosts[now].name)", "to": "\(hosts[found].name)"])
            }
            if found != now { replacePool(now) }
            if !wasUsable { logger.notice("the database answers again", metadata: ["host": "\(hosts[found].name)"]) }
        } else if wasUsable {
            logger.error("no database host \(writableOnly ? "accepts writes" : "answers")", metadata: ["hosts": "\(hosts.map(\.name))"])
            replacePool(now)
        }
        probing.withLock { probing in
            probing.task = nil
            probing.finished = .now
        }
        return found != nil
    }

    /// Connects to `host` on a connection of its own and, for `read-write`, asks whether it
    /// accepts writes (what libpq asks: `transaction_read_only`).
    private func qualifies(_ host: Host) async -> Bool {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: host.probe, id: 0, logger: logger)
        } catch {
            return false
        }
        var readOnly: Bool?
        do {
            let rows = try await connection.query("SELECT current_setting('transaction_read_only') AS read_only", logger: logger)
            for try await value in rows.decode(String.self) { readOnly = value == "on" }
        } catch {
            readOnly = nil
        }
        try? await connection.close()
        guard let readOnly else { return false }
        return !writableOnly || !readOnly
    }

    /// Runs every host's pool, and each new one put in place of one stopped (each keeps
    /// one connection open and opens more when used); they close their connections when
    /// this ends, at graceful shutdown or cancellation. Run once.
    struct Pools: Service {
        let hosts: PostgresHosts

        func run() async {
            let made = hosts.made
            await cancelWhenGracefulShutdown {
                await withDiscardingTaskGroup { group in
                    for await (client, stopped) in made {
                        group.addTask {
                            await withDiscardingTaskGroup { pool in
                                pool.addTask { await client.run() }
                                // Until the pool is replaced (or this is cancelled).
                                for await _ in stopped {}
                                pool.cancelAll()
                            }
                        }
                    }
                }
            }
        }
    }

    var service: Pools { Pools(hosts: self) }
}

/// A PostgreSQL database URL, libpq's form with one host or several:
/// `postgres://user:password@host:port[,host:port…]/database?sslmode=…&target_session_attrs=…`.
/// `sslmode` is `disable`, `prefer` (the default; `allow` reads as it) or `require`
/// (`verify-ca` and `verify-full` read as it); `target_session_attrs` is `any` (the
/// default) or `read-write`. A host without a port has 5432.
public struct PostgresURL: Sendable {
    public struct Endpoint: Sendable, Equatable {
        public let host: String
        public let port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    enum TLSMode: Sendable { case disable, prefer, require }

    public let hosts: [Endpoint]
    public let user: String
    public let password: String?
    public let database: String?
    let tls: TLSMode
    /// `sslmode` as read: `disable`, `prefer` or `require`.
    public var sslMode: String {
        switch tls {
        case .disable: "disable"
        case .prefer: "prefer"
        case .require: "require"
        }
    }
    /// `target_session_attrs=read-write`.
    public let writableOnly: Bool
    /// The URL without its password (for commands that are printed).
    public var withoutPassword: String { scheme + userText + "@" + tail }
    private let scheme: String
    /// The user as written (percent-encoded).
    private let userText: String
    /// The hosts, database and parameters as written.
    private let tail: String

    /// The URL with `password` in it (percent-encoded), in place of any it had.
    public func withPassword(_ password: String) -> String {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return scheme + userText + ":" + (password.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "") + "@" + tail
    }

    private static let shape = "postgres://user:password@host:port[,host:port…]/database"

    public init(_ text: String) throws {
        let scheme = ["postgres://", "postgresql://"].first { text.hasPrefix($0) }
        guard let scheme else { throw StoreError(.unavailable, "the database URL is not \(Self.shape)") }
        var rest = Substring(text.dropFirst(scheme.count))
        var query = ""
        if let mark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        var path = ""
        if let slash = rest.firstIndex(of: "/") {
            path = String(rest[rest.index(after: slash)...])
            rest = rest[..<slash]
        }
        guard let at = rest.lastIndex(of: "@") else { throw StoreError(.unavailable, "the database URL names no user: \(Self.shape)") }
        let userInfo = rest[..<at]
        let hostList = rest[rest.index(after: at)...]
        let userPart = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let user = String(userPart[0]).removingPercentEncoding ?? String(userPart[0])
        guard !user.isEmpty else { throw StoreError(.unavailable, "the database URL names no user: \(Self.shape)") }
        self.user = user
        password = userPart.count > 1 ? (String(userPart[1]).removingPercentEncoding ?? String(userPart[1])) : nil
        hosts = try hostList.split(separator: ",", omittingEmptySubsequences: false).map(Self.endpoint)
        let name = path.removingPercentEncoding ?? path
        database = name.isEmpty ? nil : name

        let items = URLComponents(string: "?" + query)?.queryItems ?? []
        func value(_ name: String) -> String? { items.last { $0.name == name }?.value }
        switch value("sslmode") ?? "prefer" {
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer
        case "require", "verify-ca", "verify-full": tls = .require
        case let mode: throw StoreError(.unavailable, "sslmode \(mode) is not one of disable, prefer, require")
        }
        switch value("target_session_attrs") ?? "any" {
        case "any": writableOnly = false
        case "read-write": writableOnly = true
        case let attributes: throw StoreError(.unavailable, "target_session_attrs \(attributes) is not one of any, read-write")
        }
        self.scheme = scheme
        userText = String(userPart[0])
        var tail = String(hostList)
        if !path.isEmpty { tail += "/" + path }
        if !query.isEmpty { tail += "?" + query }
        self.tail = tail
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`.
    private static func endpoint(_ text: Substring) throws -> Endpoint {
        var host = text
        var port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw StoreError(.unavailable, "the database host \(text) lacks its ]") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw StoreError(.unavailable, "the database host \(text) is not [address]:port") }
                port = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw StoreError(.unavailable, "the database URL has an empty host: \(Self.shape)") }
        var number = 5432
        if let port {
            guard let given = Int(port), (1...65535).contains(given) else {
                throw StoreError(.unavailable, "the database port \(port) is not a number from 1 to 65535")
            }
            number = given
        }
        return Endpoint(host: String(host).removingPercentEncoding ?? String(host), port: number)
    }

    var clientTLS: PostgresClient.Configuration.TLS {
        switch tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
    }
}
