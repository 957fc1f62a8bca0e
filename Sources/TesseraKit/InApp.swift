import Foundation
import TesseraCore

/// What an app asks for when it logs its user in to its own backend: the backend's
/// service, its registered redirect URI and the PKCE challenge the backend made (the
/// backend keeps the verifier, so the code is useless to anyone else).
public struct InAppAuthenticationRequest: Sendable {
    public var clientID: String
    public var redirectURI: String
    public var codeChallenge: String
    public var scope: String
    public var state: String?
    public var nonce: String?
    /// The issuer of the activation to use; nil when the device holds activations of one issuer only.
    public var issuer: String?
    /// The user to log in as, when the activation was merged with others.
    public var username: String?

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
    public let requestID: RequestID
    public let service: ServiceInformation
    public let username: String
    public let factors: [FactorType]
    public let authenticatedAt: Date
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
    public let code: String
    public let state: String?
    public let issuer: String
    public let redirectURI: String
    public let expiresAt: Date
}

extension Authenticator {
    /// Starts an in-app login: the request is created for this device and claimed at once.
    /// Sign the result and `finish` it; an approval answers `.serviceLogin`.
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
