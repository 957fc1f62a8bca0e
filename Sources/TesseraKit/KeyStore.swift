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
    /// The key never leaves this device, and it signs while the device is locked, once the
    /// device has been unlocked after it started: for the work an app does in the
    /// background (the background key that reads pending requests, the DPoP key of stored
    /// tokens). Never for a key that approves.
    case afterFirstUnlock

    /// Whether the platform must tie the key to the biometrics enrolled now
    /// (`biometryCurrentSet` on Apple).
    public var requiresCurrentBiometrics: Bool { self == .currentBiometrics }

    /// When the key can sign.
    public var availability: ItemAvailability { self == .afterFirstUnlock ? .afterFirstUnlock : .whenUnlocked }
}

/// When a key or an item can be read: the platform's data protection classes
/// (`kSecAttrAccessibleWhenUnlockedThisDeviceOnly` and
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` on Apple platforms).
public enum ItemAvailability: Sendable, Hashable {
    /// Only while the device is unlocked: the device and biometric keys, TOTP secrets.
    case whenUnlocked
    /// Also while the device is locked, once it has been unlocked after it started: the
    /// activation records, stored tokens, and the keys of background work.
    case afterFirstUnlock

    /// The other class.
    var other: ItemAvailability { self == .whenUnlocked ? .afterFirstUnlock : .whenUnlocked }
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
    /// Keeps `data` under `label`, readable only while the device is unlocked; `nil`
    /// removes it (and any key of the same label).
    func setItem(_ data: Data?, label: String) async throws
    /// Keeps `data` under `label` in the given availability class (it leaves any other
    /// class); `nil` removes it (and any key of the same label).
    func setItem(_ data: Data?, label: String, availability: ItemAvailability) async throws
    /// Moves the item under `label` into `availability`'s class without rewriting its data,
    /// so that a write of the item meanwhile is never undone; nothing when there is none.
    func moveItem(label: String, to availability: ItemAvailability) async throws
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
    /// `setItem(_:label:)`, ignoring `availability`: for stores that have one class only
    /// (which must then be readable whenever the app runs, for background work to work).
    public func setItem(_ data: Data?, label: String, availability: ItemAvailability) async throws {
        try await setItem(data, label: label)
    }

    /// Reads and writes the item again: for stores with one class (a concurrent write of the
    /// same item can be undone; the SDK's stores move without rewriting).
    public func moveItem(label: String, to availability: ItemAvailability) async throws {
        guard let data = try await item(label: label) else { return }
        try await setItem(data, label: label, availability: availability)
    }

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
/// directory; the items and keys of the after-first-unlock class in its subdirectory
/// `after-first-unlock`. For Linux and tests; on Apple platforms use `KeychainKeyStore`.
///
/// Given a `SimulatedDeviceLock`, it behaves as a phone's key store does while the phone
/// is locked: what is kept `whenUnlocked` cannot be read, written or listed (it throws
/// `deviceLocked`), what is kept `afterFirstUnlock` can, once the device was unlocked
/// after it started.
public struct FileKeyStore: KeyStore {
    /// The directory holding the store's files.
    public let directory: URL
    /// The simulated lock state, if any; without one the store is always unlocked.
    public let lock: SimulatedDeviceLock?

    /// Opens the store in `directory`, creating it (mode 0700) when it does not exist; throws
    /// when it cannot be created. Processes that share the directory share the activations.
    ///
    /// ```swift
    /// let store = try FileKeyStore(directory: URL(fileURLWithPath: "/var/lib/myapp/tessera"))
    /// let personalizer = Personalizer(keyStore: store)
    /// let authenticator = Authenticator(keyStore: store)
    /// ```
    public init(directory: URL, lock: SimulatedDeviceLock? = nil) throws {
        self.directory = directory
        self.lock = lock
        for folder in [directory, directory.appendingPathComponent(Self.afterFirstUnlock)] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }

    private static let afterFirstUnlock = "after-first-unlock"

    private func folder(_ availability: ItemAvailability) -> URL {
        availability == .whenUnlocked ? directory : directory.appendingPathComponent(Self.afterFirstUnlock)
    }

    /// The file of a key or item in one class; the label is checked.
    private func url(_ kind: String, _ label: String, _ availability: ItemAvailability) throws -> URL {
        guard !label.isEmpty, label.utf8.allSatisfy({ byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }) else { throw TesseraKitError.keyStore("invalid label") }
        return folder(availability).appendingPathComponent(kind == "key" ? StoredName.key(label) : StoredName.item(label))
    }

    /// Throws `deviceLocked` when the class cannot be used in the lock's present state.
    private func checkUsable(_ availability: ItemAvailability) throws {
        guard let lock, !lock.state.allows(availability) else { return }
        throw TesseraKitError.deviceLocked
    }

    /// The contents of a key or item, whichever class holds it, or nil; throws
    /// `deviceLocked` when its class cannot be read now.
    private func read(_ kind: String, _ label: String) throws -> Data? {
        for availability in [ItemAvailability.afterFirstUnlock, .whenUnlocked] {
            let path = try url(kind, label, availability).path
            guard FileManager.default.fileExists(atPath: path) else { continue }
            try checkUsable(availability)
            return FileManager.default.contents(atPath: path)
        }
        return nil
    }

    /// Writes and flushes on a thread of its own (`BlockingWork`), in one class, and removes
    /// the file from the other.
    private func write(_ data: Data, _ kind: String, _ label: String, _ availability: ItemAvailability) async throws {
        try checkUsable(availability)
        let file = try url(kind, label, availability)
        let other = try url(kind, label, availability.other)
        try await BlockingWork.run {
            try OwnerOnlyFile.replace(file, with: data)
            if FileManager.default.fileExists(atPath: other.path) { try FileManager.default.removeItem(at: other) }
        }
    }

    /// Software keys: `protection` cannot be enforced by a file beyond its class; the
    /// biometric gate is checked by the SDK before the biometric key is used.
    public func generateKey(label: String, protection: KeyProtection) async throws -> any P256Signer {
        let key = SoftwareSigningKey()
        try await write(key.rawRepresentation, "key", label, protection.availability)
        return key
    }

    /// The software key under `label`, or nil; throws `keyStore` for a damaged file or a label
    /// outside letters, digits, `.`, `-` and `_`, and `deviceLocked` for a key of the
    /// `whenUnlocked` class while the device is locked.
    public func key(label: String) async throws -> (any P256Signer)? {
        guard let data = try read("key", label) else { return nil }
        do {
            return try SoftwareSigningKey(rawRepresentation: data)
        } catch {
            throw TesseraKitError.keyStore("a stored key is damaged")
        }
    }

    /// `setItem(_:label:availability:)` in the `whenUnlocked` class.
    public func setItem(_ data: Data?, label: String) async throws {
        try await setItem(data, label: label, availability: .whenUnlocked)
    }

    /// Writes atomically (after a crash the old item or the new one is there, never half of
    /// one); `nil` removes the item and any key of the same label, in either class.
    public func setItem(_ data: Data?, label: String, availability: ItemAvailability) async throws {
        if let data {
            try await write(data, "item", label, availability)
            return
        }
        // The item and any key of the same label (a replaced biometric key).
        _ = try url("item", label, .whenUnlocked)
        for folder in [folder(.whenUnlocked), folder(.afterFirstUnlock)] {
            for name in StoredName.cleared(label) {
                let path = folder.appendingPathComponent(name).path
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            }
        }
    }

    /// The item under `label`, or nil; throws `deviceLocked` as `key(label:)` does.
    public func item(label: String) async throws -> Data? {
        try read("item", label)
    }

    /// Links the file into the other class's directory and unlinks the old name. A link
    /// never replaces: a copy already there is newer (every write goes to its class and then
    /// removes the other's), and the old one is just removed.
    public func moveItem(label: String, to availability: ItemAvailability) async throws {
        let from = availability.other
        let source = try url("item", label, from)
        let target = try url("item", label, availability)
        guard FileManager.default.fileExists(atPath: source.path) else { return }
        try checkUsable(from)
        try checkUsable(availability)
        try await BlockingWork.run {
            guard link(source.path, target.path) == 0 || errno == EEXIST, unlink(source.path) == 0 || errno == ENOENT else {
                throw TesseraKitError.keyStore("cannot move \(label) to another class")
            }
        }
    }

    /// The labels of the items that can be read now, sorted, each once (not keys, nor
    /// half-written files): while the device is locked, only those of the after-first-unlock
    /// class. (A crash while an item moved between classes may leave it in both; reads
    /// take the after-first-unlock copy, the newer one of a move the SDK makes.)
    public func itemLabels() async throws -> [String] {
        var labels: Set<String> = []
        for availability in [ItemAvailability.whenUnlocked, .afterFirstUnlock] where lock?.state.allows(availability) ?? true {
            labels.formUnion(StoredName.itemLabels(from: try FileManager.default.contentsOfDirectory(atPath: folder(availability).path)))
        }
        return labels.sorted()
    }

    /// Removes every key and item whose label starts with `prefix`, in either class; throws
    /// `deviceLocked`, removing nothing, while a class that holds some of them is closed.
    public func removeAll(withPrefix prefix: String) async throws {
        var doomed: [URL] = []
        for availability in [ItemAvailability.whenUnlocked, .afterFirstUnlock] {
            let folder = folder(availability)
            let names = StoredName.removed(withPrefix: prefix, from: try FileManager.default.contentsOfDirectory(atPath: folder.path))
            if !names.isEmpty { try checkUsable(availability) }
            doomed += names.map { folder.appendingPathComponent($0) }
        }
        for file in doomed { try FileManager.default.removeItem(at: file) }
    }
}

/// A phone's lock, simulated for `FileKeyStore`: so that Linux and tests see what a locked
/// phone does to background work. Starts unlocked.
///
/// ```swift
/// let lock = SimulatedDeviceLock()
/// let store = try FileKeyStore(directory: folder, lock: lock)
/// lock.lock()      // refreshing tokens and reading pending requests still work
/// lock.unlock()    // approving a login works again
/// ```
public final class SimulatedDeviceLock: Sendable {
    /// Where a phone's lock stands.
    public enum State: Sendable {
        /// Started and not unlocked since: nothing can be read.
        case beforeFirstUnlock
        case unlocked
        /// Locked after an unlock: only the after-first-unlock class can be read.
        case locked

        /// Whether items and keys of `availability` can be used in this state.
        public func allows(_ availability: ItemAvailability) -> Bool {
            switch self {
            case .unlocked: true
            case .locked: availability == .afterFirstUnlock
            case .beforeFirstUnlock: false
            }
        }
    }

    private let current: Locked<State>

    public init(_ state: State = .unlocked) { current = Locked(state) }

    /// The state now.
    public var state: State { current.withLock { $0 } }

    /// Locks the device (after an unlock: from `beforeFirstUnlock` nothing changes).
    public func lock() { current.withLock { if $0 == .unlocked { $0 = .locked } } }

    /// Unlocks the device.
    public func unlock() { current.withLock { $0 = .unlocked } }

    /// Restarts the device: nothing can be read until it is unlocked.
    public func restart() { current.withLock { $0 = .beforeFirstUnlock } }
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
