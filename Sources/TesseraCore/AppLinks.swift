import Foundation

/// How a tenant's own app receives sign-in and activation links on the phone that shows
/// them: a custom URL scheme (`myapp://tessera/authenticate?…`) and universal links
/// (iOS) or app links (Android) on a link domain. The server serves the association
/// files (`/.well-known/apple-app-site-association`, `/.well-known/assetlinks.json`)
/// from these settings, and the login page's same-device link uses the link domain, or
/// else the scheme.
///
/// A same-device link names its issuer in an `issuer` parameter, because neither the
/// scheme nor the link domain is the issuer's own address; the SDK only follows it for an
/// issuer it holds an activation of.
public struct AppLinks: Codable, Sendable, Equatable {
    /// The host universal and app links use (`links.example.com`), served by Tessera too.
    /// It should not be the issuer's own host: iOS opens a link to the page's own domain in
    /// the browser, not in the app.
    public var linkDomain: String?
    /// A custom scheme of the app (`myapp`), for links when there is no link domain.
    public var customScheme: String?
    /// iOS apps as `TEAMID.bundle.id` (ten characters of team id).
    public var appleAppIDs: [String]
    /// Android apps, each with the SHA-256 fingerprints of its signing certificates.
    public var androidApps: [AndroidApp]

    public struct AndroidApp: Codable, Sendable, Hashable {
        public var packageName: String
        /// `AB:CD:…`, 32 bytes as upper-case hex pairs.
        public var sha256CertFingerprints: [String]

        public init(packageName: String, sha256CertFingerprints: [String]) {
            self.packageName = packageName
            self.sha256CertFingerprints = sha256CertFingerprints
        }

        enum CodingKeys: String, CodingKey {
            case packageName = "package_name"
            case sha256CertFingerprints = "sha256_cert_fingerprints"
        }
    }

    public init(linkDomain: String? = nil, customScheme: String? = nil, appleAppIDs: [String] = [], androidApps: [AndroidApp] = []) {
        self.linkDomain = linkDomain
        self.customScheme = customScheme
        self.appleAppIDs = appleAppIDs
        self.androidApps = androidApps
    }

    enum CodingKeys: String, CodingKey {
        case linkDomain = "link_domain"
        case customScheme = "custom_scheme"
        case appleAppIDs = "apple_app_ids"
        case androidApps = "android_apps"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        linkDomain = try container.decodeIfPresent(String.self, forKey: .linkDomain)
        customScheme = try container.decodeIfPresent(String.self, forKey: .customScheme)
        appleAppIDs = try container.decodeIfPresent([String].self, forKey: .appleAppIDs) ?? []
        androidApps = try container.decodeIfPresent([AndroidApp].self, forKey: .androidApps) ?? []
    }

    /// Schemes an app may not claim: the web's own, and those a browser runs or reads.
    static let reservedSchemes: Set<String> = ["http", "https", "javascript", "data", "file", "blob", "about", "ftp", "ws", "wss", "mailto", "tel"]

    /// The settings in normal form (a lower-case domain and scheme, upper-case
    /// fingerprints), or why they are not valid.
    public func checked() throws(AppLinksError) -> AppLinks {
        var links = self
        if let domain = linkDomain?.lowercased() {
            let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
            guard domain.utf8.count <= 253, labels.count >= 2,
                labels.allSatisfy({ label in
                    (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                        && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
                })
            else { throw AppLinksError("link_domain is a host name such as links.example.com (no scheme, port or path)") }
            links.linkDomain = domain
        }
        if let scheme = customScheme?.lowercased() {
            guard (2...32).contains(scheme.utf8.count), let first = scheme.utf8.first, first >= 0x61 && first <= 0x7A,
                scheme.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }),
                !Self.reservedSchemes.contains(scheme)
            else { throw AppLinksError("custom_scheme is 2 to 32 characters of a-z, 0-9, '+', '-', '.', starting with a letter, and not a web scheme") }
            links.customScheme = scheme
        }
        guard appleAppIDs.count <= 20, androidApps.count <= 20 else { throw AppLinksError("at most 20 apps of each kind") }
        for id in appleAppIDs {
            let parts = id.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, parts[0].utf8.count == 10,
                parts[0].utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }),
                Self.isDottedIdentifier(parts[1], extra: [0x2D])
            else { throw AppLinksError("apple_app_ids are TEAMID.bundle.id, with a ten-character team id: '\(id)' is not") }
        }
        links.androidApps = try androidApps.map { app throws(AppLinksError) in
            guard Self.isDottedIdentifier(Substring(app.packageName), extra: [0x5F]), app.packageName.contains(".") else {
                throw AppLinksError("package_name '\(app.packageName)' is not an Android package name")
            }
            guard (1...10).contains(app.sha256CertFingerprints.count) else {
                throw AppLinksError("each Android app needs 1 to 10 sha256_cert_fingerprints")
            }
            let fingerprints = try app.sha256CertFingerprints.map { text throws(AppLinksError) in
                let pairs = text.uppercased().split(separator: ":", omittingEmptySubsequences: false)
                guard pairs.count == 32, pairs.allSatisfy({ $0.utf8.count == 2 && UInt8($0, radix: 16) != nil }) else {
                    throw AppLinksError("a SHA-256 fingerprint is 32 hex pairs separated by ':': '\(text)' is not")
                }
                return pairs.joined(separator: ":")
            }
            return AndroidApp(packageName: app.packageName, sha256CertFingerprints: fingerprints)
        }
        return links
    }

    /// `a.b.c` where each part starts with a letter and holds letters, digits and `extra`.
    private static func isDottedIdentifier(_ text: Substring, extra: Set<UInt8>) -> Bool {
        guard text.utf8.count <= 255 else { return false }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.allSatisfy { part in
            guard let first = part.utf8.first, (first >= 0x41 && first <= 0x5A) || (first >= 0x61 && first <= 0x7A) else { return false }
            return part.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || extra.contains($0) }
        }
    }

    /// The link that opens the app on this phone for `{issuer}/{endpoint}?{parameter}=…`:
    /// on the link domain (the issuer's path, so the association files can scope it), else
    /// with the custom scheme, else nil (the issuer's own link is all there is).
    public func sameDeviceLink(issuer: String, endpoint: String, parameter: String, value: String) -> String? {
        let query = "\(parameter)=\(FormEncoding.component(value))&issuer=\(FormEncoding.component(issuer))"
        if let linkDomain {
            let path = URLComponents(string: issuer)?.path ?? ""
            return "https://\(linkDomain)\(path)/\(endpoint)?\(query)"
        }
        if let customScheme { return "\(customScheme)://tessera/\(endpoint)?\(query)" }
        return nil
    }

    /// The paths below an issuer that open the app: its sign-in and activation links.
    public static func linkPaths(issuer: String) -> [String] {
        let path = URLComponents(string: issuer)?.path ?? ""
        return ["\(path)/authenticate", "\(path)/activate"]
    }
}

/// Why a tenant's app-link settings are refused.
public struct AppLinksError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
