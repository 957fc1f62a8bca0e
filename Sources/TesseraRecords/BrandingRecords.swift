import Foundation
import TesseraCore

/// How a tenant's pages look and what they call things: its name and its app's, its
/// colours, its logo (the bytes are in `TenantLogoRecord`; here what tells a changed one)
/// and the addresses of its help, privacy and terms pages. Nil fields: Tessera's own.
public struct Branding: Codable, Sendable, Equatable {
    public var displayName: String?
    public var appName: String?
    /// `#rrggbb`: the background of every page's main action (white text on it).
    public var primaryColor: String?
    /// `#rrggbb`: links and focus marks (on white).
    public var accentColor: String?
    public var supportURL: String?
    public var privacyURL: String?
    public var termsURL: String?
    /// The logo's media type and the first characters of its SHA-256 (nil: no logo).
    public var logoType: String?
    public var logoDigest: String?

    public init() {}

    /// Whether nothing is set: the tenant looks like Tessera.
    public var isEmpty: Bool { self == Branding() }

    enum CodingKeys: String, CodingKey {
        case displayName = "display_name"
        case appName = "app_name"
        case primaryColor = "primary_color"
        case accentColor = "accent_color"
        case supportURL = "support_url"
        case privacyURL = "privacy_url"
        case termsURL = "terms_url"
        case logoType = "logo_type"
        case logoDigest = "logo_digest"
    }
}

/// A tenant's logo as uploaded: PNG or SVG, at most `maximumSize` bytes (base64url in the row).
public struct TenantLogoRecord: Codable, Sendable {
    public var tenantID: TenantID
    public var contentType: String
    public var body: String
    public var updatedAt: Int64

    public static let maximumSize = 256 * 1024

    public init(tenantID: TenantID, contentType: String, body: String, updatedAt: Int64) {
        self.tenantID = tenantID
        self.contentType = contentType
        self.body = body
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case tenantID = "tenant_id"
        case contentType = "content_type"
        case body
        case updatedAt = "updated_at"
    }
}
