import Foundation
import Logging
import TesseraCrypto

/// The files in the data directory: the SQLite database, the master key and the
/// admin token's digest. Secrets are written with mode 0600.
public struct DataDirectory: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public var databasePath: String { path + "/tessera.sqlite" }
    public var masterKeyPath: String { path + "/master.key" }
    public var adminTokenDigestPath: String { path + "/admin-token.sha256" }

    public func prepare() throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The master key, created on first start. It never enters the database.
    public func masterKey(logger: Logger) throws -> Data {
        try refuseUnfinishedRekey()
        if let key = try readKey(at: masterKeyPath) { return key }
        let key = SecretBox.makeMasterKey()
        try writeSecret(Base64URL.encode(key) + "\n", to: masterKeyPath)
        logger.notice("created master key", metadata: ["path": "\(masterKeyPath)"])
        return key
    }

    /// Throws when `master.key.next` exists: an earlier `tessera rekey` stopped between
    /// its commit and installing the new key, so the data may be sealed under that key.
    public func refuseUnfinishedRekey() throws {
        if FileManager.default.fileExists(atPath: nextMasterKeyPath) {
            throw ServerStartupError(
                "\(nextMasterKeyPath) exists: an earlier tessera rekey did not finish; run tessera rekey again first")
        }
    }

    /// The 32-byte base64url key in the file at `path`; nil when there is no such file.
    public func readKey(at path: String) throws -> Data? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        guard let key = Base64URL.decode(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
            key.count == 32
        else { throw ServerStartupError("\(path) does not hold a 32-byte base64url key") }
        return key
    }

    /// The admin token's digest. Without `TESSERA_ADMIN_TOKEN`, a token is generated on first
    /// start and returned once so it can be shown; only its digest is kept.
    public func adminTokenDigest(configured: String?) throws -> (digest: String, generated: String?) {
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

/// Why a server, `seed` or `rekey` cannot start: said to the operator as it is.
public struct ServerStartupError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
