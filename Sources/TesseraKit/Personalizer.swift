import Crypto
import Foundation
import TesseraCore
import TesseraCrypto

/// Binds this device to a user: creates the device key, enrols the PIN for checking
/// by the server, and optionally a biometric key and a TOTP secret.
///
/// ```swift
/// let personalizer = Personalizer(keyStore: try FileKeyStore(directory: storeURL))
/// let result = try await personalizer.activate(url: invitationURL, pin: "246810", alias: "Laptop")
/// ```
public struct Personalizer: Sendable {
    let keyStore: any KeyStore
    let client: ServerClient
    let biometrics: (any BiometricGate)?
    let now: @Sendable () -> Date

    /// Creates a personalizer over the key store that holds this device's activations. Pass
    /// a `biometrics` gate to enrol biometrics; `transport` and `now` replace the network and
    /// the clock (certificate pinning, proxies, tests).
    ///
    /// ```swift
    /// let store = try FileKeyStore(directory: storeURL)   // KeychainKeyStore() on Apple platforms
    /// let personalizer = Personalizer(keyStore: store, biometrics: SoftwareBiometricGate(stateFile: gateURL))
    /// let everyone = try await personalizer.activations()
    /// ```
    public init(
        keyStore: any KeyStore, transport: any HTTPTransport = URLSessionTransport(), biometrics: (any BiometricGate)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.keyStore = keyStore
        self.client = ServerClient(transport: transport)
        self.biometrics = biometrics
        self.now = now
    }

    /// What `activate(url:pin:alias:enrollBiometric:enrollOTP:)` returns: the new activation,
    /// and the provisioning URI of a TOTP secret when one was enrolled.
    public struct ActivationResult: Sendable {
        /// The activation just made, with the factors the server enrolled.
        public let activation: Activation
        /// The `otpauth://` URI of the enrolled TOTP secret, shown once so the user can
        /// add it to an authenticator app.
        public let otpProvisioningURI: String?
    }

    /// Activates this device with an invitation link (`{issuer}/activate?code=…`).
    ///
    /// Makes the device key, registers the PIN the user chose (the server keeps only a key
    /// derived from it) and, when asked, a biometric key and a TOTP secret. Nothing half-made
    /// stays in the key store when it fails. Call `mergeCandidate(for:)` first to offer a merge
    /// instead of a second activation for the same issuer.
    ///
    /// ```swift
    /// let result = try await personalizer.activate(
    ///     url: invitationURL, pin: newPIN, alias: "iPhone", enrollBiometric: true, enrollOTP: true)
    /// show(result.activation.factors)                          // what the server enrolled
    /// if let uri = result.otpProvisioningURI { show(uri) }     // once, for an authenticator app
    /// ```
    ///
    /// - Throws: `TesseraKitError.unacceptablePIN` for a PIN outside 4 to 64 characters,
    ///   `invalidLink` for a link the SDK does not understand, `biometricsUnavailable` when
    ///   `enrollBiometric` is set but no gate was given or the check fails, and `server` when
    ///   the server refuses the code (unknown, used or expired).
    public func activate(
        url: URL, pin: String, alias: String? = nil, enrollBiometric: Bool = false, enrollOTP: Bool = false
    ) async throws -> ActivationResult {
        try await activate(url: url, pin: pin, alias: alias, enrollBiometric: enrollBiometric, enrollOTP: enrollOTP, encryptingTo: nil)
    }

    /// `activate`, with the registration data sent as a JWE to the issuer's encryption key
    /// (`puk_idp_enc`, gematik profile); `IDPClient.registerDevice` calls it.
    public func activate(
        url: URL, pin: String, alias: String? = nil, enrollBiometric: Bool = false, enrollOTP: Bool = false,
        encryptingTo encryptionKey: (key: P256.KeyAgreement.PublicKey, id: String?)?
    ) async throws -> ActivationResult {
        guard PinProof.isAcceptable(pin) else { throw TesseraKitError.unacceptablePIN }
        let (issuer, code) = try DeviceLink.parse(url, endpoint: "activate", parameter: "code")
        guard let base = URL(string: issuer) else { throw TesseraKitError.invalidLink("bad issuer") }
        let offer = try await client.post(
            base.appendingPathComponent("device/activation/start"), body: ActivationStartRequest(code: code),
            as: ActivationOffer.self)
        guard offer.issuer == issuer, let salt = Base64URL.decode(offer.pinSalt) else {
            throw TesseraKitError.transport("the server's activation offer does not match the link")
        }

        let storageLabel = Secrets.randomToken(byteCount: 12).replacingOccurrences(of: "-", with: "x") + "."
        do {
            let deviceKey = try await keyStore.generateKey(label: storageLabel + "device", protection: .deviceBound)
            // Reads pending requests while the phone is locked; it approves nothing.
            let backgroundKey = try await keyStore.generateKey(label: storageLabel + "background", protection: .afterFirstUnlock)
            var biometricKey: (any P256Signer)?
            var biometricEvaluation: BiometricEvaluation?
            if enrollBiometric {
                guard let biometrics else { throw TesseraKitError.biometricsUnavailable }
                // One prompt: the new key signs its registration under the same check.
                let evaluation = try await biometrics.evaluation(reason: "Enrol biometrics for \(offer.username)")
                biometricEvaluation = evaluation
                let state = evaluation.domainState
                try await keyStore.setItem(state, label: storageLabel + "biometric-state")
                let key = try await keyStore.generateKey(label: storageLabel + "biometric", protection: .currentBiometrics, authenticatedBy: evaluation)
                // Biometrics are a second key; a key store that hands back the device key
                // would make them a copy of the first factor.
                guard key.publicKey.rawRepresentation != deviceKey.publicKey.rawRepresentation else {
                    throw TesseraKitError.keyStore("the biometric key is the device key")
                }
                biometricKey = key
            }
            var totpSecret: Data?
            if enrollOTP {
                let secret = TOTP.makeSecret()
                try await keyStore.setItem(secret, label: storageLabel + "totp")
                totpSecret = secret
            }
            let pinKey = try PinProof.deriveKeyData(pin: pin, salt: salt)
            let issuedAt = Int(now().timeIntervalSince1970)
            let registration = ActivationRegistration(
                code: code, aud: issuer, deviceKey: deviceKey.publicJWK, biometricKey: biometricKey?.publicJWK,
                pinKey: Base64URL.encode(pinKey), totpSecret: totpSecret.map { Base64URL.encode($0) }, alias: alias,
                iat: issuedAt, exp: issuedAt + 120, backgroundKey: backgroundKey.publicJWK)
            let payload = try WireCoding.encoder().encode(registration)
            let signed = try CompactJWS.sign(payload: payload, header: JWSHeader(typ: "tessera-registration+jwt"), signer: deviceKey)
            let biometricSigned = try biometricKey.map {
                try CompactJWS.sign(payload: payload, header: JWSHeader(typ: "tessera-registration+jwt"), signer: $0)
            }
            if let biometricEvaluation { biometrics?.finished(biometricEvaluation) }
            let receipt = try await client.post(
                base.appendingPathComponent("device/activation/complete"),
                body: ActivationCompleteRequest(registration: signed, biometricRegistration: biometricSigned),
                encryptingTo: encryptionKey, as: ActivationReceipt.self)
            let activation = Activation(
                id: receipt.activationID, issuer: receipt.issuer, tenant: receipt.tenant, userID: receipt.userID,
                username: receipt.username, alias: alias, factors: receipt.factors, createdAt: now(), pinSalt: offer.pinSalt,
                storageLabel: storageLabel, backgroundKeyGeneration: receipt.backgroundKey == true ? 0 : nil)
            try await ActivationRegistry(keyStore: keyStore).save(activation)
            // A server before background keys ignored it: the device keeps none.
            if !activation.hasBackgroundKey { try? await keyStore.setItem(nil, label: storageLabel + "background") }
            return ActivationResult(
                activation: activation,
                otpProvisioningURI: totpSecret.map {
                    TOTP(secret: $0).provisioningURI(issuer: "Tessera \(receipt.tenant)", account: receipt.username)
                })
        } catch {
            // Nothing half-made stays behind on the device.
            try? await keyStore.removeAll(withPrefix: storageLabel)
            throw error
        }
    }

    /// The activations on this device (the user list).
    ///
    /// Reads the key store only, oldest activation first.
    ///
    /// ```swift
    /// for activation in try await personalizer.activations() {
    ///     show("\(activation.usernames.joined(separator: ", ")) at \(activation.issuer)")
    /// }
    /// ```
    public func activations() async throws -> [Activation] {
        try await ActivationRegistry(keyStore: keyStore).all()
    }
}

