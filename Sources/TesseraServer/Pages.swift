import Foundation
import TesseraCore
import TesseraDomain

/// The server's pages outside the console: the login page, errors, device links. Style
/// and script come from the server's `/static/` files (no CDN, nothing inline), which is
/// all the Content-Security-Policy allows.
enum Pages {
    static func escape(_ text: String) -> String {
        // On the UTF-8 bytes: the five are ASCII, and ASCII bytes never occur inside a
        // multi-byte character, so every other byte is copied as it is.
        let special: (UInt8) -> Bool = { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }
        guard text.utf8.contains(where: special) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): bytes.append(contentsOf: "&#39;".utf8)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func document(title: String, body: String, scripts: [String] = [], language: String = "en") -> String {
        """
        <!doctype html>
        <html lang="\(escape(language))"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
        <title>\(escape(title))</title><link rel="stylesheet" href="/static/tessera.css">\(scripts.map { "<script src=\"/static/\($0)\" defer></script>" }.joined())</head>
        <body><main>\(body)</main></body></html>
        """
    }

    static func error(title: String, message: String) -> String {
        document(title: title, body: "<h1>\(escape(title))</h1><p>\(escape(message))</p>")
    }

    /// The login page: the QR code of the authentication link, the link that opens the
    /// app on this device (the tenant's app link, or else the same link), the service and what it asks for; it follows the request by polling its
    /// status and moves on by itself.
    /// The languages the login page is written in, and the words it uses.
    struct LoginWords: Sendable {
        let language: String
        let title: String
        let asksFor: String
        let asksForNothing: String
        let scan: String
        let match: @Sendable (String) -> String
        let sameDevice: String
        let openLink: String
        let link: String
        let waiting: String
        let otherProvider: String

        static let english = LoginWords(
            language: "en", title: "Sign in to", asksFor: "It asks for:", asksForNothing: "The service asks for no personal attributes.",
            scan: "Scan this code with the Tessera app on your activated device, then confirm with your factors.",
            match: { "Your device will ask for a number: pick \($0). If it shows another service or place than yours, deny." },
            sameDevice: "On this device?", openLink: "Open the sign-in link", link: "Link:", waiting: "Waiting for your device…",
            otherProvider: "Or sign in with another provider")
        static let german = LoginWords(
            language: "de", title: "Anmelden bei", asksFor: "Der Dienst möchte:", asksForNothing: "Der Dienst fragt nach keinen persönlichen Angaben.",
            scan: "Scannen Sie diesen Code mit der Tessera-App auf Ihrem aktivierten Gerät und bestätigen Sie mit Ihren Faktoren.",
            match: { "Ihr Gerät fragt nach einer Zahl: wählen Sie \($0). Zeigt es einen anderen Dienst oder Ort als Ihren, lehnen Sie ab." },
            sameDevice: "Auf diesem Gerät?", openLink: "Anmeldelink öffnen", link: "Link:", waiting: "Warte auf Ihr Gerät…",
            otherProvider: "Oder mit einem anderen Anbieter anmelden")

        /// The first of the request's `ui_locales` (OpenID Core §3.1.2.1, BCP 47 tags in order
        /// of preference) the page is written in; English otherwise.
        static func preferred(_ uiLocales: String?) -> LoginWords {
            for tag in (uiLocales ?? "").split(separator: " ") {
                switch tag.split(separator: "-").first?.lowercased() {
                case "de": return german
                case "en": return english
                default: continue
                }
            }
            return english
        }
    }

    static func login(
        serviceName: String, attributes: [String], authenticationURL: String, sameDeviceURL: String? = nil, statusURL: String,
        completeURL: String, requestID: String, expiresAt: Date, matchCode: String? = nil, passkeyURL: String? = nil,
        providers: [(name: String, url: String)] = [], words: LoginWords = .english
    ) -> String {
        let qr = (try? QRCode(authenticationURL).svg(moduleSize: 6)) ?? ""
        let attributeList =
            attributes.isEmpty
            ? "<p class=\"muted\">\(words.asksForNothing)</p>"
            : "<p>\(words.asksFor)</p><ul>" + attributes.map { "<li>\(escape($0))</li>" }.joined() + "</ul>"
        let matchParagraph = matchCode.map { code -> String in
            let number = "<strong id=\"match-code\" data-match-code=\"\(escape(code))\">\(escape(code))</strong>"
            return "<p class=\"match\">\(words.match(number))</p>"
        }
        let body = """
            <h1>\(words.title) \(escape(serviceName))</h1>
            \(attributeList)
            <p>\(words.scan)</p>
            \(matchParagraph ?? "")
            <div class="qr" id="qr">\(qr)</div>
            <p class="muted">\(words.sameDevice) <a id="same-device" href="\(escape(sameDeviceURL ?? authenticationURL))">\(words.openLink)</a>.</p>
            <p class="muted">\(words.link) <code id="authentication-url">\(escape(authenticationURL))</code></p>
            \(passkeyURL.map(passkeySection) ?? "")
            \(providerSection(providers, heading: words.otherProvider))
            <div class="status" id="status" role="status">\(words.waiting)</div>
            <div id="login" data-request="\(escape(requestID))" data-status-url="\(escape(statusURL))"
                 data-complete-url="\(escape(completeURL))" data-expires-at="\(Int(expiresAt.timeIntervalSince1970))"></div>
            """
        return document(
            title: "\(words.title) \(serviceName)", body: body, scripts: passkeyURL == nil ? ["login.js"] : ["login.js", "webauthn.js"],
            language: words.language)
    }

    /// The login page's passkey sign-in: a button, and a username field that the browser
    /// fills from its passkeys (conditional mediation) where it can; login.js drives both.
    static func passkeySection(_ url: String) -> String {
        """
        <section class="passkey" id="passkey" data-passkey-url="\(escape(url))" hidden>
          <h2>Or sign in with a passkey</h2>
          <label for="passkey-username">Username (optional)</label>
          <input id="passkey-username" name="username" autocomplete="username webauthn" autocapitalize="none" spellcheck="false">
          <p><button type="button" id="passkey-button">Sign in with a passkey</button></p>
          <p class="status failed" id="passkey-error" role="alert" hidden></p>
        </section>
        """
    }

    /// Links to sign in at the tenant's external providers (federation), where the
    /// service takes such a sign-in.
    static func providerSection(_ providers: [(name: String, url: String)], heading: String, explanation: String? = nil) -> String {
        guard !providers.isEmpty else { return "" }
        let links = providers.map { "<li><a class=\"provider\" href=\"\(escape($0.url))\">\(escape($0.name))</a></li>" }.joined()
        let paragraph = explanation.map { "<p>\($0)</p>" } ?? ""
        return "<section class=\"providers\" id=\"providers\"><h2>\(heading)</h2>\(paragraph)<ul>\(links)</ul></section>"
    }

    /// On an invitation's page: link the account to an identity at an external provider
    /// by signing in there once and confirming (the invitation is used up by it). Each
    /// provider is a form (POST, with the page's token).
    static func invitationProviders(code: String, issuer: String, providers: [KKApp], csrf: String) -> String {
        guard !providers.isEmpty else { return "" }
        let action = escape(issuer) + "/authorize/federation/link"
        let forms = providers.map { provider -> String in
            let fields: [String] = [
                "<li><form method=\"post\" action=\"\(action)\" class=\"provider-link\">",
                "<input type=\"hidden\" name=\"invitation\" value=\"\(escape(code))\">",
                "<input type=\"hidden\" name=\"provider\" value=\"\(escape(provider.id))\">",
                "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(csrf))\">",
                "<button type=\"submit\" class=\"provider\">\(escape(provider.name))</button></form></li>",
            ]
            return fields.joined()
        }
        let parts: [String] = [
            "<section class=\"providers\" id=\"providers\"><h2>Or sign in with another provider</h2>",
            "<p>Sign in once at one of these to link it to your account. You confirm before anything is linked; ",
            "from then on it signs you in here. The invitation is used up by it.</p><ul>", forms.joined(), "</ul></section>",
        ]
        return parts.joined()
    }

    /// On the way from an invitation's provider form to the provider: goes on by itself
    /// (a refresh, which a page's `form-action` does not govern), or by the link.
    static func continueToProvider(_ url: String) -> String {
        let target = escape(url)
        let parts: [String] = [
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">",
            "<meta http-equiv=\"refresh\" content=\"0;url=\(target)\"><title>Sign in at the provider</title>",
            "<link rel=\"stylesheet\" href=\"/static/tessera.css\"></head><body><main><h1>Sign in at the provider</h1>",
            "<p><a id=\"continue\" href=\"\(target)\">Continue to the provider</a> to sign in; you confirm the link afterwards.</p>",
            "</main></body></html>",
        ]
        return parts.joined()
    }

    /// After the sign-in at the provider: which account at the provider, which account
    /// here; nothing is linked until the button is pressed.
    static func federationConfirm(_ pending: Federation.PendingLink, tenant: String, action: String) -> String {
        let identity = escape(pending.identity)
        let username = escape(pending.username)
        let parts: [String] = [
            "<h1>Link your accounts?</h1>",
            "<p id=\"link-question\">Your identity <strong id=\"link-identity\">\(identity)</strong> at \(escape(pending.provider)) ",
            "will sign you in as <strong id=\"link-username\">\(username)</strong> at \(escape(tenant)). Link them only if both are yours.</p>",
            "<form method=\"post\" action=\"\(escape(action))\" id=\"confirm-link\">",
            "<input type=\"hidden\" name=\"link\" value=\"\(escape(pending.sealed))\">",
            "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(pending.csrf))\">",
            "<button type=\"submit\">Link the accounts</button></form>",
            "<p>Not yours? Close this page: nothing is linked, and the invitation stays good.</p>",
        ]
        return document(title: "Link your accounts?", body: parts.joined())
    }

    /// After a first sign-in at an external provider linked an invitation's account.
    static func federationLinked(provider: String, username: String) -> String {
        document(
            title: "Account linked",
            body: """
                <h1>Account linked</h1>
                <p id="linked">Your account <strong>\(escape(username))</strong> is linked to your identity at \(escape(provider)). \
                From now on you can sign in with \(escape(provider)) wherever a service offers it.</p>
                """)
    }

    /// The end-session endpoint's page when no address to return to was given.
    /// `signedOut` false: no ID token named a sign-in, so nothing was ended here.
    static func signedOut(serviceName: String?, german: Bool, signedOut: Bool) -> String {
        let title = signedOut ? (german ? "Abgemeldet" : "Signed out") : (german ? "Abmelden" : "Sign out")
        let message: String
        if signedOut {
            message =
                german
                ? "Sie sind \(serviceName.map { "bei " + escape($0) + " " } ?? "")abgemeldet. Sie können dieses Fenster schließen."
                : "You are signed out\(serviceName.map { " of " + escape($0) } ?? ""). You can close this window."
        } else {
            message =
                german
                ? "Es wurde keine Anmeldung beendet: der Dienst hat nicht gesagt, welche. Melden Sie sich beim Dienst selbst ab."
                : "No sign-in was ended: the service did not say which one. Sign out at the service itself."
        }
        return document(title: title, body: "<h1>\(title)</h1><p id=\"signed-out\">\(message)</p>", language: german ? "de" : "en")
    }

    /// What a person sees who opens a device link in a browser.
    static func deviceLink(title: String, explanation: String, url: String, extra: String? = nil) -> String {
        let qr = (try? QRCode(url).svg(moduleSize: 5)) ?? ""
        return document(
            title: title,
            body: """
                <h1>\(escape(title))</h1><p>\(escape(explanation))</p><div class="qr">\(qr)</div>
                <p class="muted"><code>\(escape(url))</code></p>\(extra ?? "")
                """, scripts: extra == nil ? [] : ["webauthn.js"])
    }

    /// On an invitation's page: a passkey for the account instead of (or besides) a device.
    static func invitationPasskey(code: String, issuer: String) -> String {
        """
        <section id="passkey-register" data-code="\(escape(code))" data-options-url="\(escape(issuer))/passkeys/invitation/options"
                 data-register-url="\(escape(issuer))/passkeys/invitation" hidden>
          <h2>Or create a passkey</h2>
          <p>Use this invitation for a passkey in this browser or on a security key instead of a device. The invitation is used up by it.</p>
          <label for="passkey-name">Name of the passkey (optional)</label><input id="passkey-name" maxlength="64">
          <p><button type="button" id="passkey-register-button">Create a passkey</button></p>
          <p class="status" id="passkey-register-status" role="status" hidden></p>
        </section>
        """
    }
}
