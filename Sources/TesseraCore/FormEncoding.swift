import Foundation

/// `application/x-www-form-urlencoded` as the OAuth endpoints read it: every character
/// but letters, digits and `-._~` percent-encoded.
public enum FormEncoding {
    /// RFC 3986's unreserved characters: ASCII letters and digits and `-._~`. (Foundation's
    /// `CharacterSet.alphanumerics`, used before, also let non-ASCII letters through
    /// unencoded.) Written on the UTF-8 bytes: `addingPercentEncoding` was a visible part
    /// of a login's CPU.
    public static func component(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `name=value&…`, in name order.
    public static func body(_ fields: [String: String]) -> String {
        fields.sorted { $0.key < $1.key }.map { "\(component($0.key))=\(component($0.value))" }.joined(separator: "&")
    }
}
