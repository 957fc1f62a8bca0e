import Foundation
import TesseraQRCode
import Testing
import TesseraCore
import TesseraCrypto
import TesseraTesting
import TesseraTexts

@Suite("Every tenant's face: branding, languages and pages", .tags(.live, .browser), .timeLimit(.minutes(8)))
struct BrandingTests {
    /// The pages' policy before tenants had a look: branding must not loosen it.
    static let strictPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    @Test("every key of the English catalog is in every catalog, with the same placeholders")
    func catalogsComplete() throws {
        let catalog = Catalog.shared
        let english = try #require(catalog.sentences["en"])
        #expect(english.count > 50)
        for language in Catalog.languages {
            let sentences = try #require(catalog.sentences[language], "no \(language) catalog")
            #expect(Set(sentences.keys) == Set(english.keys), "\(language): \(Set(sentences.keys).symmetricDifference(english.keys).sorted())")
            for (key, sentence) in english {
                #expect(
                    Set(Catalog.placeholders(in: sentences[key] ?? "")) == Set(Catalog.placeholders(in: sentence)),
                    "\(language) \(key): \(sentences[key] ?? "-")")
            }
        }
        // Negotiation: ui_locales first, then Accept-Language by weight, then the tenant's language.
        #expect(Catalog.negotiate(uiLocales: "es en", acceptLanguage: "de-DE", fallback: "fr") == "en")
        #expect(Catalog.negotiate(uiLocales: nil, acceptLanguage: "es;q=1, fr;q=0.5, de-DE;q=0.8", fallback: "en") == "de")
        #expect(Catalog.negotiate(uiLocales: "", acceptLanguage: "es, de;q=0", fallback: "fr") == "fr")
        // An override names exactly the catalog's placeholders, read as they are filled: a brace
        // that opens none does not hide one behind it.
        #expect(catalog.problem(language: "en", key: "mail.invitation.subject", sentence: "Welcome to {tenant}") == nil)
        #expect(catalog.problem(language: "en", key: "mail.invitation.subject", sentence: "Set up {tenant} {x{link}") != nil)
        #expect(catalog.problem(language: "en", key: "mail.invitation.subject", sentence: "Set up {tenant} {link}") != nil)
        #expect(catalog.problem(language: "de", key: "login.title", sentence: "Anmelden") != nil)
        #expect(catalog.texts(language: "en")("login.title", ["service": "{app}", "app": "X"]) == "Sign in to {app}", "a value is not filled again")
        // English dates as Britain writes them (no AM/PM).
        let britishDate = catalog.texts(language: "en").time(Date(timeIntervalSince1970: 1_795_964_700))
        #expect(britishDate.contains("November 2026") && !britishDate.contains("PM") && !britishDate.contains("AM"), "\(britishDate)")
        // A terminal's language (the command line's prompts): LC_ALL, LC_MESSAGES, then LANG.
        #expect(Catalog.terminalLanguage(["LANG": "de_DE.UTF-8"]) == "de")
        #expect(Catalog.terminalLanguage(["LC_ALL": "fr_CA.UTF-8", "LANG": "de_DE.UTF-8"]) == "fr")
        #expect(Catalog.terminalLanguage(["LANG": "C.UTF-8"]) == "en" && Catalog.terminalLanguage([:]) == "en")
        #expect(catalog.texts(language: "de")("device.pick_number", ["choices": "12, 47, 83"]) == "Welche Zahl zeigt die Anmeldeseite? (12, 47, 83):")
        // Dates and numbers as the language writes them.
        let moment = Date(timeIntervalSince1970: 1_795_954_500)
        #expect(catalog.texts(language: "de").time(moment).contains("Nov"))
        #expect(catalog.texts(language: "de").number(10_000) == "10.000")
        #expect(catalog.texts(language: "en").number(10_000) == "10,000")
    }

    @Test("a branded tenant in Chromium: logo, colour, app name, links, its own sentence, German and ui_locales, the same strict CSP, no serious axe finding")
    func brandedPages() async throws {
        try await withServer { server in
            let http = TestHTTP()
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("dana")
            let invitation = try await scenario.invite("dana")

            let work = FileManager.default.temporaryDirectory.appendingPathComponent("branding-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let logo = work.appendingPathComponent("logo.png")
            try Data(try QRCode("Acme Bank").png(scale: 4)).write(to: logo)
            // The service's own logo, privacy policy and terms (its logo from its own host, fetched by the server).
            let serviceHost = try await CallbackReceiver.start(files: ["/logo.png": Data(try QRCode("Webmail").png(scale: 3))])
            defer { Task { await serviceHost.stop() } }
            let serviceLinks = try await http.send(
                "PATCH", "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services/\(service.clientID)",
                headers: admin.merging(["Content-Type": "application/json"]) { $1 },
                body: try JSONSerialization.data(withJSONObject: [
                    "logo_uri": "\(serviceHost.baseURL)/logo.png", "policy_uri": "https://webmail.example/privacy", "tos_uri": "https://webmail.example/terms",
                ]))
            let terms = try serviceLinks.json()["tos_uri"] as? String
            #expect(serviceLinks.status == 200 && terms == "https://webmail.example/terms", "\(serviceLinks.text)")
            let insecure = try await http.send(
                "PATCH", "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services/\(service.clientID)",
                headers: admin.merging(["Content-Type": "application/json"]) { $1 }, body: Data(#"{"policy_uri": "http://webmail.example/privacy"}"#.utf8))
            #expect(insecure.status == 400, "\(insecure.text)")
            let override = "Hold your phone with the Acme Secure app over this code to sign in."
            let texts = work.appendingPathComponent("texts.json")
            try Data(#"{"en": {"login.scan": "Hold your phone with the {app} app over this code to sign in."}}"#.utf8).write(to: texts)
            let connection = ["--server", server.baseURL, "--token", server.adminToken]

            // A colour below WCAG AA against white text, and a sentence with other placeholders, are refused; nothing changes.
            let pale = try await tessera(["admin", "tenant", "update", scenario.tenant, "--primary-color", "#ffcc00"] + connection)
            #expect(pale.0 != 0 && pale.2.contains("contrast"), "\(pale.2)")
            let wrongPlaceholders = try await http.send(
                "PATCH", "\(server.baseURL)/admin/tenants/\(scenario.tenant)", headers: admin.merging(["Content-Type": "application/json"]) { $1 },
                body: Data(#"{"texts": {"en": {"login.title": "Sign in to {tenant}"}}}"#.utf8))
            #expect(wrongPlaceholders.status == 400 && wrongPlaceholders.text.contains("{service}"), "\(wrongPlaceholders.text)")
            let unknownKey = try await http.send(
                "PATCH", "\(server.baseURL)/admin/tenants/\(scenario.tenant)", headers: admin.merging(["Content-Type": "application/json"]) { $1 },
                body: Data(#"{"texts": {"de": {"no.such.key": "x"}}}"#.utf8))
            #expect(unknownKey.status == 400)
            let notAnImage = try await http.send(
                "PUT", "\(server.baseURL)/admin/tenants/\(scenario.tenant)/branding/logo", headers: admin.merging(["Content-Type": "image/png"]) { $1 },
                body: Data("<script>alert(1)</script>".utf8))
            #expect(notAnImage.status == 400)
            let unchanged = try await http.get("\(server.baseURL)/admin/tenants/\(scenario.tenant)", headers: admin).json()
            #expect((unchanged["branding"] as? [String: Any])?.isEmpty == true && (unchanged["texts"] as? [String: Any])?.isEmpty == true)

            let update = try await tessera(
                ["admin", "tenant", "update", scenario.tenant, "--display-name", "Acme Bank", "--app-name", "Acme Secure", "--logo", logo.path,
                 "--primary-color", "#7A1F5C", "--accent-color", "#0b5d3b", "--support-url", "https://help.example.com/",
                 "--privacy-url", "https://example.com/privacy", "--terms-url", "https://example.com/terms", "--texts", texts.path, "--json"]
                    + connection)
            #expect(update.0 == 0, "\(update.2)")
            let branding = try #require(update.1["branding"] as? [String: Any])
            #expect(branding["primary_color"] as? String == "#7a1f5c" && branding["app_name"] as? String == "Acme Secure")
            let logoURL = try #require(branding["logo_url"] as? String)
            // A later option changes its field and keeps the others.
            let again = try await tessera(["admin", "tenant", "update", scenario.tenant, "--terms-url", "https://example.com/terms-2", "--json"] + connection)
            #expect((again.1["branding"] as? [String: Any])?["display_name"] as? String == "Acme Bank", "\(again.2)")

            // The files the pages load: the logo (an SVG would run no script) and the colours.
            let logoBytes = try Data(contentsOf: logo)
            let served = try await http.get(logoURL)
            #expect(served.status == 200 && served.header("Content-Type") == "image/png" && served.body == logoBytes)
            #expect(served.header("Content-Security-Policy")?.contains("sandbox") == true)
            let style = try await http.get("\(scenario.issuer)/branding.css")
            #expect(style.status == 200 && style.text.contains("--primary:#7a1f5c") && style.text.contains("--accent:#0b5d3b"))

            // The login page's policy is the one it had before.
            let authorize =
                "\(scenario.issuer)/authorize?"
                + Scenario.query([
                    "response_type": "code", "client_id": service.clientID, "redirect_uri": service.redirectURI, "scope": "openid",
                    "state": "s", "nonce": "n", "code_challenge": PKCE.challenge(forVerifier: PKCE.makeVerifier()), "code_challenge_method": "S256",
                ])
            let page = try await http.get(authorize)
            #expect(page.status == 200 && page.header("Content-Security-Policy") == Self.strictPolicy)
            #expect(page.text.contains("branding.css") && !page.text.contains("Tessera app"))
            #expect(page.text.contains(#"href="https://webmail.example/privacy""#) && page.text.contains(#"href="https://webmail.example/terms""#))
            let serviceLogo = try await http.get("\(scenario.issuer)/services/\(service.clientID)/logo")
            #expect(serviceLogo.status == 200 && serviceLogo.header("Content-Type") == "image/png")
            #expect(try await http.get("\(scenario.issuer)/services/nobody/logo").status == 404)

            let shots = screenshotDirectory()
            let result = try await Python.run(
                "branding_browser.py", [],
                environment: [
                    "AUTHORIZE_URL": authorize, "ACTIVATE_URL": invitation.absoluteString, "SIGNED_OUT_URL": "\(scenario.issuer)/logout",
                    "ERROR_URL": "\(scenario.issuer)/authorize?client_id=nobody", "ACCOUNT_URL": "\(scenario.issuer)/account", "PRIMARY_RGB": "rgb(122, 31, 92)", "APP_NAME": "Acme Secure",
                    "OVERRIDE": override, "SCREENSHOT_DIR": shots.path,
                ], timeout: .seconds(300))
            #expect(result.status == 0, "\(result.errors.split(separator: "\n").filter { $0.contains("FAILED") || $0.contains("Error") || $0.contains("line ") })")
            let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") })
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
            #expect(summary["screenshots"] as? Int == 30 && (summary["serious"] as? [String])?.isEmpty == true, "\(summary)")
        }
    }
}
