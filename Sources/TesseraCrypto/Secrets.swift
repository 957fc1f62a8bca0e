import Crypto
import Foundation

/// Random values and digests used for codes, tokens and identifiers.
public enum Secrets {
    /// A base64url string of `byteCount` bytes from the system's secure generator.
    public static func randomToken(byteCount: Int = 32) -> String {
        Base64URL.encode(randomBytes(byteCount))
    }

    /// A random id that people copy into commands: base64url that never starts with
    /// `-` or `_`, so no command-line parser takes it for an option.
    public static func identifier(byteCount: Int = 16) -> String {
        while true {
            let token = randomToken(byteCount: byteCount)
            if let first = token.unicodeScalars.first, first.properties.isAlphabetic || ("0"..."9").contains(first) { return token }
        }
    }

    public static func randomBytes(_ count: Int) -> Data {
        // swift-crypto's generator (BoringSSL's RAND_bytes on Linux, the system's on Apple
        // platforms) fills the whole count at once; one system call per byte or per eight
        // bytes was a visible part of a login's CPU.
        guard count > 0 else { return Data() }
        return SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Data($0) }
    }

    /// The base64url SHA-256 of a secret: how codes and tokens are stored, so a leaked
    /// database cannot be replayed against the server.
    public static func digest(_ secret: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(secret.utf8)))
    }

    /// Compares two byte strings without an early exit on the first difference.
    public static func constantTimeEquals(_ lhs: some DataProtocol, _ rhs: some DataProtocol) -> Bool {
        let a = Array(lhs)
        let b = Array(rhs)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        constantTimeEquals(Data(lhs.utf8), Data(rhs.utf8))
    }
}
