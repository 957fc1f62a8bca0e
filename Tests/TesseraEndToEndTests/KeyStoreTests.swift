import Foundation
import Synchronization
import Testing
import TesseraCore
import TesseraCrypto
@testable import TesseraKit
import TesseraTesting

/// A key store kept in memory under the names a Keychain-like store gives its entries
/// (`StoredName`): what `KeychainKeyStore` does, on a platform that cannot build it.
final class MemoryKeyStore: KeyStore {
    private let entries = Mutex<[String: Data]>([:])

    var names: [String] { entries.withLock { Array($0.keys).sorted() } }

    func generateKey(label: String, protection: KeyProtection) async throws -> any P256Signer {
        let key = SoftwareSigningKey()
        entries.withLock { $0[StoredName.key(label)] = key.rawRepresentation }
        return key
    }

    func key(label: String) async throws -> (any P256Signer)? {
        guard let data = entries.withLock({ $0[StoredName.key(label)] }) else { return nil }
        return try SoftwareSigningKey(rawRepresentation: data)
    }

    func setItem(_ data: Data?, label: String) async throws {
        entries.withLock { entries in
            guard let data else {
                for name in StoredName.cleared(label) { entries[name] = nil }
                return
            }
            entries[StoredName.item(label)] = data
        }
    }

    func item(label: String) async throws -> Data? { entries.withLock { $0[StoredName.item(label)] } }

    func itemLabels() async throws -> [String] {
        names.filter { $0.hasPrefix("item-") }.map { String($0.dropFirst(5)) }
    }

    func removeAll(withPrefix prefix: String) async throws {
        let removed = StoredName.removed(withPrefix: prefix, from: names)
        entries.withLock { entries in for name in removed { entries[name] = nil } }
    }
}

@Suite("Key stores: what removal removes", .timeLimit(.minutes(5)))
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
        #expect(left == ["item-b.record", "key-b.device"])
    }

    @Test("the same over a Keychain-like store that names its entries as KeychainKeyStore does")
    func keychainLike() async throws {
        let store = MemoryKeyStore()
        try await checkRemoval(store)
        #expect(store.names == ["item-b.record", "key-b.device"])
    }

    @Test("biometrics enrolled again twice leave one biometric key on the device; deleting the activation leaves nothing of it")
    func reEnrolment() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(policy: "device+pin,device+biometric")
            try await scenario.createUser("kim")
            let (device, activated) = try await activateDevice(scenario, username: "kim", biometric: true)
            let personalizer = device.personalizer
            func biometricKeys() throws -> [String] {
                try FileManager.default.contentsOfDirectory(atPath: device.directory.path)
                    .filter { $0.hasPrefix("key-") && $0.contains("biometric") && !$0.hasSuffix(".tmp") }
            }
            #expect(try biometricKeys().count == 1)
            for _ in 0..<2 {
                try device.biometrics.simulateBiometricChange()
                let current = try #require(try await personalizer.activations().first)
                let process = try await approve(try await personalizer.startAddAuthenticationFactor(.biometric, activation: current), device: device)
                guard case .apiAccessAddFactor(let added) = process else { Issue.record("expected apiAccessAddFactor, got \(process)"); return }
                _ = try await personalizer.finishAddFactor(added)
                let keys = try biometricKeys()
                #expect(keys.count == 1, "the replaced key is gone: \(keys)")
            }
            #expect(try await logsIn(scenario, service, device: device, factors: [.device, .biometric]).isUserLogin)

            let current = try #require(try await personalizer.activations().first)
            let deletion = try await approve(try await personalizer.startDeletion(activation: current), device: device)
            guard case .apiAccessDelete(let process) = deletion else { Issue.record("expected apiAccessDelete, got \(deletion)"); return }
            try await personalizer.finishDeletion(process)
            let prefix = activated.activation.storageLabel
            let left = try FileManager.default.contentsOfDirectory(atPath: device.directory.path).filter { $0.contains(prefix) }
            #expect(left.isEmpty, "left behind: \(left)")
            device.remove()
        }
    }
}
