import Crypto
import Foundation
import TesseraCore
import TesseraCrypto

/// What finishing an authentication led to; the case follows from the request's purpose.
public enum AuthenticationResult: Sendable {
    /// A browser or QR login succeeded.
    case userLogin(UserLoginResult)
    /// An in-app login was approved: get its code with `Authenticator.fetchAuthorizationCode`.
    case serviceLogin(ServiceLoginResult)
    /// A factor was wrong (which one is not disclosed). Wait for `lockedUntil`, then sign
    /// the fresh `AuthenticationUserInformation` again with all factors.
    case lockout(LockoutInformation, AuthenticationUserInformation)
    /// Approved: complete with `Personalizer.finishAddFactor`.
    case apiAccessAddFactor(AccountProcess)
    /// Approved: complete with `Personalizer.finishChangePin`.
    case apiAccessChangePin(AccountProcess)
    /// Approved: complete with `Personalizer.finishRequestNewActivationData`.
    case apiAccessRequestNewActivationData(AccountProcess)
    /// Approved: complete with `Personalizer.finishDeletion`.
    case apiAccessDelete(AccountProcess)
    /// The invitation was merged: this activation now also signs in as that user.
    case apiAccessMergeComplete(idmIdentifier: UserID)
    /// Approved: complete with `Personalizer.finishListDevices`.
    case apiAccessListDevices(AccountProcess)
    /// Approved: complete with `Personalizer.finishUnregisterDevice`.
    case apiAccessUnregisterDevice(AccountProcess)
    /// Approved: complete with `Personalizer.finishRecoveryCodes`.
    case apiAccessRecoveryCodes(AccountProcess)
    /// Approved: complete with `Personalizer.finishBackgroundKey`.
    case apiAccessBackgroundKey(AccountProcess)
}

/// An approved account process, to be completed once, by this activation, before
/// `expiresAt`.
public struct AccountProcess: Sendable {
    /// The request the process was approved under.
    public let requestID: RequestID
    /// What the process does; only the matching `finish…` call completes it (others throw `wrongProcess`).
    public let purpose: AuthenticationPurpose
    /// Complete the process before this time; the server refuses it afterwards.
    public let expiresAt: Date
    /// What the process will do, as the server describes it (the factor to add, the device to remove).
    public let description: ProcessDescription?
    /// The activation the process belongs to, which completes it.
    public let activation: Activation
    let pinSalt: String?
    /// For adding a security key: what to create the credential with.
    var securityKeyOptions: WebAuthnJSON.CreationOptions? = nil
}

/// A browser, QR-code or step-up login that succeeded, as `AuthenticationResult.userLogin` reports it.
public struct UserLoginResult: Sendable {
    /// The service the user signed in to.
    public let service: ServiceInformation
    /// The user who signed in (one of the activation's users).
    public let username: String
    /// The factors the login was signed with.
    public let factors: [FactorType]
    /// When the server accepted the factors.
    public let authenticatedAt: Date
    /// The service role the factors were used in (XignSys's `roleName`), when the service has roles.
    public let role: String?
    /// The user as the service knows them (its `sub`: the user's id, or a pairwise id).
    public let subject: String?
    /// The attributes the user confirmed to the service, with their values.
    public let attributes: [String: String]
    /// For a step-up (backchannel) request of a service that allows it: an ID token
    /// asserting this authentication, naming the request in `auth_req_id`, for the app to
    /// hand to its server, which verifies it offline with the issuer's JWKS (VeridiumID's
    /// `identityToken`).
    public let identityToken: String?
}

/// Runs authentications on this device: claim a request from a link, sign it with
/// factors, finish it.
///
/// ```swift
/// var info = try await authenticator.start(url: scannedURL)
/// try info.sign(factor: DeviceFactor())
/// try info.sign(factor: PinFactor(pin))
/// switch try await authenticator.finish(info) { … }
/// ```
public struct Authenticator: Sendable {
    let keyStore: any KeyStore
    let client: ServerClient
    let biometrics: (any BiometricGate)?
    let now: @Sendable () -> Date
    var registry: ActivationRegistry { ActivationRegistry(keyStore: keyStore) }

    /// Creates an authenticator over the key store that holds this device's activations (the
    /// one the `Personalizer` activated with). Pass the `biometrics` gate used at enrolment to
    /// offer the biometric factor; `transport` and `now` replace the network and the clock.
    ///
    /// ```swift
    /// let store = try FileKeyStore(directory: storeURL)   // KeychainKeyStore() on Apple platforms
    /// let authenticator = Authenticator(keyStore: store, biometrics: SoftwareBiometricGate(stateFile: gateURL))
    /// var info = try await authenticator.start(url: scannedURL)
    /// ```
    public init(
        keyStore: any KeyStore, transport: any HTTPTransport = URLSessionTransport(), biometrics: (any BiometricGate)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(keyStore: keyStore, client: ServerClient(transport: transport), biometrics: biometrics, now: now)
    }

    init(keyStore: any KeyStore, client: ServerClient, biometrics: (any BiometricGate)?, now: @escaping @Sendable () -> Date) {
        self.keyStore = keyStore
        self.client = client
        self.biometrics = biometrics
        self.now = now
    }

    /// Claims the request behind an authentication link (a scanned QR code or a deep link).
    ///
    /// The answer says who asks, for what and from where (`service`, `requestedAttributes`,
    /// `origin`, `numberChoices`): show it before asking for factors. `username` picks one
    /// of the users merged into the activation.
    ///
    /// ```swift
    /// var info = try await authenticator.start(url: scannedURL)
    /// show(info)   // and let the user drop attributes from info.confirmedAttributes
    /// if !info.numberChoices.isEmpty { try info.pickNumber(await numberTheUserPicks(info.numberChoices)) }
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(await askForPIN()))
    /// let result = try await authenticator.finish(info)
    /// ```
    ///
    /// - Throws: `TesseraKitError.invalidLink` for a link the SDK does not understand,
    ///   `noActivation` when no activation belongs to the link's issuer, `severalActivations`
    ///   when the user must be named, and `pendingLockout` while a lock from earlier attempts runs.
    public func start(url: URL, username: String? = nil) async throws -> AuthenticationUserInformation {
        let (issuer, requestID) = try DeviceLink.parse(url, endpoint: "authenticate", parameter: "request")
        let (activation, linked) = try await registry.find(issuer: issuer, username: username)
        return try await claim(requestID, activation: activation, userID: linked?.userID)
    }

    /// Claims a request for the activation (as `userID`, one of its merged users, when
    /// given), checking that the answer is for this request and issuer.
    func claim(_ requestID: String, activation: Activation, userID: UserID? = nil) async throws -> AuthenticationUserInformation {
        let path = "device/authentications/\(requestID)/claim"
        let wire = try await devicePost(activation, path, body: ClaimRequest(userID: userID), as: AuthenticationChallenge.self)
        guard wire.audience == activation.issuer, wire.requestID.rawValue == requestID else {
            throw TesseraKitError.transport("the server answered for another request")
        }
        return AuthenticationUserInformation(wire, activation: activation)
    }

    /// Checks the platform biometrics and returns the factor, or throws
    /// `biometricsChanged` when the enrolled biometrics are not those of enrolment.
    ///
    /// `reason` is the text of the platform's prompt. Throws `biometricsUnavailable` when the
    /// activation has no biometric factor, the authenticator has no gate, or the user cancels.
    ///
    /// ```swift
    /// do {
    ///     try info.sign(factor: try await authenticator.biometricFactor(for: info, reason: "Sign in"))
    /// } catch TesseraKitError.biometricsChanged {
    ///     // pick another combination, or enrol again: startAddAuthenticationFactor(.biometric, activation:)
    /// }
    /// ```
    public func biometricFactor(for information: AuthenticationUserInformation, reason: String) async throws -> BiometricFactor {
        let activation = information.activation
        guard activation.factors.contains(.biometric), let biometrics,
            let enrolled = try await keyStore.item(label: activation.biometricStateLabel)
        else { throw TesseraKitError.biometricsUnavailable }
        // The one prompt of the login: its context goes with the factor to the key's signature.
        let current = try await biometrics.evaluation(reason: reason)
        guard Secrets.constantTimeEquals(current.domainState, enrolled) else { throw TesseraKitError.biometricsChanged }
        return BiometricFactor(activationID: activation.id, evaluation: current)
    }

    /// The current TOTP code from the secret this device enrolled, for devices that act
    /// as their own authenticator app (the terminal authenticator).
    ///
    /// An app whose user reads the code from another app passes `OtpFactor(code:)` instead.
    /// Throws `keyStore` when this device holds no TOTP secret.
    ///
    /// ```swift
    /// var info = try await authenticator.start(url: scannedURL)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: try await authenticator.currentOtpFactor(for: info))
    /// ```
    public func currentOtpFactor(for information: AuthenticationUserInformation) async throws -> OtpFactor {
        guard let secret = try await keyStore.item(label: information.activation.totpSecretLabel) else {
            throw TesseraKitError.keyStore("no TOTP secret on this device")
        }
        return OtpFactor(code: TOTP(secret: secret).code(at: now()))
    }

    /// Submits the signed request: one JWS by the device key carrying every factor's proof.
    ///
    /// The result's case follows from the request: a login, an approved account process, or a
    /// lockout. A wrong factor is a `.lockout` result, not an error; its second value is a
    /// fresh request (no factors, the same confirmed attributes and number) to sign again once
    /// `lockedUntil` has passed.
    ///
    /// ```swift
    /// switch try await authenticator.finish(info) {
    /// case .userLogin(let login): show("signed in to \(login.service.name)")
    /// case .lockout(let lockout, let retry): show(lockout)   // sign `retry` again later, unless permanent
    /// default: break                                          // in-app logins and account processes
    /// }
    /// ```
    ///
    /// - Throws: `TesseraKitError.factorsDoNotMatchPolicy` when the factors are not one of
    ///   `requestedAuthenticators`, `numberNotPicked` when the request asks for number matching
    ///   and no number was picked.
    public func finish(_ information: AuthenticationUserInformation) async throws -> AuthenticationResult {
        try await finish(information, encryptingTo: nil, keyID: nil)
    }

    /// `finish`, with the signed answer sent as a JWE to the issuer's encryption key
    /// (`puk_idp_enc`), as a service of the gematik profile requires; `IDPClient.verify`
    /// calls it with the key of the discovery document.
    public func finish(
        _ information: AuthenticationUserInformation, encryptingTo encryptionKey: P256.KeyAgreement.PublicKey?, keyID: String?
    ) async throws -> AuthenticationResult {
        let activation = information.activation
        let chosen = Set(information.factors.map(\.type))
        guard information.requestedAuthenticators.contains(where: { Set($0) == chosen }) else {
            throw TesseraKitError.factorsDoNotMatchPolicy(
                "the supplied factors (\(chosen.sorted().map(\.rawValue).joined(separator: "+"))) are not one of the requested combinations")
        }
        var pinProof: String?
        var otp: String?
        var biometricEvaluation: BiometricEvaluation?
        var usesBiometric = false
        var securityKeyAssertion: WebAuthnJSON.AssertionCredential?
        for factor in information.factors {
            switch factor {
            case let key as SecurityKeyFactor:
                securityKeyAssertion = key.assertion
            case let pin as PinFactor:
                guard let salt = Base64URL.decode(activation.pinSalt) else { throw TesseraKitError.keyStore("damaged PIN salt") }
                let key = try PinProof.deriveKeyData(pin: pin.pin, salt: salt)
                pinProof = Base64URL.encode(
                    PinProof.proof(keyData: key, requestID: information.requestID.rawValue, challenge: information.challenge.rawValue))
            case let code as OtpFactor:
                otp = code.code
            case let biometric as BiometricFactor:
                guard biometric.activationID == activation.id else {
                    throw TesseraKitError.factorsDoNotMatchPolicy("the biometric factor belongs to another activation")
                }
                usesBiometric = true
                biometricEvaluation = biometric.evaluation
            default:
                break
            }
        }
        guard information.numberChoices.isEmpty || information.pickedNumber != nil else {
            throw TesseraKitError.numberNotPicked("pick the number the sign-in page shows among \(information.numberChoices.joined(separator: ", "))")
        }
        let issuedAt = Int(now().timeIntervalSince1970)
        let claims = AuthenticationProofClaims(
            rid: information.requestID.rawValue, chal: information.challenge.rawValue, aud: information.audience,
            sub: activation.id.rawValue, comb: chosen.sorted(), attrs: information.confirmedAttributes.sorted(), pin: pinProof,
            otp: otp, match: information.pickedNumber, sk: securityKeyAssertion, iat: issuedAt, exp: issuedAt + 120,
            jti: Secrets.randomToken(byteCount: 16))
        let payload = try WireCoding.encoder().encode(claims)
        let header = JWSHeader(typ: "tessera-proof+jwt", kid: activation.id.rawValue)
        let proof = try CompactJWS.sign(payload: payload, header: header, signer: try await registry.signer(activation.deviceKeyLabel))
        let biometricProof =
            usesBiometric
            ? try CompactJWS.sign(
                payload: payload, header: header,
                signer: try await registry.signer(activation.biometricKeyLabel, authenticatedBy: biometricEvaluation))
            : nil
        // The check released the key for this one proof.
        if let biometricEvaluation { biometrics?.finished(biometricEvaluation) }
        let path = "device/authentications/\(information.requestID.rawValue)/finish"
        let response = try await client.post(
            try endpoint(activation, path), body: FinishRequest(proof: proof, biometricProof: biometricProof),
            encryptingTo: encryptionKey.map { ($0, keyID) }, as: FinishResponse.self)
        let process = response.process.map {
            AccountProcess(
                requestID: $0.requestID, purpose: $0.purpose, expiresAt: $0.expiresAt, description: $0.description,
                activation: activation, pinSalt: $0.pinSalt, securityKeyOptions: $0.securityKey)
        }
        guard (response.result == .userLogin && information.purpose == .login && !information.inApp)
            || (response.result == .serviceLogin && information.inApp) || response.result == .lockout
            || (response.result == .apiAccessMergeComplete && information.purpose == .merge)
            || (process?.purpose == information.purpose && process?.requestID == information.requestID)
        else { throw TesseraKitError.transport("the server's result does not match the request") }
        switch response.result {
        case .apiAccessAddFactor: return .apiAccessAddFactor(try process.unwrapped())
        case .apiAccessChangePin: return .apiAccessChangePin(try process.unwrapped())
        case .apiAccessRequestNewActivationData: return .apiAccessRequestNewActivationData(try process.unwrapped())
        case .apiAccessDelete: return .apiAccessDelete(try process.unwrapped())
        case .apiAccessListDevices: return .apiAccessListDevices(try process.unwrapped())
        case .apiAccessUnregisterDevice: return .apiAccessUnregisterDevice(try process.unwrapped())
        case .apiAccessRecoveryCodes: return .apiAccessRecoveryCodes(try process.unwrapped())
        case .apiAccessBackgroundKey: return .apiAccessBackgroundKey(try process.unwrapped())
        case .apiAccessMergeComplete:
            guard let merged = response.merged else { throw TesseraKitError.transport("merge result without details") }
            let user = LinkedUser(userID: merged.idmIdentifier, username: merged.username)
            _ = try await registry.update(activation.id) { $0.linkedUsers = ($0.linkedUsers ?? []) + [user] }
            return .apiAccessMergeComplete(idmIdentifier: merged.idmIdentifier)
        case .serviceLogin:
            guard let login = response.login else { throw TesseraKitError.transport("login result without details") }
            try await keepSingleSignOn(login, activation: activation)
            return .serviceLogin(
                ServiceLoginResult(
                    requestID: information.requestID, service: login.service, username: login.username, factors: login.factors,
                    authenticatedAt: login.authenticatedAt, activation: activation, role: login.role, subject: login.subject,
                    attributes: login.attributes ?? [:]))
        case .userLogin:
            guard let login = response.login else { throw TesseraKitError.transport("login result without details") }
            try await keepSingleSignOn(login, activation: activation)
            return .userLogin(
                UserLoginResult(
                    service: login.service, username: login.username, factors: login.factors, authenticatedAt: login.authenticatedAt,
                    role: login.role, subject: login.subject, attributes: login.attributes ?? [:], identityToken: login.identityToken))
        case .lockout:
            guard let lockout = response.lockout, let fresh = response.userInformation else {
                throw TesseraKitError.transport("lockout result without details")
            }
            var retry = AuthenticationUserInformation(fresh, activation: activation)
            retry.confirmedAttributes = information.confirmedAttributes
            retry.inApp = information.inApp
            // The request's numbers stay the same: so does the user's pick.
            if let picked = information.pickedNumber, retry.numberChoices == information.numberChoices {
                try retry.pickNumber(picked)
            }
            return .lockout(lockout, retry)
        }
    }

    /// Declines the request: the browser that started it is told so.
    ///
    /// Call it instead of `finish` when the user does not recognise the request.
    ///
    /// ```swift
    /// let info = try await authenticator.start(url: scannedURL)
    /// guard await userApproves(info) else {
    ///     return try await authenticator.deny(info)   // the sign-in page shows the login was declined
    /// }
    /// ```
    public func deny(_ information: AuthenticationUserInformation) async throws {
        let activation = information.activation
        let path = "device/authentications/\(information.requestID.rawValue)/deny"
        _ = try await devicePost(activation, path, body: EmptyBody(), as: [String: String].self)
    }

    /// A POST the activation signs with a device token for exactly this call.
    func devicePost<Response: Decodable>(
        _ activation: Activation, _ path: String, body: some Encodable, as type: Response.Type
    ) async throws -> Response {
        try await client.post(
            try endpoint(activation, path), body: body,
            headers: ["Authorization": try await deviceToken(activation, method: "POST", path: path)], as: type)
    }

    /// A GET that only reads pending requests or their state: signed by the activation's
    /// background key where it has one, so that it works while the phone is locked.
    ///
    /// Callers that hold an activation for long (a long poll, a kept `PendingAuthentication`)
    /// pass its record as it is now (`registry.current`): a rotation since changed the key.
    /// Where the server does not know the background key (a server from before background
    /// keys, a rotation whose answer was lost) or the key is missing, the device key signs
    /// instead, which works while the phone is unlocked.
    func readingGet<Response: Decodable>(
        _ current: Activation, _ path: String, query: String = "", timeout: TimeInterval = 0, as type: Response.Type
    ) async throws -> Response {
        let url = try endpoint(current, path + query)
        var refusal: TesseraKitError?
        if current.hasBackgroundKey {
            do {
                let token = try await deviceToken(
                    current, method: "GET", path: path, type: "tessera-background+jwt", key: current.backgroundKeyLabel)
                return try await client.get(url, headers: ["Authorization": token], timeout: timeout, as: type)
            } catch TesseraKitError.server(let status, let error, let description) where status == 401 {
                refusal = .server(status: status, error: error, description: description)
            } catch TesseraKitError.keyStore {
            }
        }
        do {
            let token = try await deviceToken(current, method: "GET", path: path)
            return try await client.get(url, headers: ["Authorization": token], timeout: timeout, as: type)
        } catch TesseraKitError.deviceLocked {
            // Locked, the server's refusal is the news (a revoked activation, say), not the lock.
            throw refusal ?? .deviceLocked
        }
    }

    func endpoint(_ activation: Activation, _ path: String) throws -> URL {
        guard let url = URL(string: activation.issuer + "/" + path) else { throw TesseraKitError.invalidLink("bad issuer") }
        return url
    }

    /// A one-minute, single-use token signed by the device key (or, for a background
    /// token, the background key) for one call.
    func deviceToken(
        _ activation: Activation, method: String, path: String, type: String = "tessera-device+jwt", key: String? = nil
    ) async throws -> String {
        guard let url = URL(string: activation.issuer + "/" + path) else { throw TesseraKitError.invalidLink("bad issuer") }
        let issuedAt = Int(now().timeIntervalSince1970)
        let claims = DeviceRequestClaims(
            sub: activation.id.rawValue, aud: activation.issuer, htm: method, htu: url.path, iat: issuedAt, exp: issuedAt + 60,
            jti: Secrets.randomToken(byteCount: 16))
        let token = try CompactJWS.sign(
            claims: claims, header: JWSHeader(typ: type, kid: activation.id.rawValue),
            signer: try await registry.signer(key ?? activation.deviceKeyLabel))
        return "Tessera-Device " + token
    }
}

extension Optional where Wrapped == AccountProcess {
    func unwrapped() throws -> AccountProcess {
        guard let self else { throw TesseraKitError.transport("process result without details") }
        return self
    }
}
