import Foundation
import TesseraCore
import TesseraCrypto

/// One activation on this device: this installation bound to one user of one tenant.
public struct Activation: Codable, Sendable, Hashable {
    /// The activation's id on the server; its signatures name it as `kid`.
    public let id: ActivationID
    /// The issuer URL of the tenant (`https://host/t/tenant`), as links name it.
    public let issuer: String
    /// The tenant's name.
    public let tenant: String
    /// The user the activation was made for.
    public let userID: UserID
    /// That user's name; users merged later are in `linkedUsers`.
    public let username: String
    /// The name given to this device at activation, if any.
    public let alias: String?
    /// The factors enrolled for this activation.
    public internal(set) var factors: [FactorType]
    /// When this device was activated.
    public let createdAt: Date
    /// Users merged into this activation by invitations (it signs in as any of them).
    public internal(set) var linkedUsers: [LinkedUser]?
    /// The server's per-activation salt for the PIN key (base64url); a PIN change brings a new one.
    var pinSalt: String
    /// The key store's label prefix for this activation's keys and items.
    let storageLabel: String
    /// Bumped when a factor is enrolled again, so the new key or secret is kept beside
    /// the old one until the server has accepted it.
    var biometricGeneration: Int?
    var totpGeneration: Int?
    /// The generation of the background key, nil when the activation has none (made by an
    /// SDK before background keys; `Personalizer.startBackgroundKey` adds one).
    var backgroundKeyGeneration: Int?

    /// Whether the activation has a background key: pending requests can then be read
    /// while the device is locked.
    public var hasBackgroundKey: Bool { backgroundKeyGeneration != nil }

    var deviceKeyLabel: String { storageLabel + "device" }
    var backgroundKeyLabel: String { storageLabel + "background" + Self.suffix(backgroundKeyGeneration) }
    var biometricKeyLabel: String { storageLabel + "biometric" + Self.suffix(biometricGeneration) }
    var biometricStateLabel: String { storageLabel + "biometric-state" + Self.suffix(biometricGeneration) }
    var totpSecretLabel: String { storageLabel + "totp" + Self.suffix(totpGeneration) }
    static let recordSuffix = "record"

    static func suffix(_ generation: Int?) -> String { (generation ?? 0) == 0 ? "" : "-\(generation ?? 0)" }

    /// Every username this activation signs in as: its own first, then merged ones.
    public var usernames: [String] { [username] + (linkedUsers ?? []).map(\.username) }
}

/// A user an invitation merged into an existing activation.
public struct LinkedUser: Codable, Sendable, Hashable {
    /// The merged user's id, as `AuthenticationResult.apiAccessMergeComplete` named it.
    public let userID: UserID
    /// The merged user's name; pass it as `username` to sign in as them.
    public let username: String
}

/// Reads and writes the activation records in the key store.
struct ActivationRegistry: Sendable {
    let keyStore: any KeyStore

    func all() async throws -> [Activation] {
        await StoreUpgrade.moveToAfterFirstUnlock(keyStore)
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

    /// Writes the record in the after-first-unlock class: it holds no secret, and work in
    /// the background (reading pending requests while the phone is locked) needs it.
    func save(_ activation: Activation) async throws {
        try await keyStore.setItem(
            try WireCoding.encoder().encode(activation), label: activation.storageLabel + Activation.recordSuffix,
            availability: .afterFirstUnlock)
    }

    /// The activation for an issuer, optionally of one user, and the merged user it
    /// stands for when `username` names one.
    func find(issuer: String, username: String?) async throws -> (Activation, LinkedUser?) {
        let matching = try await all().filter { $0.issuer == issuer && (username == nil || $0.usernames.contains(username ?? "")) }
        guard let first = matching.first else { throw TesseraKitError.noActivation(issuer: issuer) }
        guard matching.count == 1 else { throw TesseraKitError.severalActivations(usernames: matching.flatMap(\.usernames)) }
        let linked = username.flatMap { name in name == first.username ? nil : first.linkedUsers?.first { $0.username == name } }
        return (first, linked)
    }

    /// The activation with this id.
    func activation(id: ActivationID) async throws -> Activation {
        guard let found = try await all().first(where: { $0.id == id }) else {
            throw TesseraKitError.keyStore("no activation \(id.rawValue) on this device")
        }
        return found
    }

    /// `activation`'s record as it is now (a rotation or a factor changed since the caller
    /// read it), or `activation` itself when the record cannot be read.
    func current(_ activation: Activation) async -> Activation {
        (try? await self.activation(id: activation.id)) ?? activation
    }

    /// Changes one activation's record: read, change and write under one lock, so two
    /// processes finishing at once do not undo each other's change.
    func update(_ id: ActivationID, _ change: @Sendable (inout Activation) -> Void) async throws -> Activation {
        try await Self.lock.withLock {
            var activation = try await activation(id: id)
            change(&activation)
            try await save(activation)
            return activation
        }
    }

    static let lock = AsyncMutex()

    /// Removes an activation's record, keys and items from the device.
    func remove(_ activation: Activation) async throws {
        try await keyStore.removeAll(withPrefix: activation.storageLabel)
    }

    func signer(_ label: String, authenticatedBy evaluation: BiometricEvaluation? = nil) async throws -> any P256Signer {
        guard let key = try await keyStore.key(label: label, authenticatedBy: evaluation) else {
            throw TesseraKitError.keyStore("a key of this activation is missing")
        }
        return key
    }
}

/// What an SDK before background keys kept in the when-unlocked class and this one keeps
/// in the after-first-unlock class (activation records, stored tokens) is moved there once
/// per store, the first time the store is read while the device is unlocked. DPoP keys
/// stay where they were made (a Secure Enclave key's class cannot change): tokens bound to
/// such a key refresh only while unlocked, until the next login makes a new key.
enum StoreUpgrade {
    static let marker = "tessera.classes-2"
    static let probe = "tessera.unlock-probe"

    /// Moves the items with `moveItem`, which changes the class without rewriting the data,
    /// so a token refreshed or a record saved meanwhile is never undone, and two moves of
    /// the same store at once do no harm (no lock: one across all stores would queue every
    /// reader behind the slowest store's writes). A failure leaves the marker unwritten:
    /// the next read tries again.
    static func moveToAfterFirstUnlock(_ keyStore: any KeyStore) async {
        guard (try? await keyStore.item(label: marker)) == nil, await unlocked(keyStore) else { return }
        do {
            for label in try await keyStore.itemLabels()
            where label.hasSuffix("." + Activation.recordSuffix) || label.hasPrefix(TokenManager.labelPrefix) {
                try await keyStore.moveItem(label: label, to: .afterFirstUnlock)
            }
            // Unlocked before and after: the listing saw the when-unlocked class.
            guard await unlocked(keyStore) else { return }
            try await keyStore.setItem(Data([1]), label: marker, availability: .afterFirstUnlock)
        } catch {
            return
        }
    }

    /// Whether the device is unlocked now: a when-unlocked write succeeds only then.
    private static func unlocked(_ keyStore: any KeyStore) async -> Bool {
        guard (try? await keyStore.setItem(Data([1]), label: probe)) != nil else { return false }
        try? await keyStore.setItem(nil, label: probe)
        return true
    }
}

/// Links the SDK understands, for `{endpoint}` `activate` (`code=…`) and `authenticate`
/// (`request=…`):
///
/// - the issuer's own link, `{issuer}/{endpoint}?{parameter}=…` (the QR code);
/// - a universal or app link on the tenant's link domain,
///   `https://{link domain}/…/{endpoint}?{parameter}=…&issuer={issuer}`;
/// - a custom-scheme link, `{scheme}://tessera/{endpoint}?{parameter}=…&issuer={issuer}`.
///
/// The issuer must be `https`; plain `http` only on a loopback host (a developer's own
/// machine), since a PIN's proof and the device's tokens would otherwise cross a network
/// in clear. An issuer's own link may not name another issuer.
enum DeviceLink {
    static func parse(_ url: URL, endpoint: String, parameter: String) throws -> (issuer: String, value: String) {
        let form = "expected {issuer}/\(endpoint)?\(parameter)=…, or an app link with an issuer parameter"
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased(),
            components.path.hasSuffix("/" + endpoint),
            let value = components.queryItems?.first(where: { $0.name == parameter })?.value, (1...256).contains(value.utf8.count),
            // Codes and request ids are base64url: nothing else may reach a request path.
            Base64URL.isURLSafe(value)
        else { throw TesseraKitError.invalidLink(form) }
        let named = components.queryItems?.filter { $0.name == "issuer" }.compactMap(\.value) ?? []
        guard named.count <= 1 else { throw TesseraKitError.invalidLink("the link names more than one issuer") }
        let issuer: URLComponents
        if let name = named.first {
            // An app link: the issuer is what it names, checked like any issuer.
            guard let parsed = URLComponents(string: name), parsed.query == nil, parsed.fragment == nil, parsed.user == nil,
                parsed.password == nil, parsed.host?.isEmpty == false, !parsed.path.hasSuffix("/")
            else { throw TesseraKitError.invalidLink("the link's issuer parameter is not an issuer URL") }
            issuer = parsed
            if scheme == "https" || scheme == "http" {
                // On the issuer's own host the link's path is the issuer's.
                if components.host?.lowercased() == parsed.host?.lowercased() && components.port == parsed.port {
                    guard components.path == parsed.path + "/" + endpoint, scheme == parsed.scheme?.lowercased() else {
                        throw TesseraKitError.invalidLink("the link is for another issuer than the one it names")
                    }
                }
            } else {
                guard components.host == "tessera", components.path == "/" + endpoint else {
                    throw TesseraKitError.invalidLink("expected {scheme}://tessera/\(endpoint)?\(parameter)=…&issuer=…")
                }
            }
        } else {
            guard scheme == "https" || scheme == "http" else { throw TesseraKitError.invalidLink("a custom-scheme link needs an issuer parameter") }
            var derived = components
            derived.query = nil
            derived.fragment = nil
            derived.path = String(components.path.dropLast(endpoint.count + 1))
            issuer = derived
        }
        let issuerScheme = issuer.scheme?.lowercased()
        guard issuerScheme == "https" || (issuerScheme == "http" && isLoopback(issuer.host ?? "")) else {
            throw TesseraKitError.invalidLink("the issuer must use https (plain http only on a loopback host)")
        }
        guard let text = issuer.string else { throw TesseraKitError.invalidLink("no issuer") }
        return (text, value)
    }

    /// `localhost`, `::1`, or an IPv4 literal in 127.0.0.0/8 (not a name that starts with "127.").
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { UInt8($0) != nil } && octets[0] == "127"
    }
}
