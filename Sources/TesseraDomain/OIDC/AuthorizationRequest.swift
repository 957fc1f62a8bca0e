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

    enum CodingKeys: String, CodingKey {
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

    /// The request a query or form holds (parsed by the edge: no parameter repeated). The
    /// coding keys are the parameters' names and every value is a string, so a form is
    /// this request's JSON object: both directions go through `Codable`.
    public init(parameters: [String: String]) {
        let form = (try? JSONEncoder().encode(parameters)) ?? Data("{}".utf8)
        self = (try? JSONDecoder().decode(Self.self, from: form)) ?? Self()
    }

    /// The parameters as a form would carry them, absent ones left out (a pushed request is
    /// kept so until its browser comes).
    public var parameters: [String: String] {
        guard let json = try? JSONEncoder().encode(self) else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: json)) ?? [:]
    }
}
