import ArgumentParser
import Foundation
import Logging
import TesseraBuildInfo
import TesseraServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the identity server (embedded SQLite in the data directory).",
        discussion: """
            The admin token is read from TESSERA_ADMIN_TOKEN; without it, one is generated at \
            the first start, printed once, and only its digest is kept in the data directory.
            SIGTERM or SIGINT stops the server after in-flight requests finish; SIGHUP loads the \
            TLS certificate and key again (connections already open keep theirs).
            """)

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on.") var port = 8080
    @Option(help: "The origin clients reach the server at, without a path (default http://HOST:PORT).") var publicURL: String?
    @Option(
        help: "The WebAuthn RP ID passkeys are bound to: the public URL's host (the default) or a parent domain of it.")
    var webauthnRpId: String?
    @Option(help: "Directory for the SQLite database, master key and admin token digest.") var dataDir = "./tessera-data"
    @Option(
        help: """
            PostgreSQL instead of SQLite: postgres://user:password@host:port/database[?sslmode=disable|prefer|require] \
            (or TESSERA_DATABASE_URL). Nodes sharing it must share the master key too.
            """)
    var database: String?
    @Option(help: "With --database: the most connections this node opens to PostgreSQL.") var databaseConnections = 20
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel = "info"
    @Option(help: "PEM certificate chain: serve HTTPS (with --tls-key).") var tlsCertificate: String?
    @Option(help: "PEM private key of --tls-certificate.") var tlsKey: String?
    @Option(help: "Seconds between looks at the TLS files, which are loaded again when they change (0: only on SIGHUP, which always reloads them).")
    var tlsWatchInterval = 5
    @Flag(help: "Allow a plain-HTTP public URL on a non-loopback host (behind a TLS-terminating proxy only).")
    var allowInsecureHttp = false
    @Flag(
        help: ArgumentHelp(
            "Allow back-channel logout, CIBA ping and identity-provider URLs on loopback, private and link-local addresses.",
            discussion: "Tenant admins and registering clients choose these targets; by default the server refuses to call inside its own network. Allowed anyway when the public URL is on the loopback (development)."))
    var allowPrivateOutbound = false
    @Option(help: "Seconds a backchannel (CIBA) client waits between token requests (the announced interval).")
    var backchannelInterval = 5
    @Option(help: "Seconds between purges of expired and spent data on this node (0 = never; the first runs one interval after the start).")
    var purgeInterval = 3600
    @Option(help: "Push gateway URL for devices registered with kind webhook (bearer token from TESSERA_PUSH_WEBHOOK_TOKEN).")
    var pushWebhook: String?
    @Option(help: "APNs: the .p8 provider key file (PKCS#8 PEM); with --apns-key-id, --apns-team-id and --apns-topic.")
    var apnsKeyFile: String?
    @Option(help: "APNs: the key id of --apns-key-file.") var apnsKeyId: String?
    @Option(help: "APNs: the Apple developer team id.") var apnsTeamId: String?
    @Option(help: "APNs: the app's bundle id (apns-topic).") var apnsTopic: String?
    @Option(help: "APNs: the endpoint (https://api.sandbox.push.apple.com for development builds).")
    var apnsServer = "https://api.push.apple.com"
    @Option(help: "APNs: PEM certificates to trust instead of the system's (a private endpoint).") var apnsTrustRoots: String?
    @Option(
        help: """
            Bearer token /metrics asks for (or TESSERA_METRICS_TOKEN); without one, /metrics answers loopback callers only, \
            and no request a proxy forwarded.
            """)
    var metricsToken: String?
    @Option(help: "Seconds a connection with no request in flight stays open.") var idleTimeout = 60
    @Option(help: "Requests per second one source address may send to each OAuth and device endpoint, twice that in a burst (0 = no limit).")
    var rateLimitPerAddress = 100
    @Option(help: "Requests per second one authenticated client (a client_id at /token, /bc-authorize, /revoke, /introspect; a device at its signed endpoints) may send to each, twice that in a burst (0 = no limit).")
    var rateLimitPerClient = 500
    @Option(help: "Long polls one device may hold open at once (0 = no limit).") var longPollsPerDevice = 4
    @Option(help: "Long polls of login pages one source address may hold open at once (0 = no limit).") var longPollsPerAddress = 32
    @Option(help: "Long polls this node holds open at once (0 = no limit).") var longPollsPerNode = 2_000
    @Option(
        name: .customLong("trusted-proxy"),
        help: "Address of a reverse proxy whose X-Forwarded-For names the real client (repeatable); rate limits then count that address.")
    var trustedProxies: [String] = []

    func validate() throws {
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be between 1 and 65535") }
        if let publicURL {
            guard let url = URLComponents(string: publicURL), ["http", "https"].contains(url.scheme ?? ""),
                !(url.host ?? "").isEmpty, url.query == nil, url.fragment == nil, url.path.isEmpty
            else { throw ValidationError("--public-url must be an http(s) origin such as https://id.example.com, without a path") }
        }
        if let webauthnRpId {
            let host = (publicURL.flatMap { URLComponents(string: $0)?.host } ?? self.host).lowercased()
            let id = webauthnRpId.lowercased()
            guard !id.isEmpty, host == id || host.hasSuffix("." + id) else {
                throw ValidationError("--webauthn-rp-id must be the public URL's host or a parent domain of it (\(host))")
            }
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together")
        }
        guard (0...3_600).contains(tlsWatchInterval) else { throw ValidationError("--tls-watch-interval is 0 (off) to 3600 seconds") }
        guard (1...60).contains(backchannelInterval) else { throw ValidationError("--backchannel-interval is 1 to 60 seconds") }
        guard purgeInterval == 0 || (60...86_400).contains(purgeInterval) else {
            throw ValidationError("--purge-interval is 0 (never) or 60 to 86400 seconds")
        }
        guard (2...500).contains(databaseConnections) else { throw ValidationError("--database-connections is 2 to 500") }
        guard (5...3_600).contains(idleTimeout) else { throw ValidationError("--idle-timeout is 5 to 3600 seconds") }
        guard rateLimitPerAddress >= 0, rateLimitPerClient >= 0, longPollsPerDevice >= 0, longPollsPerAddress >= 0, longPollsPerNode >= 0
        else {
            throw ValidationError("rate limits and long-poll caps are 0 (none) or more")
        }
        if let metricsToken, metricsToken.count < 16 { throw ValidationError("--metrics-token must be at least 16 characters") }
        let apns = [apnsKeyFile, apnsKeyId, apnsTeamId, apnsTopic]
        guard apns.allSatisfy({ $0 == nil }) || apns.allSatisfy({ $0 != nil }) else {
            throw ValidationError("--apns-key-file, --apns-key-id, --apns-team-id and --apns-topic go together")
        }
        if let pushWebhook {
            let url = URLComponents(string: pushWebhook)
            let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(url?.host ?? "")
            guard url?.scheme == "https" || (url?.scheme == "http" && loopback), !(url?.host ?? "").isEmpty else {
                throw ValidationError("--push-webhook must be an https URL (http only on a loopback host): it carries a bearer token")
            }
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "tessera")
        // Everything the server writes (database, WAL, keys) is for its own user only.
        umask(0o077)
        let environment = ProcessInfo.processInfo.environment
        var configuration = ServerConfiguration(
            host: host, port: port, publicURL: publicURL, dataDirectory: dataDir,
            adminToken: environment["TESSERA_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
            tls: tlsCertificate.flatMap { certificate in
                tlsKey.map { ServerConfiguration.TLSFiles(certificateChain: certificate, privateKey: $0) }
            },
            allowInsecureHTTP: allowInsecureHttp, backchannelInterval: backchannelInterval,
            push: PushConfiguration(
                webhookURL: pushWebhook, webhookToken: environment["TESSERA_PUSH_WEBHOOK_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
                apns: apnsKeyFile.map { file in
                    APNsConfiguration(
                        keyFile: file, keyID: apnsKeyId ?? "", teamID: apnsTeamId ?? "", topic: apnsTopic ?? "", server: apnsServer,
                        trustRootsFile: apnsTrustRoots)
                }),
            databaseURL: database ?? environment["TESSERA_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 },
            databaseConnections: databaseConnections, purgeInterval: purgeInterval)
        configuration.throttle = ThrottleSettings(
            perAddress: rateLimitPerAddress, perClient: rateLimitPerClient, longPollsPerDevice: longPollsPerDevice,
            longPollsPerAddress: longPollsPerAddress, longPollsPerNode: longPollsPerNode, trustedProxies: Set(trustedProxies))
        configuration.idleTimeout = idleTimeout
        configuration.tlsWatchInterval = Double(tlsWatchInterval)
        configuration.allowPrivateOutbound = allowPrivateOutbound
        configuration.webAuthnRelyingPartyID = webauthnRpId?.lowercased()
        configuration.metricsToken = metricsToken ?? environment["TESSERA_METRICS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let settings = configuration
        let server = try await buildApplication(
            configuration: settings, logger: logger,
            onServerRunning: { boundPort in
                logger.notice(
                    "listening",
                    metadata: [
                        "address": "\(settings.host):\(boundPort)", "public_url": "\(settings.publicURL)", "version": "\(BuildInfo.version)",
                        "commit": "\(BuildInfo.commit)",
                    ])
            })
        if let token = server.generatedAdminToken {
            FileHandle.standardOutput.write(
                Data("Generated the admin token (shown only this once; keep it):\n  export TESSERA_ADMIN_TOKEN=\(token)\n".utf8))
        }
        try await server.run()
    }
}
