import Foundation
import Testing
import TesseraTestSupport

@testable import TesseraKit

/// What a key store's removal removes, and the stored format Keychain-like stores share:
/// over the file store and over a store that names its entries as `KeychainKeyStore` does.
@Suite("Key stores: what removal removes")
struct KeyStoreTests {
    /// The same checks over the file store and the in-memory (Keychain-like) one.
    func checkRemoval(_ store: any KeyStore) async throws {
        // setItem(nil) removes the item and a key of the same label.
        _ = try await store.generateKey(label: "a.biometric-1", protection: .currentBiometrics)
        try await store.setItem(Data("state".utf8), label: "a.biometric-1")
        try await store.setItem(nil, label: "a.biometric-1")
        #expect(try await store.key(label: "a.biometric-1") == nil)
        #expect(try await store.item(label: "a.biometric-1") == nil)
        // removeAll(withPrefix:) reaches every generation of a key, and nothing of another prefix.
        for label in ["a.device", "a.biometric", "a.biometric-2", "a.biometric-3", "b.device"] {
            _ = try await store.generateKey(label: label, protection: .deviceBound)
        }
        for label in ["a.record", "a.biometric-state-2", "a.totp-1", "b.record"] { try await store.setItem(Data("x".utf8), label: label) }
        try await store.removeAll(withPrefix: "a.")
        for label in ["a.device", "a.biometric", "a.biometric-2", "a.biometric-3"] {
            #expect(try await store.key(label: label) == nil, "\(label) was left behind")
        }
        #expect(try await store.itemLabels() == ["b.record"])
        #expect(try await store.key(label: "b.device") != nil)
    }

    @Test("setItem(nil) removes a key of the label; removeAll(withPrefix:) reaches biometric-N keys: the file store")
    func fileStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keystore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await checkRemoval(try FileKeyStore(directory: directory))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == ["after-first-unlock", "item-b.record", "key-b.device"])
    }

    @Test("the file store's two classes under a simulated lock: locked reads only after-first-unlock, a restart reads nothing, a write moves an item between classes")
    func availabilityClasses() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keystore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let lock = SimulatedDeviceLock()
        let store = try FileKeyStore(directory: directory, lock: lock)
        _ = try await store.generateKey(label: "a.device", protection: .deviceBound)
        _ = try await store.generateKey(label: "a.background", protection: .afterFirstUnlock)
        try await store.setItem(Data("totp".utf8), label: "a.totp")
        try await store.setItem(Data("record".utf8), label: "a.record", availability: .afterFirstUnlock)
        #expect(try await store.itemLabels() == ["a.record", "a.totp"])

        lock.lock()
        #expect(lock.state == .locked)
        try await expectLocked { _ = try await store.key(label: "a.device") }
        try await expectLocked { _ = try await store.item(label: "a.totp") }
        try await expectLocked { try await store.setItem(Data("new".utf8), label: "a.totp") }
        try await expectLocked { _ = try await store.generateKey(label: "a.device-2", protection: .deviceBound) }
        // A removal that would leave the closed class's secrets behind removes nothing.
        try await expectLocked { try await store.removeAll(withPrefix: "a.") }
        #expect(try await store.key(label: "a.background") != nil)
        #expect(try await store.key(label: "a.background") != nil)
        #expect(try await store.item(label: "a.record") == Data("record".utf8))
        #expect(try await store.itemLabels() == ["a.record"], "a locked device lists the open class only")
        try await store.setItem(Data("tokens".utf8), label: "a.tokens", availability: .afterFirstUnlock)
        #expect(try await store.key(label: "a.missing") == nil)

        // Before the first unlock nothing opens; locking does not unlock it.
        lock.restart()
        lock.lock()
        #expect(lock.state == .beforeFirstUnlock)
        try await expectLocked { _ = try await store.key(label: "a.background") }
        #expect(try await store.itemLabels().isEmpty)

        // A write into the other class moves the item: it is in one class only.
        lock.unlock()
        try await store.setItem(Data("moved".utf8), label: "a.totp", availability: .afterFirstUnlock)
        lock.lock()
        #expect(try await store.item(label: "a.totp") == Data("moved".utf8))
        #expect(try await store.itemLabels() == ["a.record", "a.tokens", "a.totp"])
        lock.unlock()
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("item-a.totp").path), "left the other class")
        // A crash in the middle of a move leaves the item in both classes: it is listed once.
        try Data("stale".utf8).write(to: directory.appendingPathComponent("item-a.totp"))
        #expect(try await store.itemLabels() == ["a.record", "a.tokens", "a.totp"])
        #expect(try await store.item(label: "a.totp") == Data("moved".utf8))
        try await store.removeAll(withPrefix: "a.")
        #expect(try await store.itemLabels().isEmpty)
        #expect(try await store.key(label: "a.background") == nil)
        #expect(try await store.key(label: "a.device") == nil)
        #expect(KeyProtection.afterFirstUnlock.availability == .afterFirstUnlock && KeyProtection.currentBiometrics.availability == .whenUnlocked)
    }

    /// Runs `body`, which must throw `deviceLocked`.
    func expectLocked(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        do {
            try await body()
            Issue.record("no error while locked", sourceLocation: sourceLocation)
        } catch TesseraKitError.deviceLocked {
        }
    }

    @Test("records and tokens an SDK before background keys kept when-unlocked move to after-first-unlock once, while unlocked")
    func upgradeMovesRecords() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keystore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let lock = SimulatedDeviceLock()
        let store = try FileKeyStore(directory: directory, lock: lock)
        for label in ["a.record", "tokens.x", "tokens.y", "a.totp"] { try await store.setItem(Data(label.utf8), label: label) }
        // A refresh that wrote tokens.y in its new class while the old copy was still there:
        // the move must not put the old one back.
        try Data("newer".utf8).write(to: directory.appendingPathComponent("after-first-unlock/item-tokens.y"))
        // Locked, nothing moves (the when-unlocked items cannot be seen).
        lock.lock()
        await StoreUpgrade.moveToAfterFirstUnlock(store)
        #expect(try await store.itemLabels() == ["tokens.y"], "only what is in the after-first-unlock class already")
        lock.unlock()
        await StoreUpgrade.moveToAfterFirstUnlock(store)
        lock.lock()
        #expect(try await store.itemLabels() == ["a.record", StoreUpgrade.marker, "tokens.x", "tokens.y"], "the TOTP secret stays when-unlocked")
        #expect(try await store.item(label: "a.record") == Data("a.record".utf8))
        #expect(try await store.item(label: "tokens.y") == Data("newer".utf8))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("item-tokens.y").path))
    }

    @Test("the same over a Keychain-like store that names its entries as KeychainKeyStore does")
    func keychainLike() async throws {
        let store = MemoryKeyStore()
        try await checkRemoval(store)
        #expect(store.names == ["item-b.record", "key-b.device"])
    }

    @Test("the stored key format and item listing are shared: a Secure Enclave handle and a software key round-trip, damage is seen")
    func storedFormat() {
        let handle = Data([9, 8, 7])
        guard case .secureEnclave(let back)? = StoredKey(StoredKey.secureEnclave(handle).encoded) else {
            Issue.record("a handle reads back as a handle")
            return
        }
        #expect(back == handle)
        guard case .software(let raw)? = StoredKey(StoredKey.software(Data([1, 2])).encoded) else {
            Issue.record("a software key reads back as one")
            return
        }
        #expect(raw == Data([1, 2]))
        #expect(StoredKey(Data()) == nil && StoredKey(Data([7, 1])) == nil)
        #expect(StoredName.itemLabels(from: ["key-a.device", "item-b.record", "item-a.record", "item-c.tmp.tmp", "other"]) == ["a.record", "b.record"])
        #expect(KeyProtection.currentBiometrics.requiresCurrentBiometrics && !KeyProtection.deviceBound.requiresCurrentBiometrics)
    }

}
