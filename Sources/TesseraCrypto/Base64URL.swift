import Crypto
import Foundation

/// Base64url without padding (RFC 4648 §5), as JOSE and PKCE use it.
///
/// Written directly on bytes: it runs several times per request (tokens, JWS, ids),
/// and going through Foundation's base64 plus three string replacements was a visible
/// share of a login's CPU time.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's 6-bit value, or 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    public static func encode(_ data: some DataProtocol) -> String {
        let bytes = Array(data)
        let length = (bytes.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: length) { output in
            var out = 0
            var index = 0
            while index + 3 <= bytes.count {
                let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                output[out] = alphabet[Int(chunk >> 18 & 0x3F)]
                output[out + 1] = alphabet[Int(chunk >> 12 & 0x3F)]
                output[out + 2] = alphabet[Int(chunk >> 6 & 0x3F)]
                output[out + 3] = alphabet[Int(chunk & 0x3F)]
                out += 4
                index += 3
            }
            switch bytes.count - index {
            case 1:
                let chunk = UInt32(bytes[index]) << 16
                output[out] = alphabet[Int(chunk >> 18 & 0x3F)]
                output[out + 1] = alphabet[Int(chunk >> 12 & 0x3F)]
                out += 2
            case 2:
                let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                output[out] = alphabet[Int(chunk >> 18 & 0x3F)]
                output[out + 1] = alphabet[Int(chunk >> 12 & 0x3F)]
                output[out + 2] = alphabet[Int(chunk >> 6 & 0x3F)]
                out += 3
            default:
                break
            }
            return out
        }
    }

    public static func encode(_ digest: some Digest) -> String {
        encode(Data(digest))
    }

    /// Whether `text` uses only the base64url alphabet (A–Z, a–z, 0–9, '-', '_').
    public static func isURLSafe(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { values[Int($0)] != 0xFF }
    }

    /// Decodes strictly: only the url-safe alphabet, no padding, no white space, and
    /// unused low bits of the last character zero (one encoding per value, so a token
    /// cannot be re-spelled to look new).
    public static func decode(_ text: some StringProtocol) -> Data? {
        let count = text.utf8.count
        if count % 4 == 1 { return nil }
        // Into an array first: appending to Data byte by byte made this a visible part
        // of a login's CPU (each device call carries a JWS).
        var output: [UInt8] = []
        output.reserveCapacity(count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        let valid = values.withUnsafeBufferPointer { values in
            for byte in text.utf8 {
                let value = values[Int(byte)]
                if value == 0xFF { return false }
                accumulator = accumulator << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                    accumulator &= (1 << UInt32(bits)) - 1
                }
            }
            return true
        }
        // Leftover bits (2 or 4) must be zero.
        guard valid, accumulator == 0 else { return nil }
        return Data(output)
    }
}
