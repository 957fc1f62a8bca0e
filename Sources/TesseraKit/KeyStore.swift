import Foundation
import TesseraCore
import TesseraCrypto


/// What must happen before a key may sign.
public enum KeyProtection: Sendable {
    /// The device must be unlocked; the key never leaves this device.
    case deviceBound
    /// In addition, the platform's biometrics must succeed for each use, and the key
    /// becomes unusable when the enrolled biometrics change.
    case currentBiometrics

    /// Whether the platform must tie the key to the biometrics enrolled now
    /// (`biometryCurrentSet` on Apple).
    public var requiresCurrentBiometrics: Bool { self == .currentBiometrics }
}

/// Where the SDK keeps private keys and small secrets. Keys never leave it: callers
/// get a signer, not key bytes. `KeychainKeyStore` on Apple platforms, `FileKeyStore`
/// on Linux and in tests; build `Personalizer`, `Authenticator` and `TokenManager` over
/// the same store.
public protocol KeyStore: Sendable {
    /// Creates and keeps a new P-256 signing key under `label`.
    func generateKey(label: String, protection: KeyProtection) async throws -> any P256Signer
    /// The key kept under `label`, if any.
    func key(label: String) async throws -> (any P256Signer)?
    /// Keeps `data` under `label`; `nil` removes it (and any key of the same label).
    func setItem(_ data: Data?, label: String) async throws
    /// The item kept under `label`, or nil.
    func item(label: String) async throws -> Data?
    /// The labels of all kept items (not keys).
    func itemLabels() async throws -> [String]
    /// Removes every key and item whose label starts with `prefix`.
    func removeAll(withPrefix prefix: String) async throws
    /// The key under `label`, released by a biometric check that already passed: a store
    /// whose keys ask for biometrics themselves (the Secure Enclave) uses the check's
    /// platform context instead of asking again. Others ignore it.
    func key(label: String, authenticatedBy evaluation: BiometricEvaluation?) async throws -> (any P256Signer)?
    /// `generateKey(label:protection:)`, the new key usable at once under a biometric
    /// check that already passed (the enrolment's), without asking again.
    func generateKey(label: String, protection: KeyProtection, authenticatedBy evaluation: BiometricEvaluation?) async throws
        -> any P256Signer
}

extension KeyStore {
    /// Ignores `evaluation` and returns `key(label:)`: for stores whose keys do not ask for
    /// biometrics themselves.
    public func key(label: String, authenticatedBy evaluation: BiometricEvaluation?) async throws -> (any P256Signer)? {
        try await key(label: label)
    }

    /// Ignores `evaluation` and returns `generateKey(label:protection:)`: for stores whose
    /// keys do not ask for biometrics themselves.
    public func generateKey(label: String, protection: KeyProtection, authenticatedBy evaluation: BiometricEvaluation?) async throws
        -> any P256Signer
    {
        try await generateKey(label: label, protection: protection)
    }
}

/// How a store that keeps a key as bytes says what kind of key the bytes are: a first
/// byte 1 for a Secure Enclave handle, 0 for a software key's raw representation.
/// Shared, so the format is tested on Linux though only the Keychain store writes it.
package enum StoredKey {
    case secureEnclave(Data)
    case software(Data)

    package var encoded: Data {
        switch self {
        case .secureEnclave(let handle): Data([1]) + handle
        case .software(let raw): Data([0]) + raw
        }
    }

    package init?(_ stored: Data) {
        guard let kind = stored.first else { return nil }
        let body = Data(stored.dropFirst())
        switch kind {
        case 1: self = .secureEnclave(body)
        case 0: self = .software(body)
        default: return nil
        }
    }
}

/// How a store that keeps keys and items side by side names them (file names, Keychain
/// accounts): `key-LABEL` and `item-LABEL`. What a removal removes is decided here, in
/// code every platform builds and the Linux tests cover, so `FileKeyStore` and
/// `KeychainKeyStore` cannot drift apart.
package enum StoredName {
    package static func key(_ label: String) -> String { "key-\(label)" }
    package static func item(_ label: String) -> String { "item-\(label)" }

    /// What `setItem(nil, label:)` removes: the item and any key of the same label.
    package static func cleared(_ label: String) -> [String] { [item(label), key(label)] }

    /// Of the stored `names`, those `removeAll(withPrefix:)` removes: every key and item
    /// whose label starts with `prefix`, whatever follows it (`biometric-2` as well as
    /// `biometric`).
    package static func removed(withPrefix prefix: String, from names: [String]) -> [String] {
        names.filter { $0.hasPrefix(key(prefix)) || $0.hasPrefix(item(prefix)) }
    }

    /// Of the stored `names`, the labels of the items (not keys, nor a file store's
    /// half-written `.tmp` files), sorted.
    package static func itemLabels(from names: [String]) -> [String] {
        names.filter { $0.hasPrefix("item-") && !$0.hasSuffix(".tmp") }.map { String($0.dropFirst(5)) }.sorted()
    }
}

/// A key store in a directory: one file per key or item, mode 0600, in a 0700
/// directory. For Linux and tests; on Apple platforms use `KeychainKeyStore`.
public struct FileKeyStore: KeyStore {
    /// The directory holding the store's files.
    public let directory: URL

    /// Opens the store in `directory`, creating it (mode 0700) when it does not exist; throws
    /// when it cannot be created. Processes that share the directory share the activations.
    ///
    /// ```swift
    /// let store = try FileKeyStore(directory: URL(fileURLWithPath: "/var/lib/myapp/tessera"))
    /// let personalizer = Personalizer(keyStore: store)
    /// let authenticator = Authenticator(keyStore: store)
    /// ```
    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    private func url(_ kind: String, _ label: String) throws -> URL {
        guard !label.isEmpty, label.utf8.allSatisfy({ byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }) else { throw TesseraKitError.keyStore("invalid label") }
        return directory.appendingPathComponent(kind == "key" ? StoredName.key(label) : StoredName.item(label))
    }

    /// Writes and flushes on a thread of its own (`BlockingWork`).
    private func write(_ data: Data, to url: URL) async throws {
        try await BlockingWork.run { try OwnerOnlyFile.replace(url, with: data) }
    }

    /// Software keys: `protection` cannot be enforced by a file; the biometric gate is
    /// checked by the SDK before the biometric key is used.
    public func generateKey(label: String, protection: KeyProtection) async throws -> any P256Signer {
        let key = SoftwareSigningKey()
        try await write(key.rawRepresentation, to: try url("key", label))
        return key
    }

    /// The software key under `label`, or nil; throws `keyStore` for a damaged file or a label
    /// outside letters, digits, `.`, `-` and `_`.
    public func key(label: String) async throws -> (any P256Signer)? {
        guard let data = FileManager.default.contents(atPath: try url("key", label).path) else { return nil }
        do {
            return try SoftwareSigningKey(rawRepresentation: data)
        } catch {
            throw TesseraKitError.keyStore("a stored key is damaged")
        }
    }

    /// Writes atomically (after a crash the old item or the new one is there, never half of
    /// one); `nil` removes the item and any key of the same label.
    public func setItem(_ data: Data?, label: String) async throws {
        let file = try url("item", label)
        if let data {
            try await write(data, to: file)
        } else {
            // The item and any key of the same label (a replaced biometric key); `url`
            // checked the label.
            for name in StoredName.cleared(label) {
                let path = directory.appendingPathComponent(name).path
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            }
        }
    }

    /// The item under `label`, or nil.
    public func item(label: String) async throws -> Data? {
        FileManager.default.contents(atPath: try url("item", label).path)
    }

    /// The labels of all items, sorted (not keys, nor half-written files).
    public func itemLabels() async throws -> [String] {
        StoredName.itemLabels(from: try FileManager.default.contentsOfDirectory(atPath: directory.path))
    }

    /// Removes every key and item whose label starts with `prefix`.
    public func removeAll(withPrefix prefix: String) async throws {
        for name in StoredName.removed(withPrefix: prefix, from: try FileManager.default.contentsOfDirectory(atPath: directory.path)) {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}

/// A file only its owner may read (mode 0600), replaced whole: written beside itself and
/// renamed over, which is atomic, so a crash leaves the old file or the new one, never half
/// of one. It blocks for the flush: call it through `BlockingWork`.
enum OwnerOnlyFile {
    static func replace(_ url: URL, with data: Data) throws {
        let temporary = url.appendingPathExtension("tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]),
            rename(temporary.path, url.path) == 0
        else { throw TesseraKitError.keyStore("cannot write \(url.lastPathComponent)") }
    }
}
