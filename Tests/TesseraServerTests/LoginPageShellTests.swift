import Foundation
import Testing
import TesseraCrypto
import TesseraQRCode
import TesseraTexts

@testable import TesseraServer

/// The login page from a kept shell is, byte for byte, the page the templates render for
/// the same login, in every shape it takes; shapes that differ in anything shown get
/// pages of their own.
@Suite("The login page's kept shells")
struct LoginPageShellTests {
    static let issuer = "https://id.example.org/t/shells"

    /// The links of a login, as the authorization endpoint makes them.
    static func links(appScheme: Bool, passkeys: Bool, providers: [(id: String, name: String)]) -> (String) -> Pages.LoginLinks {
        { id in
            let authentication = "\(issuer)/authenticate?request=\(id)"
            return Pages.LoginLinks(
                authenticationURL: authentication,
                sameDeviceURL: appScheme ? "com.example.app://tessera/authenticate?request=\(id)&issuer=x" : authentication,
                statusURL: "\(issuer)/authorize/status?request=\(id)", completeURL: "\(issuer)/authorize/complete?request=\(id)",
                passkeyURL: passkeys ? "\(issuer)/authorize/passkey?request=\(id)" : nil,
                providers: providers.map { Pages.Provider(name: $0.name, url: "\(issuer)/authorize/federation?request=\(id)&provider=\($0.id)") })
        }
    }

    struct Shape: CustomStringConvertible {
        var look: Look
        var service = "Shop & <Co>"
        var attributes: [String] = []
        var matchCode: String?
        var appScheme = false
        var passkeys = false
        var providers: [(id: String, name: String)] = []
        var policyURL: String?
        var termsURL: String?
        var logo: String?

        var description: String {
            "\(look.language) \(service) \(attributes) match=\(matchCode ?? "-") app=\(appScheme) passkeys=\(passkeys) providers=\(providers.count)"
        }

        func page(requestID: String, expiresAt: Date) -> String {
            Pages.login(
                serviceName: service, attributes: attributes, requestID: requestID,
                links: LoginPageShellTests.links(appScheme: appScheme, passkeys: passkeys, providers: providers), expiresAt: expiresAt,
                matchCode: matchCode, policyURL: policyURL, termsURL: termsURL, serviceLogoURL: logo, look: look)
        }

        /// The page from its shape's shell; nil when no shell serves it.
        func fromShell(requestID: String, expiresAt: Date) throws -> String? {
            let links = LoginPageShellTests.links(appScheme: appScheme, passkeys: passkeys, providers: providers)
            return Pages.loginFromShell(
                serviceName: service, attributes: attributes, requestID: requestID, links: links,
                expiresAt: Int(expiresAt.timeIntervalSince1970), matchCode: matchCode,
                qr: try QRCode(links(requestID).authenticationURL).svg(moduleSize: 8), policyURL: policyURL, termsURL: termsURL,
                serviceLogoURL: logo, look: look)
        }

        /// The same page rendered from the templates.
        func rendered(requestID: String, expiresAt: Date) throws -> String {
            let links = LoginPageShellTests.links(appScheme: appScheme, passkeys: passkeys, providers: providers)(requestID)
            return Pages.renderLogin(
                serviceName: service, attributes: attributes, requestID: requestID, links: links,
                expiresAt: String(Int(expiresAt.timeIntervalSince1970)), matchCode: matchCode,
                qr: try QRCode(links.authenticationURL).svg(moduleSize: 8), policyURL: policyURL, termsURL: termsURL, serviceLogoURL: logo,
                look: look)
        }
    }

    static let branded = Look(
        words: Look.of(nil, issuer: issuer, language: "de").words, language: "de", displayName: "Stadtwerke \"Süd\"",
        logoURL: "\(issuer)/logo?v=1", logoAlt: "Logo", stylesheetURL: "\(issuer)/branding.css?v=0a0", supportURL: "https://help.example.org/?a=1&b=2",
        privacyURL: nil, termsURL: "https://example.org/terms", hasLinks: true, hasHeader: true)

    static let shapes: [Shape] = [
        Shape(look: Look.of(nil, issuer: issuer, language: "en")),
        Shape(look: Look.of(nil, issuer: issuer, language: "en"), attributes: ["email", "name <full>"], matchCode: "42"),
        Shape(look: Look.of(nil, issuer: issuer, language: "fr"), matchCode: "07", appScheme: true, passkeys: true),
        Shape(
            look: branded, attributes: ["phone"], passkeys: true, providers: [("corp", "Corp & Co"), ("other", "Other")],
            policyURL: "https://shop.example/privacy?x=1&y=2", termsURL: "https://shop.example/terms", logo: "\(issuer)/services/shop/logo"),
    ]

    @Test("each shape's page from its shell is the rendered page, for its first login and the next ones")
    func sameAsRendered() throws {
        let expiry = Date(timeIntervalSince1970: 1_900_000_000)
        for shape in Self.shapes {
            for round in 0..<3 {
                let requestID = Secrets.identifier()
                let expiresAt = expiry.addingTimeInterval(Double(round * 61))
                let page = shape.page(requestID: requestID, expiresAt: expiresAt)
                let rendered = try shape.rendered(requestID: requestID, expiresAt: expiresAt)
                #expect(page == rendered, "\(shape), login \(round)")
                #expect(try shape.fromShell(requestID: requestID, expiresAt: expiresAt) == rendered, "\(shape), login \(round)")
                #expect(!page.contains(LoginPageShells.marker), "\(shape)")
                #expect(page.contains("data-request=\"\(requestID)\""), "\(shape)")
                #expect(page.contains("data-expires-at=\"\(Int(expiresAt.timeIntervalSince1970))\""), "\(shape)")
                if let code = shape.matchCode { #expect(page.contains("data-match-code=\"\(code)\""), "\(shape)") }
            }
        }
    }

    @Test("a look, a service or a match code that differs gets its own page, not another shape's")
    func shapesApart() throws {
        let expiry = Date(timeIntervalSince1970: 1_900_000_000)
        let base = Self.shapes[0]
        var renamed = base
        renamed.service = "Another service"
        var german = base
        german.look = Look.of(nil, issuer: Self.issuer, language: "de")
        var matched = base
        matched.matchCode = "13"
        var otherTenant = base
        otherTenant.look = Look(
            words: base.look.words.with(["tenant": "Other"]), language: "en", displayName: "Other", logoURL: nil, logoAlt: "Logo",
            stylesheetURL: nil, supportURL: nil, privacyURL: nil, termsURL: nil, hasLinks: false, hasHeader: true)
        var ownWords = base
        ownWords.look = Look(
            words: Words(texts: Catalog.shared.texts(language: "en", overrides: ["login.title": "Sign in, please"]), values: base.look.words.values),
            language: "en", displayName: nil, logoURL: nil, logoAlt: base.look.logoAlt, stylesheetURL: nil, supportURL: nil, privacyURL: nil,
            termsURL: nil, hasLinks: false, hasHeader: false)
        #expect(ownWords.page(requestID: "a", expiresAt: expiry).contains("Sign in, please"))
        #expect(!base.page(requestID: "a", expiresAt: expiry).contains("Sign in, please"))
        for shape in [base, renamed, german, matched, otherTenant, ownWords] {
            let requestID = Secrets.identifier()
            #expect(shape.page(requestID: requestID, expiresAt: expiry) == (try shape.rendered(requestID: requestID, expiresAt: expiry)), "\(shape)")
        }
        #expect(renamed.page(requestID: "a", expiresAt: expiry).contains("Another service"))
        #expect(!base.page(requestID: "a", expiresAt: expiry).contains("Another service"))
    }

    @Test("an id the shells do not take, and an empty match code, are rendered in full, the same way")
    func renderedInFull() throws {
        let expiry = Date(timeIntervalSince1970: 1_900_000_000)
        var shape = Self.shapes[1]
        for requestID in ["a b", "x&y<z>\"'", "ünï", "a.b", ""] {
            #expect(try shape.fromShell(requestID: requestID, expiresAt: expiry) == nil, "\(requestID)")
            #expect(shape.page(requestID: requestID, expiresAt: expiry) == (try shape.rendered(requestID: requestID, expiresAt: expiry)), "\(requestID)")
        }
        shape.matchCode = ""
        #expect(try shape.fromShell(requestID: "abc", expiresAt: expiry) == nil)
        #expect(shape.page(requestID: "abc", expiresAt: expiry) == (try shape.rendered(requestID: "abc", expiresAt: expiry)))
    }

    @Test("a shell is cut at its markers; a marker of no known hole is not taken")
    func cutting() throws {
        let marker = LoginPageShells.marker
        let shell = try #require(LoginPageShells.Shell("<p>\(marker)rz</p><i>\(marker)qz\(marker)ez</i>"))
        #expect(shell.pieces == ["<p>", "</p><i>", "", "</i>"])
        #expect(shell.holes == [.requestID, .qr, .expiresAt])
        #expect(shell.filled(requestID: "ID", matchCode: nil, expiresAt: 5, qr: "<svg/>") == "<p>ID</p><i><svg/>5</i>")
        #expect(LoginPageShells.Shell("a\(marker)xz") == nil)
        #expect(LoginPageShells.Shell("a\(marker)r") == nil)
        #expect(LoginPageShells.Shell("plain")?.pieces == ["plain"])
    }
}
