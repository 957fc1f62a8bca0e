import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraOperations

/// How one `tessera serve` process runs.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The URL clients reach the server at; tenants' issuers live below it.
    public var publicURL: String
    /// The WebAuthn RP ID when it is not the public URL's host (a parent domain of it).
    public var webAuthnRelyingPartyID: String?
    public var dataDirectory: String
    /// A PostgreSQL URL: the database several nodes share. Nil for the SQLite file in
    /// the data directory (the master key and admin token digest stay there either way).
    public var databaseURL: String?
    /// The most connections this node keeps to PostgreSQL (one of them listens for the
    /// other nodes' notifications).
    public var databaseConnections: Int
    /// When set (from `TESSERA_ADMIN_TOKEN`), the admin API accepts exactly this token.
    public var adminToken: String?
    /// How long an authentication request (a QR code) stays usable.
    public var requestLifetime: TimeInterval
    /// How long an invitation link stays usable unless the admin says otherwise.
    public var invitationLifetime: TimeInterval
    /// PEM files of the certificate chain and private key: the server speaks HTTPS itself.
    public var tls: TLSFiles?
    /// Seconds between looks at the TLS files for a change, which reloads them (0: only
    /// on SIGHUP).
    public var tlsWatchInterval = 5.0
    /// Allows a plain-HTTP public URL on a non-loopback host (only behind a proxy that
    /// terminates TLS and forwards to this server over a trusted network).
    public var allowInsecureHTTP: Bool
    /// Allows targets that tenant admins and clients choose (back-channel logout, CIBA
    /// pings, identity providers) on loopback, private and link-local addresses
    /// (`--allow-private-outbound`). A server whose public URL is on the loopback allows
    /// them anyway: it is a development setup whose services run beside it.
    public var allowPrivateOutbound = false
    /// Seconds a backchannel (CIBA) client waits between token requests at first
    /// (`interval`); each `slow_down` adds five.
    public var backchannelInterval: Int
    /// Wake-up pushes for devices (none by default: devices long-poll).
    public var push: PushConfiguration
    /// Seconds between this node's purges of expired and spent data (0: never; an
    /// operator may still purge with `POST /admin/purge`).
    public var purgeInterval: Int
    /// Rate limits and long-poll caps.
    public var throttle: ThrottleSettings = ThrottleSettings()
    /// Seconds a connection may stay idle (no request in flight) before it is closed.
    public var idleTimeout: Int = 60
    /// When set, `/metrics` answers only `Authorization: Bearer` with this token; when
    /// not, it answers only callers on a loopback address.
    public var metricsToken: String?
    /// Seconds a webhook delivery may keep failing before its hook is disabled (`--delivery-max-age`).
    public var deliveryMaxAge = 259_200
    /// Where e-mail goes (`--smtp-url` and its fellows); nil: the server sends none.
    public var smtp: SMTPSettings?
    /// The operator's message gateway (`--message-webhook`, `--message-webhook-secret`): an
    /// HTTPS endpoint that gets invitations and notices for a user's phone number, signed
    /// as Standard Webhooks says. Nil: none.
    public var messageWebhook: MessageWebhook?

    public struct MessageWebhook: Sendable {
        public var url: String
        /// A `whsec_…` secret.
        public var secret: String
        public init(url: String, secret: String) {
            self.url = url
            self.secret = secret
        }
    }
    /// Seconds between the webhook sender's looks at the outbox.
    public var deliveryInterval: Duration = .seconds(1)
    /// Spans for requests, store calls and outbound calls (`RequestTracing`): set when the
    /// process bootstrapped a tracer (`--otlp-endpoint`, `OTEL_*`).
    public var tracing = false

    public struct TLSFiles: Sendable {
        public var certificateChain: String
        public var privateKey: String
        public init(certificateChain: String, privateKey: String) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    public init(
        host: String = "127.0.0.1", port: Int = 8080, publicURL: String? = nil, dataDirectory: String = "./tessera-data",
        adminToken: String? = nil, requestLifetime: TimeInterval = 300, invitationLifetime: TimeInterval = 7 * 86_400,
        tls: TLSFiles? = nil, allowInsecureHTTP: Bool = false, backchannelInterval: Int = 5, push: PushConfiguration = .init(),
        databaseURL: String? = nil, databaseConnections: Int = 20, purgeInterval: Int = 3600
    ) {
        self.purgeInterval = purgeInterval
        self.databaseURL = databaseURL
        self.databaseConnections = databaseConnections
        self.push = push
        self.backchannelInterval = backchannelInterval
        self.host = host
        self.port = port
        self.tls = tls
        self.allowInsecureHTTP = allowInsecureHTTP
        self.publicURL = publicURL ?? "\(tls == nil ? "http" : "https")://\(host):\(port)"
        self.dataDirectory = dataDirectory
        self.adminToken = adminToken
        self.requestLifetime = requestLifetime
        self.invitationLifetime = invitationLifetime
    }
}

extension ServerConfiguration {
    /// Whether the public URL's host is this machine (`localhost`, a loopback address).
    var publicURLIsLoopback: Bool {
        guard let host = OutboundTargets.host(of: publicURL) else { return false }
        return OutboundTargets.isLocalhost(host) || OutboundTargets.literal(host)?.allSatisfy(\.isLoopback) == true
    }

    /// See `allowPrivateOutbound`.
    var allowsPrivateOutbound: Bool { allowPrivateOutbound || publicURLIsLoopback }

    /// Refuses a plain-HTTP public URL that is not on a loopback host: PINs' proofs,
    /// codes and tokens would cross a network in clear.
    func checkTransportSecurity() throws {
        guard let url = URLComponents(string: publicURL), let scheme = url.scheme?.lowercased(), url.host != nil else {
            throw ServerStartupError("the public URL \(publicURL) is not a URL")
        }
        if scheme == "https" || allowInsecureHTTP { return }
        guard publicURLIsLoopback else {
            throw ServerStartupError(
                "the public URL \(publicURL) is plain HTTP on a non-loopback host: serve HTTPS (--tls-certificate, --tls-key), "
                    + "give an https --public-url behind a TLS-terminating proxy, or pass --allow-insecure-http")
        }
    }
}
