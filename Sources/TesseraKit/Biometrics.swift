import Foundation
import Synchronization

/// The platform's biometric check. `evaluate` asks the user and returns an opaque
/// value that changes whenever the set of enrolled biometrics changes (on Apple
/// platforms `LAContext.evaluatedPolicyDomainState`).
public protocol BiometricGate: Sendable {
    func evaluate(reason: String) async throws -> Data
}

/// A software stand-in for platforms without biometrics (Linux, tests, the terminal
/// authenticator). Its enrolment state is kept in a file, so changing it is seen by
/// every process, as a changed fingerprint set would be.
public final class SoftwareBiometricGate: BiometricGate {
    private let stateFile: URL
    private let lock = Mutex(())

    public init(stateFile: URL) { self.stateFile = stateFile }

    public func evaluate(reason: String) async throws -> Data {
        try lock.withLock { _ in
            if let data = FileManager.default.contents(atPath: stateFile.path), !data.isEmpty { return data }
            let state = Data(UUID().uuidString.utf8)
            guard FileManager.default.createFile(atPath: stateFile.path, contents: state, attributes: [.posixPermissions: 0o600]) else {
                throw TesseraKitError.biometricsUnavailable
            }
            return state
        }
    }

    /// Simulates the user enrolling another finger or face: keys bound to the old
    /// state stop working.
    public func simulateBiometricChange() throws {
        try lock.withLock { _ in
            guard FileManager.default.createFile(
                atPath: stateFile.path, contents: Data(UUID().uuidString.utf8), attributes: [.posixPermissions: 0o600])
            else { throw TesseraKitError.biometricsUnavailable }
        }
    }
}

#if canImport(LocalAuthentication)
import LocalAuthentication

/// Face ID / Touch ID.
public struct PlatformBiometricGate: BiometricGate {
    public init() {}

    public func evaluate(reason: String) async throws -> Data {
        let context = LAContext()
        var error: NSError?
        guard context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) else {
            throw TesseraKitError.biometricsUnavailable
        }
        do {
            _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: reason)
        } catch {
            throw TesseraKitError.biometricsUnavailable
        }
        guard let state = context.evaluatedPolicyDomainState else { throw TesseraKitError.biometricsUnavailable }
        return state
    }
}
#endif
