import Foundation
import TesseraCore
import TesseraCrypto

/// One activation on this device: this installation bound to one user of one tenant.
public struct Activation: Codable, Sendable, Hashable {
    public let id: ActivationID
    public let issuer: String
    public let tenant: String
    public let userID: UserID
    public let username: String
    public let alias: String?
    public let factors: [FactorType]
    public let createdAt: Date
    /// The server's per-activation salt for the PIN key (base64url).
    let pinSalt: String
    /// The key store's label prefix for this activation's keys and items.
    let storageLabel: String

    var deviceKeyLabel: String { storageLabel + "device" }
    var biometricKeyLabel: String { storageLabel + "biometric" }
    var biometricStateLabel: String { storageLabel + "biometric-state" }
    var totpSecretLabel: String { storageLabel + "totp" }
    static let recordSuffix = "record"
}

/// Reads and writes the activation records in the key store.
struct ActivationRegistry: Sendable {
    let keyStore: any KeyStore

    func all() async throws -> [Activation] {
        var activations: [Activation] = []
        for label in try await keyStore.itemLabels() where label.hasSuffix("." + Activation.recordSuffix) {
            guard let data = try await keyStore.item(label: label) else { continue }
            do {
                activations.append(try WireCoding.decoder().decode(Activation.self, from: data))
            } catch {
                throw TesseraKitError.keyStore("an activation record is damaged")
            }
        }
        return activations.sorted { ($0.createdAt, $0.id.rawValue) < ($1.createdAt, $1.id.rawValue) }
    }

    func save(_ activation: Activation) async throws {
        try await keyStore.setItem(
            try WireCoding.encoder().encode(activation), label: activation.storageLabel + Activation.recordSuffix)
    }

    /// The activation for an issuer, optionally of one user.
    func find(issuer: String, username: String?) async throws -> Activation {
        let matching = try await all().filter { $0.issuer == issuer && (username == nil || $0.username == username) }
        guard let first = matching.first else { throw TesseraKitError.noActivation(issuer: issuer) }
        guard matching.count == 1 else { throw TesseraKitError.severalActivations(usernames: matching.map(\.username)) }
        return first
    }

    func signer(_ label: String) async throws -> any P256Signer {
        guard let key = try await keyStore.key(label: label) else { throw TesseraKitError.keyStore("a key of this activation is missing") }
        return key
    }
}

/// Links the SDK understands: `{issuer}/activate?code=…` and `{issuer}/authenticate?request=…`.
enum DeviceLink {
    static func parse(_ url: URL, endpoint: String, parameter: String) throws -> (issuer: String, value: String) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            components.path.hasSuffix("/" + endpoint),
            let value = components.queryItems?.first(where: { $0.name == parameter })?.value, (1...256).contains(value.utf8.count),
            // Codes and request ids are base64url: nothing else may reach a request path.
            Base64URL.isURLSafe(value)
        else { throw TesseraKitError.invalidLink("expected {issuer}/\(endpoint)?\(parameter)=…") }
        var issuer = components
        issuer.query = nil
        issuer.fragment = nil
        issuer.path = String(components.path.dropLast(endpoint.count + 1))
        guard let text = issuer.string else { throw TesseraKitError.invalidLink("no issuer") }
        return (text, value)
    }
}
