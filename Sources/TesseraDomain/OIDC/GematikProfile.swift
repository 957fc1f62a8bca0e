import Crypto
import Foundation
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// The gematik IDP profile's token encryption (gemSpec_IDP_Dienst, `key_verifier`): a
/// client sends, with each token request, a JWE to the tenant's encryption key
/// (`puk_idp_enc`) holding a fresh 256-bit `token_key` and its PKCE `code_verifier`; the
/// tokens come back encrypted under that key (`dir`, A256GCM, `cty` NJWT), so a proxy that
/// terminates TLS in front of the server reads none of them. Services ask for it with
/// `gematik_profile`. gematik uses brainpoolP256r1; BoringSSL has no Brainpool, so the
/// tenant's key here is P-256.
public struct GematikProfile: Sendable {
    let domain: Domain

    /// The tenant's encryption key: derived from the master key and the tenant's id
    /// (HKDF-SHA256), so every node has it without storing it; a master-key rotation
    /// gives the tenant a new one (clients fetch `puk_idp_enc` again).
    public func encryptionKey(for tenant: TenantRecord) -> P256.KeyAgreement.PrivateKey {
        var counter = 0
        while true {
            let material = domain.box.derivedKey(label: "tessera gematik puk_idp_enc \(tenant.id) \(counter)")
            // A scalar of 2^256 - n or more is not a key; the next counter is (about one in 2^32).
            if let key = try? material.withUnsafeBytes({ try P256.KeyAgreement.PrivateKey(rawRepresentation: Data($0)) }) { return key }
            counter += 1
        }
    }

    /// `puk_idp_enc` as a JWK, its kid the RFC 7638 thumbprint.
    public func publicEncryptionJWK(for tenant: TenantRecord) -> PublicJWK {
        let raw = encryptionKey(for: tenant).publicKey.rawRepresentation
        var jwk = PublicJWK(
            kty: "EC", crv: "P-256", x: Base64URL.encode(raw.prefix(32)), y: Base64URL.encode(raw.suffix(32)), use: "enc", alg: "ECDH-ES")
        jwk.kid = jwk.thumbprint
        return jwk
    }

    /// What a `key_verifier` holds.
    public struct KeyVerifier: Sendable {
        public let tokenKey: SymmetricKey
        public let codeVerifier: String?
    }

    /// Opens a token request's `key_verifier`: `invalid_request` when it is missing, is not
    /// a JWE to this tenant's key, or holds no 256-bit `token_key`.
    public func keyVerifier(_ text: String?, tenant: TenantRecord) throws -> KeyVerifier {
        guard let text else { throw DomainError.invalidRequest("this service uses the gematik profile: send key_verifier") }
        let opened: JWE.Decrypted
        do {
            opened = try JWE.decrypt(text, with: encryptionKey(for: tenant))
        } catch {
            throw DomainError.invalidRequest("key_verifier is not a JWE to this issuer's encryption key (puk_idp_enc)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: opened.plaintext) as? [String: Any],
            let key = (object["token_key"] as? String).flatMap(Base64URL.decode), key.count == 32
        else { throw DomainError.invalidRequest("key_verifier must hold a 256-bit token_key (base64url)") }
        return KeyVerifier(tokenKey: SymmetricKey(data: key), codeVerifier: object["code_verifier"] as? String)
    }

    /// The token response with its tokens encrypted under the client's `token_key`.
    public func encrypt(_ response: TokenResponse, with verifier: KeyVerifier) throws -> TokenResponse {
        let exp = domain.epochNow() + response.expiresIn
        func seal(_ token: String) throws -> String {
            try JWE.encrypt(Data(token.utf8), directKey: verifier.tokenKey, header: ["cty": "NJWT", "exp": exp])
        }
        var encrypted = response
        encrypted.accessToken = try seal(response.accessToken)
        encrypted.idToken = try seal(response.idToken)
        encrypted.refreshToken = try response.refreshToken.map(seal)
        return encrypted
    }
}

extension Domain {
    public var gematikProfile: GematikProfile { GematikProfile(domain: self) }
}
