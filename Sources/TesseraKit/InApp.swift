import Foundation
import TesseraCore

/// What an app asks for when it logs its user in to its own backend: the backend's
/// service, its registered redirect URI and the PKCE challenge the backend made (the
/// backend keeps the verifier, so the code is useless to anyone else).
public struct InAppAuthenticationRequest: Sendable {
    /// The client id of the backend's service.
    public var clientID: String
    /// A redirect URI registered for that service; the code is bound to it.
    public var redirectURI: String
    /// The PKCE S256 challenge of the verifier the backend keeps.
    public var codeChallenge: String
    /// The scopes asked for; `openid` unless set.
    public var scope: String
    /// Handed back unchanged with the code (`AuthorizationCode.state`).
    public var state: String?
    /// Put into the ID token, for the backend to check.
    public var nonce: String?
    /// The issuer of the activation to use; nil when the device holds activations of one issuer only.
    public var issuer: String?
    /// The user to log in as, when the activation was merged with others.
    public var username: String?

    /// Describes the login; only the client, the redirect URI and the challenge are required.
    public init(
        clientID: String, redirectURI: String, codeChallenge: String, scope: String = "openid", state: String? = nil,
        nonce: String? = nil, issuer: String? = nil, username: String? = nil
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.scope = scope
        self.state = state
        self.nonce = nonce
        self.issuer = issuer
        self.username = username
    }
}

/// An approved in-app login, to be turned into an authorization code once.
public struct ServiceLoginResult: Sendable {
    /// The in-app request the login approved.
    public let requestID: RequestID
    /// The service the user logged in to.
    public let service: ServiceInformation
    /// The user who logged in.
    public let username: String
    /// The factors the login was signed with.
    public let factors: [FactorType]
    /// When the server accepted the factors.
    public let authenticatedAt: Date
    /// The activation that signed the login, and fetches its code.
    public let activation: Activation
    /// The service role the factors were used in (XignSys's `roleName`), when the service has roles.
    public let role: String?
    /// The user as the service knows them (its `sub`: the user's id, or XignSys's MappedId
    /// for a pairwise service).
    public let subject: String?
    /// The attributes the user confirmed to the service, with their values.
    public let attributes: [String: String]
}

/// The code for the app's backend, which redeems it at the token endpoint with its verifier.
public struct AuthorizationCode: Sendable {
    /// The authorization code: send it to the backend, which redeems it once.
    public let code: String
    /// The request's `state`, unchanged.
    public let state: String?
    /// The issuer whose token endpoint redeems the code.
    public let issuer: String
    /// The redirect URI the code is bound to; the backend sends the same one.
    public let redirectURI: String
    /// The code is refused after this time.
    public let expiresAt: Date
}

extension Authenticator {
    /// Starts an in-app login: the request is created for this device and claimed at once.
    /// Sign the result and `finish` it; an approval answers `.serviceLogin`.
    ///
    /// When the request names no `issuer`, the device must hold activations of one issuer only
    /// (else it throws `invalidLink`); `username` picks a merged user.
    ///
    /// ```swift
    /// var info = try await authenticator.fetchInAppAuthenticationInitializationData(
    ///     InAppAuthenticationRequest(clientID: backendID, redirectURI: backendRedirect, codeChallenge: challengeFromBackend))
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(await askForPIN()))
    /// if case .serviceLogin(let login) = try await authenticator.finish(info) {
    ///     let code = try await authenticator.fetchAuthorizationCode(login)   // send code.code to the backend
    /// }
    /// ```
    public func fetchInAppAuthenticationInitializationData(_ request: InAppAuthenticationRequest) async throws
        -> AuthenticationUserInformation
    {
        let (activation, linked) = try await inAppActivation(issuer: request.issuer, username: request.username)
        let body = InAppAuthenticationStart(
            clientID: request.clientID, redirectURI: request.redirectURI, codeChallenge: request.codeChallenge, scope: request.scope,
            state: request.state, nonce: request.nonce, userID: linked?.userID)
        let wire = try await devicePost(activation, "device/in-app", body: body, as: AuthenticationChallenge.self)
        guard wire.audience == activation.issuer, wire.purpose == .login, wire.service?.clientID.rawValue == request.clientID else {
            throw TesseraKitError.transport("the server answered for another request")
        }
        var information = AuthenticationUserInformation(wire, activation: activation)
        information.inApp = true
        return information
    }

    /// The authorization code of an approved in-app login; it can be fetched once.
    ///
    /// The backend redeems it at `{issuer}/token` with its PKCE verifier; the device never
    /// sees the tokens. A second call throws the server's refusal.
    ///
    /// ```swift
    /// if case .serviceLogin(let login) = try await authenticator.finish(info) {
    ///     let code = try await authenticator.fetchAuthorizationCode(login)
    ///     try await backend.redeem(code: code.code, state: code.state)   // the backend adds its verifier
    /// }
    /// ```
    public func fetchAuthorizationCode(_ result: ServiceLoginResult) async throws -> AuthorizationCode {
        let path = "device/in-app/\(result.requestID.rawValue)/code"
        let wire = try await devicePost(result.activation, path, body: EmptyBody(), as: InAppAuthorizationCode.self)
        guard wire.issuer == result.activation.issuer else { throw TesseraKitError.transport("the code comes from another issuer") }
        return AuthorizationCode(
            code: wire.code, state: wire.state, issuer: wire.issuer, redirectURI: wire.redirectURI, expiresAt: wire.expiresAt)
    }

    func inAppActivation(issuer: String?, username: String?) async throws -> (Activation, LinkedUser?) {
        if let issuer { return try await registry.find(issuer: issuer, username: username) }
        let issuers = Set(try await registry.all().map(\.issuer))
        guard issuers.count == 1, let only = issuers.first else {
            throw TesseraKitError.invalidLink(
                issuers.isEmpty ? "this device has no activation" : "this device has activations of several issuers: name one")
        }
        return try await registry.find(issuer: only, username: username)
    }
}
