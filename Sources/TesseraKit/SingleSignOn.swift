import Foundation
import TesseraCore
import TesseraCrypto

/// The single sign-on session this device holds for one user of one issuer, after a full
/// login on a tenant with single sign-on (gematik's SSO token). While it lasts, the app
/// gets authorization codes for the tenant's other services with the device factor alone:
/// `Authenticator.fetchAuthorizationCode(singleSignOn:)`.
///
/// Not `Codable`: the token stays in the key store and never reaches an app's logs or caches.
public struct SingleSignOnSession: Sendable, CustomStringConvertible {
    /// The issuer of the tenant the session belongs to.
    public let issuer: String
    /// The user the session is for.
    public let username: String
    /// When the session ends; after it a login needs factors again.
    public let expiresAt: Date
    /// The token, which only this activation's signed calls can use; kept in the key store.
    let token: String

    /// The session without its token.
    public var description: String { "SingleSignOnSession(issuer: \(issuer), username: \(username), expiresAt: \(expiresAt))" }

    /// How the key store keeps a session.
    struct Stored: Codable {
        let issuer: String
        let username: String
        let expiresAt: Date
        let token: String
    }
}

extension Activation {
    /// Where the single sign-on token of one of the activation's users is kept (removed
    /// with the activation, since it shares its prefix).
    func singleSignOnLabel(username: String) -> String { storageLabel + "sso-" + Secrets.digest(username) }
}

extension Authenticator {
    /// Keeps the token a full login brought (a new one replaces the old).
    func keepSingleSignOn(_ login: LoginSummary, activation: Activation) async throws {
        guard let token = login.ssoToken, let expiresAt = login.ssoExpiresAt else { return }
        let stored = SingleSignOnSession.Stored(issuer: activation.issuer, username: login.username, expiresAt: expiresAt, token: token)
        try await keyStore.setItem(try WireCoding.encoder().encode(stored), label: activation.singleSignOnLabel(username: login.username))
    }

    /// The live single sign-on session for the user (of `issuer`, when the device holds
    /// several issuers' activations), or nil.
    ///
    /// Reads the key store only; an expired session is removed and answers nil. Like an in-app
    /// login, it throws when no activation fits, or several do and neither `issuer` nor
    /// `username` picks one.
    ///
    /// ```swift
    /// if let session = try await authenticator.singleSignOnSession(username: "alice") {
    ///     show("signed in until \(session.expiresAt)")   // fetchAuthorizationCode(singleSignOn:) works until then
    /// }
    /// ```
    public func singleSignOnSession(issuer: String? = nil, username: String? = nil) async throws -> SingleSignOnSession? {
        let (activation, linked) = try await inAppActivation(issuer: issuer, username: username)
        return try await liveSession(activation, username: linked?.username ?? activation.username)
    }

    private func liveSession(_ activation: Activation, username: String) async throws -> SingleSignOnSession? {
        let label = activation.singleSignOnLabel(username: username)
        guard let data = try await keyStore.item(label: label),
            let stored = try? WireCoding.decoder().decode(SingleSignOnSession.Stored.self, from: data)
        else { return nil }
        let session = SingleSignOnSession(issuer: stored.issuer, username: stored.username, expiresAt: stored.expiresAt, token: stored.token)
        guard session.expiresAt > now() else {
            try await keyStore.setItem(nil, label: label)
            return nil
        }
        return session
    }

    /// An authorization code for a further service of the tenant, standing on the
    /// single sign-on session of an earlier full login: no factor is asked for beyond
    /// the device's own signature (gematik's `refresh(with: ssoToken)`). The code is the
    /// in-app login's: bound to the request's redirect URI and PKCE challenge.
    /// `attributes` are those of the service's request the user confirmed in the app.
    ///
    /// ```swift
    /// let code = try await authenticator.fetchAuthorizationCode(
    ///     singleSignOn: InAppAuthenticationRequest(clientID: "pharmacy", redirectURI: "https://pharmacy.example/cb",
    ///                                              codeChallenge: challengeFromMyBackend))
    /// ```
    ///
    /// Throws `singleSignOnUnavailable` when there is no live session (none, expired,
    /// ended by the server or replaced), or the service's policy needs more than the
    /// session's login: then log in with factors.
    public func fetchAuthorizationCode(singleSignOn request: InAppAuthenticationRequest, attributes: [String] = []) async throws
        -> AuthorizationCode
    {
        try await singleSignOnCode(request, attributes: attributes).code
    }

    /// The code, and the user it is for (whom a token manager keeps the tokens under).
    func singleSignOnCode(_ request: InAppAuthenticationRequest, attributes: [String] = []) async throws
        -> (code: AuthorizationCode, username: String)
    {
        let (activation, linked) = try await inAppActivation(issuer: request.issuer, username: request.username)
        let username = linked?.username ?? activation.username
        guard let session = try await liveSession(activation, username: username) else {
            throw TesseraKitError.singleSignOnUnavailable("no single sign-on session on this device for \(username)")
        }
        let body = SingleSignOnCodeRequest(
            ssoToken: session.token,
            login: InAppAuthenticationStart(
                clientID: request.clientID, redirectURI: request.redirectURI, codeChallenge: request.codeChallenge, scope: request.scope,
                state: request.state, nonce: request.nonce, userID: linked?.userID),
            attributes: attributes.isEmpty ? nil : attributes)
        let wire: InAppAuthorizationCode
        do {
            wire = try await devicePost(activation, "device/sso/code", body: body, as: InAppAuthorizationCode.self)
        } catch TesseraKitError.server(let status, let error, let description) where error == "invalid_grant" || error == "access_denied" {
            // The session ended on the server (or was replaced): its token is of no more use.
            if error == "invalid_grant" { try await keyStore.setItem(nil, label: activation.singleSignOnLabel(username: username)) }
            throw TesseraKitError.singleSignOnUnavailable("\(status) \(error): \(description)")
        }
        guard wire.issuer == activation.issuer else { throw TesseraKitError.transport("the code comes from another issuer") }
        let code = AuthorizationCode(
            code: wire.code, state: wire.state, issuer: wire.issuer, redirectURI: wire.redirectURI, expiresAt: wire.expiresAt)
        return (code, username)
    }
}
