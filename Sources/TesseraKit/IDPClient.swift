import Crypto
import Foundation
import TesseraCore
import TesseraCrypto

/// The gematik IDP profile's client calls (gemSpec_IDP_Dienst), named as the seed's
/// `IDPClient` names them where the meaning is the same: the signed discovery document,
/// the signed challenge sent encrypted to the issuer's key (`verify`, and `altVerify`
/// with the biometric key), the device's registration data sent encrypted
/// (`registerDevice`), and tokens that come back encrypted under a key only the app knows
/// (`exchange` with a `key_verifier`). gematik uses brainpoolP256r1; Tessera's keys are
/// P-256.
///
/// ```swift
/// let idp = IDPClient(issuer: URL(string: "https://idp.example/t/demo")!)
/// let document = try await idp.loadDiscoveryDocument()
/// var information = try await authenticator.start(url: link)   // or an in-app login's
/// try information.sign(factor: DeviceFactor()); try information.sign(factor: PinFactor(pin))
/// let result = try await idp.verify(information, authenticator: authenticator, using: document)
/// let tokens = try await idp.exchange(code: code, verifier: verifier, redirectURI: redirect, clientID: id, using: document)
/// ```
public struct IDPClient: Sendable {
    public let issuer: URL
    let client: ServerClient

    public init(issuer: URL, transport: any HTTPTransport = URLSessionTransport()) {
        self.issuer = issuer
        client = ServerClient(transport: transport)
    }

    /// What the app uses of the signed discovery document.
    public struct DiscoveryDocument: Sendable {
        public let issuer: String
        public let authorizationEndpoint: URL
        public let tokenEndpoint: URL
        public let jwksURI: URL
        /// The issuer's encryption key (`puk_idp_enc`) and its kid.
        public let encryptionKey: P256.KeyAgreement.PublicKey
        public let encryptionKeyID: String?
        /// When the signed document stops being good (load it again then).
        public let expiresAt: Date
    }

    struct SignedDocument: Decodable {
        let issuer: String
        let authorizationEndpoint: URL
        let tokenEndpoint: URL
        let jwksURI: URL
        let pukIDPEncURI: URL
        let iat: Int64
        let exp: Int64

        enum CodingKeys: String, CodingKey {
            case issuer, iat, exp
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case jwksURI = "jwks_uri"
            case pukIDPEncURI = "uri_puk_idp_enc"
        }
    }

    struct KeySet: Decodable { let keys: [PublicJWK] }

    /// Loads `{issuer}/.well-known/openid-configuration.jwt`: its signature must verify
    /// with the signing key of its `kid` in `{issuer}/jwks`, its issuer must be this one,
    /// its token and encryption-key endpoints below it, and it must not have expired; then
    /// reads `puk_idp_enc`.
    public func loadDiscoveryDocument(now: Date = Date()) async throws -> DiscoveryDocument {
        let url = issuer.appendingPathComponent(".well-known/openid-configuration.jwt")
        let answer = try await client.transport.send(HTTPRequestData(method: "GET", url: url, headers: ["Accept": "application/jwt"]))
        guard answer.status == 200, let text = String(data: answer.body, encoding: .utf8) else {
            throw TesseraKitError.server(status: answer.status, error: "unknown", description: "no signed discovery document")
        }
        let jws = try CompactJWS.parse(text.trimmingCharacters(in: .whitespacesAndNewlines))
        // The keys come from the issuer itself (over TLS), never from where the unverified
        // document points; the document must be signed by one of them.
        let keys = try await client.get(issuer.appendingPathComponent("jwks"), as: KeySet.self).keys
        guard let kid = jws.header.kid, let jwk = keys.first(where: { $0.kid == kid && $0.use != "enc" }) else {
            throw TesseraKitError.transport("the discovery document's signing key is not among the issuer's keys")
        }
        let payload = try jws.verifiedPayload(with: try jwk.publicKey())
        let document = try JSONDecoder().decode(SignedDocument.self, from: payload)
        guard document.issuer == issuer.absoluteString, Double(document.exp) > now.timeIntervalSince1970 else {
            throw TesseraKitError.transport("the discovery document has expired or names another issuer")
        }
        let prefix = issuer.absoluteString + "/"
        guard document.pukIDPEncURI.absoluteString.hasPrefix(prefix), document.tokenEndpoint.absoluteString.hasPrefix(prefix) else {
            throw TesseraKitError.transport("the discovery document points outside its issuer")
        }
        let encryption = try await client.get(document.pukIDPEncURI, as: PublicJWK.self)
        guard let point = try? encryption.publicKey().rawRepresentation else { throw TesseraKitError.transport("puk_idp_enc is not a P-256 key") }
        let encryptionKey = try P256.KeyAgreement.PublicKey(rawRepresentation: point)
        return DiscoveryDocument(
            issuer: document.issuer, authorizationEndpoint: document.authorizationEndpoint, tokenEndpoint: document.tokenEndpoint,
            jwksURI: document.jwksURI, encryptionKey: encryptionKey, encryptionKeyID: encryption.kid,
            expiresAt: Date(timeIntervalSince1970: TimeInterval(document.exp)))
    }

    /// Answers a claimed authentication with its challenge signed by the factors given
    /// and sent as a JWE to `puk_idp_enc` (gematik's `verify`).
    public func verify(_ information: AuthenticationUserInformation, authenticator: Authenticator, using document: DiscoveryDocument)
        async throws -> AuthenticationResult
    {
        try await authenticator.finish(information, encryptingTo: document.encryptionKey, keyID: document.encryptionKeyID)
    }

    /// `verify` with the alternative (biometric) authentication: the challenge signed with
    /// the biometric key too (gematik's `altVerify`).
    public func altVerify(_ information: AuthenticationUserInformation, authenticator: Authenticator, using document: DiscoveryDocument)
        async throws -> AuthenticationResult
    {
        guard information.factors.contains(where: { $0.type == .biometric }) else {
            throw TesseraKitError.factorsDoNotMatchPolicy("altVerify signs with the biometric key: add a biometric factor")
        }
        return try await verify(information, authenticator: authenticator, using: document)
    }

    /// Activates this device with an invitation link, its registration data sent as a JWE
    /// to `puk_idp_enc` (gematik's `registerDevice`).
    public func registerDevice(
        url: URL, pin: String, alias: String, enrollBiometric: Bool = false, personalizer: Personalizer, using document: DiscoveryDocument
    ) async throws -> Personalizer.ActivationResult {
        try await personalizer.activate(
            url: url, pin: pin, alias: alias, enrollBiometric: enrollBiometric,
            encryptingTo: (document.encryptionKey, document.encryptionKeyID))
    }

    /// The tenant's external providers (`{issuer}/directory/kk_apps`; gematik's
    /// `loadDirectoryKKApps`). A sign-in at one starts on the login page of a browser
    /// login, which links to each; Tessera completes it with the provider itself.
    public func loadDirectoryKKApps() async throws -> [KKApp] {
        struct Directory: Decodable {
            let list: [KKApp]
            enum CodingKeys: String, CodingKey { case list = "kk_app_list" }
        }
        return try await client.get(issuer.appendingPathComponent("directory/kk_apps"), as: Directory.self).list
    }

    /// Tokens as `exchange` returns them: decrypted, as the token endpoint issued them.
    public struct TokenPayload: Sendable {
        public let accessToken: String
        public let idToken: String
        public let refreshToken: String?
        public let expiresIn: Int
    }

    /// Redeems a code at the token endpoint with a `key_verifier`: a fresh 256-bit token
    /// key and the PKCE verifier, encrypted to `puk_idp_enc`. The tokens come back
    /// encrypted under that key and are decrypted here (gematik's `exchange`).
    public func exchange(
        code: String, verifier: String, redirectURI: String, clientID: String, using document: DiscoveryDocument
    ) async throws -> TokenPayload {
        let tokenKey = SymmetricKey(size: .bits256)
        let keyData = tokenKey.withUnsafeBytes { Data($0) }
        let inner = try JSONSerialization.data(withJSONObject: ["token_key": Base64URL.encode(keyData), "code_verifier": verifier])
        var header: [String: Any] = ["cty": "JSON"]
        if let kid = document.encryptionKeyID { header["kid"] = kid }
        let keyVerifier = try JWE.encrypt(inner, to: document.encryptionKey, header: header)
        let answer = try await client.transport.send(
            .form(
                document.tokenEndpoint,
                [
                    "grant_type": "authorization_code", "code": code, "code_verifier": verifier, "redirect_uri": redirectURI,
                    "client_id": clientID, "key_verifier": keyVerifier,
                ]))
        struct Encrypted: Decodable {
            let accessToken: String
            let idToken: String
            let refreshToken: String?
            let expiresIn: Int
            enum CodingKeys: String, CodingKey {
                case accessToken = "access_token"
                case idToken = "id_token"
                case refreshToken = "refresh_token"
                case expiresIn = "expires_in"
            }
        }
        guard answer.status == 200, let encrypted = try? JSONDecoder().decode(Encrypted.self, from: answer.body) else {
            let error = try? JSONDecoder().decode([String: String].self, from: answer.body)
            throw TesseraKitError.server(
                status: answer.status, error: error?["error"] ?? "unknown", description: error?["error_description"] ?? "HTTP \(answer.status)")
        }
        func open(_ token: String) throws -> String {
            String(decoding: try JWE.decrypt(token, directKey: tokenKey).plaintext, as: UTF8.self)
        }
        return TokenPayload(
            accessToken: try open(encrypted.accessToken), idToken: try open(encrypted.idToken),
            refreshToken: try encrypted.refreshToken.map(open), expiresIn: encrypted.expiresIn)
    }
}
