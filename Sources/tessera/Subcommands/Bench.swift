import ArgumentParser
import AsyncHTTPClient
import Crypto
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraKit

/// `tessera bench`: enrols devices in a tenant, then drives complete flows against a
/// server from many workers at once and reports throughput and latency.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure what a deployment sustains: complete login, CIBA or refresh flows from many workers.",
        discussion: """
            Authenticated like `tessera admin` (--server/TESSERA_SERVER, --token/TESSERA_ADMIN_TOKEN). Creates the \
            tenant if needed, a service (device+biometric, CIBA poll), and --devices users with activated devices \
            (kept in memory), then runs --concurrency workers for --duration seconds (or until --count flows ran):
              login:   authorize → device claim → sign → finish → code → token exchange
              ciba:    backchannel request → device sees it and approves → token
              refresh: refresh-token rotation (each worker logs in once, before the clock starts)
              long-poll: --concurrency device long polls (GET device/pending, 30 s waits, as the SDK's \
            pendingRequestUpdates) held open for --duration seconds, spread over the devices; reports how many the \
            server holds (tessera_long_polls_open), its resident memory before and with them open, per poll, and \
            its CPU per second while it holds them. Raise the server's caps for the run: --long-polls-per-node 0 and \
            --long-polls-per-device at least --concurrency/--devices, and the open-file limit of both processes.
            Only completed flows count; failures are listed by kind. Latency is per whole flow (HdrHistogram). \
            From two readings of the server's /metrics it reports the server's CPU and database statements per \
            flow (its background work included; on PostgreSQL each statement is a round trip).
            For refresh, the report also gives the mean time of the rotations of one session just before its \
            100th, 1,000th, 4,000th and 8,640th (30 days at one refresh per 5 minutes), where the run gets there: \
            `--flow refresh --concurrency 1 --duration 120` shows whether a long-lived session costs more.
            --before-run and --after-run bracket the measured flows (scripts/cost.sh switches callgrind's \
            instruction counting on and off with them).
            """)

    @OptionGroup var admin: AdminOptions
    @Option(help: "Tenant to use (created if it does not exist).") var tenant = "bench"
    @Option(help: "How many users with an activated device to enrol.") var devices = 10
    @Option(help: "How many workers run flows at once (long-poll: how many long polls are held open).") var concurrency = 8
    @Option(help: "How long to run, in seconds (default 10; with --count, no limit unless given).") var duration: Int?
    @Option(help: "Run exactly this many flows in all (completed or failed), then stop.") var count: Int?
    @Option(
        help: """
            A shell command run once set-up is done, just before the first measured flow (for a profiler: \
            e.g. callgrind_control --instr=on PID). The bench stops if it fails.
            """)
    var beforeRun: String?
    @Option(help: "A shell command run right after the last measured flow ends. The bench fails if it fails.")
    var afterRun: String?
    @Option(help: "login, ciba, refresh or long-poll.") var flow = "login"
    @Option(
        help: """
            Start flows at this many per second in all (0: each worker starts its next flow as soon as its last \
            one ends). With a rate, latency counts from when a flow was due, so a server that falls behind shows it.
            """)
    var rate = 0.0
    @Option(
        help: """
            The server's metrics token (or TESSERA_METRICS_TOKEN), for reading its CPU time and statements from \
            /metrics before and after the run; without one the server answers only a loopback caller.
            """)
    var metricsToken: String?

    func validate() throws {
        guard ["login", "ciba", "refresh", "long-poll"].contains(flow) else {
            throw ValidationError("--flow is login, ciba, refresh or long-poll")
        }
        guard (1...100_000).contains(devices) else { throw ValidationError("--devices is 1 to 100000") }
        if flow == "long-poll" {
            guard (1...100_000).contains(concurrency) else { throw ValidationError("--concurrency is 1 to 100000 long polls") }
            guard count == nil, rate == 0 else { throw ValidationError("--count and --rate are for flows, not long polls") }
        } else {
            guard (1...1000).contains(concurrency) else { throw ValidationError("--concurrency is 1 to 1000") }
        }
        if let duration { guard (1...3600).contains(duration) else { throw ValidationError("--duration is 1 to 3600 seconds") } }
        if let count { guard (1...10_000_000).contains(count) else { throw ValidationError("--count is 1 to 10000000 flows") } }
        guard rate >= 0 && rate <= 1_000_000 else { throw ValidationError("--rate is 0 to 1000000 flows per second") }
    }

    func run() async throws {
        let (server, token) = try admin.serverAndToken()
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, concurrency * 2)
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, connectionPool: pool)
        // No tracing: AsyncHTTPClient otherwise opens a (no-op) span per request and parses
        // its URL once more for the span's attributes, a visible part of the bench's CPU.
        configuration.tracing.tracer = nil
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let report = try await measure(server: server, api: AdminAPI.client(server: server, token: token), http: http)
            try await http.shutdown()
            report.show(json: admin.json)
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    /// Runs a set-up call of the admin API; an answer other than success throws the server's error.
    private static func setUp<T>(_ call: () async throws -> T) async throws -> T {
        do { return try await call() } catch { throw AdminAPIError.unwrapped(error) }
    }

    private func measure(server: URL, api: Client, http: HTTPClient) async throws -> BenchReport {
        let (tenant, devices, concurrency, flow, rate, count) = (
            self.tenant, self.devices, self.concurrency, self.flow, self.rate, self.count
        )
        // With --count and no --duration the count alone ends the run.
        let duration: Duration = .seconds(self.duration ?? (count == nil ? 10 : 366 * 86_400))
        let base = server.absoluteString
        let issuer = "\(base)/t/\(tenant)"
        // Set-up: tenant, service, users and devices.
        _ = try? await api.createTenant(body: .json(TenantCreation(name: tenant)))
        let redirectURI = "http://127.0.0.1:9/bench"
        let created = try await Self.setUp {
            try await api.createService(
                path: .init(tenant: tenant),
                body: .json(
                    Components.Schemas.CreateService(
                        name: "tessera bench", redirectUris: [redirectURI], _public: false, policy: "device+biometric", attributes: [],
                        // The bench is no person reading a page: it measures the protocol without number matching.
                        backchannelTokenDeliveryMode: .poll, numberMatching: false))
            ).created.body.json
        }
        let clientID = created.clientId
        guard let secret = created.clientSecret else { throw CLIError("the service was not created with a secret") }
        let service = BenchService(issuer: issuer, clientID: clientID, secret: secret, redirectURI: redirectURI)
        let transport = ClientTransport(http: http)
        let run = Secrets.identifier(byteCount: 4).lowercased()
        let enrolled = BenchCounter()
        let fleet = try await withThrowingTaskGroup(of: BenchDevice.self) { group -> [BenchDevice] in
            var devicesMade: [BenchDevice] = []
            var next = 0
            func enrol(_ index: Int) {
                group.addTask {
                    let username = "bench-\(run)-\(index)"
                    let invitation = try await Self.setUp {
                        _ = try await api.createUser(path: .init(tenant: tenant), body: .json(.init(username: username))).created
                        return try await api.invite(path: .init(tenant: tenant), body: .json(.init(username: username))).created.body.json
                    }
                    guard let link = invitation.url.flatMap(URL.init(string:)) else { throw CLIError("no invitation url") }
                    let store = MemoryKeyStore()
                    let personalizer = Personalizer(keyStore: store, transport: transport, biometrics: FixedBiometrics())
                    _ = try await personalizer.activate(url: link, pin: "2468", alias: nil, enrollBiometric: true, enrollOTP: false)
                    let count = enrolled.increment()
                    FileHandle.standardError.write(Data("\renrolling devices: \(count)/\(devices)".utf8))
                    return BenchDevice(
                        username: username,
                        authenticator: Authenticator(keyStore: store, transport: transport, biometrics: FixedBiometrics()))
                }
            }
            while next < min(devices, concurrency) {
                enrol(next)
                next += 1
            }
            while let device = try await group.next() {
                devicesMade.append(device)
                if next < devices {
                    enrol(next)
                    next += 1
                }
            }
            return devicesMade
        }
        FileHandle.standardError.write(Data("\n".utf8))
        let metrics = ServerCPU(
            base: base, token: metricsToken ?? ProcessInfo.processInfo.environment["TESSERA_METRICS_TOKEN"], http: http)
        if flow == "long-poll" {
            return try await LongPolls.hold(concurrency, fleet: fleet, for: duration, metrics: metrics)
        }

        // For refresh, each worker's first login is set-up, not a measured flow: it is
        // done before the clock starts.
        let firstRefreshTokens: [String?]
        if flow == "refresh" {
            firstRefreshTokens = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for worker in 0..<concurrency {
                    group.addTask { (worker, try await BenchFlows.login(fleet[worker % fleet.count], service: service, http: http)) }
                }
                var tokens = [String?](repeating: nil, count: concurrency)
                for try await (worker, token) in group { tokens[worker] = token }
                return tokens
            }
        } else {
            firstRefreshTokens = Array(repeating: nil, count: concurrency)
        }

        // The flows, between two readings of the server's CPU (its /metrics) and the bench's own.
        if let beforeRun { try await ShellCommand.run(beforeRun, for: "--before-run") }
        let serverBefore = await metrics.read()
        let benchBefore = ProcessUsage.current()
        let stats = BenchStats()
        let schedule = FlowSchedule()
        let tickets = FlowSchedule()
        let deadline = ContinuousClock.now + duration
        let started = ContinuousClock.now
        let progress = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                let (done, failed) = stats.counts()
                let elapsed = Double((ContinuousClock.now - started).components.seconds)
                FileHandle.standardError.write(
                    Data(String(format: "\r[%4.0fs] %d flows  %.1f/s  errors %d", elapsed, done, Double(done) / max(elapsed, 1), failed).utf8))
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var refreshToken = firstRefreshTokens[worker]
                    var rotations = 0
                    var iteration = 0
                    while ContinuousClock.now < deadline {
                        if let count, tickets.take() >= count { break }
                        let device = fleet[(iteration * concurrency + worker) % fleet.count]
                        iteration += 1
                        var start = ContinuousClock.now
                        if rate > 0 {
                            // Flow number n is due n/rate seconds after the start.
                            let due = started + .seconds(Double(schedule.take()) / rate)
                            if due >= deadline { break }
                            if due > start { try? await Task.sleep(until: due, clock: .continuous) }
                            start = due
                        }
                        do {
                            switch flow {
                            case "login":
                                _ = try await BenchFlows.login(device, service: service, http: http)
                            case "ciba":
                                try await BenchFlows.ciba(device, service: service, http: http)
                            default:
                                if refreshToken == nil {
                                    // After a failed refresh: log in again (not counted).
                                    refreshToken = try await BenchFlows.login(device, service: service, http: http)
                                    rotations = 0
                                    continue
                                }
                                refreshToken = try await BenchFlows.refresh(refreshToken ?? "", service: service, http: http)
                                rotations += 1
                                stats.rotated(rotations, ContinuousClock.now - start)
                            }
                            stats.completed(ContinuousClock.now - start)
                        } catch {
                            stats.failed(BenchFlows.kind(of: error))
                            if flow == "refresh" { refreshToken = nil }
                        }
                    }
                }
            }
        }
        progress.cancel()
        FileHandle.standardError.write(Data("\n".utf8))
        let elapsed = ContinuousClock.now - started
        let benchAfter = ProcessUsage.current()
        let serverAfter = await metrics.read()
        if let afterRun { try await ShellCommand.run(afterRun, for: "--after-run") }
        var report = stats.report(flow: flow, elapsed: elapsed, concurrency: concurrency, devices: fleet.count)
        report.cpu = CPUReport(
            flows: report.completed, serverBefore: serverBefore, serverAfter: serverAfter, benchBefore: benchBefore, benchAfter: benchAfter)
        return report
    }
}

/// The server's CPU seconds as its `/metrics` reports them (`process_cpu_seconds_total`
/// and its user and system parts), so the bench measures a remote server too.
struct ServerCPU {
    let base: String
    let token: String?
    let http: HTTPClient

    struct Reading {
        let user: Double
        let system: Double
        /// Statements the server's store sent (`tessera_database_statements_total`, all
        /// series), nil from a server without the metric.
        let statements: Double?
        /// `process_resident_memory_bytes` and `tessera_long_polls_open`, where the server has them.
        var residentBytes: Double? = nil
        var longPolls: Double? = nil
        var total: Double { user + system }
    }

    /// The reading, or why there is none (no token for a remote server, an old server).
    func read() async -> Result<Reading, BenchError> {
        var request = HTTPClientRequest(url: base + "/metrics")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        do {
            let response = try await http.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 4 << 20)
            guard response.status == .ok else {
                return .failure(BenchError("/metrics answered \(response.status.code): give --metrics-token"))
            }
            let text = String(buffer: body)
            func value(_ name: String) -> Double? {
                text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
            }
            guard let user = value("process_cpu_user_seconds_total"), let system = value("process_cpu_system_seconds_total") else {
                return .failure(BenchError("/metrics has no process_cpu_*_seconds_total"))
            }
            let statementLines = text.split(separator: "\n").filter { $0.hasPrefix("tessera_database_statements_total{") }
            let statements = statementLines.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            return .success(
                Reading(
                    user: user, system: system, statements: statements.isEmpty ? nil : statements.reduce(0, +),
                    residentBytes: value("process_resident_memory_bytes"), longPolls: value("tessera_long_polls_open")))
        } catch {
            return .failure(BenchError("/metrics: \(error)"))
        }
    }
}

/// CPU milliseconds per completed flow: the server's (user and system), from /metrics,
/// and the bench's own, which competes for the same cores when both run on one machine.
struct CPUReport: Encodable {
    let serverMsPerFlow: Double?
    let serverUserMsPerFlow: Double?
    let serverSystemMsPerFlow: Double?
    let benchMsPerFlow: Double
    let benchUserMsPerFlow: Double
    let benchSystemMsPerFlow: Double
    /// The server's database statements per flow (background work included), from /metrics.
    let serverStatementsPerFlow: Double?
    /// Why the server's figure is missing.
    let serverUnavailable: String?

    init(
        flows: Int, serverBefore: Result<ServerCPU.Reading, BenchError>, serverAfter: Result<ServerCPU.Reading, BenchError>,
        benchBefore: ProcessUsage, benchAfter: ProcessUsage
    ) {
        let per = 1000 / Double(max(flows, 1))
        switch (serverBefore, serverAfter) {
        case (.success(let before), .success(let after)):
            serverMsPerFlow = (after.total - before.total) * per
            serverUserMsPerFlow = (after.user - before.user) * per
            serverSystemMsPerFlow = (after.system - before.system) * per
            serverStatementsPerFlow = after.statements.flatMap { after in before.statements.map { (after - $0) / Double(max(flows, 1)) } }
            serverUnavailable = nil
        case (.failure(let error), _), (_, .failure(let error)):
            (serverMsPerFlow, serverUserMsPerFlow, serverSystemMsPerFlow, serverStatementsPerFlow) = (nil, nil, nil, nil)
            serverUnavailable = error.description
        }
        benchMsPerFlow = (benchAfter.cpuSeconds - benchBefore.cpuSeconds) * per
        benchUserMsPerFlow = (benchAfter.userSeconds - benchBefore.userSeconds) * per
        benchSystemMsPerFlow = (benchAfter.systemSeconds - benchBefore.systemSeconds) * per
    }

    enum CodingKeys: String, CodingKey {
        case serverMsPerFlow = "server_ms_per_flow"
        case serverUserMsPerFlow = "server_user_ms_per_flow"
        case serverSystemMsPerFlow = "server_system_ms_per_flow"
        case benchMsPerFlow = "bench_ms_per_flow"
        case benchUserMsPerFlow = "bench_user_ms_per_flow"
        case benchSystemMsPerFlow = "bench_system_ms_per_flow"
        case serverStatementsPerFlow = "server_statements_per_flow"
        case serverUnavailable = "server_unavailable"
    }

    var text: String {
        let bench = String(format: "bench %.3f (user %.3f, system %.3f)", benchMsPerFlow, benchUserMsPerFlow, benchSystemMsPerFlow)
        guard let server = serverMsPerFlow, let user = serverUserMsPerFlow, let system = serverSystemMsPerFlow else {
            return "cpu ms per flow: server unknown (\(serverUnavailable ?? "")), " + bench
        }
        let cpu = String(format: "cpu ms per flow: server %.3f (user %.3f, system %.3f), ", server, user, system) + bench
        guard let statements = serverStatementsPerFlow else { return cpu }
        return cpu + String(format: "\ndatabase statements per flow: %.1f", statements)
    }
}

/// Hands out flow numbers for `--rate`.
final class FlowSchedule: Sendable {
    private let next = Atomic<Int>(0)

    func take() -> Int { next.add(1, ordering: .relaxed).oldValue }
}

struct BenchService: Sendable {
    let issuer: String
    let clientID: String
    let secret: String
    let redirectURI: String

    var basic: String { "Basic " + Data("\(clientID):\(secret)".utf8).base64EncodedString() }
}

struct BenchDevice: Sendable {
    let username: String
    let authenticator: Authenticator
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
}

extension BenchError {
    init(_ description: String) { self.init(description: description) }
}

/// The flows, each from its first request to its tokens.
enum BenchFlows {
    /// authorize → claim → sign → finish → complete → token; returns the refresh token.
    static func login(_ device: BenchDevice, service: BenchService, http: HTTPClient) async throws -> String {
        let verifier = PKCE.makeVerifier()
        let query = [
            "response_type=code", "client_id=\(service.clientID)", "redirect_uri=\(FormEncoding.component(service.redirectURI))", "scope=openid",
            "state=\(Secrets.randomToken(byteCount: 8))", "code_challenge=\(PKCE.challenge(forVerifier: verifier))",
            "code_challenge_method=S256",
        ].joined(separator: "&")
        let page = try await send(http, "GET", "\(service.issuer)/authorize?\(query)")
        guard page.status == 200, let cookie = page.cookie, let link = between(page.text, "id=\"authentication-url\">", "<"),
            let complete = between(page.text, "data-complete-url=\"", "\"")
        else { throw BenchError(description: "authorize \(page.status)") }
        var information = try await device.authenticator.start(url: URL(string: unescape(link))!)
        try information.sign(factor: DeviceFactor())
        try information.sign(factor: try await device.authenticator.biometricFactor(for: information, reason: "bench"))
        guard case .userLogin = try await device.authenticator.finish(information) else { throw BenchError(description: "not approved") }
        let redirect = try await send(http, "GET", unescape(complete), headers: ["Cookie": cookie])
        guard redirect.status == 302, let location = redirect.location,
            let code = URLComponents(string: location)?.queryItems?.first(where: { $0.name == "code" })?.value
        else { throw BenchError(description: "complete \(redirect.status)") }
        return try await token(
            ["grant_type": "authorization_code", "code": code, "redirect_uri": service.redirectURI, "code_verifier": verifier],
            service: service, http: http)
    }

    /// bc-authorize → the device lists its requests and approves → token.
    static func ciba(_ device: BenchDevice, service: BenchService, http: HTTPClient) async throws {
        let started = try await send(
            http, "POST", "\(service.issuer)/bc-authorize", headers: ["Authorization": service.basic],
            form: ["scope": "openid", "login_hint": device.username])
        guard started.status == 200, let id = (try? JSONSerialization.jsonObject(with: started.body) as? [String: Any])?["auth_req_id"] as? String
        else { throw BenchError(description: "bc-authorize \(started.status)") }
        guard let pending = try await device.authenticator.pendingRequests().first(where: { $0.requestID.rawValue == id }) else {
            throw BenchError(description: "request not pending on the device")
        }
        var information = try await device.authenticator.start(pending: pending)
        try information.sign(factor: DeviceFactor())
        try information.sign(factor: try await device.authenticator.biometricFactor(for: information, reason: "bench"))
        guard case .userLogin = try await device.authenticator.finish(information) else { throw BenchError(description: "not approved") }
        _ = try await token(["grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": id], service: service, http: http)
    }

    static func refresh(_ refreshToken: String, service: BenchService, http: HTTPClient) async throws -> String {
        try await token(["grant_type": "refresh_token", "refresh_token": refreshToken], service: service, http: http)
    }

    /// A token request with the service's client authentication; returns the refresh token.
    static func token(_ fields: [String: String], service: BenchService, http: HTTPClient) async throws -> String {
        let response = try await send(
            http, "POST", "\(service.issuer)/token", headers: ["Authorization": service.basic], form: fields)
        let json = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        guard response.status == 200, let refresh = json?["refresh_token"] as? String else {
            throw BenchError(description: "token \(response.status) \(json?["error"] as? String ?? "")")
        }
        return refresh
    }

    struct Answer {
        let status: Int
        let body: Data
        let cookie: String?
        let location: String?
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func send(
        _ http: HTTPClient, _ method: String, _ url: String, headers: [String: String] = [:], form: [String: String]? = nil
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: FormEncoding.body(form)))
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return Answer(
            status: Int(response.status.code), body: Data(body.readableBytesView),
            cookie: response.headers["Set-Cookie"].first.flatMap { $0.split(separator: ";").first.map(String.init) },
            location: response.headers["Location"].first)
    }

    /// The text between the first `start` and the next `end`, searched on UTF-8 bytes
    /// (Foundation's `range(of:)` bridged the whole page, QR code and all, and was the
    /// bench's largest cost after HTTP).
    static func between(_ text: String, _ start: String, _ end: String) -> String? {
        let bytes = Array(text.utf8)
        guard let from = find(Array(start.utf8), in: bytes, from: 0) else { return nil }
        let begin = from + start.utf8.count
        guard let to = find(Array(end.utf8), in: bytes, from: begin) else { return nil }
        return String(decoding: bytes[begin..<to], as: UTF8.self)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = from
        while index <= haystack.count - needle.count {
            if haystack[index] == first && haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// HTML's five escapes undone (the page escapes attribute values and text).
    static func unescape(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        return text.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&#39;", with: "'")
    }

    /// A failure's kind, for the summary.
    static func kind(of error: any Error) -> String {
        switch error {
        case TesseraKitError.server(let status, let code, _): "device API \(status) \(code)"
        case TesseraKitError.pendingLockout: "device locked"
        case let error as TesseraKitError: "device: \(error)"
        case let error as BenchError: error.description
        case let error as HTTPClientError: "http client: \(error)"
        default: "\(type(of: error))"
        }
    }
}

/// Completed flows' latencies (HdrHistogram, microseconds) and failures by kind.
final class BenchStats: Sendable {
    private struct State {
        var histogram = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        var completed = 0
        var failures: [String: Int] = [:]
        /// Per mark: the summed time and count of rotations number mark-99 through mark.
        var rotations: [Int: (total: Double, count: Int)] = [:]
    }

    /// Where the report samples a session's rotation time.
    static let rotationMarks = [100, 1_000, 4_000, 8_640]

    private let state = Mutex(State())

    func completed(_ duration: Duration) {
        let micros = UInt64(max(1, duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000))
        state.withLock {
            _ = $0.histogram.record(micros)
            $0.completed += 1
        }
    }

    /// Records the time of a session's `number`th rotation, if it is in a mark's window.
    func rotated(_ number: Int, _ duration: Duration) {
        guard let mark = Self.rotationMarks.first(where: { (($0 - 99)...$0).contains(number) }) else { return }
        let ms = duration.seconds * 1000
        state.withLock {
            let sum = $0.rotations[mark] ?? (0, 0)
            $0.rotations[mark] = (sum.total + ms, sum.count + 1)
        }
    }

    func failed(_ kind: String) { state.withLock { $0.failures[kind, default: 0] += 1 } }

    func counts() -> (Int, Int) { state.withLock { ($0.completed, $0.failures.values.reduce(0, +)) } }

    func report(flow: String, elapsed: Duration, concurrency: Int, devices: Int) -> BenchReport {
        state.withLock { state in
            let seconds = elapsed.seconds
            func ms(_ percentile: Double) -> Double {
                state.completed == 0 ? 0 : Double(state.histogram.valueAtPercentile(percentile)) / 1000
            }
            return BenchReport(
                flow: flow, seconds: seconds, concurrency: concurrency, devices: devices, completed: state.completed,
                perSecond: Double(state.completed) / max(seconds, 0.001),
                latency: .init(p50: ms(50), p90: ms(90), p99: ms(99), p999: ms(99.9), max: state.completed == 0 ? 0 : Double(state.histogram.maxRecorded) / 1000),
                errors: state.failures,
                rotationMeans: state.rotations.isEmpty
                    ? nil : Dictionary(uniqueKeysWithValues: state.rotations.map { ("\($0.key)", $0.value.total / Double($0.value.count)) }))
        }
    }
}

struct BenchReport: Encodable {
    struct Latency: Encodable {
        let p50: Double
        let p90: Double
        let p99: Double
        let p999: Double
        let max: Double
        enum CodingKeys: String, CodingKey {
            case p50, p90, p99, max
            case p999 = "p99.9"
        }
    }
    let flow: String
    let seconds: Double
    let concurrency: Int
    let devices: Int
    let completed: Int
    let perSecond: Double
    let latency: Latency
    let errors: [String: Int]
    /// Refresh only: mean ms of the 100 rotations of a session up to each mark reached.
    let rotationMeans: [String: Double]?
    /// CPU per flow, the server's and the bench's.
    var cpu: CPUReport? = nil
    /// Long-poll only: what holding the polls costs the server.
    var longPolls: LongPollReport? = nil

    enum CodingKeys: String, CodingKey {
        case flow, seconds, concurrency, devices, completed, errors
        case longPolls = "long_polls"
        case cpu = "cpu_ms"
        case rotationMeans = "rotation_ms_up_to"
        case perSecond = "flows_per_second"
        case latency = "latency_ms"
    }

    func show(json: Bool) {
        if json { return Output.encodable(self) }
        print(String(format: "flow: %@   duration: %.1f s   concurrency: %d   devices: %d", flow, seconds, concurrency, devices))
        if let longPolls { return print(longPolls.text) }
        print(String(format: "completed: %d flows (%.1f/s)", completed, perSecond))
        print(
            String(
                format: "latency ms: p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f", latency.p50, latency.p90, latency.p99,
                latency.p999, latency.max))
        if let cpu { print(cpu.text) }
        if let rotationMeans {
            let marks = rotationMeans.sorted { Int($0.key) ?? 0 < Int($1.key) ?? 0 }
            print("mean ms of a session's rotations up to: " + marks.map { String(format: "#%@ %.2f", $0.key, $0.value) }.joined(separator: "  "))
        }
        if errors.isEmpty { return print("errors: none") }
        print("errors:")
        for (kind, count) in errors.sorted(by: { $0.value > $1.value }) { print("  \(count)  \(kind)") }
    }
}

/// The SDK's HTTP over AsyncHTTPClient (URLSession on Linux would measure itself).
struct ClientTransport: HTTPTransport {
    let http: HTTPClient

    func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await http.execute(outgoing, timeout: .seconds(Int64(request.timeout > 0 ? request.timeout : 30)))
        let body = try await response.body.collect(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for field in response.headers { headers[field.name] = field.value }
        return HTTPResponseData(status: Int(response.status.code), body: Data(body.readableBytesView), headers: headers)
    }
}

/// Device keys in memory: benchmark devices live as long as the run.
actor MemoryKeyStore: KeyStore {
    private var keys: [String: P256.Signing.PrivateKey] = [:]
    private var items: [String: Data] = [:]

    func generateKey(label: String, protection: KeyProtection) async throws -> any P256Signer {
        let key = P256.Signing.PrivateKey()
        keys[label] = key
        return key
    }

    func key(label: String) async throws -> (any P256Signer)? { keys[label] }

    func setItem(_ data: Data?, label: String) async throws {
        items[label] = data
        if data == nil { keys[label] = nil }
    }

    func item(label: String) async throws -> Data? { items[label] }
    func itemLabels() async throws -> [String] { Array(items.keys) }

    func removeAll(withPrefix prefix: String) async throws {
        keys = keys.filter { !$0.key.hasPrefix(prefix) }
        items = items.filter { !$0.key.hasPrefix(prefix) }
    }
}

/// Biometrics that always pass with the same enrolment.
struct FixedBiometrics: BiometricGate {
    func evaluate(reason: String) async throws -> Data { Data("bench".utf8) }
}

/// A count shared by tasks.
final class BenchCounter: Sendable {
    private let value = Mutex(0)

    func increment() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}

/// A command of the bench's hooks (`--before-run`, `--after-run`), run with `/bin/sh -c`
/// and waited for without holding a thread.
enum ShellCommand {
    static func run(_ command: String, for option: String) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: CLIError("\(option): \(error)"))
            }
        }
        guard status == 0 else { throw CLIError("\(option) exited with status \(status)") }
    }
}
