import Foundation

/// `POST {issuer}/device/in-app`: an app on this device logs its user in to the app's
/// own backend (a registered service). The backend made the PKCE pair and keeps the
/// verifier; the app passes on only the challenge, so only the backend can redeem the code.
public struct InAppAuthenticationStart: Codable, Sendable {
    public let clientID: String
    public let redirectURI: String
    public let codeChallenge: String
    public let codeChallengeMethod: String
    public let scope: String
    public let state: String?
    public let nonce: String?
    /// A user merged into the activation to log in as (default: its own user).
    public let userID: UserID?

    public init(
        clientID: String, redirectURI: String, codeChallenge: String, codeChallengeMethod: String = "S256", scope: String = "openid",
        state: String? = nil, nonce: String? = nil, userID: UserID? = nil
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.scope = scope
        self.state = state
        self.nonce = nonce
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case scope, state, nonce
        case clientID = "client_id"
        case redirectURI = "redirect_uri"
        case codeChallenge = "code_challenge"
        case codeChallengeMethod = "code_challenge_method"
        case userID = "user_id"
    }
}

/// `POST {issuer}/device/in-app/{request}/code`: the authorization code of an approved
/// in-app login, for the app to hand to its backend, which redeems it with the verifier.
public struct InAppAuthorizationCode: Codable, Sendable {
    public let code: String
    public let state: String?
    /// The issuer, to check as a redirect's `iss` (RFC 9207) would be checked.
    public let issuer: String
    public let redirectURI: String
    public let expiresAt: Date

    public init(code: String, state: String?, issuer: String, redirectURI: String, expiresAt: Date) {
        self.code = code
        self.state = state
        self.issuer = issuer
        self.redirectURI = redirectURI
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case code, state
        case issuer = "iss"
        case redirectURI = "redirect_uri"
        case expiresAt = "expires_at"
    }
}

/// `POST {issuer}/device/sso/code` (device token): an authorization code for a further
/// service of the tenant, standing on the activation's single sign-on session (gematik's
/// `refresh(ssoToken)`): the token the device got after its full login, and the device
/// factor its signed call proves.
public struct SingleSignOnCodeRequest: Codable, Sendable {
    public let ssoToken: String
    /// The in-app login the code is for: the service, its redirect URI and PKCE challenge.
    public let login: InAppAuthenticationStart
    /// Attributes of the service's request the user confirmed in the app.
    public let attributes: [String]?

    public init(ssoToken: String, login: InAppAuthenticationStart, attributes: [String]? = nil) {
        self.ssoToken = ssoToken
        self.login = login
        self.attributes = attributes
    }

    enum CodingKeys: String, CodingKey {
        case login, attributes
        case ssoToken = "sso_token"
    }
}
