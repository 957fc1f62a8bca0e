import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import Logging
import NIOFoundationEssentialsCompat
import NIOHTTP1
import NIOSSL
import ServiceLifecycle
import TesseraCore
import TesseraCrypto
import TesseraDomain
import Tracing
import TesseraOperations
import TesseraRecords

/// Where the server sends wake-up pushes. A push only tells the app to look: the app
/// then fetches its pending requests with a signed call, which works without any push.
public struct PushConfiguration: Sendable {
    /// A push gateway that takes `{"token", "issuer", "request_id", "title", "body"}` by POST
    /// (for example a UnifiedPush distributor or a relay to another push service).
    public var webhookURL: String?
    /// Sent as `Authorization: Bearer …` to the gateway, when set.
    public var webhookToken: String?
    public var apns: APNsConfiguration?

    public init(webhookURL: String? = nil, webhookToken: String? = nil, apns: APNsConfiguration? = nil) {
        self.webhookURL = webhookURL
        self.webhookToken = webhookToken
        self.apns = apns
    }
}

/// Apple Push Notification service with token-based (ES256 JWT) provider authentication.
public struct APNsConfiguration: Sendable {
    /// The `.p8` key file Apple issued (PKCS#8 PEM, P-256).
    public var keyFile: String
    public var keyID: String
    public var teamID: String
    /// The app's bundle id (`apns-topic`).
    public var topic: String
    /// `https://api.push.apple.com`, `https://api.sandbox.push.apple.com`, or a stand-in.
    public var server: String
    /// PEM certificates to trust instead of the system's (a private or test endpoint).
    public var trustRootsFile: String?

    public init(
        keyFile: String, keyID: String, teamID: String, topic: String, server: String = "https://api.push.apple.com",
        trustRootsFile: String? = nil
    ) {
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.server = server
        self.trustRootsFile = trustRootsFile
    }
}

/// One wake-up for one device.
struct PushMessage: Sendable {
    let token: String
    let issuer: String
    let requestID: TesseraCore.RequestID
    let serviceName: String
    let expiresAt: Int64

    /// The alert shows on a lock screen and passes through the push service: it says
    /// only that there is something to look at.
    var title: String { "Sign-in request" }
    var body: String { "Open the app to review it." }
}

enum PushOutcome: Sendable, Equatable {
    case delivered
    /// The push service says the token is no longer valid: forget it.
    case tokenGone
}

/// A way to wake a device: one implementation per push service.
protocol PushNotifier: Sendable {
    /// The registration kind it serves (`apns`, `webhook`).
    var kind: String { get }
    func deliver(_ message: PushMessage) async throws -> PushOutcome
    func shutdown() async
}

struct PushError: Error, CustomStringConvertible {
    let description: String
}

/// POSTs the wake-up to the configured push gateway.
struct WebhookNotifier: PushNotifier {
    let kind = "webhook"
    let url: String
    let bearer: String?
    /// The operator's gateway (configured, not chosen by a tenant): any address, no
    /// redirects. Closed by `shutdown`.
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))

    struct Payload: Encodable {
        let token: String
        let issuer: String
        let requestID: String
        let title: String
        let body: String
        enum CodingKeys: String, CodingKey {
            case token, issuer, title, body
            case requestID = "request_id"
        }
    }

    func deliver(_ message: PushMessage) async throws -> PushOutcome {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        request.carryTrace()
        let payload = Payload(
            token: message.token, issuer: message.issuer, requestID: message.requestID.rawValue, title: message.title, body: message.body)
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(payload)))
        let response = try await client.execute(request, timeout: .seconds(10))
        _ = try? await response.body.collect(upTo: 64 * 1024)
        // Only 410 says the token is gone: a 404 is as likely a wrong gateway URL, which
        // must not wipe every registration.
        switch response.status.code {
        case 200..<300: return .delivered
        case 410: return .tokenGone
        default: throw PushError(description: "the push gateway answered \(response.status.code)")
        }
    }

    func shutdown() async {
        try? await client.shutdown()
    }
}

/// Sends alerts to APNs over HTTP/2, authenticated by a provider token: an ES256 JWT
/// (`kid` = key id, `iss` = team id, `iat`) that is reused for 50 minutes, as Apple asks.
struct APNsNotifier: PushNotifier {
    let kind = "apns"
    let configuration: APNsConfiguration
    let key: P256.Signing.PrivateKey
    let client: HTTPClient
    let tokens = ProviderTokenCache()

    init(_ configuration: APNsConfiguration) throws {
        self.configuration = configuration
        let pem: String
        do {
            pem = try String(contentsOfFile: configuration.keyFile, encoding: .utf8)
            key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw ServerStartupError("cannot read the APNs key \(configuration.keyFile) (a PKCS#8 PEM P-256 key): \(error)")
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let roots = configuration.trustRootsFile {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(roots))
            } catch {
                throw ServerStartupError("cannot read the APNs trust roots \(roots): \(error)")
            }
        }
        var client = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        client.httpVersion = .automatic
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: client)
    }

    struct ProviderClaims: Encodable {
        let iss: String
        let iat: Int
    }

    actor ProviderTokenCache {
        private var current: (token: String, issuedAt: Date)?

        /// The cached token, or a new one when it is 50 minutes old or is the one APNs
        /// just called expired (only once for many pushes that saw the same refusal:
        /// APNs limits how often a provider token may change).
        func token(make: () throws -> String, now: Date, replacing expired: String?) rethrows -> String {
            if let current, current.token != expired, now.timeIntervalSince(current.issuedAt) < 50 * 60 { return current.token }
            let token = try make()
            current = (token, now)
            return token
        }
    }

    func providerToken(replacing expired: String? = nil) async throws -> String {
        let now = Date()
        return try await tokens.token(
            make: {
                try CompactJWS.sign(
                    claims: ProviderClaims(iss: configuration.teamID, iat: Int(now.timeIntervalSince1970)),
                    header: JWSHeader(kid: configuration.keyID), signer: key)
            }, now: now, replacing: expired)
    }

    struct Payload: Encodable {
        struct APS: Encodable {
            struct Alert: Encodable {
                let title: String
                let body: String
            }
            let alert: Alert
            let sound = "default"
            let category = "TESSERA_REQUEST"
        }
        struct Reference: Encodable {
            let issuer: String
            let requestID: String
            enum CodingKeys: String, CodingKey {
                case issuer
                case requestID = "request_id"
            }
        }
        let aps: APS
        let tessera: Reference
    }

    func deliver(_ message: PushMessage) async throws -> PushOutcome {
        // APNs device tokens are hex; anything else never reaches the request path.
        guard !message.token.isEmpty, message.token.allSatisfy(\.isHexDigit) else { return .tokenGone }
        let token = try await providerToken()
        var (status, reason) = try await post(message, token: token)
        if status == 403 && reason == "ExpiredProviderToken" {
            (status, reason) = try await post(message, token: try await providerToken(replacing: token))
        }
        // Only 410 Unregistered forgets the token; BadDeviceToken or DeviceTokenNotForTopic
        // are as likely a wrong --apns-server or --apns-topic, which must not wipe every
        // registration.
        switch status {
        case 200: return .delivered
        case 410: return .tokenGone
        default: throw PushError(description: "APNs answered \(status) \(reason ?? "")")
        }
    }

    private func post(_ message: PushMessage, token: String) async throws -> (Int, String?) {
        var request = HTTPClientRequest(url: "\(configuration.server)/3/device/\(message.token)")
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(token)")
        request.headers.add(name: "apns-topic", value: configuration.topic)
        request.headers.add(name: "apns-push-type", value: "alert")
        request.headers.add(name: "apns-priority", value: "10")
        request.headers.add(name: "apns-expiration", value: "\(message.expiresAt)")
        request.headers.add(name: "apns-collapse-id", value: String(message.requestID.rawValue.prefix(64)))
        request.headers.add(name: "content-type", value: "application/json")
        request.carryTrace()
        let payload = Payload(
            aps: .init(alert: .init(title: message.title, body: message.body)),
            tessera: .init(issuer: message.issuer, requestID: message.requestID.rawValue))
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(payload)))
        let response = try await client.execute(request, timeout: .seconds(10))
        // APNs speaks HTTP/2 only; an endpoint that does not is not APNs.
        guard response.version.major == 2 else { throw PushError(description: "the APNs endpoint did not speak HTTP/2") }
        let body = try await response.body.collect(upTo: 64 * 1024)
        struct Failure: Decodable { let reason: String? }
        let reason = try? JSONDecoder().decode(Failure.self, from: Data(buffer: body)).reason
        return (Int(response.status.code), reason)
    }

    func shutdown() async {
        try? await client.shutdown()
    }
}

/// Sends the wake-ups for a new backchannel request to every registered device of its
/// user, as background work after the request is committed (`BackgroundWork`); forgets
/// tokens the push service calls gone.
package struct Pusher: Sendable {
    let notifiers: [String: any PushNotifier]

    package init(_ configuration: PushConfiguration) throws {
        var notifiers: [String: any PushNotifier] = [:]
        if let url = configuration.webhookURL {
            notifiers["webhook"] = WebhookNotifier(url: url, bearer: configuration.webhookToken)
        }
        if let apns = configuration.apns { notifiers["apns"] = try APNsNotifier(apns) }
        self.notifiers = notifiers
    }

    static let kinds: Set<String> = ["apns", "webhook"]

    func wake(userID: UserID, message: (String) -> PushMessage, targets pushTargets: PushTargets, on work: BackgroundWork, logger: Logger) async {
        guard !notifiers.isEmpty else { return }
        let targets: [PushTargetRecord]
        do {
            targets = try await pushTargets.of(userID)
        } catch {
            return logger.warning("push targets not read", metadata: ["error": "\(type(of: error))"])
        }
        for target in targets {
            guard let notifier = notifiers[target.kind] else { continue }
            let push = message(target.token)
            // Sent in a span of the request that woke the device, with its `traceparent`.
            let trace = ServiceContext.current ?? .topLevel
            let kind = target.kind
            let handed = work.submit {
                do {
                    let outcome = try await clientSpan("push \(kind)", kind: "push", context: trace) { _ in try await notifier.deliver(push) }
                    if outcome == .tokenGone {
                        try await pushTargets.forget(activationID: target.activationID, token: target.token)
                        logger.info("push token gone; removed", metadata: ["activation_id": "\(target.activationID)"])
                    }
                } catch {
                    // Our own errors say what happened; others only by type (they may quote headers).
                    let reason = (error as? PushError)?.description ?? "\(type(of: error))"
                    logger.warning(
                        "push not delivered", metadata: ["kind": "\(target.kind)", "activation_id": "\(target.activationID)", "error": "\(reason)"])
                }
            }
            guard handed else { return }
        }
    }

    /// Closes the clients (after the background work, which stops first).
    package func shutdown() async {
        for notifier in notifiers.values { await notifier.shutdown() }
    }
}

/// Closes the push clients when the server shuts down.
struct PushShutdown: Service {
    let pusher: Pusher

    func run() async throws {
        try? await gracefulShutdown()
        await pusher.shutdown()
    }
}
