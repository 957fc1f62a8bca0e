import Foundation

/// Checks on names and URIs that come from administrators and clients.
public enum Validation {
    /// The longest `scope` a request may ask for (characters): it is stored with the
    /// request, which an unauthenticated caller can make.
    public static let maximumScopeLength = 1024

    public static func isTenantName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...63).contains(bytes.count) else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || (index > 0 && byte == 0x2D)
        }
    }

    public static func isUsername(_ name: String) -> Bool {
        (1...128).contains(name.count) && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
            && name.trimmingCharacters(in: .whitespaces) == name
    }

    /// An e-mail address a message may go to (`local@domain`, ASCII, no spaces, brackets or
    /// line breaks, at most 254 characters), or nil.
    public static func emailAddress(_ text: String) -> String? {
        let address = text.trimmingCharacters(in: .whitespaces)
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard address.utf8.count <= 254, address.allSatisfy({ $0.isASCII && !$0.isWhitespace }), parts.count == 2,
            !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !address.contains(where: { "<>,;:\\\"()[]".contains($0) })
        else { return nil }
        return address
    }

    public static let reservedClaims: Set<String> = [
        "iss", "sub", "aud", "exp", "iat", "nbf", "jti", "auth_time", "nonce", "amr", "acr", "azp", "sid", "at_hash",
        "c_hash", "scope", "client_id",
    ]

    public static func isAttributeName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), !reservedClaims.contains(name) else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || (index > 0 && byte >= 0x30 && byte <= 0x39)
        }
    }

    /// Redirect URIs are absolute, carry no fragment, and use https, http on a loopback
    /// host, or a private-use scheme with a dot (RFC 8252 §7.1).
    public static func isRedirectURI(_ text: String) -> Bool {
        guard text.count <= 2048, let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            components.fragment == nil
        else { return false }
        switch scheme {
        case "https": return !(components.host ?? "").isEmpty
        case "http": return ["127.0.0.1", "localhost", "[::1]", "::1"].contains(components.host ?? "")
        default: return scheme.contains(".")
        }
    }

    /// Where a server posts to a service: https, or http on a loopback host (CIBA §4
    /// requires TLS; loopback serves development).
    public static func isNotificationEndpoint(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), components.fragment == nil,
            text.count <= 2048
        else { return false }
        return (scheme == "https" && !(components.host ?? "").isEmpty) || (scheme == "http" && isRedirectURI(text))
    }
}
