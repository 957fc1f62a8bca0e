import ArgumentParser
import Foundation
import Logging
import TesseraBuildInfo
import TesseraDomain
import TesseraServer
import TesseraStore

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the identity server (embedded SQLite in the data directory).",
        discussion: """
            Each option may also come from the environment (TESSERA_ and the option's name in \
            capitals with underscores, e.g. TESSERA_RATE_LIMIT_PER_ADDRESS) or from --config FILE \
            (YAML, the names with underscores); a flag beats the environment, which beats the \
            file. Secrets (the admin, metrics and push webhook tokens, the database password) \
            may come from files: --X-file, TESSERA_X_FILE, x_file. The admin token is read \
            from TESSERA_ADMIN_TOKEN (or a file); without it, one is generated at the first \
            start, printed once, and only its digest is kept in the data directory.
            SIGTERM or SIGINT stops the server after in-flight requests finish; SIGHUP loads the \
            TLS certificate and key again (connections already open keep theirs).
            """)

    @Option(help: "A YAML configuration file: the long options' names with underscores as keys (port, rate_limit_per_address, …).")
    var config: String?
    @Flag(help: "Print the effective configuration, each value with where it came from (secrets redacted), and exit.")
    var printConfig = false

    @Option(help: "Address to listen on (default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on (default 8080).") var port: Int?
    @Option(help: "The origin clients reach the server at, without a path (default http://HOST:PORT).") var publicURL: String?
    @Option(
        help: "The WebAuthn RP ID passkeys are bound to: the public URL's host (the default) or a parent domain of it.")
    var webauthnRpId: String?
    @Option(help: "Directory for the SQLite database, master key and admin token digest (default ./tessera-data).") var dataDir: String?
    @Option(
        help: """
            PostgreSQL instead of SQLite: postgres://user@host:port[,host:port…]/database[?sslmode=disable|prefer|require] \
            [&target_session_attrs=any|read-write] (or TESSERA_DATABASE_URL); with several hosts, the first that \
            answers (any) or accepts writes (read-write), chosen again after a failure. Nodes sharing it must share the \
            master key too.
            """)
    var database: String?
    @Option(help: "A file holding the PostgreSQL password, so that it is in no URL, process list or environment.")
    var databasePasswordFile: String?
    @Option(help: "With --database: the most connections this node opens to PostgreSQL (default 20).") var databaseConnections: Int?
    @Option(help: "Log level: trace, debug, info (the default), notice, warning, error, critical.") var logLevel: String?
    @Option(help: "Log lines as text (the default) or json: one JSON object per line, with request_id, route, status, duration_ms and trace_id.")
    var logFormat: String?
    @Option(
        help: ArgumentHelp(
            "Export traces to this OpenTelemetry collector (OTLP/HTTP with protobuf; spans go to URL/v1/traces).",
            discussion: "Without it, the standard OTEL_EXPORTER_OTLP_ENDPOINT (and the other OTEL_* variables) turn tracing on; the flags and TESSERA_* come first."))
    var otlpEndpoint: String?
    @Option(help: "The share of new traces recorded, 0 to 1 (default 1, or OTEL_TRACES_SAMPLER_ARG); a trusted proxy's sampled traceparent is followed.")
    var traceRatio: String?
    @Option(help: "PEM certificate chain: serve HTTPS (with --tls-key).") var tlsCertificate: String?
    @Option(help: "PEM private key of --tls-certificate.") var tlsKey: String?
    @Option(help: "Seconds between looks at the TLS files, which are loaded again when they change (default 5; 0: only on SIGHUP, which always reloads them).")
    var tlsWatchInterval: Int?
    @Flag(help: "Allow a plain-HTTP public URL on a non-loopback host (behind a TLS-terminating proxy only).")
    var allowInsecureHttp = false
    @Flag(
        help: ArgumentHelp(
            "Allow back-channel logout, CIBA ping and identity-provider URLs on loopback, private and link-local addresses.",
            discussion: "Tenant admins and registering clients choose these targets; by default the server refuses to call inside its own network. Allowed anyway when the public URL is on the loopback (development)."))
    var allowPrivateOutbound = false
    @Option(help: "Seconds a backchannel (CIBA) client waits between token requests (the announced interval; default 5).")
    var backchannelInterval: Int?
    @Option(help: "Seconds between purges of expired and spent data on this node (default 3600; 0 = never; the first runs one interval after the start).")
    var purgeInterval: Int?
    @Option(
        help: ArgumentHelp(
            "Seconds a webhook delivery may keep failing before its hook is disabled (default 259200, three days).",
            discussion: "Failed deliveries are tried again after 1, 2, 4 … seconds, doubling to an hour; a hook disabled so keeps what it misses until it is enabled again (POST /admin/webhooks/{id}/enable)."))
    var deliveryMaxAge: Int?
    @Option(
        help: ArgumentHelp(
            "Where e-mail goes: smtp://host:port (STARTTLS) or smtps://host:port (TLS at once).",
            discussion: "E-mailed invitations need it. The server's certificate is verified against the system's roots (or --smtp-ca); plain SMTP needs --smtp-insecure."))
    var smtpUrl: String?
    @Option(help: "The sender of e-mail: address@example.com or \"Name <address@example.com>\" (needed with --smtp-url).") var smtpFrom: String?
    @Option(help: "The SMTP user (AUTH PLAIN or LOGIN, inside TLS only).") var smtpUser: String?
    @Option(help: "The SMTP password (prefer --smtp-password-file).") var smtpPassword: String?
    @Option(help: "A file holding the SMTP password.") var smtpPasswordFile: String?
    @Flag(help: "Allow plain SMTP without STARTTLS: for a mail sink on this machine only, never across a network.") var smtpInsecure = false
    @Option(help: "A PEM file of the CA (or the certificate itself) the SMTP server's certificate is checked against, instead of the system's roots.")
    var smtpCa: String?
    @Option(
        help: ArgumentHelp(
            "A message gateway (SMS, a messenger): invitations with deliver message and notices go there for a user's phone_number.",
            discussion: "An https URL (http only on a loopback host); each message is a POST signed as Standard Webhooks says with --message-webhook-secret."))
    var messageWebhook: String?
    @Option(help: "The message gateway's signing secret, whsec_ and base64 (prefer --message-webhook-secret-file).") var messageWebhookSecret: String?
    @Option(help: "A file holding the message gateway's signing secret.") var messageWebhookSecretFile: String?
    @Option(help: "Push gateway URL for devices registered with kind webhook.") var pushWebhook: String?
    @Option(help: "Bearer token sent to the push gateway.") var pushWebhookToken: String?
    @Option(help: "A file holding the push gateway's bearer token.") var pushWebhookTokenFile: String?
    @Option(help: "APNs: the .p8 provider key file (PKCS#8 PEM); with --apns-key-id, --apns-team-id and --apns-topic.")
    var apnsKeyFile: String?
    @Option(help: "APNs: the key id of --apns-key-file.") var apnsKeyId: String?
    @Option(help: "APNs: the Apple developer team id.") var apnsTeamId: String?
    @Option(help: "APNs: the app's bundle id (apns-topic).") var apnsTopic: String?
    @Option(help: "APNs: the endpoint (default https://api.push.apple.com; https://api.sandbox.push.apple.com for development builds).")
    var apnsServer: String?
    @Option(help: "APNs: PEM certificates to trust instead of the system's (a private endpoint).") var apnsTrustRoots: String?
    @Option(
        help: """
            Bearer token /metrics asks for (at least 16 characters); without one, /metrics answers loopback callers only, \
            and no request a proxy forwarded.
            """)
    var metricsToken: String?
    @Option(help: "A file holding the /metrics bearer token.") var metricsTokenFile: String?
    @Option(help: "A file holding the admin token (otherwise TESSERA_ADMIN_TOKEN, or one generated at the first start).")
    var adminTokenFile: String?
    @Option(help: "Seconds a connection with no request in flight stays open (default 60).") var idleTimeout: Int?
    @Option(help: "Requests per second one source address may send to each OAuth and device endpoint, twice that in a burst (default 100; 0 = no limit).")
    var rateLimitPerAddress: Int?
    @Option(help: "Requests per second one authenticated client (a client_id at /token, /bc-authorize, /revoke, /introspect; a device at its signed endpoints) may send to each, twice that in a burst (default 500; 0 = no limit).")
    var rateLimitPerClient: Int?
    @Option(help: "Long polls one device may hold open at once (default 4; 0 = no limit).") var longPollsPerDevice: Int?
    @Option(help: "Long polls of login pages one source address may hold open at once (default 32; 0 = no limit).") var longPollsPerAddress: Int?
    @Option(help: "Long polls this node holds open at once (default 2000; 0 = no limit).") var longPollsPerNode: Int?
    @Option(
        name: .customLong("trusted-proxy"),
        help: "Address of a reverse proxy whose X-Forwarded-For names the real client (repeatable); rate limits then count that address.")
    var trustedProxies: [String] = []

    /// Every key a configuration file may hold for `serve`.
    static let keys: Set<String> = [
        "host", "port", "public_url", "webauthn_rp_id", "data_dir", "database", "database_password_file", "database_connections", "log_level",
        "tls_certificate", "tls_key", "tls_watch_interval", "allow_insecure_http", "allow_private_outbound", "backchannel_interval",
        "purge_interval", "push_webhook", "push_webhook_token", "push_webhook_token_file", "apns_key_file", "apns_key_id", "apns_team_id",
        "apns_topic", "apns_server", "apns_trust_roots", "metrics_token", "metrics_token_file", "admin_token", "admin_token_file",
        "idle_timeout", "rate_limit_per_address", "rate_limit_per_client", "long_polls_per_device", "long_polls_per_address",
        "long_polls_per_node", "trusted_proxy", "delivery_max_age", "smtp_url", "smtp_from", "smtp_user", "smtp_password",
        "smtp_password_file", "smtp_insecure", "smtp_ca", "message_webhook", "message_webhook_secret", "message_webhook_secret_file",
        "log_format", "otlp_endpoint", "trace_ratio",
    ]

    /// Whether a gateway the operator names (push, messages) is an https URL with a host, or
    /// http on a loopback host: what it is sent carries a credential or a link.
    static func isGatewayURL(_ text: String) -> Bool {
        guard let url = URLComponents(string: text), let host = url.host, !host.isEmpty else { return false }
        return url.scheme == "https" || (url.scheme == "http" && ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host))
    }

    /// The server's configuration from the flags, the environment, the file and the
    /// defaults (`Settings`), checked as a whole.
    func resolve(_ settings: Settings) throws -> (ServerConfiguration, ObservabilitySettings) {
        let host = try settings.string("host", flag: host, default: "127.0.0.1") ?? "127.0.0.1"
        let port = try settings.int("port", flag: port, default: 8080, in: 1...65_535)
        let publicURL = try settings.string("public_url", flag: publicURL)
        if let publicURL {
            guard let url = URLComponents(string: publicURL), ["http", "https"].contains(url.scheme ?? ""),
                !(url.host ?? "").isEmpty, url.query == nil, url.fragment == nil, url.path.isEmpty
            else { throw ValidationError("public_url must be an http(s) origin such as https://id.example.com, without a path") }
        }
        let rpID = try settings.string("webauthn_rp_id", flag: webauthnRpId)
        if let rpID {
            let publicHost = (publicURL.flatMap { URLComponents(string: $0)?.host } ?? host).lowercased()
            let id = rpID.lowercased()
            guard !id.isEmpty, publicHost == id || publicHost.hasSuffix("." + id) else {
                throw ValidationError("webauthn_rp_id must be the public URL's host or a parent domain of it (\(publicHost))")
            }
        }
        let dataDir = try settings.string("data_dir", flag: dataDir, default: "./tessera-data") ?? "./tessera-data"
        let database = try settings.databaseURL(flag: database, passwordFile: databasePasswordFile)
        let connections = try settings.int("database_connections", flag: databaseConnections, default: 20, in: 2...500)
        let logLevel = try settings.string("log_level", flag: logLevel, default: "info") ?? "info"
        guard let level = Logger.Level(rawValue: logLevel) else { throw ValidationError("unknown log_level \(logLevel)") }
        let formatName = try settings.string("log_format", flag: logFormat, default: "text") ?? "text"
        guard let format = LogFormat(rawValue: formatName) else { throw ValidationError("log_format must be text or json") }
        let otlp = try settings.string("otlp_endpoint", flag: otlpEndpoint)
        if let otlp {
            guard let url = URLComponents(string: otlp), ["http", "https"].contains(url.scheme ?? ""), !(url.host ?? "").isEmpty,
                url.query == nil, url.fragment == nil
            else { throw ValidationError("otlp_endpoint must be the collector's http(s) base URL, such as http://127.0.0.1:4318") }
        }
        var ratio: Double?
        if let text = try settings.string("trace_ratio", flag: traceRatio) {
            guard let value = Double(text), (0...1).contains(value) else { throw ValidationError("trace_ratio must be a number from 0 to 1") }
            ratio = value
        }
        let observability = ObservabilitySettings(logFormat: format, logLevel: level, otlpEndpoint: otlp, traceRatio: ratio)
        let certificate = try settings.string("tls_certificate", flag: tlsCertificate)
        let key = try settings.string("tls_key", flag: tlsKey)
        guard (certificate == nil) == (key == nil) else { throw ValidationError("tls_certificate and tls_key go together") }
        let watch = try settings.int("tls_watch_interval", flag: tlsWatchInterval, default: 5, in: 1...3_600, zeroMeans: "only on SIGHUP")
        let insecure = try settings.bool("allow_insecure_http", flag: allowInsecureHttp)
        let privateOutbound = try settings.bool("allow_private_outbound", flag: allowPrivateOutbound)
        let backchannel = try settings.int("backchannel_interval", flag: backchannelInterval, default: 5, in: 1...60)
        let purge = try settings.int("purge_interval", flag: purgeInterval, default: 3_600, in: 60...86_400, zeroMeans: "never")
        let deliveryAge = try settings.int("delivery_max_age", flag: deliveryMaxAge, default: 259_200, in: 60...2_592_000)
        let smtpURL = try settings.string("smtp_url", flag: smtpUrl)
        let smtpFrom = try settings.string("smtp_from", flag: smtpFrom)
        let smtpUser = try settings.string("smtp_user", flag: smtpUser)
        let smtpPassword = try settings.secret("smtp_password", flag: smtpPassword, fileFlag: smtpPasswordFile)
        let smtpInsecure = try settings.bool("smtp_insecure", flag: smtpInsecure)
        let smtpCA = try settings.string("smtp_ca", flag: smtpCa)
        let messageURL = try settings.string("message_webhook", flag: messageWebhook)
        let messageSecret = try settings.secret("message_webhook_secret", flag: messageWebhookSecret, fileFlag: messageWebhookSecretFile)
        var gateway: ServerConfiguration.MessageWebhook?
        if let messageURL {
            guard Self.isGatewayURL(messageURL) else {
                throw ValidationError("message_webhook must be an https URL (http only on a loopback host)")
            }
            guard let messageSecret, StandardWebhooks.key(of: messageSecret) != nil else {
                throw ValidationError("message_webhook_secret goes with message_webhook: whsec_ and at least 16 bytes in base64")
            }
            gateway = .init(url: messageURL, secret: messageSecret)
        } else if messageSecret != nil {
            throw ValidationError("message_webhook_secret goes with message_webhook")
        }
        var smtp: SMTPSettings?
        if let smtpURL {
            guard let smtpFrom else { throw ValidationError("smtp_from goes with smtp_url: the sender's address") }
            do {
                smtp = try SMTPSettings(
                    url: smtpURL, from: smtpFrom, user: smtpUser, password: smtpPassword, insecure: smtpInsecure, caFile: smtpCA,
                    heloName: URLComponents(string: publicURL ?? "")?.host ?? host)
            } catch let error as SMTPError {
                throw ValidationError(error.description)
            }
            if let smtpCA, !FileManager.default.isReadableFile(atPath: smtpCA) { throw ValidationError("smtp_ca: \(smtpCA) is not a readable file") }
        } else if smtpFrom != nil || smtpUser != nil || smtpPassword != nil || smtpCA != nil {
            throw ValidationError("smtp_from, smtp_user, smtp_password and smtp_ca go with smtp_url")
        }
        let webhook = try settings.string("push_webhook", flag: pushWebhook)
        if let webhook, !Self.isGatewayURL(webhook) {
            throw ValidationError("push_webhook must be an https URL (http only on a loopback host): it carries a bearer token")
        }
        let webhookToken = try settings.secret("push_webhook_token", flag: pushWebhookToken, fileFlag: pushWebhookTokenFile)
        let apnsKey = try settings.string("apns_key_file", flag: apnsKeyFile)
        let apnsKeyID = try settings.string("apns_key_id", flag: apnsKeyId)
        let apnsTeam = try settings.string("apns_team_id", flag: apnsTeamId)
        let apnsTopic = try settings.string("apns_topic", flag: apnsTopic)
        let apnsServer = try settings.string("apns_server", flag: apnsServer, default: "https://api.push.apple.com") ?? ""
        let apnsRoots = try settings.string("apns_trust_roots", flag: apnsTrustRoots)
        let apns = [apnsKey, apnsKeyID, apnsTeam, apnsTopic]
        guard apns.allSatisfy({ $0 == nil }) || apns.allSatisfy({ $0 != nil }) else {
            throw ValidationError("apns_key_file, apns_key_id, apns_team_id and apns_topic go together")
        }
        let metricsToken = try settings.secret("metrics_token", flag: metricsToken, fileFlag: metricsTokenFile)
        if let metricsToken, metricsToken.count < 16 { throw ValidationError("the metrics token must be at least 16 characters") }
        let adminToken = try settings.secret("admin_token", flag: nil, fileFlag: adminTokenFile)
        let idle = try settings.int("idle_timeout", flag: idleTimeout, default: 60, in: 5...3_600)
        let perAddress = try settings.int("rate_limit_per_address", flag: rateLimitPerAddress, default: 100, in: 0...1_000_000)
        let perClient = try settings.int("rate_limit_per_client", flag: rateLimitPerClient, default: 500, in: 0...1_000_000)
        let pollsPerDevice = try settings.int("long_polls_per_device", flag: longPollsPerDevice, default: 4, in: 0...100_000)
        let pollsPerAddress = try settings.int("long_polls_per_address", flag: longPollsPerAddress, default: 32, in: 0...100_000)
        let pollsPerNode = try settings.int("long_polls_per_node", flag: longPollsPerNode, default: 2_000, in: 0...1_000_000)
        let proxies = try settings.strings("trusted_proxy", flag: trustedProxies)

        var configuration = ServerConfiguration(
            host: host, port: port, publicURL: publicURL, dataDirectory: dataDir, adminToken: adminToken,
            tls: certificate.flatMap { certificate in key.map { ServerConfiguration.TLSFiles(certificateChain: certificate, privateKey: $0) } },
            allowInsecureHTTP: insecure, backchannelInterval: backchannel,
            push: PushConfiguration(
                webhookURL: webhook, webhookToken: webhookToken,
                apns: apnsKey.map { file in
                    APNsConfiguration(
                        keyFile: file, keyID: apnsKeyID ?? "", teamID: apnsTeam ?? "", topic: apnsTopic ?? "", server: apnsServer,
                        trustRootsFile: apnsRoots)
                }),
            databaseURL: database, databaseConnections: connections, purgeInterval: purge)
        configuration.throttle = ThrottleSettings(
            perAddress: perAddress, perClient: perClient, longPollsPerDevice: pollsPerDevice, longPollsPerAddress: pollsPerAddress,
            longPollsPerNode: pollsPerNode, trustedProxies: Set(proxies))
        configuration.idleTimeout = idle
        configuration.tlsWatchInterval = Double(watch)
        configuration.allowPrivateOutbound = privateOutbound
        configuration.webAuthnRelyingPartyID = rpID?.lowercased()
        configuration.metricsToken = metricsToken
        configuration.deliveryMaxAge = deliveryAge
        configuration.smtp = smtp
        configuration.messageWebhook = gateway
        return (configuration, observability)
    }

    func run() async throws {
        let layers = try await Settings.load(config, keys: Self.keys)
        layers.holdsWarnings = true
        let (resolved, observability) = try resolve(layers)
        var configuration = resolved
        if printConfig {
            for warning in layers.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
            print(layers.printed())
            return
        }
        observability.bootstrapLogging()
        let logger = Logger(label: "tessera")
        for warning in layers.warnings { logger.warning("\(warning)") }
        let tracer = try observability.bootstrapTracing(logger: Logger(label: "tessera.otel"))
        configuration.tracing = tracer != nil
        // Everything the server writes (database, WAL, keys) is for its own user only.
        umask(0o077)
        let settings = configuration
        let server: TesseraServerApp
        do {
            server = try await buildApplication(
            configuration: settings, logger: logger, services: tracer.map { [$0] } ?? [],
            onServerRunning: { boundPort in
                logger.notice(
                    "listening",
                    metadata: [
                        "address": "\(settings.host):\(boundPort)", "public_url": "\(settings.publicURL)", "version": "\(BuildInfo.version)",
                        "commit": "\(BuildInfo.commit)",
                    ])
                // Bound, with the database open, migrated and (on PostgreSQL) the serving lock held.
                SystemdNotify.send("READY=1\nSTATUS=listening on \(settings.host):\(boundPort)\nMAINPID=\(getpid())")
            },
            onShutdown: { SystemdNotify.send("STOPPING=1\nSTATUS=finishing the requests under way") })
        } catch let error as SQLStore.SchemaNewerThanBuild {
            // 78 (sysexits' EX_CONFIG): the systemd unit does not restart on it, as on 64.
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            throw ExitCode(78)
        }
        if let token = server.generatedAdminToken {
            FileHandle.standardOutput.write(
                Data("Generated the admin token (shown only this once; keep it):\n  export TESSERA_ADMIN_TOKEN=\(token)\n".utf8))
        }
        try await server.run()
    }
}
