import Crypto
import Foundation
import Hummingbird
import HummingbirdHTTP2
import Logging
import NIOSSL
import TesseraCrypto

/// A local stand-in for APNs: HTTPS with HTTP/2 (ALPN h2) on 127.0.0.1, checking each
/// push the way APNs does — `POST /3/device/{token}`, the topic and push type, and a
/// provider token (ES256 JWT by the team's key, `kid`, `iss`, fresh `iat`) — and
/// answering 200 with an `apns-id`, or 410 `Unregistered` for tokens marked gone.
public final class APNsStandIn: Sendable {
    public struct Push: ReceivedBody {
        public let deviceToken: String
        public let headers: [String: String]
        public let body: Data
        /// Whether the request came over HTTP/2 (its `:scheme` pseudo-header).
        public let overHTTP2: Bool
    }

    public let baseURL: String
    private let inbox: Inbox<Push>
    private let task: Task<Void, any Error>

    private init(baseURL: String, inbox: Inbox<Push>, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.inbox = inbox
        self.task = task
    }

    /// Starts the stand-in with the TLS certificate and key files, accepting provider
    /// tokens signed by `teamKey` under `keyID` for `teamID` and pushes for `topic`.
    public static func start(
        certificate: String, privateKey: String, teamKey: P256.Signing.PublicKey, keyID: String, teamID: String, topic: String,
        goneTokens: Set<String> = []
    ) async throws -> APNsStandIn {
        let inbox = Inbox<Push>()
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: privateKey, format: .pem)))
        let (port, task) = try await LocalServer.start { port, onRunning in
            var logger = Logger(label: "apns-stand-in")
            // Stopping by cancellation logs errors that mean nothing here.
            logger.logLevel = .critical
            let router = Router()
            router.post("3/device/:token") { request, context -> Response in
                var request = request
                let token = context.parameters.get("token") ?? ""
                let body = try await request.collectBody(upTo: 4096)
                var headers: [String: String] = [:]
                for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
                func refuse(_ status: HTTPResponse.Status, _ reason: String) -> Response {
                    Response(status: status, body: .init(byteBuffer: ByteBuffer(string: #"{"reason":"\#(reason)"}"#)))
                }
                guard let authorization = headers["authorization"], authorization.hasPrefix("bearer ") else {
                    return refuse(.forbidden, "MissingProviderToken")
                }
                guard validProviderToken(String(authorization.dropFirst(7)), key: teamKey, keyID: keyID, teamID: teamID) else {
                    return refuse(.forbidden, "InvalidProviderToken")
                }
                guard headers["apns-topic"] == topic else { return refuse(.badRequest, "DeviceTokenNotForTopic") }
                guard headers["apns-push-type"] == "alert" else { return refuse(.badRequest, "InvalidPushType") }
                guard token.count == 64, token.allSatisfy(\.isHexDigit) else { return refuse(.badRequest, "BadDeviceToken") }
                await inbox.add(
                    Push(deviceToken: token, headers: headers, body: Data(body.readableBytesView), overHTTP2: request.head.scheme == "https"))
                if goneTokens.contains(token) { return refuse(.gone, "Unregistered") }
                return Response(status: .ok, headers: [.init("apns-id")!: UUID().uuidString])
            }
            let app = Application(
                router: router, server: try .http2Upgrade(tlsConfiguration: tls),
                configuration: .init(address: .hostname("127.0.0.1", port: port)), onServerRunning: { _ in onRunning() },
                logger: logger)
            try await app.runService()
        }
        return APNsStandIn(baseURL: "https://127.0.0.1:\(port)", inbox: inbox, task: task)
    }

    static func validProviderToken(_ token: String, key: P256.Signing.PublicKey, keyID: String, teamID: String) -> Bool {
        struct Claims: Decodable {
            let iss: String
            let iat: Int
        }
        guard let jws = try? CompactJWS.parse(token), jws.header.alg == "ES256", jws.header.kid == keyID,
            let payload = try? jws.verifiedPayload(with: key), let claims = try? JSONDecoder().decode(Claims.self, from: payload)
        else { return false }
        // APNs refuses provider tokens older than an hour.
        return claims.iss == teamID && abs(Date().timeIntervalSince1970 - TimeInterval(claims.iat)) < 3600
    }

    /// Waits for the next push not yet taken, up to `timeout`.
    public func next(timeout: Duration = .seconds(10)) async throws -> Push {
        try await inbox.next(timeout: timeout, from: "the APNs stand-in")
    }

    public func pending() async -> [Push] { await inbox.all() }

    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
