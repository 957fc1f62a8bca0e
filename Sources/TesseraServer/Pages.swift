import Foundation
import Mustache
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

    /// A page: `template` rendered from `model` (its view model), in the pages' frame.
    static func render(_ template: String, _ model: Any, title: String, scripts: [String] = [], language: String = "en") -> String {
        let pages = WebPages.shared
        let content = pages.library.render(model, withTemplate: template) ?? ""
        return pages.library.render(Frame(language: language, title: title, scripts: scripts, content: content), withTemplate: "page") ?? ""
    }

    /// What the frame of a page outside the console holds.
    struct Frame {
        let language: String
        let title: String
        let scripts: [String]
        let content: String
    }

    struct ErrorPage {
        let title: String
        let message: String
    }

    static func error(title: String, message: String) -> String {
        render("error", ErrorPage(title: title, message: message), title: title)
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
        /// Around the number of a login with number matching.
        let matchBefore: String
        let matchAfter: String
        let sameDevice: String
        let openLink: String
        let link: String
        let waiting: String
        let otherProvider: String

        static let english = LoginWords(
            language: "en", title: "Sign in to", asksFor: "It asks for:", asksForNothing: "The service asks for no personal attributes.",
            scan: "Scan this code with the Tessera app on your activated device, then confirm with your factors.",
            matchBefore: "Your device will ask for a number: pick ", matchAfter: ". If it shows another service or place than yours, deny.",
            sameDevice: "On this device?", openLink: "Open the sign-in link", link: "Link:", waiting: "Waiting for your device…",
            otherProvider: "Or sign in with another provider")
        static let german = LoginWords(
            language: "de", title: "Anmelden bei", asksFor: "Der Dienst möchte:", asksForNothing: "Der Dienst fragt nach keinen persönlichen Angaben.",
            scan: "Scannen Sie diesen Code mit der Tessera-App auf Ihrem aktivierten Gerät und bestätigen Sie mit Ihren Faktoren.",
            matchBefore: "Ihr Gerät fragt nach einer Zahl: wählen Sie ",
            matchAfter: ". Zeigt es einen anderen Dienst oder Ort als Ihren, lehnen Sie ab.",
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

    /// The login page's view model.
    struct LoginPage {
        let words: LoginWords
        let serviceName: String
        let attributes: [String]
        /// Stored, not computed: the templates read stored properties only.
        let asksForAttributes: Bool
        let matchCode: String?
        /// The QR code of the authentication link, drawn here (SVG).
        let qr: String
        let sameDeviceURL: String
        let authenticationURL: String
        let passkeyURL: String?
        let providers: [Provider]
        let hasProviders: Bool
        let requestID: String
        let statusURL: String
        let completeURL: String
        let expiresAt: Int
    }

    /// An external provider to sign in at (federation), and where its sign-in starts.
    struct Provider {
        let name: String
        let url: String
    }

    static func login(
        serviceName: String, attributes: [String], authenticationURL: String, sameDeviceURL: String? = nil, statusURL: String,
        completeURL: String, requestID: String, expiresAt: Date, matchCode: String? = nil, passkeyURL: String? = nil,
        providers: [Provider] = [], words: LoginWords = .english
    ) -> String {
        let model = LoginPage(
            words: words, serviceName: serviceName, attributes: attributes, asksForAttributes: !attributes.isEmpty, matchCode: matchCode,
            qr: (try? QRCode(authenticationURL).svg(moduleSize: 6)) ?? "", sameDeviceURL: sameDeviceURL ?? authenticationURL,
            authenticationURL: authenticationURL, passkeyURL: passkeyURL, providers: providers, hasProviders: !providers.isEmpty,
            requestID: requestID, statusURL: statusURL,
            completeURL: completeURL, expiresAt: Int(expiresAt.timeIntervalSince1970))
        return render(
            "login", model, title: "\(words.title) \(serviceName)", scripts: passkeyURL == nil ? ["login.js"] : ["login.js", "webauthn.js"],
            language: words.language)
    }

    /// What a person sees who opens a device link in a browser: the link as text and QR code,
    /// and for an invitation its passkey and provider choices.
    struct DeviceLinkPage {
        let title: String
        let explanation: String
        let url: String
        let qr: String
        let invitation: Invitation?

        /// On an invitation's page: a passkey for the account instead of (or besides) a
        /// device, and links to identities at external providers, each a form (POST, with
        /// the page's token) that starts a sign-in there; the invitation is used up by either.
        struct Invitation {
            let code: String
            let issuer: String
            let csrf: String
            let providers: [InvitationProvider]
            let hasProviders: Bool

            init(code: String, issuer: String, csrf: String, providers: [InvitationProvider]) {
                self.code = code
                self.issuer = issuer
                self.csrf = csrf
                self.providers = providers
                hasProviders = !providers.isEmpty
            }
        }

        struct InvitationProvider {
            let id: String
            let name: String
        }
    }

    static func deviceLink(title: String, explanation: String, url: String, invitation: DeviceLinkPage.Invitation? = nil) -> String {
        let model = DeviceLinkPage(
            title: title, explanation: explanation, url: url, qr: (try? QRCode(url).svg(moduleSize: 5)) ?? "", invitation: invitation)
        return render("devicelink", model, title: title, scripts: invitation == nil ? [] : ["webauthn.js"])
    }

    /// On the way from an invitation's provider form to the provider (its own frame).
    static func continueToProvider(_ url: String) -> String {
        struct Continue { let url: String }
        return WebPages.shared.library.render(Continue(url: url), withTemplate: "continue") ?? ""
    }

    /// After the sign-in at the provider: which account at the provider, which account
    /// here; nothing is linked until the button is pressed.
    struct FederationConfirmPage {
        let identity: String
        let provider: String
        let username: String
        let tenant: String
        let action: String
        let sealed: String
        let csrf: String
    }

    static func federationConfirm(_ pending: Federation.PendingLink, tenant: String, action: String) -> String {
        let model = FederationConfirmPage(
            identity: pending.identity, provider: pending.provider, username: pending.username, tenant: tenant, action: action,
            sealed: pending.sealed, csrf: pending.csrf)
        return render("federationconfirm", model, title: "Link your accounts?")
    }

    /// After a first sign-in at an external provider linked an invitation's account.
    static func federationLinked(provider: String, username: String) -> String {
        struct Linked {
            let provider: String
            let username: String
        }
        return render("federationlinked", Linked(provider: provider, username: username), title: "Account linked")
    }

    /// The end-session endpoint's page when no address to return to was given.
    /// `signedOut` false: no ID token named a sign-in, so nothing was ended here.
    static func signedOut(serviceName: String?, german: Bool, signedOut: Bool) -> String {
        let title = signedOut ? (german ? "Abgemeldet" : "Signed out") : (german ? "Abmelden" : "Sign out")
        let message: String
        if signedOut {
            message =
                german
                ? "Sie sind \(serviceName.map { "bei " + $0 + " " } ?? "")abgemeldet. Sie können dieses Fenster schließen."
                : "You are signed out\(serviceName.map { " of " + $0 } ?? ""). You can close this window."
        } else {
            message =
                german
                ? "Es wurde keine Anmeldung beendet: der Dienst hat nicht gesagt, welche. Melden Sie sich beim Dienst selbst ab."
                : "No sign-in was ended: the service did not say which one. Sign out at the service itself."
        }
        return render("signedout", ErrorPage(title: title, message: message), title: title, language: german ? "de" : "en")
    }
}

// The login page is on every browser login's path: its view models name their fields to
// the renderer directly instead of through reflection.
extension Pages.Frame: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "language": language
        case "title": title
        case "scripts": scripts
        case "content": content
        default: nil
        }
    }
}

extension Pages.LoginPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "words": words
        case "serviceName": serviceName
        case "attributes": attributes
        case "asksForAttributes": asksForAttributes
        case "matchCode": matchCode
        case "qr": qr
        case "sameDeviceURL": sameDeviceURL
        case "authenticationURL": authenticationURL
        case "passkeyURL": passkeyURL
        case "providers": providers
        case "hasProviders": hasProviders
        case "requestID": requestID
        case "statusURL": statusURL
        case "completeURL": completeURL
        case "expiresAt": expiresAt
        default: nil
        }
    }
}

extension Pages.LoginWords: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "title": title
        case "asksFor": asksFor
        case "asksForNothing": asksForNothing
        case "scan": scan
        case "matchBefore": matchBefore
        case "matchAfter": matchAfter
        case "sameDevice": sameDevice
        case "openLink": openLink
        case "link": link
        case "waiting": waiting
        case "otherProvider": otherProvider
        default: nil
        }
    }
}

extension Pages.Provider: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "name": name
        case "url": url
        default: nil
        }
    }
}
