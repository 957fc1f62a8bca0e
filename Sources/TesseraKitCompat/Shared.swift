import Foundation
import TesseraCore
import TesseraKit

/// One SDK for the whole app, as `XignSdk.shared` is: configure it once at launch, then
/// reach its parts from anywhere.
///
/// ```swift
/// TesseraKitShared.shared.configure(keyStore: KeychainKeyStore(service: "com.example.app"), biometrics: PlatformBiometricGate())
/// let activations = try await TesseraKitShared.shared.personalizer.activations()
/// ```
public final class TesseraKitShared: Sendable {
    public static let shared = TesseraKitShared()

    /// What `configure` made.
    private struct Parts {
        let personalizer: Personalizer
        let authenticator: Authenticator
        let tokens: TokenManager
    }
    private let parts = Locked<Parts?>(nil)

    /// For tests and apps that want more than one; most use `shared`.
    public init() {}

    /// Sets the key store, network, biometric check and token binding every part uses.
    /// Configuring again replaces them (parts handed out before keep the old ones).
    public func configure(
        keyStore: any KeyStore, transport: any HTTPTransport = URLSessionTransport(), biometrics: (any BiometricGate)? = nil, dpop: Bool = true
    ) {
        let made = Parts(
            personalizer: Personalizer(keyStore: keyStore, transport: transport, biometrics: biometrics),
            authenticator: Authenticator(keyStore: keyStore, transport: transport, biometrics: biometrics),
            tokens: TokenManager(keyStore: keyStore, transport: transport, dpop: dpop))
        parts.withLock { $0 = made }
    }

    public var isConfigured: Bool { current != nil }

    /// Activation and account processes. Configure first: before, it stops the app (a programming error).
    public var personalizer: Personalizer { required.personalizer }
    /// Logins, pending requests, step-up.
    public var authenticator: Authenticator { required.authenticator }
    /// The app's own tokens.
    public var tokens: TokenManager { required.tokens }

    private var current: Parts? { parts.withLock { $0 } }

    private var required: Parts {
        guard let current else { preconditionFailure("call TesseraKitShared.shared.configure(keyStore:…) before using it") }
        return current
    }
}
