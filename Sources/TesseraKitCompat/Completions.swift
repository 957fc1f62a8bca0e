// Written by scripts/compat_completions.py from TesseraKit's public async calls: do not edit.
import Crypto
import Foundation
import TesseraCore
import TesseraKit

extension Authenticator {
    /// `start` for code that takes a completion handler: it is called once, on no particular thread.
    public func start(url: URL, username: String? = nil, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.start(url: url, username: username) }) }
    }

    /// `biometricFactor` for code that takes a completion handler: it is called once, on no particular thread.
    public func biometricFactor(for information: AuthenticationUserInformation, reason: String, completion: @escaping @Sendable (Result<BiometricFactor, any Error>) -> Void) {
        Task { completion(await Result { try await self.biometricFactor(for: information, reason: reason) }) }
    }

    /// `currentOtpFactor` for code that takes a completion handler: it is called once, on no particular thread.
    public func currentOtpFactor(for information: AuthenticationUserInformation, completion: @escaping @Sendable (Result<OtpFactor, any Error>) -> Void) {
        Task { completion(await Result { try await self.currentOtpFactor(for: information) }) }
    }

    /// `finish` for code that takes a completion handler: it is called once, on no particular thread.
    public func finish(_ information: AuthenticationUserInformation, completion: @escaping @Sendable (Result<AuthenticationResult, any Error>) -> Void) {
        Task { completion(await Result { try await self.finish(information) }) }
    }

    /// `finish` for code that takes a completion handler: it is called once, on no particular thread.
    public func finish(_ information: AuthenticationUserInformation, encryptingTo encryptionKey: P256.KeyAgreement.PublicKey?, keyID: String?, completion: @escaping @Sendable (Result<AuthenticationResult, any Error>) -> Void) {
        Task { completion(await Result { try await self.finish(information, encryptingTo: encryptionKey, keyID: keyID) }) }
    }

    /// `deny` for code that takes a completion handler: it is called once, on no particular thread.
    public func deny(_ information: AuthenticationUserInformation, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        Task { completion(await Result { try await self.deny(information) }) }
    }

    /// `fetchInAppAuthenticationInitializationData` for code that takes a completion handler: it is called once, on no particular thread.
    public func fetchInAppAuthenticationInitializationData(_ request: InAppAuthenticationRequest, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.fetchInAppAuthenticationInitializationData(request) }) }
    }

    /// `fetchAuthorizationCode` for code that takes a completion handler: it is called once, on no particular thread.
    public func fetchAuthorizationCode(_ result: ServiceLoginResult, completion: @escaping @Sendable (Result<AuthorizationCode, any Error>) -> Void) {
        Task { completion(await Result { try await self.fetchAuthorizationCode(result) }) }
    }

    /// `pendingRequests` for code that takes a completion handler: it is called once, on no particular thread.
    public func pendingRequests(completion: @escaping @Sendable (Result<[PendingAuthentication], any Error>) -> Void) {
        Task { completion(await Result { try await self.pendingRequests() }) }
    }

    /// `start` for code that takes a completion handler: it is called once, on no particular thread.
    public func start(pending: PendingAuthentication, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.start(pending: pending) }) }
    }

    /// `authenticate` for code that takes a completion handler: it is called once, on no particular thread.
    public func authenticate(sessionID: String, issuer: String? = nil, completion: @escaping @Sendable (Result<StepUpStart, any Error>) -> Void) {
        Task { completion(await Result { try await self.authenticate(sessionID: sessionID, issuer: issuer) }) }
    }

    /// `deny` for code that takes a completion handler: it is called once, on no particular thread.
    public func deny(pending: PendingAuthentication, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        Task { completion(await Result { try await self.deny(pending: pending) }) }
    }

    /// `status` for code that takes a completion handler: it is called once, on no particular thread.
    public func status(of pending: PendingAuthentication, completion: @escaping @Sendable (Result<PendingRequestStatus, any Error>) -> Void) {
        Task { completion(await Result { try await self.status(of: pending) }) }
    }

    /// `registerPush` for code that takes a completion handler: it is called once, on no particular thread.
    public func registerPush(kind: String, token: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        Task { completion(await Result { try await self.registerPush(kind: kind, token: token) }) }
    }

    /// `unregisterPush` for code that takes a completion handler: it is called once, on no particular thread.
    public func unregisterPush(completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        Task { completion(await Result { try await self.unregisterPush() }) }
    }

    /// `singleSignOnSession` for code that takes a completion handler: it is called once, on no particular thread.
    public func singleSignOnSession(issuer: String? = nil, username: String? = nil, completion: @escaping @Sendable (Result<SingleSignOnSession?, any Error>) -> Void) {
        Task { completion(await Result { try await self.singleSignOnSession(issuer: issuer, username: username) }) }
    }

    /// `fetchAuthorizationCode` for code that takes a completion handler: it is called once, on no particular thread.
    public func fetchAuthorizationCode(singleSignOn request: InAppAuthenticationRequest, attributes: [String] = [], completion: @escaping @Sendable (Result<AuthorizationCode, any Error>) -> Void) {
        Task { completion(await Result { try await self.fetchAuthorizationCode(singleSignOn: request, attributes: attributes) }) }
    }

    /// `securityKeyFactor` for code that takes a completion handler: it is called once, on no particular thread.
    public func securityKeyFactor(for information: AuthenticationUserInformation, using securityKey: any SecurityKeyAuthenticator, completion: @escaping @Sendable (Result<SecurityKeyFactor, any Error>) -> Void) {
        Task { completion(await Result { try await self.securityKeyFactor(for: information, using: securityKey) }) }
    }
}

extension IDPClient {
    /// `loadDiscoveryDocument` for code that takes a completion handler: it is called once, on no particular thread.
    public func loadDiscoveryDocument(now: Date = Date(), completion: @escaping @Sendable (Result<DiscoveryDocument, any Error>) -> Void) {
        Task { completion(await Result { try await self.loadDiscoveryDocument(now: now) }) }
    }

    /// `verify` for code that takes a completion handler: it is called once, on no particular thread.
    public func verify(_ information: AuthenticationUserInformation, authenticator: Authenticator, using document: DiscoveryDocument, completion: @escaping @Sendable (Result<AuthenticationResult, any Error>) -> Void) {
        Task { completion(await Result { try await self.verify(information, authenticator: authenticator, using: document) }) }
    }

    /// `altVerify` for code that takes a completion handler: it is called once, on no particular thread.
    public func altVerify(_ information: AuthenticationUserInformation, authenticator: Authenticator, using document: DiscoveryDocument, completion: @escaping @Sendable (Result<AuthenticationResult, any Error>) -> Void) {
        Task { completion(await Result { try await self.altVerify(information, authenticator: authenticator, using: document) }) }
    }

    /// `registerDevice` for code that takes a completion handler: it is called once, on no particular thread.
    public func registerDevice(url: URL, pin: String, alias: String, enrollBiometric: Bool = false, personalizer: Personalizer, using document: DiscoveryDocument, completion: @escaping @Sendable (Result<Personalizer.ActivationResult, any Error>) -> Void) {
        Task { completion(await Result { try await self.registerDevice(url: url, pin: pin, alias: alias, enrollBiometric: enrollBiometric, personalizer: personalizer, using: document) }) }
    }

    /// `loadDirectoryKKApps` for code that takes a completion handler: it is called once, on no particular thread.
    public func loadDirectoryKKApps(completion: @escaping @Sendable (Result<[KKApp], any Error>) -> Void) {
        Task { completion(await Result { try await self.loadDirectoryKKApps() }) }
    }

    /// `exchange` for code that takes a completion handler: it is called once, on no particular thread.
    public func exchange(code: String, verifier: String, redirectURI: String, clientID: String, using document: DiscoveryDocument, completion: @escaping @Sendable (Result<TokenPayload, any Error>) -> Void) {
        Task { completion(await Result { try await self.exchange(code: code, verifier: verifier, redirectURI: redirectURI, clientID: clientID, using: document) }) }
    }
}

extension Personalizer {
    /// `activate` for code that takes a completion handler: it is called once, on no particular thread.
    public func activate(url: URL, pin: String, alias: String? = nil, enrollBiometric: Bool = false, enrollOTP: Bool = false, completion: @escaping @Sendable (Result<ActivationResult, any Error>) -> Void) {
        Task { completion(await Result { try await self.activate(url: url, pin: pin, alias: alias, enrollBiometric: enrollBiometric, enrollOTP: enrollOTP) }) }
    }

    /// `activate` for code that takes a completion handler: it is called once, on no particular thread.
    public func activate(url: URL, pin: String, alias: String? = nil, enrollBiometric: Bool = false, enrollOTP: Bool = false, encryptingTo encryptionKey: (key: P256.KeyAgreement.PublicKey, id: String?)?, completion: @escaping @Sendable (Result<ActivationResult, any Error>) -> Void) {
        Task { completion(await Result { try await self.activate(url: url, pin: pin, alias: alias, enrollBiometric: enrollBiometric, enrollOTP: enrollOTP, encryptingTo: encryptionKey) }) }
    }

    /// `activations` for code that takes a completion handler: it is called once, on no particular thread.
    public func activations(completion: @escaping @Sendable (Result<[Activation], any Error>) -> Void) {
        Task { completion(await Result { try await self.activations() }) }
    }

    /// `startAddAuthenticationFactor` for code that takes a completion handler: it is called once, on no particular thread.
    public func startAddAuthenticationFactor(_ type: FactorType, activation: Activation, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.startAddAuthenticationFactor(type, activation: activation) }) }
    }

    /// `startChangePin` for code that takes a completion handler: it is called once, on no particular thread.
    public func startChangePin(activation: Activation, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.startChangePin(activation: activation) }) }
    }

    /// `startRequestNewActivationData` for code that takes a completion handler: it is called once, on no particular thread.
    public func startRequestNewActivationData(activation: Activation, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.startRequestNewActivationData(activation: activation) }) }
    }

    /// `startDeletion` for code that takes a completion handler: it is called once, on no particular thread.
    public func startDeletion(activation: Activation, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.startDeletion(activation: activation) }) }
    }

    /// `startListDevices` for code that takes a completion handler: it is called once, on no particular thread.
    public func startListDevices(activation: Activation, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.startListDevices(activation: activation) }) }
    }

    /// `startBackgroundKey` for code that takes a completion handler: it is called once, on no particular thread.
    public func startBackgroundKey(activation: Activation, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.startBackgroundKey(activation: activation) }) }
    }

    /// `finishBackgroundKey` for code that takes a completion handler: it is called once, on no particular thread.
    public func finishBackgroundKey(_ process: AccountProcess, completion: @escaping @Sendable (Result<Activation, any Error>) -> Void) {
        Task { completion(await Result { try await self.finishBackgroundKey(process) }) }
    }

    /// `startUnregisterDevice` for code that takes a completion handler: it is called once, on no particular thread.
    public func startUnregisterDevice(_ target: ActivationID, activation: Activation, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.startUnregisterDevice(target, activation: activation) }) }
    }

    /// `mergeCandidate` for code that takes a completion handler: it is called once, on no particular thread.
    public func mergeCandidate(for url: URL, completion: @escaping @Sendable (Result<Activation?, any Error>) -> Void) {
        Task { completion(await Result { try await self.mergeCandidate(for: url) }) }
    }

    /// `startMerge` for code that takes a completion handler: it is called once, on no particular thread.
    public func startMerge(url: URL, into activation: Activation, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.startMerge(url: url, into: activation) }) }
    }

    /// `startRecoveryCodes` for code that takes a completion handler: it is called once, on no particular thread.
    public func startRecoveryCodes(activation: Activation, completion: @escaping @Sendable (Result<AuthenticationUserInformation, any Error>) -> Void) {
        Task { completion(await Result { try await self.startRecoveryCodes(activation: activation) }) }
    }

    /// `finishRecoveryCodes` for code that takes a completion handler: it is called once, on no particular thread.
    public func finishRecoveryCodes(_ process: AccountProcess, completion: @escaping @Sendable (Result<[String], any Error>) -> Void) {
        Task { completion(await Result { try await self.finishRecoveryCodes(process) }) }
    }

    /// `recover` for code that takes a completion handler: it is called once, on no particular thread.
    public func recover(issuer: URL, username: String, code: String, completion: @escaping @Sendable (Result<RecoveryStatus, any Error>) -> Void) {
        Task { completion(await Result { try await self.recover(issuer: issuer, username: username, code: code) }) }
    }

    /// `recoveryStatus` for code that takes a completion handler: it is called once, on no particular thread.
    public func recoveryStatus(issuer: URL, recoveryID: String, handle: String, completion: @escaping @Sendable (Result<RecoveryStatus, any Error>) -> Void) {
        Task { completion(await Result { try await self.recoveryStatus(issuer: issuer, recoveryID: recoveryID, handle: handle) }) }
    }

    /// `finish` for code that takes a completion handler: it is called once, on no particular thread.
    public func finish(_ information: AuthenticationUserInformation, completion: @escaping @Sendable (Result<AuthenticationResult, any Error>) -> Void) {
        Task { completion(await Result { try await self.finish(information) }) }
    }

    /// `finishAddFactor` for code that takes a completion handler: it is called once, on no particular thread.
    public func finishAddFactor(_ process: AccountProcess, completion: @escaping @Sendable (Result<AddFactorResult, any Error>) -> Void) {
        Task { completion(await Result { try await self.finishAddFactor(process) }) }
    }

    /// `finishAddFactor` for code that takes a completion handler: it is called once, on no particular thread.
    public func finishAddFactor(_ process: AccountProcess, securityKey: (any SecurityKeyAuthenticator)?, name: String? = nil, completion: @escaping @Sendable (Result<AddFactorResult, any Error>) -> Void) {
        Task { completion(await Result { try await self.finishAddFactor(process, securityKey: securityKey, name: name) }) }
    }

    /// `finishChangePin` for code that takes a completion handler: it is called once, on no particular thread.
    public func finishChangePin(_ process: AccountProcess, newPin: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        Task { completion(await Result { try await self.finishChangePin(process, newPin: newPin) }) }
    }

    /// `finishRequestNewActivationData` for code that takes a completion handler: it is called once, on no particular thread.
    public func finishRequestNewActivationData(_ process: AccountProcess, newPin: String, alias: String? = nil, retire: Bool = false, completion: @escaping @Sendable (Result<NewActivationData, any Error>) -> Void) {
        Task { completion(await Result { try await self.finishRequestNewActivationData(process, newPin: newPin, alias: alias, retire: retire) }) }
    }

    /// `finishDeletion` for code that takes a completion handler: it is called once, on no particular thread.
    public func finishDeletion(_ process: AccountProcess, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        Task { completion(await Result { try await self.finishDeletion(process) }) }
    }

    /// `finishListDevices` for code that takes a completion handler: it is called once, on no particular thread.
    public func finishListDevices(_ process: AccountProcess, completion: @escaping @Sendable (Result<[DeviceSummary], any Error>) -> Void) {
        Task { completion(await Result { try await self.finishListDevices(process) }) }
    }

    /// `finishUnregisterDevice` for code that takes a completion handler: it is called once, on no particular thread.
    public func finishUnregisterDevice(_ process: AccountProcess, completion: @escaping @Sendable (Result<ActivationID, any Error>) -> Void) {
        Task { completion(await Result { try await self.finishUnregisterDevice(process) }) }
    }

    /// `history` for code that takes a completion handler: it is called once, on no particular thread.
    public func history(activation: Activation, limit: Int = 100, completion: @escaping @Sendable (Result<[HistoryEntry], any Error>) -> Void) {
        Task { completion(await Result { try await self.history(activation: activation, limit: limit) }) }
    }
}

extension TokenManager {
    /// `login` for code that takes a completion handler: it is called once, on no particular thread.
    public func login(authenticator: Authenticator, clientID: String, redirectURI: String, scope: String = "openid offline_access", issuer: String? = nil, username: String? = nil, singleSignOn: Bool = true, sign: @escaping @Sendable (inout AuthenticationUserInformation) async throws -> Void, completion: @escaping @Sendable (LoginStatus) -> Void) {
        Task { completion(await self.login(authenticator: authenticator, clientID: clientID, redirectURI: redirectURI, scope: scope, issuer: issuer, username: username, singleSignOn: singleSignOn, sign: sign)) }
    }

    /// `loginResult` for code that takes a completion handler: it is called once, on no particular thread.
    public func loginResult(authenticator: Authenticator, clientID: String, redirectURI: String, scope: String = "openid offline_access", issuer: String? = nil, username: String? = nil, singleSignOn: Bool = true, sign: @escaping @Sendable (inout AuthenticationUserInformation) async throws -> Void, completion: @escaping @Sendable (LoginResult) -> Void) {
        Task { completion(await self.loginResult(authenticator: authenticator, clientID: clientID, redirectURI: redirectURI, scope: scope, issuer: issuer, username: username, singleSignOn: singleSignOn, sign: sign)) }
    }

    /// `login` for code that takes a completion handler: it is called once, on no particular thread.
    public func login(authorizationCode: String, codeVerifier: String?, redirectURI: String, issuer: String, clientID: String, username: String, scope: String = "openid offline_access", completion: @escaping @Sendable (LoginStatus) -> Void) {
        Task { completion(await self.login(authorizationCode: authorizationCode, codeVerifier: codeVerifier, redirectURI: redirectURI, issuer: issuer, clientID: clientID, username: username, scope: scope)) }
    }

    /// `keep` for code that takes a completion handler: it is called once, on no particular thread.
    public func keep(accessToken: String, refreshToken: String?, idToken: String?, expiresIn: Int, scope: String, issuer: String, clientID: String, username: String, completion: @escaping @Sendable (LoginStatus) -> Void) {
        Task { completion(await self.keep(accessToken: accessToken, refreshToken: refreshToken, idToken: idToken, expiresIn: expiresIn, scope: scope, issuer: issuer, clientID: clientID, username: username)) }
    }

    /// `accessToken` for code that takes a completion handler: it is called once, on no particular thread.
    public func accessToken(clientID: String? = nil, username: String, issuer: String? = nil, completion: @escaping @Sendable ((LoginStatus, String?)) -> Void) {
        Task { completion(await self.accessToken(clientID: clientID, username: username, issuer: issuer)) }
    }

    /// `status` for code that takes a completion handler: it is called once, on no particular thread.
    public func status(clientID: String? = nil, username: String, issuer: String? = nil, completion: @escaping @Sendable (LoginStatus) -> Void) {
        Task { completion(await self.status(clientID: clientID, username: username, issuer: issuer)) }
    }

    /// `users` for code that takes a completion handler: it is called once, on no particular thread.
    public func users(completion: @escaping @Sendable (Result<[TokenData], any Error>) -> Void) {
        Task { completion(await Result { try await self.users() }) }
    }

    /// `logout` for code that takes a completion handler: it is called once, on no particular thread.
    public func logout(clientID: String? = nil, username: String, issuer: String? = nil, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        Task { completion(await Result { try await self.logout(clientID: clientID, username: username, issuer: issuer) }) }
    }

    /// `authorizationHeaders` for code that takes a completion handler: it is called once, on no particular thread.
    public func authorizationHeaders(method: String, url: URL, clientID: String? = nil, username: String, issuer: String? = nil, completion: @escaping @Sendable ((LoginStatus, [String: String]?)) -> Void) {
        Task { completion(await self.authorizationHeaders(method: method, url: url, clientID: clientID, username: username, issuer: issuer)) }
    }

    /// `noteDPoPNonce` for code that takes a completion handler: it is called once, on no particular thread.
    public func noteDPoPNonce(_ nonce: String, for url: URL, completion: @escaping @Sendable () -> Void) {
        Task { await self.noteDPoPNonce(nonce, for: url); completion() }
    }

    /// `login` for code that takes a completion handler: it is called once, on no particular thread.
    public func login(authorizationCode code: String, webLogin login: WebLogin, username: String? = nil, completion: @escaping @Sendable ((LoginStatus, String?)) -> Void) {
        Task { completion(await self.login(authorizationCode: code, webLogin: login, username: username)) }
    }
}
