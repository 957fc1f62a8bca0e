import Foundation
import Mustache
import TesseraCore
import TesseraDomain
import TesseraQRCode

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

    /// A page: `template` rendered from `model` (its view model) with the tenant's look
    /// around it, in the pages' frame.
    static func render(_ template: String, _ model: Any, title: String, look: Look, scripts: [String] = []) -> String {
        let pages = WebPages.shared
        let content = pages.library.render(Dressed(look: look, page: model), withTemplate: WebPages.dressed(template)) ?? ""
        return pages.library.render(Frame(look: look, title: title, scripts: scripts, content: content), withTemplate: "page") ?? ""
    }

    /// A page's view model under its look: a name the page lacks is looked up in the look.
    struct Dressed {
        let look: Look
        let page: Any
    }

    /// What the frame of a page outside the console holds.
    struct Frame {
        let look: Look
        let title: String
        let scripts: [String]
        let content: String
    }

    struct ErrorPage {
        let title: String
        let message: String
        let detail: String?
    }

    /// An error page: its title and message are catalog keys, the detail (for a help desk) is shown as it is.
    static func error(titleKey: String, messageKey: String, detail: String? = nil, look: Look) -> String {
        let title = look.words(titleKey)
        return render("error", ErrorPage(title: title, message: look.words(messageKey), detail: detail), title: title, look: look)
    }

    /// The login page's view model.
    struct LoginPage {
        let t: Words
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
        let policyURL: String?
        let termsURL: String?
        let hasServiceLinks: Bool
        let serviceLogoURL: String?
        let requestID: String
        let statusURL: String
        let completeURL: String
        /// Seconds since 1970, as the page's script reads them.
        let expiresAt: String
    }

    /// An external provider to sign in at (federation), and where its sign-in starts.
    struct Provider: Hashable {
        let name: String
        let url: String
    }

    /// The login page's links, each naming its request: made from the request's id, so
    /// that the page's shape can be rendered with a marker in the id's place.
    struct LoginLinks: Hashable {
        /// The authentication link (and the QR code's content).
        let authenticationURL: String
        /// The link that opens the app on this device: the tenant's app link, or else the
        /// authentication link.
        let sameDeviceURL: String
        let statusURL: String
        let completeURL: String
        let passkeyURL: String?
        let providers: [Provider]
    }

    /// Everything on a login page but its request's id, match code, expiry and QR code:
    /// the key of its kept shell (`LoginPageShells`). The links are those of the id's marker.
    struct LoginShape: Hashable {
        let look: Look
        let serviceName: String
        let attributes: [String]
        let hasMatchCode: Bool
        let links: LoginLinks
        let policyURL: String?
        let termsURL: String?
        let serviceLogoURL: String?
    }

    /// The login page: the QR code of the authentication link, the link that opens the
    /// app on this device, the service and what it asks for; it follows the request by
    /// polling its status and moves on by itself. `links` makes the page's links from a
    /// request id. The page is its shape's kept shell with this login's values in it
    /// (`LoginPageShells`), or, for an id the shells do not take, rendered in full.
    static func login(
        serviceName: String, attributes: [String], requestID: String, links: (String) -> LoginLinks, expiresAt: Date,
        matchCode: String? = nil, policyURL: String? = nil, termsURL: String? = nil, serviceLogoURL: String? = nil, look: Look
    ) -> String {
        let own = links(requestID)
        let qr = (try? QRCode(own.authenticationURL).svg(moduleSize: 8)) ?? ""
        let expires = Int(expiresAt.timeIntervalSince1970)
        return loginFromShell(
            serviceName: serviceName, attributes: attributes, requestID: requestID, links: links, expiresAt: expires, matchCode: matchCode,
            qr: qr, policyURL: policyURL, termsURL: termsURL, serviceLogoURL: serviceLogoURL, look: look)
            ?? renderLogin(
                serviceName: serviceName, attributes: attributes, requestID: requestID, links: own, expiresAt: String(expires),
                matchCode: matchCode, qr: qr, policyURL: policyURL, termsURL: termsURL, serviceLogoURL: serviceLogoURL, look: look)
    }

    /// The login page from its shape's shell (made and kept at the shape's first login);
    /// nil for a request id the shells do not take, or an empty match code (no login has
    /// one; whether a section shows for an empty string is the renderer's to decide, so
    /// such a page is rendered in full rather than assumed).
    static func loginFromShell(
        serviceName: String, attributes: [String], requestID: String, links: (String) -> LoginLinks, expiresAt: Int, matchCode: String?,
        qr: String, policyURL: String?, termsURL: String?, serviceLogoURL: String?, look: Look
    ) -> String? {
        guard LoginPageShells.fits(requestID: requestID), matchCode?.isEmpty != true else { return nil }
        let marked = links(LoginPageShells.marker(.requestID))
        let shape = LoginShape(
            look: look, serviceName: serviceName, attributes: attributes, hasMatchCode: matchCode != nil, links: marked,
            policyURL: policyURL, termsURL: termsURL, serviceLogoURL: serviceLogoURL)
        let shell = LoginPageShells.shared.shell(for: shape) {
            renderLogin(
                serviceName: serviceName, attributes: attributes, requestID: LoginPageShells.marker(.requestID), links: marked,
                expiresAt: LoginPageShells.marker(.expiresAt), matchCode: matchCode.map { _ in LoginPageShells.marker(.matchCode) },
                qr: LoginPageShells.marker(.qr), policyURL: policyURL, termsURL: termsURL, serviceLogoURL: serviceLogoURL, look: look)
        }
        return shell?.filled(requestID: requestID, matchCode: matchCode, expiresAt: expiresAt, qr: qr)
    }

    /// The login page rendered from its templates: what a shell is made of, and what the
    /// page is when no shell serves it.
    static func renderLogin(
        serviceName: String, attributes: [String], requestID: String, links: LoginLinks, expiresAt: String, matchCode: String?, qr: String,
        policyURL: String?, termsURL: String?, serviceLogoURL: String?, look: Look
    ) -> String {
        let words = look.words.with(["service": serviceName])
        let model = LoginPage(
            t: words, attributes: attributes, asksForAttributes: !attributes.isEmpty, matchCode: matchCode, qr: qr,
            sameDeviceURL: links.sameDeviceURL, authenticationURL: links.authenticationURL, passkeyURL: links.passkeyURL,
            providers: links.providers, hasProviders: !links.providers.isEmpty, policyURL: policyURL, termsURL: termsURL,
            hasServiceLinks: policyURL != nil || termsURL != nil, serviceLogoURL: serviceLogoURL, requestID: requestID,
            statusURL: links.statusURL, completeURL: links.completeURL, expiresAt: expiresAt)
        return render(
            "login", model, title: words("login.title"), look: look,
            scripts: links.passkeyURL == nil ? ["login.js"] : ["login.js", "webauthn.js"])
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

    /// `kind` is `sign_in` or `activate`: the catalog's `link.<kind>_title` and `_text`.
    static func deviceLink(kind: String, url: String, invitation: DeviceLinkPage.Invitation? = nil, look: Look) -> String {
        let title = look.words("link.\(kind)_title")
        let model = DeviceLinkPage(
            title: title, explanation: look.words("link.\(kind)_text"), url: url, qr: (try? QRCode(url).svg(moduleSize: 6)) ?? "",
            invitation: invitation)
        return render("devicelink", model, title: title, look: look, scripts: invitation == nil ? [] : ["webauthn.js"])
    }

    /// On the way from an invitation's provider form to the provider (its own frame).
    static func continueToProvider(_ url: String, look: Look) -> String {
        struct Continue {
            let url: String
            let look: Look
            let t: Words
        }
        return WebPages.shared.library.render(Continue(url: url, look: look, t: look.words), withTemplate: "continue") ?? ""
    }

    /// After the sign-in at the provider: which account at the provider, which account
    /// here; nothing is linked until the button is pressed.
    struct FederationConfirmPage {
        /// HTML: the sentence escaped, the two accounts emphasized (`Words.marked`).
        let question: String
        let action: String
        let sealed: String
        let csrf: String
    }

    static func federationConfirm(_ pending: Federation.PendingLink, action: String, look: Look) -> String {
        let question = look.words.marked(
            "federation.confirm_text",
            ["identity": (pending.identity, "link-identity"), "username": (pending.username, "link-username")], ["provider": pending.provider])
        let model = FederationConfirmPage(question: question, action: action, sealed: pending.sealed, csrf: pending.csrf)
        return render("federationconfirm", model, title: look.words("federation.confirm_title"), look: look)
    }

    /// After a first sign-in at an external provider linked an invitation's account.
    static func federationLinked(provider: String, username: String, look: Look) -> String {
        struct Linked {
            /// HTML: the sentence escaped, the account emphasized.
            let text: String
        }
        let text = look.words.marked("federation.linked_text", ["username": (username, "")], ["provider": provider])
        return render("federationlinked", Linked(text: text), title: look.words("federation.linked_title"), look: look)
    }

    /// The end-session endpoint's page when no address to return to was given.
    /// `signedOut` false: no ID token named a sign-in, so nothing was ended here.
    static func signedOut(serviceName: String?, signedOut: Bool, look: Look) -> String {
        let title = look.words(signedOut ? "signout.done_title" : "signout.title")
        let message =
            !signedOut
            ? look.words("signout.nothing")
            : serviceName.map { look.words("signout.done", ["service": $0]) } ?? look.words("signout.done_unnamed")
        return render("signedout", ErrorPage(title: title, message: message, detail: nil), title: title, look: look)
    }
}

// The login page is on every browser login's path: its view models name their fields to
// the renderer directly instead of through reflection.
extension Pages.Frame: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "look": look
        case "t": look.words
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
        case "t": t
        case "attributes": attributes
        case "asksForAttributes": asksForAttributes
        case "matchCode": matchCode
        case "qr": qr
        case "sameDeviceURL": sameDeviceURL
        case "authenticationURL": authenticationURL
        case "passkeyURL": passkeyURL
        case "providers": providers
        case "hasProviders": hasProviders
        case "policyURL": policyURL
        case "termsURL": termsURL
        case "hasServiceLinks": hasServiceLinks
        case "serviceLogoURL": serviceLogoURL
        case "requestID": requestID
        case "statusURL": statusURL
        case "completeURL": completeURL
        case "expiresAt": expiresAt
        default: nil
        }
    }
}

extension Pages.Dressed: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "look": look
        case "page": page
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
