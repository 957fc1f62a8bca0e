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
        // Four characters to three bytes at a time, on the text's bytes in place: each
        // device call carries a JWS, and a byte at a time through an accumulator was a
        // visible part of a login's CPU.
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ decode(bytes: $0) }) { return decoded }
        return Array(text.utf8).withUnsafeBufferPointer { decode(bytes: $0) }
    }

    private static func decode(bytes: UnsafeBufferPointer<UInt8>) -> Data? {
        let count = bytes.count
        if count % 4 == 1 { return nil }
        return values.withUnsafeBufferPointer { table -> Data? in
            var data = Data(count: count * 3 / 4)
            let valid = data.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) -> Bool in
                var out = 0
                var index = 0
                while index + 4 <= count {
                    let a = table[Int(bytes[index])], b = table[Int(bytes[index + 1])]
                    let c = table[Int(bytes[index + 2])], d = table[Int(bytes[index + 3])]
                    // 0xFF (outside the alphabet) is the only value with either high bit set.
                    if (a | b | c | d) & 0xC0 != 0 { return false }
                    let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    output[out] = UInt8(truncatingIfNeeded: chunk >> 16)
                    output[out + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                    output[out + 2] = UInt8(truncatingIfNeeded: chunk)
                    out += 3
                    index += 4
                }
                switch count - index {
                case 2:
                    let a = table[Int(bytes[index])], b = table[Int(bytes[index + 1])]
                    // The 4 bits left over must be zero.
                    if (a | b) & 0xC0 != 0 || b & 0x0F != 0 { return false }
                    output[out] = a << 2 | b >> 4
                case 3:
                    let a = table[Int(bytes[index])], b = table[Int(bytes[index + 1])], c = table[Int(bytes[index + 2])]
                    // The 2 bits left over must be zero.
                    if (a | b | c) & 0xC0 != 0 || c & 0x03 != 0 { return false }
                    output[out] = a << 2 | b >> 4
                    output[out + 1] = (b & 0x0F) << 4 | c >> 2
                default:
                    break
                }
                return true
            }
            return valid ? data : nil
        }
    }
}
