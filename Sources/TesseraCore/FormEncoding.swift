import Foundation

/// `application/x-www-form-urlencoded` as the OAuth endpoints read it: every character
/// but letters, digits and `-._~` percent-encoded.
public enum FormEncoding {
    private static let unreserved: CharacterSet = {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()

    public static func component(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// `name=value&…`, in name order.
    public static func body(_ fields: [String: String]) -> String {
        fields.sorted { $0.key < $1.key }.map { "\(component($0.key))=\(component($0.value))" }.joined(separator: "&")
    }
}
