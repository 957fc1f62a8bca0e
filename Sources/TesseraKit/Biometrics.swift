import Foundation
import TesseraCore

/// The platform's biometric check. `evaluate` asks the user and returns an opaque
/// value that changes whenever the set of enrolled biometrics changes (on Apple
/// platforms `LAContext.domainState.biometry.stateHash`).
public protocol BiometricGate: Sendable {
    func evaluate(reason: String) async throws -> Data
    /// The check with what it leaves behind: the domain state, and the platform's
    /// authenticated context for the biometric key to sign under without asking again.
    func evaluation(reason: String) async throws -> BiometricEvaluation
    /// The SDK has signed what the check was for: the context may release nothing more
    /// (on Apple the `LAContext` is invalidated, so a kept factor cannot sign a later login).
    func finished(_ evaluation: BiometricEvaluation)
}

extension BiometricGate {
    public func evaluation(reason: String) async throws -> BiometricEvaluation {
        BiometricEvaluation(domainState: try await evaluate(reason: reason))
    }

    public func finished(_ evaluation: BiometricEvaluation) {}
}

/// A biometric check that passed. One login asks once: the SDK hands `authentication`
/// (on Apple the evaluated `LAContext`) to the key store when the biometric key signs,
/// so the Secure Enclave does not show a second prompt for the same login.
public struct BiometricEvaluation: Sendable {
    /// The enrolled-biometrics state the check saw (compared with the enrolment's).
    public let domainState: Data
    /// The platform's authenticated context, opaque to shared code; nil where there is none.
    public let authentication: (any Sendable)?

    public init(domainState: Data, authentication: (any Sendable)? = nil) {
        self.domainState = domainState
        self.authentication = authentication
    }
}

/// A software stand-in for platforms without biometrics (Linux, tests, the terminal
/// authenticator). Its enrolment state is kept in a file, so changing it is seen by
/// every process, as a changed fingerprint set would be.
public final class SoftwareBiometricGate: BiometricGate {
    private let stateFile: URL
    private let lock = Locked(())

    public init(stateFile: URL) { self.stateFile = stateFile }

    public func evaluate(reason: String) async throws -> Data {
        if let data = lock.withLock({ _ in FileManager.default.contents(atPath: stateFile.path) }), !data.isEmpty { return data }
        // The first evaluation writes the state: on a thread of its own (`BlockingWork`).
        return try await BlockingWork.run { [self] in
            try lock.withLock { _ in
                if let data = FileManager.default.contents(atPath: stateFile.path), !data.isEmpty { return data }
                let state = Data(UUID().uuidString.utf8)
                guard FileManager.default.createFile(atPath: stateFile.path, contents: state, attributes: [.posixPermissions: 0o600])
                else { throw TesseraKitError.biometricsUnavailable }
                return state
            }
        }
    }

    /// Simulates the user enrolling another finger or face: keys bound to the old
    /// state stop working. Written on a thread of its own (`BlockingWork`).
    public func simulateBiometricChange() async throws {
        try await BlockingWork.run { [self] in
            try lock.withLock { _ in
                guard FileManager.default.createFile(
                    atPath: stateFile.path, contents: Data(UUID().uuidString.utf8), attributes: [.posixPermissions: 0o600])
                else { throw TesseraKitError.biometricsUnavailable }
            }
        }
    }
}

#if canImport(LocalAuthentication)
import LocalAuthentication

/// An evaluated `LAContext`, carried through shared code to the key store.
final class EvaluatedContext: @unchecked Sendable {
    // Used only to hand to the Secure Enclave, after the evaluation finished.
    let context: LAContext
    init(_ context: LAContext) { self.context = context }
}

/// Face ID / Touch ID.
public struct PlatformBiometricGate: BiometricGate {
    public init() {}

    public func evaluate(reason: String) async throws -> Data {
        try await evaluation(reason: reason).domainState
    }

    /// One prompt; the context it passed goes along for the biometric key's signature.
    public func evaluation(reason: String) async throws -> BiometricEvaluation {
        let context = LAContext()
        var error: NSError?
        guard context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) else {
            throw TesseraKitError.biometricsUnavailable
        }
        do {
            _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: reason)
        } catch let error as LAError where [.userCancel, .appCancel, .systemCancel].contains(error.code) {
            // The user (or the system for them) closed the prompt: not the same as no biometrics.
            throw TesseraKitError.cancelled
        } catch {
            throw TesseraKitError.biometricsUnavailable
        }
        // The enrolled set's hash: `domainState` from iOS 18 and macOS 15, before that the
        // `evaluatedPolicyDomainState` it replaces (the same value).
        let hash: Data?
        if #available(iOS 18, macOS 15, *) {
            hash = context.domainState.biometry.stateHash
        } else {
            hash = context.evaluatedPolicyDomainState
        }
        guard let state = hash else { throw TesseraKitError.biometricsUnavailable }
        return BiometricEvaluation(domainState: state, authentication: EvaluatedContext(context))
    }

    /// The context has done its one signature: it releases the key to nothing else.
    public func finished(_ evaluation: BiometricEvaluation) {
        (evaluation.authentication as? EvaluatedContext)?.context.invalidate()
    }
}
#endif
