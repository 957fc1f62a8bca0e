import Foundation
import TesseraCore
import TesseraCrypto

/// Account processes: each is an authentication started for a purpose, signed and
/// finished like a login (a wrong factor counts against the same lockout), and then
/// completed once with the `AccountProcess` the result carried.
///
/// ```swift
/// var info = try await personalizer.startChangePin(activation: activation)
/// try info.sign(factor: DeviceFactor())
/// try info.sign(factor: PinFactor(oldPin))
/// guard case .apiAccessChangePin(let process) = try await personalizer.finish(info) else { … }
/// try await personalizer.finishChangePin(process, newPin: newPin)
/// ```
extension Personalizer {
    var authenticator: Authenticator { Authenticator(keyStore: keyStore, client: client, biometrics: biometrics, now: now) }
    var registry: ActivationRegistry { ActivationRegistry(keyStore: keyStore) }

    // MARK: Starting

    /// Enrol biometrics or a TOTP secret; also how biometrics are enrolled again after
    /// the platform's set changed (`TesseraKitError.biometricsChanged`).
    public func startAddAuthenticationFactor(_ type: FactorType, activation: Activation) async throws -> AuthenticationUserInformation {
        guard type == .biometric || type == .otp else {
            throw TesseraKitError.factorsDoNotMatchPolicy("only biometric and otp factors can be added")
        }
        return try await start(ProcessStartRequest(purpose: .addFactor, factor: type), activation: activation)
    }

    public func startChangePin(activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .changePin), activation: activation)
    }

    /// Activation data for moving to a new device.
    public func startRequestNewActivationData(activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .requestNewActivationData), activation: activation)
    }

    public func startDeletion(activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .delete), activation: activation)
    }

    public func startListDevices(activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .listDevices), activation: activation)
    }

    /// Remove another activation of the same account (a lost phone, say).
    public func startUnregisterDevice(_ target: ActivationID, activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .unregisterDevice, target: target), activation: activation)
    }

    /// The activation an invitation link could be merged into: the one on this device
    /// for the link's issuer, when the invitation is for another user and is not
    /// activation data for a new device. Nil when the link needs a fresh activation.
    public func mergeCandidate(for url: URL) async throws -> Activation? {
        let (issuer, code) = try DeviceLink.parse(url, endpoint: "activate", parameter: "code")
        let matching = try await registry.all().filter { $0.issuer == issuer }
        guard matching.count == 1, let activation = matching.first, let base = URL(string: issuer) else { return nil }
        let offer = try await client.post(
            base.appendingPathComponent("device/activation/start"), body: ActivationStartRequest(code: code), as: ActivationOffer.self)
        guard offer.mergeable != false, !activation.usernames.contains(offer.username) else { return nil }
        return activation
    }

    /// Merge an invitation into an existing activation instead of creating a second one;
    /// the result is `.apiAccessMergeComplete(idmIdentifier)`.
    public func startMerge(url: URL, into activation: Activation) async throws -> AuthenticationUserInformation {
        let (issuer, code) = try DeviceLink.parse(url, endpoint: "activate", parameter: "code")
        guard issuer == activation.issuer else { throw TesseraKitError.invalidLink("the invitation is for another issuer") }
        return try await start(ProcessStartRequest(purpose: .merge, code: code), activation: activation)
    }

    private func start(_ request: ProcessStartRequest, activation: Activation) async throws -> AuthenticationUserInformation {
        let current = try await registry.activation(id: activation.id)
        let path = "device/processes"
        let wire = try await authenticator.devicePost(current, path, body: request, as: AuthenticationChallenge.self)
        guard wire.audience == current.issuer, wire.purpose == request.purpose else {
            throw TesseraKitError.transport("the server answered for another process")
        }
        return AuthenticationUserInformation(wire, activation: current)
    }

    /// Submits the signed process; the case follows from its purpose (or is a lockout).
    public func finish(_ information: AuthenticationUserInformation) async throws -> AuthenticationResult {
        try await authenticator.finish(information)
    }

    // MARK: Completing

    public struct AddFactorResult: Sendable {
        public let activation: Activation
        /// The `otpauth://` URI of a new TOTP secret, to show once.
        public let otpProvisioningURI: String?
    }

    /// Enrols the factor the process was started for: a new biometric key (after the
    /// platform's biometrics are checked) or a new TOTP secret.
    public func finishAddFactor(_ process: AccountProcess) async throws -> AddFactorResult {
        try check(process, is: .addFactor)
        let activation = try await registry.activation(id: process.activation.id)
        guard let factor = process.description?.factor, factor == .biometric || factor == .otp else {
            throw TesseraKitError.transport("the process does not name a factor to add")
        }
        // The new key or secret is kept under new labels beside the old one until the
        // server has accepted it and the record points at it.
        var updated = activation
        let newLabels: [String]
        let oldLabels: [String]
        if factor == .biometric {
            updated.biometricGeneration = (activation.biometricGeneration ?? 0) + 1
            newLabels = [updated.biometricStateLabel, updated.biometricKeyLabel]
            oldLabels = [activation.biometricStateLabel, activation.biometricKeyLabel]
        } else {
            updated.totpGeneration = (activation.totpGeneration ?? 0) + 1
            newLabels = [updated.totpSecretLabel]
            oldLabels = [activation.totpSecretLabel]
        }
        var secret: Data?
        let saved: Activation
        do {
            let body: ProcessCompletionRequest
            if factor == .biometric {
                guard let biometrics else { throw TesseraKitError.biometricsUnavailable }
                let state = try await biometrics.evaluate(reason: "Enrol biometrics for \(activation.username)")
                try await keyStore.setItem(state, label: updated.biometricStateLabel)
                let key = try await keyStore.generateKey(label: updated.biometricKeyLabel, protection: .currentBiometrics)
                guard let deviceKey = try await keyStore.key(label: activation.deviceKeyLabel),
                    key.publicKey.rawRepresentation != deviceKey.publicKey.rawRepresentation
                else { throw TesseraKitError.keyStore("the biometric key is the device key, or the device key is missing") }
                let issuedAt = Int(now().timeIntervalSince1970)
                let claims = ProcessKeyClaims(
                    rid: process.requestID.rawValue, sub: activation.id.rawValue, aud: activation.issuer, iat: issuedAt,
                    exp: issuedAt + 120)
                let registration = try CompactJWS.sign(claims: claims, header: JWSHeader(typ: "tessera-key+jwt"), signer: key)
                body = ProcessCompletionRequest(biometricKey: key.publicJWK.wire, biometricRegistration: registration)
            } else {
                let fresh = TOTP.makeSecret()
                try await keyStore.setItem(fresh, label: updated.totpSecretLabel)
                secret = fresh
                body = ProcessCompletionRequest(totpSecret: Base64URL.encode(fresh))
            }
            let completion = try await complete(process, activation: activation, body: body)
            let factors = completion.factors ?? activation.factors
            let (biometricGeneration, totpGeneration) = (updated.biometricGeneration, updated.totpGeneration)
            saved = try await registry.update(activation.id) {
                $0.factors = factors
                $0.biometricGeneration = biometricGeneration
                $0.totpGeneration = totpGeneration
            }
        } catch {
            for label in newLabels { try? await keyStore.setItem(nil, label: label) }
            throw error
        }
        // The record points at the new key or secret now: the old one can go.
        for label in oldLabels where !newLabels.contains(label) { try? await keyStore.setItem(nil, label: label) }
        return AddFactorResult(
            activation: saved,
            otpProvisioningURI: secret.map { TOTP(secret: $0).provisioningURI(issuer: "Tessera \(activation.tenant)", account: activation.username) })
    }

    /// Sets the new PIN: the old one stops working at once.
    public func finishChangePin(_ process: AccountProcess, newPin: String) async throws {
        try check(process, is: .changePin)
        let (key, salt) = try newPinKey(newPin, process: process)
        let activation = try await registry.activation(id: process.activation.id)
        _ = try await complete(process, activation: activation, body: ProcessCompletionRequest(pinKey: key))
        _ = try await registry.update(activation.id) { $0.pinSalt = salt }
    }

    public struct NewActivationData: Sendable {
        /// The link for the new device (`{issuer}/activate?code=…`), usable once, with the new PIN.
        public let url: URL
        public let expiresAt: Date
    }

    /// Makes activation data for a new device, protected by the PIN the user chooses
    /// for it. With `retire`, this activation is removed once the new device activates.
    public func finishRequestNewActivationData(
        _ process: AccountProcess, newPin: String, alias: String? = nil, retire: Bool = false
    ) async throws -> NewActivationData {
        try check(process, is: .requestNewActivationData)
        let (key, _) = try newPinKey(newPin, process: process)
        let activation = try await registry.activation(id: process.activation.id)
        let completion = try await complete(
            process, activation: activation, body: ProcessCompletionRequest(pinKey: key, alias: alias, retire: retire))
        guard let text = completion.url, let url = URL(string: text), let expiresAt = completion.expiresAt else {
            throw TesseraKitError.transport("the server returned no activation link")
        }
        return NewActivationData(url: url, expiresAt: expiresAt)
    }

    /// Deletes this activation on the server, then its keys on this device.
    public func finishDeletion(_ process: AccountProcess) async throws {
        try check(process, is: .delete)
        let activation = try await registry.activation(id: process.activation.id)
        _ = try await complete(process, activation: activation, body: ProcessCompletionRequest())
        try await registry.remove(activation)
    }

    /// The activations of this account; `current` marks this device's.
    public func finishListDevices(_ process: AccountProcess) async throws -> [DeviceSummary] {
        try check(process, is: .listDevices)
        let activation = try await registry.activation(id: process.activation.id)
        return try await complete(process, activation: activation, body: ProcessCompletionRequest()).devices ?? []
    }

    /// Removes the other activation the process named; returns its id.
    public func finishUnregisterDevice(_ process: AccountProcess) async throws -> ActivationID {
        try check(process, is: .unregisterDevice)
        let activation = try await registry.activation(id: process.activation.id)
        let completion = try await complete(process, activation: activation, body: ProcessCompletionRequest())
        guard let removed = completion.removed else { throw TesseraKitError.transport("the server named no removed activation") }
        return removed
    }

    // MARK: History

    /// This activation's authentications, newest first.
    public func history(activation: Activation, limit: Int = 100) async throws -> [HistoryEntry] {
        let current = try await registry.activation(id: activation.id)
        let path = "device/history"
        guard let url = URL(string: current.issuer + "/" + path + "?limit=\(max(1, min(limit, 500)))") else {
            throw TesseraKitError.invalidLink("bad issuer")
        }
        return try await client.get(
            url, headers: ["Authorization": try await authenticator.deviceToken(current, method: "GET", path: path)],
            as: HistoryResponse.self
        ).entries
    }

    // MARK: Plumbing

    /// The PIN key of a new PIN under the salt the process brought (base64url), and that salt.
    private func newPinKey(_ pin: String, process: AccountProcess) throws -> (key: String, salt: String) {
        guard PinProof.isAcceptable(pin) else { throw TesseraKitError.unacceptablePIN }
        guard let saltText = process.pinSalt, let salt = Base64URL.decode(saltText) else {
            throw TesseraKitError.transport("the process carries no PIN salt")
        }
        return (Base64URL.encode(try PinProof.deriveKeyData(pin: pin, salt: salt)), saltText)
    }

    private func check(_ process: AccountProcess, is purpose: AuthenticationPurpose) throws {
        guard process.purpose == purpose else {
            throw TesseraKitError.wrongProcess("a \(process.purpose.rawValue) approval cannot complete \(purpose.rawValue)")
        }
    }

    private func complete(_ process: AccountProcess, activation: Activation, body: ProcessCompletionRequest) async throws
        -> ProcessCompletion
    {
        let path = "device/processes/\(process.requestID.rawValue)/complete"
        let completion = try await authenticator.devicePost(activation, path, body: body, as: ProcessCompletion.self)
        guard completion.purpose == process.purpose else { throw TesseraKitError.transport("the server completed another process") }
        return completion
    }
}
