import Foundation
import TesseraCore
import TesseraRecords

/// The texts of messages to people, by template and language: each a subject, a plain
/// text and an HTML alternative, every value escaped for HTML. An invitation shows its
/// link and the link's QR code (an inline PNG, `cid:`).
enum MessageTemplates {
    struct Rendered {
        let subject: String
        let text: String
        let html: String
        var images: [MailMessage.InlineImage] = []
    }

    /// The message `content` stands for, in its language (English when the template has none in it).
    static func render(_ content: MessageContent) throws -> Rendered {
        let values = content.values
        let german = content.language == "de"
        switch content.template {
        case "invitation":
            let link = values["link"] ?? ""
            let until = Self.date(values["expires_at"], german: german)
            let qr = MailMessage.InlineImage(contentID: "qr@tessera", contentType: "image/png", bytes: try QRCode(link).png(scale: 6))
            let tenant = values["tenant"] ?? ""
            let user = values["username"] ?? ""
            if german {
                return Rendered(
                    subject: "Ihre Anmeldung bei \(tenant) einrichten",
                    text: """
                        Hallo \(user),

                        Sie sind eingeladen, sich bei \(tenant) mit Ihrem Gerät anzumelden. Öffnen Sie diesen Link auf dem \
                        Telefon mit der App, oder scannen Sie den QR-Code mit ihr:

                        \(link)

                        Der Link gilt bis \(until). Wenn Sie diese Einladung nicht erwartet haben, ignorieren Sie sie.
                        """,
                    html: page(
                        """
                        <p>Hallo \(escaped(user)),</p>
                        <p>Sie sind eingeladen, sich bei \(escaped(tenant)) mit Ihrem Gerät anzumelden. Öffnen Sie diesen Link auf dem Telefon mit der App, oder scannen Sie den QR-Code mit ihr:</p>
                        <p><a href="\(escaped(link))">Gerät einrichten</a></p>
                        <p><img src="cid:qr@tessera" alt="QR-Code des Links" width="240" height="240"></p>
                        <p>Der Link gilt bis \(escaped(until)). Wenn Sie diese Einladung nicht erwartet haben, ignorieren Sie sie.</p>
                        """, language: "de"),
                    images: [qr])
            }
            return Rendered(
                subject: "Set up your sign-in to \(tenant)",
                text: """
                    Hello \(user),

                    you are invited to sign in to \(tenant) with your device. Open this link on the phone that has the app, \
                    or scan the QR code with it:

                    \(link)

                    The link works until \(until). If you did not expect this invitation, ignore it.
                    """,
                html: page(
                    """
                    <p>Hello \(escaped(user)),</p>
                    <p>you are invited to sign in to \(escaped(tenant)) with your device. Open this link on the phone that has the app, or scan the QR code with it:</p>
                    <p><a href="\(escaped(link))">Set up my device</a></p>
                    <p><img src="cid:qr@tessera" alt="QR code of the link" width="240" height="240"></p>
                    <p>The link works until \(escaped(until)). If you did not expect this invitation, ignore it.</p>
                    """, language: "en"),
                images: [qr])
        default:
            throw SMTPError.configuration("no message template '\(content.template)'")
        }
    }

    static func page(_ body: String, language: String) -> String {
        """
        <!doctype html>
        <html lang="\(language)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>
        <body style="font-family: sans-serif; line-height: 1.5; color: #111; max-width: 36em">
        \(body)
        </body></html>
        """
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A time in seconds as the language writes it, in UTC.
    static func date(_ seconds: String?, german: Bool) -> String {
        guard let seconds, let value = TimeInterval(seconds) else { return "" }
        let date = Date(timeIntervalSince1970: value)
        var style = Date.FormatStyle(date: .long, time: .shortened, locale: Locale(identifier: german ? "de_DE" : "en_GB"), timeZone: .gmt)
        style.calendar = Calendar(identifier: .gregorian)
        return date.formatted(style) + " UTC"
    }
}
