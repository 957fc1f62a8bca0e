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
        case let template where template.hasPrefix("notice."):
            return try notice(String(template.dropFirst("notice.".count)), values: values, german: german)
        default:
            throw SMTPError.configuration("no message template '\(content.template)'")
        }
    }

    /// A security notice: what happened (with the device or passkey it concerns), when, and
    /// from where; what to do if it was not the user.
    static func notice(_ kind: String, values: [String: String], german: Bool) throws -> Rendered {
        let tenant = values["tenant"] ?? ""
        let user = values["username"] ?? ""
        let when = date(values["at"], german: german)
        let address = values["address"] ?? ""
        let agent = values["user_agent"] ?? ""
        let device = values["device"].flatMap { $0.isEmpty ? nil : $0 }
        let passkey = values["passkey"].flatMap { $0.isEmpty ? nil : $0 }
        let subject: String
        let happened: String
        let advice: String
        switch (kind, german) {
        case ("device_added", false):
            subject = "A new device can sign in to \(tenant)"
            happened = "A new device\(device.map { " (“\($0)”)" } ?? "") was set up to sign in to your account at \(tenant)."
            advice = "If this was you, there is nothing to do. If not, tell your administrator at once: they can remove the device."
        case ("device_added", true):
            subject = "Ein neues Gerät kann sich bei \(tenant) anmelden"
            happened = "Ein neues Gerät\(device.map { " („\($0)“)" } ?? "") wurde für die Anmeldung an Ihrem Konto bei \(tenant) eingerichtet."
            advice = "Wenn Sie das waren, ist nichts zu tun. Wenn nicht, wenden Sie sich sofort an Ihre Administration: Sie kann das Gerät entfernen."
        case ("device_removed", false):
            subject = "A device was removed from your account at \(tenant)"
            happened = "The device\(device.map { " “\($0)”" } ?? "") can no longer sign in to your account at \(tenant); its sessions ended."
            advice = "If you did not expect this, tell your administrator."
        case ("device_removed", true):
            subject = "Ein Gerät wurde aus Ihrem Konto bei \(tenant) entfernt"
            happened = "Das Gerät\(device.map { " „\($0)“" } ?? "") kann sich nicht mehr an Ihrem Konto bei \(tenant) anmelden; seine Sitzungen wurden beendet."
            advice = "Wenn Sie das nicht erwartet haben, wenden Sie sich an Ihre Administration."
        case ("passkey_added", false):
            subject = "A passkey was added to your account at \(tenant)"
            happened = "A passkey or security key\(passkey.map { " (“\($0)”)" } ?? "") can now sign in to your account at \(tenant)."
            advice = "If this was you, there is nothing to do. If not, remove it on your account page or tell your administrator at once."
        case ("passkey_added", true):
            subject = "Ein Passkey wurde Ihrem Konto bei \(tenant) hinzugefügt"
            happened = "Ein Passkey oder Sicherheitsschlüssel\(passkey.map { " („\($0)“)" } ?? "") kann sich jetzt an Ihrem Konto bei \(tenant) anmelden."
            advice = "Wenn Sie das waren, ist nichts zu tun. Wenn nicht, entfernen Sie ihn auf Ihrer Kontoseite oder wenden Sie sich sofort an Ihre Administration."
        case ("locked", false):
            subject = "Your device was locked at \(tenant)"
            happened = "After too many failed attempts, your device\(device.map { " “\($0)”" } ?? "") was locked for good at \(tenant)."
            advice = "Your administrator can unlock it once they have checked with you."
        case ("locked", true):
            subject = "Ihr Gerät wurde bei \(tenant) gesperrt"
            happened = "Nach zu vielen Fehlversuchen wurde Ihr Gerät\(device.map { " „\($0)“" } ?? "") bei \(tenant) dauerhaft gesperrt."
            advice = "Ihre Administration kann es entsperren, nachdem sie mit Ihnen gesprochen hat."
        case ("recovery_used", false):
            subject = "A recovery code was used for your account at \(tenant)"
            happened = "One of your recovery codes was used to ask for a new device at \(tenant)."
            advice = "If this was you, there is nothing to do. If not, tell your administrator at once, and make new recovery codes."
        case ("recovery_used", true):
            subject = "Ein Wiederherstellungscode Ihres Kontos bei \(tenant) wurde benutzt"
            happened = "Einer Ihrer Wiederherstellungscodes wurde benutzt, um bei \(tenant) ein neues Gerät anzufordern."
            advice = "Wenn Sie das waren, ist nichts zu tun. Wenn nicht, wenden Sie sich sofort an Ihre Administration und erstellen Sie neue Wiederherstellungscodes."
        default:
            throw SMTPError.configuration("no notice '\(kind)'")
        }
        let greeting = german ? "Hallo \(user)," : "Hello \(user),"
        let whenLabel = german ? "Wann" : "When"
        let whereLabel = german ? "Von wo" : "From where"
        let origin = address.isEmpty ? (german ? "unbekannt" : "unknown") : agent.isEmpty ? address : "\(address) (\(agent))"
        return Rendered(
            subject: subject,
            text: "\(greeting)\n\n\(happened)\n\n\(whenLabel): \(when)\n\(whereLabel): \(origin)\n\n\(advice)\n",
            html: page(
                """
                <p>\(escaped(greeting))</p>
                <p>\(escaped(happened))</p>
                <p>\(escaped(whenLabel)): \(escaped(when))<br>\(escaped(whereLabel)): \(escaped(origin))</p>
                <p>\(escaped(advice))</p>
                """, language: german ? "de" : "en"))
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
