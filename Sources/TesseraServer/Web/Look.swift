import Foundation
import Hummingbird
import Mustache
import TesseraRecords
import TesseraTexts

/// What a page is dressed in: the words of its language (with the tenant's own
/// sentences), the tenant's names, its colours (a style sheet of its own, so the
/// Content-Security-Policy stays as strict), its logo and its links. The console wears
/// the operators' tenant's.
/// Two looks are equal when their pages would read the same (`Words`' equality): a kept
/// login page is kept per look.
struct Look: Sendable, Hashable {
    let words: Words
    let language: String
    let displayName: String?
    let logoURL: String?
    let logoAlt: String
    let stylesheetURL: String?
    let supportURL: String?
    let privacyURL: String?
    let termsURL: String?
    /// Stored, not computed: the templates read stored properties only.
    let hasLinks: Bool
    let hasHeader: Bool

    /// The look of `tenant`'s pages in the language the request and the tenant settle on.
    static func of(_ tenant: TenantRecord?, issuer: String?, request: Request?, uiLocales: String? = nil) -> Look {
        let language = Catalog.negotiate(
            uiLocales: uiLocales, acceptLanguage: request?.headers[.acceptLanguage], fallback: tenant?.defaultLanguage ?? "en")
        return of(tenant, issuer: issuer, language: language)
    }

    /// Tessera's own look, in English: for pages of no tenant.
    static let plain = Look.of(nil, issuer: nil, language: "en")

    static func of(_ tenant: TenantRecord?, issuer: String?, language: String) -> Look {
        let branding = tenant?.branding ?? Branding()
        let texts = Catalog.shared.texts(language: language, overrides: tenant?.texts[language] ?? [:])
        let tenantName = branding.displayName ?? tenant?.name ?? ""
        let values = ["app": branding.appName ?? texts("app.name"), "tenant": tenantName]
        let words = Words(texts: texts, values: values)
        let styled = branding.primaryColor != nil || branding.accentColor != nil
        return Look(
            words: words, language: texts.language, displayName: branding.displayName,
            logoURL: issuer.flatMap { issuer in branding.logoDigest.map { "\(issuer)/logo?v=\($0)" } },
            logoAlt: words("page.logo"),
            stylesheetURL: styled ? issuer.map { "\($0)/branding.css?v=\(Self.styleVersion(branding))" } : nil,
            supportURL: branding.supportURL, privacyURL: branding.privacyURL, termsURL: branding.termsURL,
            hasLinks: branding.supportURL != nil || branding.privacyURL != nil || branding.termsURL != nil,
            hasHeader: branding.displayName != nil || (issuer != nil && branding.logoDigest != nil))
    }

    /// Changes with the colours, so a browser asks again when they change.
    static func styleVersion(_ branding: Branding) -> String {
        ((branding.primaryColor ?? "") + (branding.accentColor ?? "")).replacingOccurrences(of: "#", with: "")
    }

    /// The tenant's colours as custom properties over `tessera.css`'s.
    static func stylesheet(_ branding: Branding?) -> String {
        var rules: [String] = []
        if let primary = branding?.primaryColor { rules.append("--primary:\(primary)") }
        if let accent = branding?.accentColor { rules.append("--accent:\(accent)") }
        return ":root{\(rules.joined(separator: ";"))}\n"
    }
}

/// The sentences of a page's language for its templates: `{{t.login.title}}` is the
/// catalog's `login.title` with the page's values in its placeholders, escaped like every
/// value (`{{…}}`).
struct Words: Sendable, Hashable {
    let texts: Texts
    let values: [String: String]
    var prefix = ""

    func callAsFunction(_ key: String, _ more: [String: String] = [:]) -> String {
        texts(key, more.isEmpty ? values : values.merging(more) { _, new in new })
    }

    /// The sentence `key` as HTML: its text escaped, and each value of `marked` (escaped)
    /// in a `<strong>` with the id given (if any), so a sentence in any word order keeps its emphasis.
    func marked(_ key: String, _ marked: [String: (value: String, id: String)], _ more: [String: String] = [:]) -> String {
        let values = self.values.merging(more) { _, new in new }
        return texts.parts(key).map { part in
            guard let name = part.placeholder else { return Pages.escape(part.text) }
            if let item = marked[name] {
                return (item.id.isEmpty ? "<strong>" : "<strong id=\"\(Pages.escape(item.id))\">") + Pages.escape(item.value) + "</strong>"
            }
            return Pages.escape(values[name] ?? "{\(name)}")
        }.joined()
    }

    func has(_ key: String) -> Bool { texts.has(key) }

    /// What a finished form says: `?done=CODE` names the catalog's `PREFIX.CODE`, so a link
    /// cannot put words of its own on a page; nil for no code or an unknown one.
    func notice(_ request: Request, prefix: String) -> String? {
        guard let code = (try? RequestDecoding.query(request))?["done"], has("\(prefix).\(code)") else { return nil }
        return self("\(prefix).\(code)")
    }

    /// A moment as the language writes it, in UTC; "—" for none.
    func time(_ date: Date?) -> String { date.map(texts.time) ?? "—" }

    func time(seconds: Double?) -> String { time(seconds.map(Date.init(timeIntervalSince1970:))) }

    func number(_ value: Int) -> String { texts.number(value) }

    /// The catalog's word for a value of the API (`prefix.value`), or the value as it is.
    func named(_ prefix: String, _ value: String) -> String { has("\(prefix).\(value)") ? self("\(prefix).\(value)") : value }

    /// The same words with more values (`service`, …) for the placeholders.
    func with(_ more: [String: String]) -> Words {
        Words(texts: texts, values: values.merging(more) { _, new in new }, prefix: prefix)
    }
}

extension Words: MustacheParent {
    func child(named key: String) -> Any? {
        let full = prefix.isEmpty ? key : prefix + "." + key
        return texts.text(full, values) ?? Words(texts: texts, values: values, prefix: full)
    }
}

extension Look: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "t", "words": words
        case "language": language
        case "displayName": displayName
        case "logoURL": logoURL
        case "logoAlt": logoAlt
        case "stylesheetURL": stylesheetURL
        case "supportURL": supportURL
        case "privacyURL": privacyURL
        case "termsURL": termsURL
        case "hasLinks": hasLinks
        case "hasHeader": hasHeader
        default: nil
        }
    }
}
