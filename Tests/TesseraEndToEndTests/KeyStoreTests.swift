import Foundation
import Synchronization
import Testing
import TesseraCore
import TesseraCrypto
@testable import TesseraKit
import TesseraTesting

/// A key store kept in memory under the names and in the format a Keychain-like store
/// gives its entries (`StoredName`, `StoredKey`): what `KeychainKeyStore` does, on a
/// platform that cannot build it. Like the Secure Enclave, a key made with
/// `.currentBiometrics` asks for biometrics each time it is loaded to sign, unless a
/// passed check comes along: `prompts` counts those second prompts.
final class MemoryKeyStore: KeyStore {
    private let entries = Mutex<[String: Data]>([:])
    private let biometricKeys = Mutex<Set<String>>([])
    private let promptCount = Mutex(0)

    var names: [String] { entries.withLock { Array($0.keys).sorted() } }
    var prompts: Int { promptCount.withLock { $0 } }

    func generateKey(label: String, protection: KeyProtection) async throws -> any P256Signer {
        try await generateKey(label: label, protection: protection, authenticatedBy: nil)
    }

    func generateKey(label: String, protection: KeyProtection, authenticatedBy evaluation: BiometricEvaluation?) async throws
        -> any P256Signer
    {
        let key = SoftwareSigningKey()
        entries.withLock { $0[StoredName.key(label)] = StoredKey.software(key.rawRepresentation).encoded }
        if protection.requiresCurrentBiometrics {
            biometricKeys.withLock { _ = $0.insert(label) }
            // Signing with the new key (its registration) needs biometrics too.
            if evaluation?.authentication == nil { promptCount.withLock { $0 += 1 } }
        }
        return key
    }

    func key(label: String) async throws -> (any P256Signer)? { try await key(label: label, authenticatedBy: nil) }

    func key(label: String, authenticatedBy evaluation: BiometricEvaluation?) async throws -> (any P256Signer)? {
        guard let data = entries.withLock({ $0[StoredName.key(label)] }) else { return nil }
        guard case .software(let raw)? = StoredKey(data) else { throw TesseraKitError.keyStore("a stored key is damaged") }
        if biometricKeys.withLock({ $0.contains(label) }) && evaluation?.authentication == nil { promptCount.withLock { $0 += 1 } }
        return try SoftwareSigningKey(rawRepresentation: raw)
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

    func itemLabels() async throws -> [String] { StoredName.itemLabels(from: names) }

    func removeAll(withPrefix prefix: String) async throws {
        let removed = StoredName.removed(withPrefix: prefix, from: names)
        entries.withLock { entries in for name in removed { entries[name] = nil } }
    }
}

/// A biometric check that counts its prompts and leaves a context behind, as Face ID's
/// `LAContext` does.
final class CountingBiometricGate: BiometricGate {
    let inner: SoftwareBiometricGate
    private let count = Mutex(0)
    private let finishedCount = Mutex(0)
    var prompts: Int { count.withLock { $0 } }
    /// Checks the SDK said it was done with (on Apple: contexts invalidated).
    var finishedChecks: Int { finishedCount.withLock { $0 } }

    func finished(_ evaluation: BiometricEvaluation) {
        if evaluation.authentication is Context { finishedCount.withLock { $0 += 1 } }
    }

    final class Context: Sendable {}

    init(stateFile: URL) { inner = SoftwareBiometricGate(stateFile: stateFile) }

    func evaluate(reason: String) async throws -> Data { try await evaluation(reason: reason).domainState }

    func evaluation(reason: String) async throws -> BiometricEvaluation {
        count.withLock { $0 += 1 }
        return BiometricEvaluation(domainState: try await inner.evaluate(reason: reason), authentication: Context())
    }
}

@Suite("Key stores: what removal removes", .tags(.live), .timeLimit(.minutes(5)))
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

    @Test("one biometric prompt per enrolment and per login: the check's context goes with the biometric key's signature")
    func oneBiometricPrompt() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(policy: "device+biometric")
            try await scenario.createUser("fay")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prompts-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let store = MemoryKeyStore()
            let gate = CountingBiometricGate(stateFile: directory.appendingPathComponent("biometrics"))
            let transport = RecordingTransport()
            let personalizer = Personalizer(keyStore: store, transport: transport, biometrics: gate)
            let authenticator = Authenticator(keyStore: store, transport: transport, biometrics: gate)
            _ = try await personalizer.activate(url: try await scenario.invite("fay"), pin: "2468", enrollBiometric: true)
            #expect(gate.prompts == 1 && store.prompts == 0, "enrolment: one check, and the new key signs under it")
            #expect(gate.finishedChecks == 1, "the enrolment's check releases nothing after its signature")
            for round in 1...2 {
                let login = try await scenario.openLogin(service)
                var information = try await authenticator.start(url: login.authenticationURL)
                try information.sign(factor: DeviceFactor())
                try information.sign(factor: try await authenticator.biometricFactor(for: information, reason: "Sign in"))
                guard case .userLogin = try await authenticator.finish(information) else {
                    Issue.record("a biometric login")
                    return
                }
                #expect(gate.prompts == 1 + round && store.prompts == 0, "login \(round): one prompt, none from the key")
                #expect(gate.finishedChecks == 1 + round, "login \(round): the check is finished once the proof is signed")
            }
        }
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
                try await device.biometrics.simulateBiometricChange()
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
