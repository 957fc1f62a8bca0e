import Crypto
import Foundation

#if canImport(CommonCrypto)
import CommonCrypto
#else
import CryptoExtras
#endif

/// Server-checked PIN proofs.
///
/// The PIN never leaves the device. At enrolment the device derives
/// `K = PBKDF2-SHA256(PIN, salt)` with the per-activation salt the server chose and
/// sends `K` once; the server keeps it sealed under its master key. Each attempt sends
/// `HMAC-SHA256(K, request id ‖ 0x00 ‖ challenge)`, which is worthless for any other
/// request or challenge. Because the device holds no verifier, a stolen device cannot
/// test PINs offline; guessing goes through the server and its lockout.
public enum PinProof {
    /// PBKDF2 rounds on the device (OWASP's figure for PBKDF2-HMAC-SHA256).
    public static let rounds = 210_000

    /// PBKDF2-HMAC-SHA256 of the PIN's UTF-8 bytes: CommonCrypto's on Apple platforms (so
    /// that an app links no BoringSSL), swift-crypto's CryptoExtras elsewhere. The tests
    /// check the result against Python's `hashlib.pbkdf2_hmac`.
    public static func deriveKey(pin: String, salt: Data) throws -> SymmetricKey {
        #if canImport(CommonCrypto)
        let password = Array(pin.utf8)
        let saltBytes = Array(salt)
        let length = 32
        var derived = [UInt8](repeating: 0, count: length)
        let status = password.withUnsafeBufferPointer { passwordBytes in
            passwordBytes.withMemoryRebound(to: CChar.self) { passwordChars in
                CCKeyDerivationPBKDF(
                    CCPBKDFAlgorithm(kCCPBKDF2), passwordChars.baseAddress, passwordChars.count, saltBytes, saltBytes.count,
                    CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), UInt32(rounds), &derived, length)
            }
        }
        guard status == Int32(kCCSuccess) else { throw CryptoError(.invalidKey, "PBKDF2 failed (\(status))") }
        return SymmetricKey(data: derived)
        #else
        return try KDF.Insecure.PBKDF2.deriveKey(
            from: Data(pin.utf8), salt: salt, using: .sha256, outputByteCount: 32, rounds: rounds)
        #endif
    }

    /// The derived key's bytes, as the device sends them once at enrolment.
    public static func deriveKeyData(pin: String, salt: Data) throws -> Data {
        try deriveKey(pin: pin, salt: salt).withUnsafeBytes { Data($0) }
    }

    public static func proof(keyData: Data, requestID: String, challenge: String) -> Data {
        proof(key: SymmetricKey(data: keyData), requestID: requestID, challenge: challenge)
    }

    public static func proof(key: SymmetricKey, requestID: String, challenge: String) -> Data {
        var message = Data(requestID.utf8)
        message.append(0)
        message.append(contentsOf: challenge.utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }

    public static func verify(proof: Data, key: SymmetricKey, requestID: String, challenge: String) -> Bool {
        let expected = Self.proof(key: key, requestID: requestID, challenge: challenge)
        return Secrets.constantTimeEquals(expected, proof)
    }

    /// Whether a PIN is acceptable at enrolment: 4 to 64 characters.
    public static func isAcceptable(_ pin: String) -> Bool { (4...64).contains(pin.count) }
}
