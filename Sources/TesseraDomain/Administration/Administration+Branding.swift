import Crypto
import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore
import TesseraTexts

// A tenant's face: its branding (names, colours, links, logo) and its own sentences in
// place of the catalog's. Set with the tenant's other settings (`settle`), the logo on its own.

extension Administration {
    /// Sets `branding` and `texts` as `input` names them, refusing a colour below WCAG AA
    /// contrast, a link that is not https, and a sentence the catalog does not have or
    /// whose placeholders differ from the catalog's.
    func settleLooks(_ input: TenantChanges, on next: inout TenantRecord, changed: inout [String]) throws {
        switch input.branding {
        case .absent: break
        case .null:
            var kept = Branding()
            kept.logoType = next.branding?.logoType
            kept.logoDigest = next.branding?.logoDigest
            next.branding = kept.isEmpty ? nil : kept
            changed.append("branding")
        case .value(let wire):
            var branding = try Self.checkedBranding(wire)
            branding.logoType = next.branding?.logoType
            branding.logoDigest = next.branding?.logoDigest
            next.branding = branding.isEmpty ? nil : branding
            changed.append("branding")
        }
        switch input.texts {
        case .absent: break
        case .null:
            next.texts = [:]
            changed.append("texts")
        case .value(let texts):
            next.texts = try Self.checkedTexts(texts)
            changed.append("texts")
        }
    }

    static func checkedBranding(_ wire: Components.Schemas.Branding) throws -> Branding {
        var branding = Branding()
        func name(_ value: String?, field: String, limit: Int) throws -> String? {
            guard let value else { return nil }
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.count <= limit, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw DomainError.invalidRequest("branding.\(field) is 1 to \(limit) characters without control characters") }
            return trimmed
        }
        branding.displayName = try name(wire.displayName, field: "display_name", limit: 80)
        branding.appName = try name(wire.appName, field: "app_name", limit: 40)
        branding.primaryColor = try color(wire.primaryColor, field: "primary_color", role: "white button text on it")
        branding.accentColor = try color(wire.accentColor, field: "accent_color", role: "it as text on the white page")
        func link(_ value: String?, field: String) throws -> String? {
            guard let value else { return nil }
            guard value.count <= 2048, let url = URL(string: value), url.scheme?.lowercased() == "https", url.host?.isEmpty == false,
                !value.contains(where: { $0.isWhitespace })
            else { throw DomainError.invalidRequest("branding.\(field) is an https URL") }
            return value
        }
        branding.supportURL = try link(wire.supportUrl, field: "support_url")
        branding.privacyURL = try link(wire.privacyUrl, field: "privacy_url")
        branding.termsURL = try link(wire.termsUrl, field: "terms_url")
        return branding
    }

    /// `#rrggbb` (kept in lower case), refused below 4.5:1 against white: WCAG 2.2's AA
    /// minimum for normal text (success criterion 1.4.3).
    static func color(_ value: String?, field: String, role: String) throws -> String? {
        guard let value else { return nil }
        guard let color = Color(hex: value) else { throw DomainError.invalidRequest("branding.\(field) is a colour written #rrggbb") }
        let ratio = color.contrast(with: Color.white)
        guard ratio >= 4.5 else {
            throw DomainError.invalidRequest(
                "branding.\(field) \(value) has a contrast of \(String(format: "%.2f", ratio)):1 with \(role); WCAG AA needs 4.5:1: choose a darker colour")
        }
        return value.lowercased()
    }

    static func checkedTexts(_ texts: [String: [String: String]]) throws -> [String: [String: String]] {
        var kept: [String: [String: String]] = [:]
        for (language, sentences) in texts {
            guard sentences.count <= 500 else { throw DomainError.invalidRequest("texts.\(language.prefix(16)): at most 500 sentences") }
            for (key, sentence) in sentences {
                if let problem = Catalog.shared.problem(language: language, key: key, sentence: sentence) {
                    throw DomainError.invalidRequest("texts.\(language.prefix(16)): \(problem)")
                }
            }
            if !sentences.isEmpty { kept[language] = sentences }
        }
        return kept
    }

    /// The branding as the API shows it: the logo as the address pages load it from.
    func brandingView(_ tenant: TenantRecord) -> Components.Schemas.Branding {
        let branding = tenant.branding ?? Branding()
        return Components.Schemas.Branding(
            displayName: branding.displayName, appName: branding.appName, primaryColor: branding.primaryColor,
            accentColor: branding.accentColor, supportUrl: branding.supportURL, privacyUrl: branding.privacyURL,
            termsUrl: branding.termsURL,
            logoUrl: branding.logoDigest.map { "\(domain.issuer(forTenantNamed: tenant.name))/logo?v=\($0)" })
    }

    // MARK: The logo

    /// The media types a logo may have.
    public static let logoTypes = ["image/png", "image/svg+xml"]

    /// Puts `bytes` (a PNG or an SVG, as `contentType` says and its first bytes confirm)
    /// in place of the tenant's logo.
    package func putLogo(_ bytes: Data, contentType: String, tenant: TenantRecord, logger: Logger) async throws -> Components.Schemas.Branding {
        guard bytes.count <= TenantLogoRecord.maximumSize else {
            throw DomainError(.tooLarge, .invalidRequest, "a logo is at most \(TenantLogoRecord.maximumSize / 1024) KiB")
        }
        guard !bytes.isEmpty else { throw DomainError.invalidRequest("the logo is empty") }
        switch contentType {
        case "image/png":
            guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
                throw DomainError.invalidRequest("the body is not a PNG image")
            }
        case "image/svg+xml":
            guard let text = String(data: bytes, encoding: .utf8), text.range(of: "<svg", options: .caseInsensitive) != nil else {
                throw DomainError.invalidRequest("the body is not an SVG image")
            }
        default:
            throw DomainError.invalidRequest("a logo is image/png or image/svg+xml")
        }
        let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined().prefix(16)
        let now = domain.epochNow()
        let updated = try await domain.store.transaction { tx in
            guard var next = try await tx.tenant(id: tenant.id) else { throw DomainError.notFound("tenant '\(tenant.name)'") }
            var branding = next.branding ?? Branding()
            branding.logoType = contentType
            branding.logoDigest = String(digest)
            next.branding = branding
            try await tx.replaceTenantLogo(
                TenantLogoRecord(tenantID: tenant.id, contentType: contentType, body: Base64URL.encode(bytes), updatedAt: now))
            try await tx.updateTenantSettings(next)
            try await Audit.record(
                tx, tenantID: next.id, actor: caller.actor, action: .tenantUpdate, target: next.name,
                details: ["changed": "logo", "bytes": String(bytes.count)], at: now)
            return next
        }
        await domain.announce(RequestNotice(keys: [EventKey.tenant(named: tenant.name)]), logger: logger)
        return brandingView(updated)
    }

    package func deleteLogo(tenant: TenantRecord, logger: Logger) async throws -> Components.Schemas.Branding {
        let now = domain.epochNow()
        let updated = try await domain.store.transaction { tx in
            guard var next = try await tx.tenant(id: tenant.id) else { throw DomainError.notFound("tenant '\(tenant.name)'") }
            guard next.branding?.logoDigest != nil else { throw DomainError.notFound("a logo of tenant '\(tenant.name)'") }
            next.branding?.logoType = nil
            next.branding?.logoDigest = nil
            if next.branding?.isEmpty == true { next.branding = nil }
            try await tx.deleteTenantLogo(tenantID: tenant.id)
            try await tx.updateTenantSettings(next)
            try await Audit.record(
                tx, tenantID: next.id, actor: caller.actor, action: .tenantUpdate, target: next.name, details: ["changed": "logo"], at: now)
            return next
        }
        await domain.announce(RequestNotice(keys: [EventKey.tenant(named: tenant.name)]), logger: logger)
        return brandingView(updated)
    }
}

extension Domain {
    /// A tenant's logo for its pages: its media type and bytes, or nil when it has none.
    public func logo(of tenant: TenantRecord) async throws -> (type: String, bytes: Data)? {
        guard tenant.branding?.logoDigest != nil, let logo = try await store.read({ try await $0.tenantLogo(tenantID: tenant.id) }),
            let bytes = Base64URL.decode(logo.body)
        else { return nil }
        return (logo.contentType, bytes)
    }
}

/// An sRGB colour, for the contrast rule of WCAG 2.2 (relative luminance, §1.4.3).
public struct Color: Sendable, Equatable {
    public let red: Double
    public let green: Double
    public let blue: Double

    public static let white = Color(red: 1, green: 1, blue: 1)

    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#rrggbb`, or nil.
    public init?(hex: String) {
        let digits = hex.dropFirst()
        guard hex.first == "#", digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        self.init(red: Double((value >> 16) & 0xFF) / 255, green: Double((value >> 8) & 0xFF) / 255, blue: Double(value & 0xFF) / 255)
    }

    /// WCAG's relative luminance: 0 for black, 1 for white.
    public var luminance: Double {
        func linear(_ channel: Double) -> Double {
            channel <= 0.04045 ? channel / 12.92 : pow((channel + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// The contrast ratio of the two, from 1:1 to 21:1.
    public func contrast(with other: Color) -> Double {
        let (light, dark) = luminance > other.luminance ? (luminance, other.luminance) : (other.luminance, luminance)
        return (light + 0.05) / (dark + 0.05)
    }
}
