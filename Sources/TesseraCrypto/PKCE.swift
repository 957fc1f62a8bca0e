import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636). Only `S256` exists here: `plain` is refused.
public enum PKCE {
    /// A new code verifier of 43 characters from the unreserved alphabet.
    public static func makeVerifier() -> String { Secrets.randomToken(byteCount: 32) }

    public static func challenge(forVerifier verifier: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(verifier.utf8)))
    }

    /// Whether a verifier is well formed: 43 to 128 characters of `[A-Za-z0-9-._~]` (RFC 7636 §4.1).
    public static func isWellFormedVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count) && verifier.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
        }
    }

    /// A challenge is the base64url SHA-256 of a verifier: exactly 43 characters.
    public static func isWellFormedChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && Base64URL.decode(challenge)?.count == 32
    }

    // [REQ:RFC7636-4.6] the server recomputes S256 and compares in constant time.
    public static func verify(verifier: String, challenge: String) -> Bool {
        guard isWellFormedVerifier(verifier) else { return false }
        return Secrets.constantTimeEquals(Self.challenge(forVerifier: verifier), challenge)
    }
}
