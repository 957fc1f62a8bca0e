import Foundation
import TesseraCore

/// An OpenID Connect authorization request (OpenID Core §3.1.2.1, RFC 7636, RFC 9126) as the
/// edge read it from `/authorize`'s query or a pushed request's form: each parameter this
/// server knows in its own field, the values as sent. `BrowserLogins` checks them in the
/// order the refusals must come in (client and redirect URI first, shown; the rest sent
/// back to the redirect URI). Parameters it does not know are not kept.
public struct AuthorizationRequest: Codable, Sendable, Equatable {
    public var clientID: String?
    public var redirectURI: String?
    public var responseType: String?
    public var scope: String?
    public var state: String?
    public var nonce: String?
    /// Space-separated: `none`, `login`, `consent`, `select_account`.
    public var prompt: String?
    /// Seconds, as sent (a refusal when it is not a non-negative integer).
    public var maxAge: String?
    public var acrValues: String?
    public var loginHint: String?
    public var uiLocales: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    /// Request objects are refused (`request_not_supported`); a pushed request's
    /// `request_uri` is resolved by the edge before the request is checked.
    public var request: String?
    public var requestURI: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case clientID = "client_id"
        case redirectURI = "redirect_uri"
        case responseType = "response_type"
        case scope, state, nonce, prompt
        case maxAge = "max_age"
        case acrValues = "acr_values"
        case loginHint = "login_hint"
        case uiLocales = "ui_locales"
        case codeChallenge = "code_challenge"
        case codeChallengeMethod = "code_challenge_method"
        case request
        case requestURI = "request_uri"
    }

    public init() {}

    /// Each parameter's field, by the parameter's name (its coding key).
    static let fields: [(name: String, field: any WritableKeyPath<Self, String?> & Sendable)] = [
        (CodingKeys.clientID.rawValue, \.clientID), (CodingKeys.redirectURI.rawValue, \.redirectURI),
        (CodingKeys.responseType.rawValue, \.responseType), (CodingKeys.scope.rawValue, \.scope), (CodingKeys.state.rawValue, \.state),
        (CodingKeys.nonce.rawValue, \.nonce), (CodingKeys.prompt.rawValue, \.prompt), (CodingKeys.maxAge.rawValue, \.maxAge),
        (CodingKeys.acrValues.rawValue, \.acrValues), (CodingKeys.loginHint.rawValue, \.loginHint),
        (CodingKeys.uiLocales.rawValue, \.uiLocales), (CodingKeys.codeChallenge.rawValue, \.codeChallenge),
        (CodingKeys.codeChallengeMethod.rawValue, \.codeChallengeMethod), (CodingKeys.request.rawValue, \.request),
        (CodingKeys.requestURI.rawValue, \.requestURI),
    ]

    /// The request a query or form holds (parsed by the edge: no parameter repeated): each
    /// known parameter in its field, by the same names as the request's JSON (its coding
    /// keys). Read field by field: a round trip through JSON was a visible part of a login.
    public init(parameters: [String: String]) {
        for (name, field) in Self.fields { self[keyPath: field] = parameters[name] }
    }

    /// The parameters as a form would carry them, absent ones left out (a pushed request is
    /// kept so until its browser comes).
    public var parameters: [String: String] {
        var form: [String: String] = [:]
        for (name, field) in Self.fields {
            if let value = self[keyPath: field] { form[name] = value }
        }
        return form
    }
}
