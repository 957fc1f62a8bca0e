import Crypto
import Foundation
import TesseraCore
import TesseraCrypto

/// Account processes: each is an authentication started for a purpose, signed and
/// finished like a login (a wrong factor counts against the same lockout), and then
/// completed once with the `AccountProcess` the result carried. Every `start…` call
/// throws `TesseraKitError.pendingLockout` while a lock from earlier attempts runs.
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

    /// Starts enrolling biometrics or a TOTP secret; also how biometrics are enrolled again after
    /// the platform's set changed (`TesseraKitError.biometricsChanged`).
    ///
    /// Only `.biometric` and `.otp` can be added (anything else throws
    /// `factorsDoNotMatchPolicy`); complete `.apiAccessAddFactor` with `finishAddFactor(_:)`.
    ///
    /// ```swift
    /// var info = try await personalizer.startAddAuthenticationFactor(.biometric, activation: activation)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(await askForPIN()))
    /// if case .apiAccessAddFactor(let process) = try await personalizer.finish(info) {
    ///     let added = try await personalizer.finishAddFactor(process)   // asks for biometrics
    ///     show(added.activation.factors)
    /// }
    /// ```
    public func startAddAuthenticationFactor(_ type: FactorType, activation: Activation) async throws -> AuthenticationUserInformation {
        guard type == .biometric || type == .otp || type == .securitykey else {
            throw TesseraKitError.factorsDoNotMatchPolicy("only biometric, otp and securitykey factors can be added")
        }
        return try await start(ProcessStartRequest(purpose: .addFactor, factor: type), activation: activation)
    }

    /// Starts a PIN change: sign it with the current factors (the old PIN among them) and
    /// `finish` it; complete `.apiAccessChangePin` with `finishChangePin(_:newPin:)`.
    ///
    /// ```swift
    /// var info = try await personalizer.startChangePin(activation: activation)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(oldPIN))
    /// if case .apiAccessChangePin(let process) = try await personalizer.finish(info) {
    ///     try await personalizer.finishChangePin(process, newPin: newPIN)
    /// }
    /// ```
    public func startChangePin(activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .changePin), activation: activation)
    }

    /// Starts making activation data (a one-time link) for moving to a new device.
    ///
    /// Complete `.apiAccessRequestNewActivationData` with
    /// `finishRequestNewActivationData(_:newPin:alias:retire:)`, which makes the link.
    ///
    /// ```swift
    /// var info = try await personalizer.startRequestNewActivationData(activation: activation)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(await askForPIN()))
    /// if case .apiAccessRequestNewActivationData(let process) = try await personalizer.finish(info) {
    ///     let data = try await personalizer.finishRequestNewActivationData(process, newPin: pinForNewDevice, retire: true)
    ///     show(data.url)   // as a QR code for the new device, until data.expiresAt
    /// }
    /// ```
    public func startRequestNewActivationData(activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .requestNewActivationData), activation: activation)
    }

    /// Starts deleting this activation, on the server and on this device; complete
    /// `.apiAccessDelete` with `finishDeletion(_:)`.
    ///
    /// ```swift
    /// var info = try await personalizer.startDeletion(activation: activation)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(await askForPIN()))
    /// if case .apiAccessDelete(let process) = try await personalizer.finish(info) {
    ///     try await personalizer.finishDeletion(process)
    /// }
    /// ```
    public func startDeletion(activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .delete), activation: activation)
    }

    /// Starts listing the account's activations (its devices); complete
    /// `.apiAccessListDevices` with `finishListDevices(_:)`.
    ///
    /// ```swift
    /// var info = try await personalizer.startListDevices(activation: activation)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(await askForPIN()))
    /// if case .apiAccessListDevices(let process) = try await personalizer.finish(info) {
    ///     let devices = try await personalizer.finishListDevices(process)   // `current` marks this device
    ///     show(devices.map { $0.alias ?? $0.activationID.rawValue })
    /// }
    /// ```
    public func startListDevices(activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .listDevices), activation: activation)
    }

    /// Starts giving this activation a background key (or a new one): a key kept in the
    /// after-first-unlock class that signs only the reading of pending requests and their
    /// state, so that the app sees a waiting request while the phone is locked. Activations
    /// made by this SDK have one from the start (`Activation.hasBackgroundKey`); older ones
    /// get theirs this way. Complete `.apiAccessBackgroundKey` with `finishBackgroundKey(_:)`.
    ///
    /// ```swift
    /// if !activation.hasBackgroundKey {
    ///     var info = try await personalizer.startBackgroundKey(activation: activation)
    ///     try info.sign(factor: DeviceFactor())
    ///     try info.sign(factor: PinFactor(await askForPIN()))
    ///     if case .apiAccessBackgroundKey(let process) = try await personalizer.finish(info) {
    ///         _ = try await personalizer.finishBackgroundKey(process)
    ///     }
    /// }
    /// ```
    public func startBackgroundKey(activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .backgroundKey), activation: activation)
    }

    /// Makes the new background key, registers it (the old one stops working) and returns the
    /// activation as it is now. Its record moves to the after-first-unlock class on the way.
    public func finishBackgroundKey(_ process: AccountProcess) async throws -> Activation {
        try check(process, is: .backgroundKey)
        let activation = try await registry.activation(id: process.activation.id)
        // The new key is kept under a new label beside the old one until the server has
        // accepted it and the record points at it.
        var updated = activation
        updated.backgroundKeyGeneration = activation.backgroundKeyGeneration.map { $0 + 1 } ?? 0
        let saved: Activation
        do {
            let key = try await keyStore.generateKey(label: updated.backgroundKeyLabel, protection: .afterFirstUnlock)
            _ = try await complete(process, activation: activation, body: ProcessCompletionRequest(backgroundKey: key.publicJWK))
            let generation = updated.backgroundKeyGeneration
            saved = try await registry.update(activation.id) { $0.backgroundKeyGeneration = generation }
        } catch {
            try? await keyStore.setItem(nil, label: updated.backgroundKeyLabel)
            throw error
        }
        if activation.hasBackgroundKey { try? await keyStore.setItem(nil, label: activation.backgroundKeyLabel) }
        return saved
    }

    /// Starts removing another activation of the same account (a lost phone, say).
    ///
    /// `target` is the other device's `DeviceSummary.activationID` from `finishListDevices(_:)`
    /// (this device goes with `startDeletion(activation:)`); complete
    /// `.apiAccessUnregisterDevice` with `finishUnregisterDevice(_:)`.
    ///
    /// ```swift
    /// var info = try await personalizer.startUnregisterDevice(lostPhone.activationID, activation: activation)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(await askForPIN()))
    /// if case .apiAccessUnregisterDevice(let process) = try await personalizer.finish(info) {
    ///     let removed = try await personalizer.finishUnregisterDevice(process)
    /// }
    /// ```
    public func startUnregisterDevice(_ target: ActivationID, activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .unregisterDevice, target: target), activation: activation)
    }

    /// The activation an invitation link could be merged into: the one on this device
    /// for the link's issuer, when the invitation is for another user and is not
    /// activation data for a new device. Nil when the link needs a fresh activation.
    ///
    /// When there is a candidate, it reads the invitation on the server without using it
    /// up (an unusable code throws the server's refusal).
    ///
    /// ```swift
    /// if let existing = try await personalizer.mergeCandidate(for: invitationURL) {
    ///     var info = try await personalizer.startMerge(url: invitationURL, into: existing)   // then sign and finish
    /// } else {
    ///     _ = try await personalizer.activate(url: invitationURL, pin: newPIN)
    /// }
    /// ```
    public func mergeCandidate(for url: URL) async throws -> Activation? {
        let (issuer, code) = try DeviceLink.parse(url, endpoint: "activate", parameter: "code")
        let matching = try await registry.all().filter { $0.issuer == issuer }
        guard matching.count == 1, let activation = matching.first, let base = URL(string: issuer) else { return nil }
        let offer = try await client.post(
            base.appendingPathComponent("device/activation/start"), body: ActivationStartRequest(code: code), as: ActivationOffer.self)
        guard offer.mergeable != false, !activation.usernames.contains(offer.username) else { return nil }
        return activation
    }

    /// Starts merging an invitation into an existing activation instead of creating a second one;
    /// the result is `.apiAccessMergeComplete(idmIdentifier)`.
    ///
    /// Sign it with the activation's factors: the merged user shares its keys and PIN.
    ///
    /// ```swift
    /// guard let existing = try await personalizer.mergeCandidate(for: invitationURL) else { return }
    /// var info = try await personalizer.startMerge(url: invitationURL, into: existing)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(await askForPIN()))
    /// if case .apiAccessMergeComplete(let userID) = try await personalizer.finish(info) { show("merged \(userID)") }
    /// ```
    public func startMerge(url: URL, into activation: Activation) async throws -> AuthenticationUserInformation {
        let (issuer, code) = try DeviceLink.parse(url, endpoint: "activate", parameter: "code")
        guard issuer == activation.issuer else { throw TesseraKitError.invalidLink("the invitation is for another issuer") }
        return try await start(ProcessStartRequest(purpose: .merge, code: code), activation: activation)
    }

    /// Starts making ten recovery codes for the account (where the tenant offers them): with
    /// one, the user gets a new activation after losing every device (`recover(issuer:username:code:)`).
    /// The old codes stop working. Complete `.apiAccessRecoveryCodes` with `finishRecoveryCodes(_:)`.
    ///
    /// ```swift
    /// var info = try await personalizer.startRecoveryCodes(activation: activation)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(await askForPIN()))
    /// if case .apiAccessRecoveryCodes(let process) = try await personalizer.finish(info) {
    ///     show(try await personalizer.finishRecoveryCodes(process))   // once: the server keeps digests
    /// }
    /// ```
    public func startRecoveryCodes(activation: Activation) async throws -> AuthenticationUserInformation {
        try await start(ProcessStartRequest(purpose: .recoveryCodes), activation: activation)
    }

    /// The ten new recovery codes, to be shown to the user this once.
    public func finishRecoveryCodes(_ process: AccountProcess) async throws -> [String] {
        try check(process, is: .recoveryCodes)
        let activation = try await registry.activation(id: process.activation.id)
        return try await complete(process, activation: activation, body: ProcessCompletionRequest()).recoveryCodes ?? []
    }

    /// Starts a recovery on a new device, for a user who lost every device: a recovery code
    /// of the user's. The answer says whether the activation link went by e-mail
    /// (`emailed`: open it, or scan its QR code, with `activate`) or an operator is to
    /// approve it (`awaiting_approval`: tell them the `recoveryID`, then ask with
    /// `recoveryStatus` until it is `approved` and carries the link).
    public func recover(issuer: URL, username: String, code: String) async throws -> RecoveryStatus {
        try await client.post(issuer.appendingPathComponent("recover"), body: RecoveryRequest(username: username, code: code), as: RecoveryStatus.self)
    }

    /// Where a recovery awaiting approval stands; once `approved` it carries the activation
    /// link (given once).
    public func recoveryStatus(issuer: URL, recoveryID: String, handle: String) async throws -> RecoveryStatus {
        try await client.post(
            issuer.appendingPathComponent("recover/\(recoveryID)"), body: ["handle": handle], as: RecoveryStatus.self)
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
    ///
    /// A wrong factor is a `.lockout` result, not an error; its second value is a fresh
    /// request to sign again once the lock has passed.
    ///
    /// ```swift
    /// switch try await personalizer.finish(info) {
    /// case .apiAccessChangePin(let process): try await personalizer.finishChangePin(process, newPin: newPIN)
    /// case .lockout(let lockout, _): show(lockout)   // lockout.lockedUntil, or lockout.isPermanent
    /// default: break
    /// }
    /// ```
    public func finish(_ information: AuthenticationUserInformation) async throws -> AuthenticationResult {
        try await authenticator.finish(information)
    }

    // MARK: Completing

    /// What `finishAddFactor(_:)` returns: the activation with its factors now, and the
    /// provisioning URI when a TOTP secret was added.
    public struct AddFactorResult: Sendable {
        /// The activation as it stands after the enrolment.
        public let activation: Activation
        /// The `otpauth://` URI of a new TOTP secret, to show once.
        public let otpProvisioningURI: String?
    }

    /// Enrols the factor the process was started for: a new biometric key (after the
    /// platform's biometrics are checked) or a new TOTP secret.
    ///
    /// The old key or secret is removed once the server has accepted the new one; on failure
    /// the old one stays in use. Throws `biometricsUnavailable` when no gate was given or the
    /// check fails, and `wrongProcess` for a process of another purpose.
    ///
    /// ```swift
    /// if case .apiAccessAddFactor(let process) = try await personalizer.finish(info) {
    ///     let added = try await personalizer.finishAddFactor(process)
    ///     if let uri = added.otpProvisioningURI { show(uri) }   // a new TOTP secret: show it once
    /// }
    /// ```
    public func finishAddFactor(_ process: AccountProcess) async throws -> AddFactorResult {
        try await finishAddFactor(process, securityKey: nil)
    }

    /// Enrols the factor the process was started for; a `securitykey` process registers a
    /// new credential on `securityKey` (a FIDO2 authenticator the app drives).
    ///
    /// ```swift
    /// if case .apiAccessAddFactor(let process) = try await personalizer.finish(info) {
    ///     let added = try await personalizer.finishAddFactor(process, securityKey: yubiKey, name: "Blue YubiKey")
    /// }
    /// ```
    public func finishAddFactor(_ process: AccountProcess, securityKey: (any SecurityKeyAuthenticator)?, name: String? = nil) async throws
        -> AddFactorResult
    {
        try check(process, is: .addFactor)
        let activation = try await registry.activation(id: process.activation.id)
        if process.description?.factor == .securitykey {
            guard let securityKey else { throw TesseraKitError.securityKey("adding a security key needs one to register") }
            return try await enrolSecurityKey(process, activation: activation, securityKey: securityKey, name: name)
        }
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
                // One prompt: the new key signs its registration under the same check.
                let evaluation = try await biometrics.evaluation(reason: "Enrol biometrics for \(activation.username)")
                let state = evaluation.domainState
                try await keyStore.setItem(state, label: updated.biometricStateLabel)
                let key = try await keyStore.generateKey(label: updated.biometricKeyLabel, protection: .currentBiometrics, authenticatedBy: evaluation)
                guard let deviceKey = try await keyStore.key(label: activation.deviceKeyLabel),
                    key.publicKey.rawRepresentation != deviceKey.publicKey.rawRepresentation
                else { throw TesseraKitError.keyStore("the biometric key is the device key, or the device key is missing") }
                let issuedAt = Int(now().timeIntervalSince1970)
                let claims = ProcessKeyClaims(
                    rid: process.requestID.rawValue, sub: activation.id.rawValue, aud: activation.issuer, iat: issuedAt,
                    exp: issuedAt + 120)
                let registration = try CompactJWS.sign(claims: claims, header: JWSHeader(typ: "tessera-key+jwt"), signer: key)
                biometrics.finished(evaluation)
                body = ProcessCompletionRequest(biometricKey: key.publicJWK, biometricRegistration: registration)
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

    /// Registers a new credential on `securityKey` with the options of the approved process
    /// (their challenge must be the one derived from the process) and completes it.
    private func enrolSecurityKey(
        _ process: AccountProcess, activation: Activation, securityKey: any SecurityKeyAuthenticator, name: String?
    ) async throws -> AddFactorResult {
        guard let options = process.securityKeyOptions, let origin = DeviceCeremony.origin(ofIssuer: activation.issuer),
            let userHandle = Base64URL.decode(options.user.id)
        else { throw TesseraKitError.transport("the approved process carries no security key options") }
        let challenge = DeviceCeremony.registrationChallenge(requestID: process.requestID.rawValue, audience: activation.issuer)
        guard options.challenge == Base64URL.encode(challenge) else {
            throw TesseraKitError.transport("the security key options are not for this process")
        }
        let clientData = DeviceCeremony.clientDataJSON(type: "webauthn.create", challenge: challenge, origin: origin)
        let made = try await securityKey.makeCredential(
            MakeCredentialRequest(
                clientDataHash: DeviceCeremony.clientDataHash(clientData), rpID: options.rp.id, userHandle: Array(userHandle),
                userName: options.user.name, algorithms: options.pubKeyCredParams.map(\.alg),
                excludeCredentialIDs: options.excludeCredentials.compactMap { Base64URL.decode($0.id).map(Array.init) },
                requireUserVerification: options.authenticatorSelection.userVerification == "required"))
        let credential = WebAuthnJSON.RegistrationCredential(
            id: Base64URL.encode(made.credentialID), rawId: Base64URL.encode(made.credentialID),
            response: .init(
                clientDataJSON: Base64URL.encode(clientData), attestationObject: Base64URL.encode(made.attestationObject),
                transports: made.transports))
        let completion = try await complete(
            process, activation: activation, body: ProcessCompletionRequest(securityKey: credential, securityKeyName: name))
        let factors = completion.factors ?? activation.factors
        let saved = try await registry.update(activation.id) { $0.factors = factors }
        return AddFactorResult(activation: saved, otpProvisioningURI: nil)
    }

    /// Sets the new PIN: the old one stops working at once.
    ///
    /// Throws `unacceptablePIN` for a PIN outside 4 to 64 characters, and `wrongProcess` for
    /// a process of another purpose.
    ///
    /// ```swift
    /// if case .apiAccessChangePin(let process) = try await personalizer.finish(info) {
    ///     try await personalizer.finishChangePin(process, newPin: newPIN)
    /// }
    /// ```
    public func finishChangePin(_ process: AccountProcess, newPin: String) async throws {
        try check(process, is: .changePin)
        let (key, salt) = try newPinKey(newPin, process: process)
        let activation = try await registry.activation(id: process.activation.id)
        _ = try await complete(process, activation: activation, body: ProcessCompletionRequest(pinKey: key))
        _ = try await registry.update(activation.id) { $0.pinSalt = salt }
    }

    /// Activation data for a new device, made by `finishRequestNewActivationData(_:newPin:alias:retire:)`.
    public struct NewActivationData: Sendable {
        /// The link for the new device (`{issuer}/activate?code=…`), usable once, with the new PIN.
        public let url: URL
        /// When the link stops working.
        public let expiresAt: Date
    }

    /// Makes activation data for a new device, protected by the PIN the user chooses
    /// for it. With `retire`, this activation is removed once the new device activates.
    ///
    /// `alias` names the new device. Throws `unacceptablePIN` for a PIN outside 4 to 64 characters.
    ///
    /// ```swift
    /// if case .apiAccessRequestNewActivationData(let process) = try await personalizer.finish(info) {
    ///     let data = try await personalizer.finishRequestNewActivationData(process, newPin: pinForNewDevice, alias: "iPad")
    ///     show(data.url)   // the new device activates with it and the new PIN
    /// }
    /// ```
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
    ///
    /// Afterwards the activation is gone from `activations()`, and its keys, items and
    /// single sign-on sessions from the key store (tokens a `TokenManager` keeps are not).
    ///
    /// ```swift
    /// if case .apiAccessDelete(let process) = try await personalizer.finish(info) {
    ///     try await personalizer.finishDeletion(process)
    /// }
    /// ```
    public func finishDeletion(_ process: AccountProcess) async throws {
        try check(process, is: .delete)
        let activation = try await registry.activation(id: process.activation.id)
        _ = try await complete(process, activation: activation, body: ProcessCompletionRequest())
        try await registry.remove(activation)
    }

    /// The activations of this account; `current` marks this device's.
    ///
    /// ```swift
    /// if case .apiAccessListDevices(let process) = try await personalizer.finish(info) {
    ///     let devices = try await personalizer.finishListDevices(process)
    ///     show(devices.filter { !$0.current })   // the others, e.g. to offer startUnregisterDevice
    /// }
    /// ```
    public func finishListDevices(_ process: AccountProcess) async throws -> [DeviceSummary] {
        try check(process, is: .listDevices)
        let activation = try await registry.activation(id: process.activation.id)
        return try await complete(process, activation: activation, body: ProcessCompletionRequest()).devices ?? []
    }

    /// Removes the other activation the process named; returns its id.
    ///
    /// ```swift
    /// if case .apiAccessUnregisterDevice(let process) = try await personalizer.finish(info) {
    ///     let removed = try await personalizer.finishUnregisterDevice(process)
    ///     show("removed \(removed)")
    /// }
    /// ```
    public func finishUnregisterDevice(_ process: AccountProcess) async throws -> ActivationID {
        try check(process, is: .unregisterDevice)
        let activation = try await registry.activation(id: process.activation.id)
        let completion = try await complete(process, activation: activation, body: ProcessCompletionRequest())
        guard let removed = completion.removed else { throw TesseraKitError.transport("the server named no removed activation") }
        return removed
    }

    // MARK: History

    /// This activation's authentications, newest first.
    ///
    /// Kept by the server, and asked for with the device's signature alone (no factors).
    /// `limit` is clamped to 1...500.
    ///
    /// ```swift
    /// for entry in try await personalizer.history(activation: activation, limit: 20) {
    ///     show("\(entry.at) \(entry.service ?? entry.purpose.rawValue): \(entry.outcome)")
    /// }
    /// ```
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
