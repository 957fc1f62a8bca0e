import Foundation
import Synchronization
import TesseraCrypto
import TesseraKit

// Fakes for the SDK's platform parts: a Keychain-like key store in memory, a biometric
// check that counts its prompts, and a transport with no network. The SDK's own tests,
// the router-mode tests and the live ones share them.

/// A key store kept in memory under the names and in the format a Keychain-like store
/// gives its entries (`StoredName`, `StoredKey`): what `KeychainKeyStore` does, on a
/// platform that cannot build it. Like the Secure Enclave, a key made with
/// `.currentBiometrics` asks for biometrics each time it is loaded to sign, unless a
/// passed check comes along: `prompts` counts those second prompts.
package final class MemoryKeyStore: KeyStore {
    private let entries = Mutex<[String: Data]>([:])
    private let biometricKeys = Mutex<Set<String>>([])
    private let promptCount = Mutex(0)

    package init() {}

    package var names: [String] { entries.withLock { Array($0.keys).sorted() } }
    package var prompts: Int { promptCount.withLock { $0 } }

    package func generateKey(label: String, protection: KeyProtection) async throws -> any P256Signer {
        try await generateKey(label: label, protection: protection, authenticatedBy: nil)
    }

    package func generateKey(label: String, protection: KeyProtection, authenticatedBy evaluation: BiometricEvaluation?) async throws
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

    package func key(label: String) async throws -> (any P256Signer)? { try await key(label: label, authenticatedBy: nil) }

    package func key(label: String, authenticatedBy evaluation: BiometricEvaluation?) async throws -> (any P256Signer)? {
        guard let data = entries.withLock({ $0[StoredName.key(label)] }) else { return nil }
        guard case .software(let raw)? = StoredKey(data) else { throw TesseraKitError.keyStore("a stored key is damaged") }
        if biometricKeys.withLock({ $0.contains(label) }) && evaluation?.authentication == nil { promptCount.withLock { $0 += 1 } }
        return try SoftwareSigningKey(rawRepresentation: raw)
    }

    package func setItem(_ data: Data?, label: String) async throws {
        entries.withLock { entries in
            guard let data else {
                for name in StoredName.cleared(label) { entries[name] = nil }
                return
            }
            entries[StoredName.item(label)] = data
        }
    }

    package func item(label: String) async throws -> Data? { entries.withLock { $0[StoredName.item(label)] } }

    package func itemLabels() async throws -> [String] { StoredName.itemLabels(from: names) }

    package func removeAll(withPrefix prefix: String) async throws {
        let removed = StoredName.removed(withPrefix: prefix, from: names)
        entries.withLock { entries in for name in removed { entries[name] = nil } }
    }
}

/// A biometric check that counts its prompts and leaves a context behind, as Face ID's
/// `LAContext` does.
package final class CountingBiometricGate: BiometricGate {
    package let inner: SoftwareBiometricGate
    private let count = Mutex(0)
    private let finishedCount = Mutex(0)
    package var prompts: Int { count.withLock { $0 } }
    /// Checks the SDK said it was done with (on Apple: contexts invalidated).
    package var finishedChecks: Int { finishedCount.withLock { $0 } }

    package func finished(_ evaluation: BiometricEvaluation) {
        if evaluation.authentication is Context { finishedCount.withLock { $0 += 1 } }
    }

    package final class Context: Sendable {}

    package init(stateFile: URL) { inner = SoftwareBiometricGate(stateFile: stateFile) }

    package func evaluate(reason: String) async throws -> Data { try await evaluation(reason: reason).domainState }

    package func evaluation(reason: String) async throws -> BiometricEvaluation {
        count.withLock { $0 += 1 }
        return BiometricEvaluation(domainState: try await inner.evaluate(reason: reason), authentication: Context())
    }
}

/// A transport with no network: every request fails as a lost connection does.
package struct UnreachableTransport: HTTPTransport {
    package init() {}

    package func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        throw TesseraKitError.transport("the network is unreachable")
    }
}
