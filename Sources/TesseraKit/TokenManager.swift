import Foundation
import TesseraCore
import TesseraCrypto

/// Where an app's login stands for one user, as `TokenManager` reports it.
public enum LoginStatus: String, Codable, Sendable, CaseIterable {
    /// A valid access token is at hand (refreshed if it had to be).
    case ok
    /// No tokens are kept for this user: log in first.
    case noTokenDataAvailable
    /// The kept tokens can no longer be refreshed (the session expired or was revoked): log in again.
    case tokenDataIsOutdated
    /// The in-app login did not end in an authorization code (declined, locked, refused).
    case cannotAcquireAuthorizationCode
    /// The token endpoint refused the authorization code.
    case cannotAcquireAccessTokenForAuthorizationCode
    /// The tokens could not be refreshed for now (no connection, server error); try later.
    case cannotAcquireTokenData
}

/// How `loginResult` ended: the status, and when the login failed on the lockout, what
/// the lockout says (until when, or for good), as XignSys's and KOBIL's apps show it.
public struct LoginResult: Sendable {
    /// Where the login ended: `.ok` when the tokens are kept.
    public let status: LoginStatus
    /// Set when a wrong factor locked the activation, or a lock was still running.
    public let lockout: LockoutInformation?
}

/// The tokens kept for one user of one service.
public struct TokenData: Codable, Sendable {
    /// The issuer whose token endpoint issued the tokens.
    public let issuer: String
    /// The service (the app's client id) the tokens are for.
    public let clientID: String
    /// The user the tokens are for.
    public let username: String
    /// The ID token's `sub`, read without verification; nil without an ID token.
    public let subject: String?
    /// The latest access token; ask `accessToken(clientID:username:issuer:)` for a valid one.
    public internal(set) var accessToken: String
    /// The current refresh token (rotated on every refresh); nil when none was issued.
    public internal(set) var refreshToken: String?
    /// The latest ID token, if the scope included `openid`.
    public internal(set) var idToken: String?
    /// The scopes the tokens were granted.
    public internal(set) var scope: String
    /// When the access token expires.
    public internal(set) var accessTokenExpiresAt: Date
    /// Set when a refresh was refused: the tokens are kept only to report the status.
    public internal(set) var outdated: Bool
    /// `DPoP` when the access token is bound to this device's DPoP key (send it with
    /// `authorizationHeaders`), `Bearer` (or nil, for tokens kept from before) otherwise.
    public internal(set) var tokenType: String?
    /// The label of the DPoP key, when it is not the one the user's label names (a web
    /// login made it before it learnt the username); nil: `label` + `.dpop`.
    var dpopKeyLabel: String? = nil

    var label: String { TokenManager.label(issuer: issuer, clientID: clientID, username: username) }
    var dpopKey: String { dpopKeyLabel ?? TokenManager.dpopLabel(label) }
}

/// Keeps an app's tokens per issuer, service and user in the key store, gets them with
/// an in-app login (the app as a public client with its own PKCE pair), and refreshes
/// them with rotation. By default every token request carries a DPoP proof (RFC 9449)
/// signed with a key made for that user and service in the key store (on Apple, in the
/// Secure Enclave): the tokens are bound to this device, and a copied refresh or access
/// token is useless elsewhere. `authorizationHeaders` gives a resource request its
/// `Authorization` and `DPoP` headers. Several users may be logged in on one device. Calls are
/// serialised within one process; processes that share a key store (an app and its
/// extension) must not refresh the same user's tokens at once, since presenting one
/// refresh token twice makes the server end the session.
///
/// ```swift
/// let tokens = TokenManager(keyStore: keyStore)
/// let status = await tokens.login(authenticator: authenticator, clientID: "app", redirectURI: "com.example.app:/cb") { info in
///     try info.sign(factor: DeviceFactor())
///     try info.sign(factor: PinFactor(pin))
/// }
/// let (current, token) = await tokens.accessToken(clientID: "app", username: "alice")
/// ```
public struct TokenManager: Sendable {
    let keyStore: any KeyStore
    let transport: any HTTPTransport
    let now: @Sendable () -> Date
    /// Whether token requests carry DPoP proofs.
    let usesDPoP: Bool
    /// The last `DPoP-Nonce` each origin sent (RFC 9449 §8).
    static let nonces = DPoPNonces()

    /// Refreshes are serialised: two at once would present one refresh token twice,
    /// which the server takes for theft and answers by revoking the session.
    static let lock = AsyncMutex()
    static let labelPrefix = "tokens."
    /// An access token this close to its expiry is refreshed first.
    static let expiryMargin: TimeInterval = 30

    /// Creates a token manager over the key store the tokens are kept in (the activations'
    /// store serves). `transport` and `now` replace the network and the clock.
    ///
    /// ```swift
    /// let tokens = TokenManager(keyStore: store)
    /// let (status, accessToken) = await tokens.accessToken(clientID: appID, username: "alice")
    /// if status == .noTokenDataAvailable { showLogin() }
    /// ```
    ///
    /// `dpop: false` asks for plain bearer tokens instead of DPoP-bound ones.
    public init(
        keyStore: any KeyStore, transport: any HTTPTransport = URLSessionTransport(), now: @escaping @Sendable () -> Date = { Date() },
        dpop: Bool = true
    ) {
        self.keyStore = keyStore
        self.transport = transport
        self.now = now
        self.usesDPoP = dpop
    }

    static func label(issuer: String, clientID: String, username: String) -> String {
        labelPrefix + Secrets.digest("\(issuer)\n\(clientID)\n\(username)")
    }

    /// Logs the activation's user in to the app itself: an in-app login whose code this
    /// device redeems with its own verifier. `sign` supplies the factors (as after
    /// `start`), and may show the user what is asked. With `singleSignOn` (the default),
    /// a live single sign-on session from an earlier full login gets the code with the
    /// device's signature alone, and `sign` is not called.
    ///
    /// Never throws: the status says what went wrong (`.cannotAcquireAuthorizationCode`
    /// for a declined, locked or refused login); `loginResult` adds the lockout.
    ///
    /// ```swift
    /// let status = await tokens.login(authenticator: authenticator, clientID: appID, redirectURI: appRedirect) { info in
    ///     try info.sign(factor: DeviceFactor())
    ///     try info.sign(factor: PinFactor(await askForPIN()))
    /// }
    /// guard status == .ok else { return show(status) }
    /// ```
    public func login(
        authenticator: Authenticator, clientID: String, redirectURI: String, scope: String = "openid offline_access",
        issuer: String? = nil, username: String? = nil, singleSignOn: Bool = true,
        sign: @Sendable (inout AuthenticationUserInformation) async throws -> Void
    ) async -> LoginStatus {
        await loginResult(
            authenticator: authenticator, clientID: clientID, redirectURI: redirectURI, scope: scope, issuer: issuer, username: username,
            singleSignOn: singleSignOn, sign: sign
        ).status
    }

    /// `login`, telling a lockout apart: a wrong factor, or a lock still running, answers
    /// `cannotAcquireAuthorizationCode` with the lockout's `lockedUntil` or `isPermanent`.
    ///
    /// ```swift
    /// let result = await tokens.loginResult(authenticator: authenticator, clientID: "app", redirectURI: "com.example.app:/cb") { info in
    ///     try info.sign(factor: DeviceFactor())
    ///     try info.sign(factor: PinFactor(pin))
    /// }
    /// if let lock = result.lockout { showLock(until: lock.lockedUntil, permanent: lock.isPermanent) }
    /// ```
    public func loginResult(
        authenticator: Authenticator, clientID: String, redirectURI: String, scope: String = "openid offline_access",
        issuer: String? = nil, username: String? = nil, singleSignOn: Bool = true,
        sign: @Sendable (inout AuthenticationUserInformation) async throws -> Void
    ) async -> LoginResult {
        await Self.lock.withLock {
            await unlockedLogin(
                authenticator: authenticator, clientID: clientID, redirectURI: redirectURI, scope: scope, issuer: issuer,
                username: username, singleSignOn: singleSignOn, sign: sign)
        }
    }

    /// Redeems an authorization code the app obtained elsewhere (KOBIL's
    /// `LoginWithTokenEvent` with an `authorizationCode`), with the PKCE verifier it was
    /// started with, and keeps the tokens for `username`.
    ///
    /// Answers `.cannotAcquireAccessTokenForAuthorizationCode` when the token endpoint
    /// refuses the code or cannot be reached.
    ///
    /// ```swift
    /// let status = await tokens.login(
    ///     authorizationCode: codeFromRedirect, codeVerifier: verifier, redirectURI: appRedirect,
    ///     issuer: "https://id.example.com/t/acme", clientID: appID, username: "alice")
    /// ```
    public func login(
        authorizationCode: String, codeVerifier: String?, redirectURI: String, issuer: String, clientID: String, username: String,
        scope: String = "openid offline_access"
    ) async -> LoginStatus {
        await Self.lock.withLock {
            var fields = ["grant_type": "authorization_code", "code": authorizationCode, "redirect_uri": redirectURI, "client_id": clientID]
            if let codeVerifier { fields["code_verifier"] = codeVerifier }
            let label = Self.label(issuer: issuer, clientID: clientID, username: username)
            guard case .success(let response) = await tokenRequest(issuer: issuer, fields, dpopKey: Self.dpopLabel(label)) else {
                return .cannotAcquireAccessTokenForAuthorizationCode
            }
            return await keepResponse(response, issuer: issuer, clientID: clientID, username: username, scope: scope) ? .ok : .cannotAcquireTokenData
        }
    }

    /// Keeps tokens the app obtained elsewhere (KOBIL's `LoginWithTokenEvent` with an
    /// `iamAccessToken`): from then on `accessToken` hands them out and refreshes them.
    ///
    /// Answers `.ok`, or `.cannotAcquireTokenData` when the key store would not keep them.
    ///
    /// ```swift
    /// let status = await tokens.keep(
    ///     accessToken: access, refreshToken: refresh, idToken: nil, expiresIn: 300, scope: "openid offline_access",
    ///     issuer: "https://id.example.com/t/acme", clientID: appID, username: "alice")
    /// ```
    public func keep(
        accessToken: String, refreshToken: String?, idToken: String?, expiresIn: Int, scope: String, issuer: String, clientID: String,
        username: String
    ) async -> LoginStatus {
        await Self.lock.withLock {
            let response = TokenResponse(
                accessToken: accessToken, refreshToken: refreshToken, idToken: idToken, expiresIn: expiresIn, scope: scope)
            return await keepResponse(response, issuer: issuer, clientID: clientID, username: username, scope: scope) ? .ok : .cannotAcquireTokenData
        }
    }

    private func keepResponse(
        _ response: TokenResponse, issuer: String, clientID: String, username: String, scope: String, dpopKeyLabel: String? = nil
    ) async -> Bool {
        let data = TokenData(
            issuer: issuer, clientID: clientID, username: username, subject: Self.subject(of: response.idToken),
            accessToken: response.accessToken, refreshToken: response.refreshToken, idToken: response.idToken, scope: response.scope ?? scope,
            accessTokenExpiresAt: now().addingTimeInterval(TimeInterval(response.expiresIn ?? 300)), outdated: false,
            tokenType: response.tokenType, dpopKeyLabel: dpopKeyLabel)
        return await save(data)
    }

    private func unlockedLogin(
        authenticator: Authenticator, clientID: String, redirectURI: String, scope: String, issuer: String?, username: String?,
        singleSignOn: Bool, sign: @Sendable (inout AuthenticationUserInformation) async throws -> Void
    ) async -> LoginResult {
        let verifier = PKCE.makeVerifier()
        let request = InAppAuthenticationRequest(
            clientID: clientID, redirectURI: redirectURI, codeChallenge: PKCE.challenge(forVerifier: verifier), scope: scope,
            issuer: issuer, username: username)
        let loggedIn: String
        let code: AuthorizationCode
        do {
            // Within a single sign-on session the device's signature is enough; without one
            // (or when the server no longer honours it) the user signs with factors.
            if singleSignOn, let viaSession = try? await authenticator.singleSignOnCode(request) {
                (code, loggedIn) = viaSession
            } else {
                var information = try await authenticator.fetchInAppAuthenticationInitializationData(request)
                try await sign(&information)
                switch try await authenticator.finish(information) {
                case .serviceLogin(let result):
                    loggedIn = result.username
                    code = try await authenticator.fetchAuthorizationCode(result)
                case .lockout(let lockout, _):
                    return LoginResult(status: .cannotAcquireAuthorizationCode, lockout: lockout)
                default:
                    return LoginResult(status: .cannotAcquireAuthorizationCode, lockout: nil)
                }
            }
        } catch TesseraKitError.pendingLockout(let lockout) {
            return LoginResult(status: .cannotAcquireAuthorizationCode, lockout: lockout)
        } catch {
            return LoginResult(status: .cannotAcquireAuthorizationCode, lockout: nil)
        }
        let fields = [
            "grant_type": "authorization_code", "code": code.code, "redirect_uri": code.redirectURI, "client_id": clientID,
            "code_verifier": verifier,
        ]
        let label = Self.label(issuer: code.issuer, clientID: clientID, username: loggedIn)
        guard case .success(let response) = await tokenRequest(issuer: code.issuer, fields, dpopKey: Self.dpopLabel(label)) else {
            return LoginResult(status: .cannotAcquireAccessTokenForAuthorizationCode, lockout: nil)
        }
        let kept = await keepResponse(response, issuer: code.issuer, clientID: clientID, username: loggedIn, scope: scope)
        return LoginResult(status: kept ? .ok : .cannotAcquireTokenData, lockout: nil)
    }

    /// A valid access token for the user, refreshed (and the refresh token rotated) when
    /// it is about to expire; the status says why there is none.
    ///
    /// `clientID` and `issuer` may be left out while only one service's tokens are kept for
    /// the user (otherwise it answers `.cannotAcquireTokenData`). Never throws: a refused
    /// refresh answers `.tokenDataIsOutdated` (log in again), no connection
    /// `.cannotAcquireTokenData` (try later).
    ///
    /// ```swift
    /// let (status, token) = await tokens.accessToken(clientID: appID, username: "alice")
    /// if let token {
    ///     request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    /// } else if status == .noTokenDataAvailable || status == .tokenDataIsOutdated {
    ///     showLogin()
    /// }
    /// ```
    public func accessToken(clientID: String? = nil, username: String, issuer: String? = nil) async -> (LoginStatus, String?) {
        await Self.lock.withLock { await currentToken(clientID: clientID, username: username, issuer: issuer) }
    }

    /// The status alone (refreshing if needed, as `accessToken` does).
    ///
    /// ```swift
    /// switch await tokens.status(clientID: appID, username: "alice") {
    /// case .ok: showHome()
    /// case .cannotAcquireTokenData: showOffline()   // worth trying again later
    /// default: showLogin()
    /// }
    /// ```
    public func status(clientID: String? = nil, username: String, issuer: String? = nil) async -> LoginStatus {
        await accessToken(clientID: clientID, username: username, issuer: issuer).0
    }

    /// Everyone with tokens on this device, one entry per issuer, service and user (a
    /// damaged record is left out rather than hiding the others).
    ///
    /// ```swift
    /// for entry in try await tokens.users() {
    ///     show("\(entry.username) at \(entry.clientID) (\(entry.issuer))")
    /// }
    /// ```
    public func users() async throws -> [TokenData] {
        var result: [TokenData] = []
        await StoreUpgrade.moveToAfterFirstUnlock(keyStore)
        for label in try await keyStore.itemLabels() where label.hasPrefix(Self.labelPrefix) {
            guard let data = try await keyStore.item(label: label),
                let entry = try? WireCoding.decoder().decode(TokenData.self, from: data)
            else { continue }
            result.append(entry)
        }
        return result.sorted { ($0.issuer, $0.username, $0.clientID) < ($1.issuer, $1.username, $1.clientID) }
    }

    /// Ends the user's session: revokes the refresh token (RFC 7009), which ends its
    /// access tokens too, and forgets the tokens. Forgets them even when offline.
    ///
    /// Throws `keyStore` when the key store fails, or when tokens of several services fit
    /// and `clientID` or `issuer` must name one.
    ///
    /// ```swift
    /// for entry in try await tokens.users() where entry.username == "alice" {
    ///     try await tokens.logout(clientID: entry.clientID, username: entry.username, issuer: entry.issuer)
    /// }
    /// ```
    public func logout(clientID: String? = nil, username: String, issuer: String? = nil) async throws {
        try await Self.lock.withLock {
            if let entry = try await find(clientID: clientID, username: username, issuer: issuer) {
                if let refresh = entry.refreshToken {
                    let fields = ["token": refresh, "token_type_hint": "refresh_token", "client_id": entry.clientID]
                    _ = try? await transport.send(formRequest(url: entry.issuer + "/revoke", fields))
                }
                try await keyStore.setItem(nil, label: entry.label)
                try await keyStore.setItem(nil, label: entry.dpopKey)
            }
        }
    }

    /// The headers a request to a resource server needs: `Authorization` with a valid
    /// access token (refreshed if needed) and, for a DPoP-bound token, a `DPoP` proof for
    /// this method and URL with the token's hash and the last nonce the URL's origin sent.
    /// When the resource answers 401 with `use_dpop_nonce`, pass its `DPoP-Nonce` to
    /// `noteDPoPNonce` and ask again.
    ///
    /// ```swift
    /// let (status, headers) = await tokens.authorizationHeaders(method: "GET", url: userinfoURL, clientID: appID, username: "alice")
    /// for (name, value) in headers ?? [:] { request.setValue(value, forHTTPHeaderField: name) }
    /// ```
    public func authorizationHeaders(method: String, url: URL, clientID: String? = nil, username: String, issuer: String? = nil) async
        -> (LoginStatus, [String: String]?)
    {
        await Self.lock.withLock {
            let (status, token) = await currentToken(clientID: clientID, username: username, issuer: issuer)
            guard let token, let entry = try? await find(clientID: clientID, username: username, issuer: issuer) else { return (status, nil) }
            guard entry.tokenType == "DPoP" else { return (status, ["Authorization": "Bearer \(token)"]) }
            guard let key = try? await keyStore.key(label: entry.dpopKey),
                let proof = try? await proof(method: method, url: url, key: key, accessToken: token)
            else { return (.cannotAcquireTokenData, nil) }
            return (status, ["Authorization": "DPoP \(token)", "DPoP": proof])
        }
    }

    /// Remembers a nonce a server sent in `DPoP-Nonce`, for the next proofs to its origin.
    public func noteDPoPNonce(_ nonce: String, for url: URL) async {
        await Self.nonces.set(nonce, origin: Self.origin(of: url))
    }

    // MARK: Internals

    private func currentToken(clientID: String?, username: String, issuer: String?) async -> (LoginStatus, String?) {
        let found: TokenData?
        do {
            found = try await find(clientID: clientID, username: username, issuer: issuer)
        } catch {
            return (.cannotAcquireTokenData, nil)
        }
        guard var entry = found else { return (.noTokenDataAvailable, nil) }
        if entry.outdated { return (.tokenDataIsOutdated, nil) }
        if entry.accessTokenExpiresAt.timeIntervalSince(now()) > Self.expiryMargin { return (.ok, entry.accessToken) }
        guard let refresh = entry.refreshToken else {
            entry.outdated = true
            _ = await save(entry)
            return (.tokenDataIsOutdated, nil)
        }
        switch await tokenRequest(
            issuer: entry.issuer, ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": entry.clientID],
            dpopKey: entry.tokenType == "DPoP" ? entry.dpopKey : nil)
        {
        case .success(let response):
            entry.tokenType = response.tokenType
            entry.accessToken = response.accessToken
            entry.refreshToken = response.refreshToken ?? refresh
            entry.idToken = response.idToken ?? entry.idToken
            entry.scope = response.scope ?? entry.scope
            entry.accessTokenExpiresAt = now().addingTimeInterval(TimeInterval(response.expiresIn ?? 300))
            // The server has rotated: the old refresh token is spent, so the fresh access
            // token is the caller's even if the key store cannot keep the new one (the
            // next refresh will then find the session outdated).
            _ = await save(entry)
            return (.ok, entry.accessToken)
        case .refused:
            // The session is over (expired, revoked, or its token was used elsewhere).
            entry.outdated = true
            _ = await save(entry)
            return (.tokenDataIsOutdated, nil)
        case .unavailable:
            return (.cannotAcquireTokenData, nil)
        }
    }

    private func find(clientID: String?, username: String, issuer: String?) async throws -> TokenData? {
        let matches = try await users().filter {
            $0.username == username && (clientID == nil || $0.clientID == clientID) && (issuer == nil || $0.issuer == issuer)
        }
        guard matches.count <= 1 else {
            throw TesseraKitError.keyStore("tokens of several services or issuers are kept for \(username): name one")
        }
        return matches.first
    }

    /// Writes the entry, trying three times; `false` when the key store would not keep it.
    private func save(_ entry: TokenData) async -> Bool {
        guard let data = try? WireCoding.encoder().encode(entry) else { return false }
        for _ in 0..<3 {
            if (try? await keyStore.setItem(data, label: entry.label, availability: .afterFirstUnlock)) != nil { return true }
        }
        return false
    }

    struct TokenResponse: Decodable {
        let accessToken: String
        let refreshToken: String?
        let idToken: String?
        let expiresIn: Int?
        let scope: String?
        var tokenType: String? = nil
        enum CodingKeys: String, CodingKey {
            case scope
            case tokenType = "token_type"
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case idToken = "id_token"
            case expiresIn = "expires_in"
        }
    }

    enum TokenAnswer {
        case success(TokenResponse)
        /// The server said no (`invalid_grant` and friends): asking again will not help.
        case refused
        /// No answer, or a server error: asking later may help.
        case unavailable
    }

    /// A token request; with `dpopKey` (and DPoP on) it carries a proof signed with the
    /// key of that label, made on first use, and is sent once more with the server's
    /// nonce when it asks for one (`use_dpop_nonce`).
    private func tokenRequest(issuer: String, _ fields: [String: String], dpopKey keyLabel: String? = nil) async -> TokenAnswer {
        guard let endpoint = URL(string: issuer + "/token") else { return .unavailable }
        var key: (any P256Signer)?
        if usesDPoP, let keyLabel {
            do {
                key = try await keyStore.key(label: keyLabel)
                // Refreshing in the background, while the phone is locked, signs with it.
                if key == nil { key = try await keyStore.generateKey(label: keyLabel, protection: .afterFirstUnlock) }
            } catch {
                return .unavailable
            }
        }
        var response: HTTPResponseData
        do {
            var attempt = 0
            while true {
                var request = try formRequest(url: endpoint.absoluteString, fields)
                if let key { request.headers["DPoP"] = try await proof(method: "POST", url: endpoint, key: key, accessToken: nil) }
                response = try await transport.send(request)
                if let nonce = response.header("DPoP-Nonce") { await Self.nonces.set(nonce, origin: Self.origin(of: endpoint)) }
                struct Refusal: Decodable { let error: String }
                let refusal = try? JSONDecoder().decode(Refusal.self, from: response.body).error
                guard key != nil, response.status == 400, refusal == "use_dpop_nonce", attempt == 0 else { break }
                attempt += 1
            }
        } catch {
            return .unavailable
        }
        switch response.status {
        case 200:
            guard let tokens = try? JSONDecoder().decode(TokenResponse.self, from: response.body) else { return .unavailable }
            return .success(tokens)
        default:
            // Only the authorization server's own refusal ends the session; a proxy's error
            // page or an outage does not.
            struct Refusal: Decodable { let error: String }
            let error = try? JSONDecoder().decode(Refusal.self, from: response.body).error
            return ["invalid_grant", "invalid_client", "unauthorized_client"].contains(error ?? "") ? .refused : .unavailable
        }
    }

    static func dpopLabel(_ label: String) -> String { label + ".dpop" }

    static func origin(of url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? "")\(url.port.map { ":\($0)" } ?? "")"
    }

    /// A DPoP proof (RFC 9449 §4): `typ` dpop+jwt, ES256 with the public key in the header,
    /// the method, the URL without query and fragment, the system clock's `iat` (the server
    /// compares it with its own), the origin's last nonce, and the token's hash at a resource.
    func proof(method: String, url: URL, key: any P256Signer, accessToken: String?) async throws -> String {
        struct Claims: Encodable {
            let jti: String
            let htm: String
            let htu: String
            let iat: Int64
            let nonce: String?
            let ath: String?
        }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        let claims = Claims(
            jti: Secrets.randomToken(byteCount: 16), htm: method, htu: components?.string ?? url.absoluteString,
            iat: Int64(Date().timeIntervalSince1970), nonce: await Self.nonces.nonce(origin: Self.origin(of: url)),
            ath: accessToken.map { Secrets.digest($0) })  // base64url(SHA-256(token)), RFC 9449 §4.2
        return try CompactJWS.sign(claims: claims, header: JWSHeader(typ: "dpop+jwt", jwk: key.publicJWK), signer: key)
    }

    private func formRequest(url: String, _ fields: [String: String]) throws -> HTTPRequestData {
        guard let endpoint = URL(string: url) else { throw TesseraKitError.invalidLink("bad issuer") }
        return .form(endpoint, fields)
    }

    /// The `sub` of an ID token, read without verification (it came from the token
    /// endpoint over the same connection as the tokens; it only labels the entry).
    static func subject(of idToken: String?) -> String? {
        claims(of: idToken)?["sub"] as? String
    }

    /// An ID token's claims, read without verifying its signature: the token endpoint
    /// answered it over TLS to this client (OpenID Connect Core §3.1.3.7, item 6).
    static func claims(of idToken: String?) -> [String: Any]? {
        guard let idToken, let jws = try? CompactJWS.parse(idToken, type: "JWT") else { return nil }
        return try? JSONSerialization.jsonObject(with: jws.unverifiedPayload) as? [String: Any]
    }

    // MARK: Web login

    /// Redeems the code a web login (`WebLogin`, the IdP's own pages in the browser) came
    /// back with, and keeps the tokens. When the app does not know the user yet (`username`
    /// nil: no activation on this device), it learns them from the ID token: its
    /// `preferred_username` when the service releases one, else its `sub`. The ID token
    /// must name the login's issuer, the app and the login's nonce.
    ///
    /// Answers the status and the username the tokens are kept under; never throws.
    ///
    /// ```swift
    /// let code = try login.code(from: callbackURL)
    /// let (status, username) = await tokens.login(authorizationCode: code, webLogin: login)
    /// if status == .ok, let username { showHome(for: username) }
    /// ```
    public func login(authorizationCode code: String, webLogin login: WebLogin, username: String? = nil) async -> (LoginStatus, String?) {
        await Self.lock.withLock {
            let fields = [
                "grant_type": "authorization_code", "code": code, "redirect_uri": login.redirectURI, "client_id": login.clientID,
                "code_verifier": login.codeVerifier,
            ]
            // Until the user is known, the DPoP key is the login's own, kept with the tokens.
            let keyLabel = username.map { Self.dpopLabel(Self.label(issuer: login.issuer, clientID: login.clientID, username: $0)) }
                ?? Self.labelPrefix + "web." + Secrets.digest(login.state) + ".dpop"
            guard case .success(let response) = await tokenRequest(issuer: login.issuer, fields, dpopKey: keyLabel) else {
                return (.cannotAcquireAccessTokenForAuthorizationCode, nil)
            }
            guard let claims = Self.claims(of: response.idToken), claims["iss"] as? String == login.issuer,
                Self.audience(claims["aud"]).contains(login.clientID), let nonce = claims["nonce"] as? String,
                Secrets.constantTimeEquals(nonce, login.nonce)
            else { return (.cannotAcquireAccessTokenForAuthorizationCode, nil) }
            guard let user = username ?? (claims["preferred_username"] as? String) ?? (claims["sub"] as? String), !user.isEmpty else {
                return (.cannotAcquireAccessTokenForAuthorizationCode, nil)
            }
            let kept = await keepResponse(
                response, issuer: login.issuer, clientID: login.clientID, username: user, scope: login.scope,
                dpopKeyLabel: username == nil ? keyLabel : nil)
            return (kept ? .ok : .cannotAcquireTokenData, user)
        }
    }

    /// An `aud` claim: one string or several.
    static func audience(_ value: Any?) -> [String] {
        (value as? [String]) ?? (value as? String).map { [$0] } ?? []
    }
}

/// The last DPoP nonce each origin sent.
actor DPoPNonces {
    private var nonces: [String: String] = [:]

    func set(_ nonce: String, origin: String) { nonces[origin] = String(nonce.prefix(256)) }
    func nonce(origin: String) -> String? { nonces[origin] }
}
