import Crypto
import Foundation

/// JWE compact serialization (RFC 7516) with ECDH-ES key agreement on P-256 (RFC 7518
/// §4.6), directly or wrapping the content key with A256KW, and A256GCM content
/// encryption: what the gematik IDP profile encrypts challenges, registration data and
/// tokens with (on brainpoolP256r1 there; BoringSSL has no Brainpool, so P-256 here).
///
/// No listed package does JWE (jwt-kit signs only), so the format is assembled here from
/// swift-crypto's primitives (ECDH, AES key wrap, AES-GCM); the Concat KDF of NIST
/// SP 800-56A is the one piece written out. Tested both ways against joserfc and jwcrypto.
public enum JWE {
    public enum KeyManagement: String, Sendable, CaseIterable {
        /// The agreed key is the content key (no encrypted key part).
        case ecdhES = "ECDH-ES"
        /// The agreed key wraps a random content key (AES key wrap, RFC 3394).
        case ecdhESA256KW = "ECDH-ES+A256KW"
    }

    public static let contentEncryption = "A256GCM"

    /// A decrypted JWE: its protected header and the plaintext.
    public struct Decrypted: Sendable {
        /// The protected header's JSON, as it was sent.
        public let headerJSON: Data
        public let plaintext: Data

        /// A string member of the protected header (`kid`, `cty`, …).
        public func header(_ name: String) -> String? {
            ((try? JSONSerialization.jsonObject(with: headerJSON)) as? [String: Any])?[name] as? String
        }
    }

    /// Encrypts `plaintext` to `recipient` with a fresh ephemeral key. `header` adds
    /// members to the protected header (`kid`, `cty`, `exp`, …); `alg`, `enc` and `epk` are set here.
    public static func encrypt(
        _ plaintext: Data, to recipient: P256.KeyAgreement.PublicKey, keyManagement: KeyManagement = .ecdhES,
        header extra: [String: Any] = [:]
    ) throws -> String {
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: recipient)
        let raw = ephemeral.publicKey.rawRepresentation
        var header = extra
        header["alg"] = keyManagement.rawValue
        header["epk"] = ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(raw.prefix(32)), "y": Base64URL.encode(raw.suffix(32))]
        let agreed = concatKDF(shared, algorithmID: keyManagement == .ecdhES ? contentEncryption : keyManagement.rawValue, apu: Data(), apv: Data())
        let contentKey: SymmetricKey
        let encryptedKey: Data
        switch keyManagement {
        case .ecdhES:
            contentKey = agreed
            encryptedKey = Data()
        case .ecdhESA256KW:
            contentKey = SymmetricKey(size: .bits256)
            encryptedKey = try AES.KeyWrap.wrap(contentKey, using: agreed)
        }
        return try seal(plaintext, header: header, encryptedKey: encryptedKey, contentKey: contentKey)
    }

    /// The compact form: the protected header (with `enc`) as the additional data of A256GCM.
    private static func seal(_ plaintext: Data, header: [String: Any], encryptedKey: Data, contentKey: SymmetricKey) throws -> String {
        var header = header
        header["enc"] = contentEncryption
        let headerPart = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let sealed = try AES.GCM.seal(plaintext, using: contentKey, nonce: AES.GCM.Nonce(), authenticating: Data(headerPart.utf8))
        return [
            headerPart, Base64URL.encode(encryptedKey), Base64URL.encode(Data(sealed.nonce)), Base64URL.encode(sealed.ciphertext),
            Base64URL.encode(sealed.tag),
        ].joined(separator: ".")
    }

    /// Decrypts a compact JWE with the recipient's key. Refused before any key is used:
    /// another `alg` or `enc`, `zip` (compression before encryption leaks through lengths),
    /// `crit`, an `epk` that is not a P-256 point, an encrypted key where none belongs (or
    /// of the wrong size), an IV other than 96 bits, a tag other than 128.
    public static func decrypt(_ compact: String, with key: P256.KeyAgreement.PrivateKey) throws(CryptoError) -> Decrypted {
        guard compact.utf8.count <= 1 << 20 else { throw CryptoError(.malformed, "JWE too large") }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts.allSatisfy({ $0.isEmpty || Base64URL.isURLSafe($0) }), !parts[0].isEmpty,
            let headerData = Base64URL.decode(parts[0]),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let encryptedKey = Base64URL.decode(parts[1]), let iv = Base64URL.decode(parts[2]),
            let ciphertext = Base64URL.decode(parts[3]), let tag = Base64URL.decode(parts[4])
        else { throw CryptoError(.malformed, "not a compact JWE") }
        guard let alg = header["alg"] as? String, let keyManagement = KeyManagement(rawValue: alg) else {
            throw CryptoError(.unsupportedAlgorithm, "JWE alg must be ECDH-ES or ECDH-ES+A256KW")
        }
        guard header["enc"] as? String == contentEncryption else { throw CryptoError(.unsupportedAlgorithm, "JWE enc must be A256GCM") }
        guard header["zip"] == nil, header["crit"] == nil else { throw CryptoError(.unsupportedAlgorithm, "JWE zip and crit are not accepted") }
        // RFC 7518 §6.2.1.2 wants each coordinate at full length, but some libraries (joserfc
        // among them, now and then) drop leading zero bytes: the same number, padded back here.
        func coordinate(_ name: String, of epk: [String: Any]) -> Data? {
            guard let bytes = (epk[name] as? String).flatMap(Base64URL.decode), (1...32).contains(bytes.count) else { return nil }
            return Data(repeating: 0, count: 32 - bytes.count) + bytes
        }
        guard let epk = header["epk"] as? [String: Any], epk["kty"] as? String == "EC", epk["crv"] as? String == "P-256",
            let x = coordinate("x", of: epk), let y = coordinate("y", of: epk),
            let ephemeral = try? P256.KeyAgreement.PublicKey(rawRepresentation: x + y)
        else { throw CryptoError(.invalidKey, "JWE epk is not a P-256 public key") }
        guard iv.count == 12, tag.count == 16 else { throw CryptoError(.malformed, "JWE needs a 96-bit IV and a 128-bit tag") }
        let apu = (header["apu"] as? String).flatMap(Base64URL.decode) ?? Data()
        let apv = (header["apv"] as? String).flatMap(Base64URL.decode) ?? Data()
        do {
            let shared = try key.sharedSecretFromKeyAgreement(with: ephemeral)
            let agreed = concatKDF(shared, algorithmID: keyManagement == .ecdhES ? contentEncryption : alg, apu: apu, apv: apv)
            let contentKey: SymmetricKey
            switch keyManagement {
            case .ecdhES:
                guard encryptedKey.isEmpty else { throw CryptoError(.malformed, "ECDH-ES has no encrypted key") }
                contentKey = agreed
            case .ecdhESA256KW:
                guard encryptedKey.count == 40 else { throw CryptoError(.malformed, "an A256KW-wrapped key is 40 bytes") }
                contentKey = try AES.KeyWrap.unwrap(encryptedKey, using: agreed)
            }
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: iv), ciphertext: ciphertext, tag: tag)
            let plaintext = try AES.GCM.open(box, using: contentKey, authenticating: Data(parts[0].utf8))
            return Decrypted(headerJSON: headerData, plaintext: plaintext)
        } catch let error as CryptoError {
            throw error
        } catch {
            throw CryptoError(.invalidSignature, "the JWE does not decrypt with this key")
        }
    }

    /// Encrypts with a key both sides hold (`dir`, RFC 7518 §4.5) and A256GCM: the gematik
    /// profile's token encryption under the client's `token_key`.
    public static func encrypt(_ plaintext: Data, directKey key: SymmetricKey, header extra: [String: Any] = [:]) throws -> String {
        guard key.bitCount == 256 else { throw CryptoError(.invalidKey, "dir with A256GCM needs a 256-bit key") }
        var header = extra
        header["alg"] = "dir"
        return try seal(plaintext, header: header, encryptedKey: Data(), contentKey: key)
    }

    /// Decrypts a `dir` + A256GCM JWE under a key both sides hold: the gematik profile's
    /// tokens under the app's `token_key`. Refused: another `alg` or `enc`, `zip`, `crit`,
    /// an encrypted key, an IV other than 96 bits, a tag other than 128.
    public static func decrypt(_ compact: String, directKey key: SymmetricKey) throws(CryptoError) -> Decrypted {
        guard compact.utf8.count <= 1 << 20 else { throw CryptoError(.malformed, "JWE too large") }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts.allSatisfy({ $0.isEmpty || Base64URL.isURLSafe($0) }), !parts[0].isEmpty, parts[1].isEmpty,
            let headerData = Base64URL.decode(parts[0]),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let iv = Base64URL.decode(parts[2]), let ciphertext = Base64URL.decode(parts[3]), let tag = Base64URL.decode(parts[4])
        else { throw CryptoError(.malformed, "not a compact JWE with direct encryption") }
        guard header["alg"] as? String == "dir", header["enc"] as? String == contentEncryption else {
            throw CryptoError(.unsupportedAlgorithm, "JWE must be dir with A256GCM")
        }
        guard header["zip"] == nil, header["crit"] == nil else { throw CryptoError(.unsupportedAlgorithm, "JWE zip and crit are not accepted") }
        guard iv.count == 12, tag.count == 16, key.bitCount == 256 else { throw CryptoError(.malformed, "JWE needs a 96-bit IV, a 128-bit tag, a 256-bit key") }
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: iv), ciphertext: ciphertext, tag: tag)
            return Decrypted(headerJSON: headerData, plaintext: try AES.GCM.open(box, using: key, authenticating: Data(parts[0].utf8)))
        } catch {
            throw CryptoError(.invalidSignature, "the JWE does not decrypt with this key")
        }
    }

    /// The Concat KDF of RFC 7518 §4.6.2 (NIST SP 800-56A §5.8.1) with SHA-256, for a
    /// 256-bit key: one round, SHA-256(counter 1 ‖ Z ‖ AlgorithmID ‖ PartyUInfo ‖ PartyVInfo ‖ SuppPubInfo),
    /// each of the first three a 32-bit big-endian length and its bytes, the last the key length in bits.
    static func concatKDF(_ shared: SharedSecret, algorithmID: String, apu: Data, apv: Data) -> SymmetricKey {
        func lengthPrefixed(_ data: Data) -> Data { bigEndian(UInt32(data.count)) + data }
        func bigEndian(_ value: UInt32) -> Data { withUnsafeBytes(of: value.bigEndian) { Data($0) } }
        var input = bigEndian(1)
        shared.withUnsafeBytes { input.append(contentsOf: $0) }
        input += lengthPrefixed(Data(algorithmID.utf8)) + lengthPrefixed(apu) + lengthPrefixed(apv) + bigEndian(256)
        return SymmetricKey(data: SHA256.hash(data: input))
    }
}
