import Crypto
import Foundation

/// Seals server secrets (signing keys, PIN keys, TOTP secrets) under the master key
/// with AES-256-GCM. The `context` is authenticated, so a value sealed for one
/// purpose or row cannot be moved to another.
public struct SecretBox: Sendable {
    private let key: SymmetricKey

    public init(masterKey: Data) throws(CryptoError) {
        guard masterKey.count == 32 else { throw CryptoError(.invalidKey, "the master key must be 32 bytes") }
        key = SymmetricKey(data: masterKey)
    }

    public static func makeMasterKey() -> Data { Secrets.randomBytes(32) }

    /// A key for another purpose, derived from the master key (HKDF-SHA256 with `label` as info).
    public func derivedKey(label: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data(label.utf8), outputByteCount: 32)
    }

    public func seal(_ plaintext: Data, context: String) throws -> String {
        let box = try AES.GCM.seal(plaintext, using: key, authenticating: Data(context.utf8))
        guard let combined = box.combined else { throw CryptoError(.invalidKey, "AES-GCM produced no output") }
        return Base64URL.encode(combined)
    }

    public func open(_ sealed: String, context: String) throws(CryptoError) -> Data {
        guard let combined = Base64URL.decode(sealed) else { throw CryptoError(.malformed, "sealed value is not base64url") }
        do {
            let box = try AES.GCM.SealedBox(combined: combined)
            return try AES.GCM.open(box, using: key, authenticating: Data(context.utf8))
        } catch {
            throw CryptoError(.invalidKey, "sealed value does not open under this master key")
        }
    }
}
