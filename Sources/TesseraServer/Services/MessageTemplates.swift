import Foundation
import TesseraCore
import TesseraDomain
import TesseraQRCode
import TesseraRecords
import TesseraTexts

/// The texts of messages to people, by template and language: each a subject, a plain
/// text and an HTML alternative, every value escaped for HTML. An invitation shows its
/// link and the link's QR code (an inline PNG, `cid:`). The HTML wears the tenant's
/// branding: its logo (inline) or display name on top, its primary colour behind the main
/// action, its accent colour on links, and its help, privacy and terms links at the foot.
enum MessageTemplates {
    struct Rendered {
        let subject: String
        let text: String
        let html: String
        var images: [MailMessage.InlineImage] = []
    }

    /// The message `content` stands for, in its language (English for one there is no
    /// catalog of), from the catalog's `mail.*` sentences with the tenant's own in their place.
    static func render(_ content: MessageContent, logo: [UInt8]? = nil) throws -> Rendered {
        let texts = Catalog.shared.texts(language: content.language, overrides: content.texts ?? [:])
        var values = content.values
        values["app"] = values["app"] ?? texts("app.name")
        // Sentences name the tenant as its users know it.
        values["tenant"] = values["display_name"] ?? values["tenant"]
        let words = { (key: String) in texts(key, values) }
        let look = Dress(values: values, texts: texts, logo: logo)
        switch content.template {
        case "invitation":
            let link = values["link"] ?? ""
            values["until"] = Self.date(values["expires_at"], texts: texts)
            let qr = MailMessage.InlineImage(contentID: "qr@tessera", contentType: "image/png", bytes: try QRCode(link).png(scale: 6))
            let greeting = texts("mail.greeting", values)
            let body = texts("mail.invitation.body", values)
            let until = texts("mail.invitation.until", values)
            return Rendered(
                subject: words("mail.invitation.subject"),
                text: "\(greeting)\n\n\(body)\n\n\(link)\n\n\(until)\n",
                html: look.page(
                    """
                    <p>\(escaped(greeting))</p>
                    <p>\(escaped(body))</p>
                    <p><a href="\(escaped(link))" style="\(look.buttonStyle)">\(escaped(words("mail.invitation.button")))</a></p>
                    <p><img src="cid:qr@tessera" alt="\(escaped(words("mail.invitation.qr")))" width="240" height="240"></p>
                    <p>\(escaped(until))</p>
                    """),
                images: [qr] + look.images)
        case let template where template.hasPrefix("notice."):
            return try notice(String(template.dropFirst("notice.".count)), values: values, texts: texts, look: look)
        default:
            throw SMTPError.configuration("no message template '\(content.template)'")
        }
    }

    /// The security notices there are sentences for.
    static let notices: Set<String> = ["device_added", "device_removed", "passkey_added", "locked", "recovery_used"]

    /// A security notice: what happened (with the device or passkey it concerns), when, and
    /// from where; what to do if it was not the user.
    static func notice(_ kind: String, values: [String: String], texts: Texts, look: Dress) throws -> Rendered {
        guard notices.contains(kind) else { throw SMTPError.configuration("no notice '\(kind)'") }
        let named = [values["device"], values["passkey"]].contains { $0?.isEmpty == false }
        let subject = texts("mail.\(kind).subject", values)
        let happened = texts("mail.\(kind).\(named ? "named" : "unnamed")", values)
        let advice = texts("mail.\(kind).advice", values)
        let greeting = texts("mail.greeting", values)
        let whenLabel = texts("mail.when")
        let whereLabel = texts("mail.where")
        let when = date(values["at"], texts: texts)
        let address = values["address"] ?? ""
        let agent = values["user_agent"] ?? ""
        let origin = address.isEmpty ? texts("mail.unknown") : agent.isEmpty ? address : "\(address) (\(agent))"
        return Rendered(
            subject: subject,
            text: "\(greeting)\n\n\(happened)\n\n\(whenLabel): \(when)\n\(whereLabel): \(origin)\n\n\(advice)\n",
            html: look.page(
                """
                <p>\(escaped(greeting))</p>
                <p>\(escaped(happened))</p>
                <p>\(escaped(whenLabel)): \(escaped(when))<br>\(escaped(whereLabel)): \(escaped(origin))</p>
                <p>\(escaped(advice))</p>
                """),
            images: look.images)
    }

    /// What a message's HTML wears: the tenant's logo or name, colours and links (Tessera's
    /// colours where it has none). Mail readers take no style sheets: the styles are inline.
    struct Dress {
        let language: String
        /// The tenant's name as its users know it, when it has a display name.
        let displayName: String?
        let logoAlt: String
        let logo: [UInt8]?
        let primary: String
        let accent: String
        /// The footer's links: label and address.
        let links: [(label: String, url: String)]

        init(values: [String: String], texts: Texts, logo: [UInt8]?) {
            language = texts.language
            displayName = values["display_name"]
            logoAlt = texts("page.logo", values)
            self.logo = logo
            // Checked as `#rrggbb` when the tenant set them; anything else is not used.
            func color(_ value: String?, _ standard: String) -> String {
                guard let value, Color(hex: value) != nil else { return standard }
                return value
            }
            primary = color(values["primary_color"], "#2f4fd8")
            accent = color(values["accent_color"], "#2945c2")
            links = [("page.support", "support_url"), ("page.privacy", "privacy_url"), ("page.terms", "terms_url")].compactMap { key, field in
                values[field].map { (texts(key), $0) }
            }
        }

        var images: [MailMessage.InlineImage] {
            logo.map { [MailMessage.InlineImage(contentID: "logo@tessera", contentType: "image/png", bytes: $0)] } ?? []
        }

        /// The main action: white text on the primary colour (at least 4.5:1, checked when it was set).
        var buttonStyle: String {
            "display: inline-block; background: \(primary); color: #ffffff; padding: 0.6em 1.2em; border-radius: 6px; text-decoration: none; font-weight: bold"
        }

        func page(_ body: String) -> String {
            let header =
                logo != nil
                ? "<p><img src=\"cid:logo@tessera\" alt=\"\(escaped(logoAlt))\" height=\"48\"></p>\n"
                : displayName.map { "<p style=\"font-size: 1.3em; font-weight: bold\">\(escaped($0))</p>\n" } ?? ""
            let footer =
                links.isEmpty
                ? ""
                : "\n<p style=\"font-size: 0.85em; color: #555555\">"
                    + links.map { "<a href=\"\(escaped($0.url))\" style=\"color: \(accent)\">\(escaped($0.label))</a>" }.joined(separator: " · ")
                    + "</p>"
            return """
                <!doctype html>
                <html lang="\(language)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>
                <body style="font-family: sans-serif; line-height: 1.5; color: #111; max-width: 36em">
                \(header)\(body)\(footer)
                </body></html>
                """
        }
    }

    /// Escaped for HTML as every page is (the same five characters).
    static func escaped(_ text: String) -> String { Pages.escape(text) }

    /// A time in seconds as the language writes it, in UTC.
    static func date(_ seconds: String?, texts: Texts) -> String {
        guard let seconds, let value = TimeInterval(seconds) else { return "" }
        return texts.time(Date(timeIntervalSince1970: value))
    }
}
