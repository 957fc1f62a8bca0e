import Foundation
import TesseraCore
import TesseraCrypto

/// A login through the IdP's own web pages, for an app that has no activation on this
/// device yet (KOBIL's web-login fallback): the app opens `authorizationURL` in the
/// browser (on Apple platforms with `WebLoginSession`), the user signs in there (with
/// another device, a passkey, or an invitation that activates one), and the browser comes
/// back to the app's redirect URI with a code. `code(from:)` checks that answer and
/// `TokenManager.login(authorizationCode:webLogin:)` redeems it.
///
/// An authorization code request with PKCE (S256), `state` and `nonce`, all made here.
/// It is `Codable`: an app that may be ended while the browser is in front keeps it and
/// reads it back for the callback.
///
/// ```swift
/// let login = try WebLogin(issuer: "https://id.example.com/t/acme", clientID: appID, redirectURI: "com.example.app:/login")
/// let callback = try await WebLoginSession(anchor: window).run(login, callbackURLScheme: "com.example.app")
/// let (status, username) = await tokens.login(authorizationCode: try login.code(from: callback), webLogin: login)
/// ```
public struct WebLogin: Codable, Sendable, Hashable {
    public let issuer: String
    public let clientID: String
    public let redirectURI: String
    public let scope: String
    /// Sent and expected back: the callback of another login is refused.
    public let state: String
    /// Expected in the ID token.
    public let nonce: String
    /// The PKCE verifier the code is redeemed with (its S256 challenge is in the URL).
    public let codeVerifier: String
    /// Where the browser goes.
    public let authorizationURL: URL

    /// A new login: `loginHint` names the user if the app knows them, `uiLocales` the
    /// languages of the pages (`"de en"`), `prompt` is passed as OpenID Connect says
    /// (`login` for a full login instead of single sign-on).
    public init(
        issuer: String, clientID: String, redirectURI: String, scope: String = "openid offline_access", loginHint: String? = nil,
        uiLocales: String? = nil, prompt: String? = nil
    ) throws {
        guard var components = URLComponents(string: issuer + "/authorize"), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", components.host?.isEmpty == false
        else { throw TesseraKitError.invalidLink("the issuer is not an http(s) address") }
        guard let redirect = URLComponents(string: redirectURI), redirect.scheme?.isEmpty == false, redirect.fragment == nil else {
            throw TesseraKitError.invalidLink("the redirect URI is not an absolute address without a fragment")
        }
        self.issuer = issuer
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        state = Secrets.randomToken(byteCount: 16)
        nonce = Secrets.randomToken(byteCount: 16)
        codeVerifier = PKCE.makeVerifier()
        var items = [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURI), URLQueryItem(name: "scope", value: scope),
            URLQueryItem(name: "state", value: state), URLQueryItem(name: "nonce", value: nonce),
            URLQueryItem(name: "code_challenge", value: PKCE.challenge(forVerifier: codeVerifier)),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        for (name, value) in [("login_hint", loginHint), ("ui_locales", uiLocales), ("prompt", prompt)] {
            if let value { items.append(URLQueryItem(name: name, value: value)) }
        }
        components.queryItems = items
        // `+` is a space in a form-encoded query: spell it out, as every other reserved character is.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw TesseraKitError.invalidLink("no authorization URL") }
        authorizationURL = url
    }

    /// The code in the browser's return to the redirect URI, after checking that the
    /// return is this login's: the redirect URI's address, this login's `state`, and (RFC
    /// 9207) the issuer when the server names it. A refusal the server sent back (the user
    /// declined on their device, or the request was not acceptable) is `.server` with its
    /// `error` and `error_description`; anything else that does not fit is `.invalidLink`.
    public func code(from callback: URL) throws -> String {
        guard let components = URLComponents(url: callback, resolvingAgainstBaseURL: false),
            var expected = URLComponents(string: redirectURI)
        else { throw TesseraKitError.invalidLink("the callback is not a URL") }
        var returned = components
        returned.query = nil
        returned.fragment = nil
        expected.query = nil
        guard returned.scheme?.lowercased() == expected.scheme?.lowercased(), returned.host?.lowercased() == expected.host?.lowercased(),
            returned.port == expected.port, returned.path == expected.path
        else { throw TesseraKitError.invalidLink("the callback is not to this login's redirect URI") }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard parameters[item.name] == nil else { throw TesseraKitError.invalidLink("the callback repeats \(item.name)") }
            parameters[item.name] = item.value ?? ""
        }
        guard let returnedState = parameters["state"], Secrets.constantTimeEquals(returnedState, state) else {
            throw TesseraKitError.invalidLink("the callback is not this login's (state)")
        }
        if let named = parameters["iss"], named != issuer {
            throw TesseraKitError.invalidLink("the callback comes from another issuer")
        }
        if let error = parameters["error"] {
            throw TesseraKitError.server(status: 302, error: error, description: parameters["error_description"] ?? "")
        }
        guard let code = parameters["code"], !code.isEmpty else { throw TesseraKitError.invalidLink("the callback has no code") }
        return code
    }
}

#if canImport(AuthenticationServices)
import AuthenticationServices

/// Runs a `WebLogin` in the system's web authentication sheet (`ASWebAuthenticationSession`)
/// and returns the callback URL; a user who closes the sheet is `TesseraKitError.cancelled`.
@MainActor
public final class WebLoginSession: NSObject, ASWebAuthenticationPresentationContextProviding {
    private let anchor: ASPresentationAnchor
    private var session: ASWebAuthenticationSession?
    /// Without the browser's cookies (no single sign-on with the browser's sessions).
    public var prefersEphemeralWebBrowserSession = false

    /// `anchor`: the window the sheet is presented over.
    public init(anchor: ASPresentationAnchor) {
        self.anchor = anchor
    }

    public nonisolated func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        MainActor.assumeIsolated { anchor }
    }

    /// Shows the login; returns the URL the browser came back to (hand it to `WebLogin.code(from:)`).
    public func run(_ login: WebLogin, callbackURLScheme: String) async throws -> URL {
        defer { session = nil }
        return try await withCheckedThrowingContinuation { continuation in
            let answer = OneAnswer(continuation)
            let session = ASWebAuthenticationSession(url: login.authorizationURL, callbackURLScheme: callbackURLScheme) { url, error in
                if let url {
                    answer.give(.success(url))
                } else if let error = error as? ASWebAuthenticationSessionError, error.code == .canceledLogin {
                    answer.give(.failure(TesseraKitError.cancelled))
                } else {
                    answer.give(.failure(TesseraKitError.transport(error.map { "\($0)" } ?? "the web login ended without an answer")))
                }
            }
            session.presentationContextProvider = self
            session.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
            self.session = session
            if !session.start() { answer.give(.failure(TesseraKitError.transport("the web login could not start"))) }
        }
    }

    /// Resumes the continuation with the first answer only.
    private final class OneAnswer: Sendable {
        private let continuation: Locked<CheckedContinuation<URL, any Error>?>

        init(_ continuation: CheckedContinuation<URL, any Error>) { self.continuation = Locked(continuation) }

        func give(_ result: Result<URL, any Error>) {
            let waiting = continuation.withLock { waiting in
                defer { waiting = nil }
                return waiting
            }
            waiting?.resume(with: result)
        }
    }
}
#endif
