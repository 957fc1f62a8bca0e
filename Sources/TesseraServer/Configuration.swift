import Foundation
import Logging
import TesseraCrypto

/// How one `tessera serve` process runs.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The URL clients reach the server at; tenants' issuers live below it.
    public var publicURL: String
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
    /// Allows a plain-HTTP public URL on a non-loopback host (only behind a proxy that
    /// terminates TLS and forwards to this server over a trusted network).
    public var allowInsecureHTTP: Bool
    /// Seconds a backchannel (CIBA) client waits between token requests at first
    /// (`interval`); each `slow_down` adds five.
    public var backchannelInterval: Int
    /// Wake-up pushes for devices (none by default: devices long-poll).
    public var push: PushConfiguration

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
        databaseURL: String? = nil, databaseConnections: Int = 20
    ) {
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
    /// Refuses a plain-HTTP public URL that is not on a loopback host: PINs' proofs,
    /// codes and tokens would cross a network in clear.
    func checkTransportSecurity() throws {
        guard let url = URLComponents(string: publicURL), let scheme = url.scheme?.lowercased(), let host = url.host else {
            throw ServerStartupError("the public URL \(publicURL) is not a URL")
        }
        if scheme == "https" || allowInsecureHTTP { return }
        let loopback = host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
        guard loopback else {
            throw ServerStartupError(
                "the public URL \(publicURL) is plain HTTP on a non-loopback host: serve HTTPS (--tls-certificate, --tls-key), "
                    + "give an https --public-url behind a TLS-terminating proxy, or pass --allow-insecure-http")
        }
    }
}

/// The files in the data directory: the SQLite database, the master key and the
/// admin token's digest. Secrets are written with mode 0600.
struct DataDirectory {
    let path: String

    var databasePath: String { path + "/tessera.sqlite" }
    var masterKeyPath: String { path + "/master.key" }
    var adminTokenDigestPath: String { path + "/admin-token.sha256" }

    func prepare() throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The master key, created on first start. It never enters the database.
    func masterKey(logger: Logger) throws -> Data {
        try refuseUnfinishedRekey()
        if let key = try readKey(at: masterKeyPath) { return key }
        let key = SecretBox.makeMasterKey()
        try writeSecret(Base64URL.encode(key) + "\n", to: masterKeyPath)
        logger.notice("created master key", metadata: ["path": "\(masterKeyPath)"])
        return key
    }

    /// Throws when `master.key.next` exists: an earlier `tessera rekey` stopped between
    /// its commit and installing the new key, so the data may be sealed under that key.
    func refuseUnfinishedRekey() throws {
        if FileManager.default.fileExists(atPath: nextMasterKeyPath) {
            throw ServerStartupError(
                "\(nextMasterKeyPath) exists: an earlier tessera rekey did not finish; run tessera rekey again first")
        }
    }

    /// The 32-byte base64url key in the file at `path`; nil when there is no such file.
    func readKey(at path: String) throws -> Data? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        guard let key = Base64URL.decode(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
            key.count == 32
        else { throw ServerStartupError("\(path) does not hold a 32-byte base64url key") }
        return key
    }

    /// The admin token's digest. Without `TESSERA_ADMIN_TOKEN`, a token is generated on first
    /// start and returned once so it can be shown; only its digest is kept.
    func adminTokenDigest(configured: String?) throws -> (digest: String, generated: String?) {
        if let configured {
            guard configured.count >= 16 else { throw ServerStartupError("TESSERA_ADMIN_TOKEN must be at least 16 characters") }
            return (Secrets.digest(configured), nil)
        }
        if let data = FileManager.default.contents(atPath: adminTokenDigestPath) {
            return (String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), nil)
        }
        let token = Secrets.randomToken()
        let digest = Secrets.digest(token)
        try writeSecret(digest + "\n", to: adminTokenDigestPath)
        return (digest, token)
    }

    private func writeSecret(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else { throw ServerStartupError("cannot write \(path)") }
    }
}

public struct ServerStartupError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
