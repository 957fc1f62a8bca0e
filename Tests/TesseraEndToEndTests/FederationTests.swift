import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraKit
import TesseraTesting
import Testing

/// Federation: a tenant's users sign in at an external OpenID provider — here a second
/// Tessera tenant on the same server, reached over real HTTP as any provider would be.
@Suite("Sign-in with another provider (federation)", .tags(.live, .interop), .timeLimit(.minutes(5)))
struct FederationTests {
    /// The external provider's side of one login: its login page opened at `url`, the
    /// device there approving, and the redirect back to the federating tenant's callback.
    static func signInAtProvider(_ url: String, provider: Scenario, device: TestDevice) async throws -> String {
        let login = try await provider.openLoginPage(at: url)
        let information = try await device.authenticator.start(url: login.authenticationURL)
        #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
        let response = try await provider.http.get(login.completeURL, headers: ["Cookie": login.cookie])
        #expect(response.status == 302)
        return try #require(response.header("Location"))
    }

    /// The cookies a browser sends to the callback: the login's (if any) and the federation
    /// binding the start set.
    static func cookies(after start: TestHTTP.Response, login: String? = nil) throws -> String {
        let binding = try #require(start.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        #expect(binding.hasPrefix("tessera_federation="))
        return [login, binding].compactMap { $0 }.joined(separator: "; ")
    }

    /// What an invitation page's provider form posts, with the page's cookie: the start of
    /// the sign-in at the provider that links the account.
    static func startLinking(_ page: TestHTTP.Response, http: TestHTTP, cookie: String? = nil, csrf: String? = nil) async throws -> TestHTTP.Response {
        let text = page.text
        func field(_ name: String) throws -> String {
            let match = try #require(text.firstMatch(of: try Regex("name=\"\(name)\" value=\"([^\"]*)\"")))
            return String(try #require(match.output[1].substring)).replacingOccurrences(of: "&amp;", with: "&")
        }
        let action = String(try #require(text.firstMatch(of: /<form method="post" action="([^"]+)" class="provider-link">/)?.1))
        let pageCookie = try #require(page.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        #expect(pageCookie.hasPrefix("tessera_link_csrf="))
        return try await http.postForm(
            action, ["invitation": try field("invitation"), "provider": try field("provider"), "csrf": try csrf ?? field("csrf")],
            headers: ["Cookie": cookie ?? pageCookie])
    }

    /// Where the page that follows an invitation's provider form goes on to: the provider.
    static func providerURL(after start: TestHTTP.Response) throws -> String {
        #expect(start.status == 200, "\(start.status) \(start.text)")
        #expect(start.text.contains("http-equiv=\"refresh\""))
        let link = String(try #require(start.text.firstMatch(of: /<a id="continue" href="([^"]+)"/)?.1))
        return link.replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The confirmation page's form, posted with the browser's federation cookie.
    static func confirm(_ page: TestHTTP.Response, http: TestHTTP, cookie: String) async throws -> TestHTTP.Response {
        let text = page.text
        let action = String(try #require(text.firstMatch(of: /<form method="post" action="([^"]+)" id="confirm-link">/)?.1))
        let link = String(try #require(text.firstMatch(of: /name="link" value="([^"]+)"/)?.1))
        let csrf = String(try #require(text.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1))
        return try await http.postForm(action, ["link": link, "csrf": csrf], headers: ["Cookie": cookie])
    }

    /// The URL of the provider link on a page (`<a class="provider" href="…">`).
    static func providerLink(in page: String) throws -> String {
        let marker = "<a class=\"provider\" href=\""
        let start = try #require(page.range(of: marker)).upperBound
        let end = try #require(page[start...].firstIndex(of: "\""))
        return String(page[start..<end]).replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test(
        "a second tenant as the provider: directory, first login linked by an invitation, later logins by the link with amr fed, claims mapped, linking by a verified e-mail, and the refusals"
    )
    func federatedLogin() async throws {
        try await withServer { server in
            let home = try await Scenario.make(on: server)
            let main = try await Scenario.make(on: server)
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            let callback = "\(main.issuer)/authorize/federation/callback"

            // The provider: its user with a device, and the federating tenant as its client.
            try await home.createUser("alice", attributes: ["email": "alice@example.org", "email_verified": "true", "name": "Alice Home"])
            let (homeDevice, _) = try await activateDevice(home, username: "alice")
            let client = try await home.createService(
                policy: "device+pin", attributes: ["email", "email_verified", "name"], redirectURI: callback, name: "Main tenant")

            // A wrong discovery URL is found when the provider is added, not at a login.
            let wrong = try await main.http.postJSON(
                "\(server.baseURL)/admin/tenants/\(main.tenant)/identity-providers",
                ["name": "home", "display_name": "Home", "discovery_url": "\(home.issuer)/no-such-document/.well-known/openid-configuration",
                 "client_id": client.clientID], headers: admin)
            #expect(wrong.status == 502, "\(wrong.text)")
            let added = try await main.http.postJSON(
                "\(server.baseURL)/admin/tenants/\(main.tenant)/identity-providers",
                [
                    "name": "home", "display_name": "Home Insurance", "discovery_url": "\(home.issuer)/.well-known/openid-configuration",
                    "client_id": client.clientID, "client_secret": try #require(client.clientSecret), "scope": "openid email profile",
                    "claim_mapping": ["name": "display_name"],
                ], headers: admin)
            #expect(added.status == 201, "\(added.text)")
            let view = try added.json()
            #expect(view["issuer"] as? String == home.issuer && view["confidential"] as? Bool == true)
            #expect(view["redirect_uri"] as? String == callback && view["client_secret"] == nil)
            let again = try await main.http.postJSON(
                "\(server.baseURL)/admin/tenants/\(main.tenant)/identity-providers",
                ["name": "home", "display_name": "Home", "discovery_url": "\(home.issuer)/.well-known/openid-configuration",
                 "client_id": client.clientID], headers: admin)
            #expect(again.status == 409)

            // The directory, as gematik's kk_apps.
            let directory = try await main.http.get("\(main.issuer)/directory/kk_apps").json()
            let entries = try #require(directory["kk_app_list"] as? [[String: Any]])
            #expect(entries.count == 1 && entries[0]["kk_app_id"] as? String == "home" && entries[0]["kk_app_name"] as? String == "Home Insurance")

            try await main.createUser("mia")
            let service = try await main.createService(policy: "device+pin,federation", redirectURI: "http://127.0.0.1:9/fed/callback")
            let deviceOnly = try await main.createService(policy: "device+pin", redirectURI: "http://127.0.0.1:9/plain/callback")

            // Not linked yet: the provider signs Alice in, but no account here is hers.
            let first = try await main.openLogin(service)
            let start = try await main.http.get(try Self.providerLink(in: first.page), headers: ["Cookie": first.cookie])
            #expect(start.status == 302)
            let authorizeURL = try #require(start.header("Location"))
            #expect(authorizeURL.hasPrefix("\(home.issuer)/authorize?") && authorizeURL.contains("code_challenge_method=S256"))
            let unlinked = try await Self.signInAtProvider(authorizeURL, provider: home, device: homeDevice)
            #expect(unlinked.hasPrefix(callback + "?"))
            let firstCookies = try Self.cookies(after: start, login: first.cookie)
            let refused = try await main.http.get(unlinked, headers: ["Cookie": firstCookies])
            #expect(refused.status == 403 && refused.text.contains("no account here is linked"), "\(refused.status) \(refused.text)")
            // The state was spent by that answer.
            #expect(try await main.http.get(unlinked, headers: ["Cookie": firstCookies]).status == 400)

            // The first login through Mia's invitation links her account, once she confirms.
            let invitation = try await main.invite("mia")
            let invitationPage = try await main.http.get(invitation.absoluteString)
            let invitationCode = try #require(URLComponents(url: invitation, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)
            // A plain link cannot start it, nor a form posted from elsewhere (no strict
            // cookie), nor one with another token.
            let byLink = try await main.http.get("\(main.issuer)/authorize/federation?invitation=\(invitationCode)&provider=home")
            #expect(byLink.status == 400, "\(byLink.status) \(byLink.text)")
            #expect(try await Self.startLinking(invitationPage, http: main.http, cookie: "other=1").status == 403)
            #expect(try await Self.startLinking(invitationPage, http: main.http, csrf: "forged").status == 403)
            // Someone else's browser cannot finish it: a victim sent the provider's link would
            // otherwise have their identity linked to the sender's invitation.
            let planted = try await Self.startLinking(invitationPage, http: main.http)
            let plantedBack = try await Self.signInAtProvider(try Self.providerURL(after: planted), provider: home, device: homeDevice)
            let csrf = try await main.http.get(plantedBack)
            #expect(csrf.status == 403 && csrf.text.contains("another browser"), "\(csrf.status) \(csrf.text)")
            let linkStart = try await Self.startLinking(invitationPage, http: main.http)
            #expect(linkStart.status == 200, "the refusal spent no invitation")
            let linking = try await Self.signInAtProvider(try Self.providerURL(after: linkStart), provider: home, device: homeDevice)
            let browser = try Self.cookies(after: linkStart)
            let question = try await main.http.get(linking, headers: ["Cookie": browser])
            // The page names both accounts; nothing is written until the button.
            #expect(question.status == 200, "\(question.status) \(question.text)")
            #expect(question.text.contains("<strong id=\"link-identity\">alice@example.org</strong>") && question.text.contains("Home Insurance"))
            #expect(question.text.contains("<strong id=\"link-username\">mia</strong>"), "\(question.text)")
            #expect(try await !main.audit().contains { $0.action == "federation.link" })
            // Another browser (no federation cookie, or another one) cannot press it.
            #expect(try await Self.confirm(question, http: main.http, cookie: "tessera_federation=other").status == 403)
            let linked = try await Self.confirm(question, http: main.http, cookie: browser)
            #expect(linked.status == 200 && linked.text.contains("<strong>mia</strong>"), "\(linked.status) \(linked.text)")
            #expect(try await main.audit().contains { $0.action == "federation.link" })
            // The confirmation is single use, and the invitation is spent.
            #expect(try await Self.confirm(question, http: main.http, cookie: browser).status == 400)
            #expect(try await Self.startLinking(invitationPage, http: main.http).status == 400)
            // Another user's invitation cannot take an identity linked already, and stays unspent.
            try await main.createUser("zoe")
            let zoePage = try await main.http.get((try await main.invite("zoe")).absoluteString)
            let zoeStart = try await Self.startLinking(zoePage, http: main.http)
            let zoeBack = try await Self.signInAtProvider(try Self.providerURL(after: zoeStart), provider: home, device: homeDevice)
            let taken = try await main.http.get(zoeBack, headers: ["Cookie": try Self.cookies(after: zoeStart)])
            #expect(taken.status == 409 && taken.text.contains("linked to another account"), "\(taken.status) \(taken.text)")
            #expect(try await Self.startLinking(zoePage, http: main.http).status == 200, "the invitation is still good")

            // From now on the provider signs Mia in: tokens with amr fed, her attributes mapped.
            let second = try await main.openLogin(service)
            let secondStart = try await main.http.get(try Self.providerLink(in: second.page), headers: ["Cookie": second.cookie])
            let back = try await Self.signInAtProvider(try #require(secondStart.header("Location")), provider: home, device: homeDevice)
            // Only the browser that started the login may finish it.
            let elsewhere = try await main.http.get(back)
            #expect(elsewhere.status == 403, "\(elsewhere.status) \(elsewhere.text)")
            _ = secondStart
            let third = try await main.openLogin(service)
            let thirdStart = try await main.http.get(try Self.providerLink(in: third.page), headers: ["Cookie": third.cookie])
            let returning = try await Self.signInAtProvider(try #require(thirdStart.header("Location")), provider: home, device: homeDevice)
            let finished = try await main.http.get(returning, headers: ["Cookie": try Self.cookies(after: thirdStart, login: third.cookie)])
            #expect(finished.status == 302 && finished.header("Location") == third.completeURL, "\(finished.status) \(finished.text)")
            let code = try #require(try await main.complete(third)["code"])
            let tokens = try await main.redeem(code: code, service: service, verifier: third.verifier)
            #expect(tokens.status == 200, "\(tokens.text)")
            let claims = try await verifyIDToken(try #require(try tokens.json()["id_token"] as? String), scenario: main, clientID: service.clientID)
            #expect(claims["amr"] as? [String] == ["fed"] && claims["acr"] as? String == "urn:tessera:acr:federation")
            let users = try await main.http.get("\(server.baseURL)/admin/tenants/\(main.tenant)/users?username=mia", headers: admin).json()
            let mia = try #require((users["users"] as? [[String: Any]])?.first)
            #expect((mia["attributes"] as? [String: String])?["display_name"] == "Alice Home")

            // A service whose policy does not list federation offers no provider and refuses one.
            let plain = try await main.openLogin(deviceOnly)
            #expect(!plain.page.contains("class=\"provider\""))
            let plainStart = try await main.http.get(
                "\(main.issuer)/authorize/federation?request=\(try #require(Scenario.attribute("data-request", in: plain.page)))&provider=home",
                headers: ["Cookie": plain.cookie])
            #expect(plainStart.status == 403)
            // An unknown provider, and a callback that is no login's.
            let fifth = try await main.openLogin(service)
            let unknown = try await main.http.get(
                try Self.providerLink(in: fifth.page).replacingOccurrences(of: "provider=home", with: "provider=none"), headers: ["Cookie": fifth.cookie])
            #expect(unknown.status == 404)
            // Without the login's cookie, another browser cannot start it.
            #expect(try await main.http.get(try Self.providerLink(in: fifth.page)).status == 403)
            #expect(try await main.http.get("\(callback)?state=forged&code=x").status == 400)

            // Linking by a verified e-mail address: a second entry for the same provider, added
            // with the command line (the secret as `--client-secret=…`: a random one may begin
            // with "-", which would read as an option).
            try await main.createUser("ali", attributes: ["email": "alice@example.org"])
            // Compared exactly: an address that differs in case is someone else's (SQLite's LIKE ignored case).
            try await main.createUser("ali-upper", attributes: ["email": "ALICE@example.org"])
            let cli = ["TESSERA_SERVER": server.baseURL, "TESSERA_ADMIN_TOKEN": server.adminToken]
            let byEmail = try await tessera(
                [
                    "admin", "identity-provider", "add", "--tenant", main.tenant, "--name", "home-mail", "--display-name", "Home (e-mail)",
                    "--discovery-url", "\(home.issuer)/.well-known/openid-configuration", "--client-id", client.clientID,
                    "--client-secret=\(try #require(client.clientSecret))", "--link-claim", "email", "--link-field", "email",
                ], environment: cli)
            #expect(byEmail.0 == 0 && byEmail.2.contains("redirect_uri: \(callback)"), "\(byEmail.2)")
            let fourth = try await main.openLogin(service)
            let mailLink = try Self.providerLink(in: fourth.page).replacingOccurrences(of: "provider=home", with: "provider=home-mail")
            let mailStart = try await main.http.get(mailLink, headers: ["Cookie": fourth.cookie])
            let mailBack = try await Self.signInAtProvider(try #require(mailStart.header("Location")), provider: home, device: homeDevice)
            #expect(try await main.http.get(mailBack, headers: ["Cookie": try Self.cookies(after: mailStart, login: fourth.cookie)]).status == 302)
            let mailCode = try #require(try await main.complete(fourth)["code"])
            let mailTokens = try await main.redeem(code: mailCode, service: service, verifier: fourth.verifier)
            let mailClaims = try await verifyIDToken(
                try #require(try mailTokens.json()["id_token"] as? String), scenario: main, clientID: service.clientID)
            let ali = try #require(
                ((try await main.http.get("\(server.baseURL)/admin/tenants/\(main.tenant)/users?username=ali", headers: admin).json())["users"]
                    as? [[String: Any]])?.first)
            #expect(mailClaims["sub"] as? String == ali["id"] as? String)

            // The list shows both, never a secret; removing one removes it from the directory.
            let list = try await main.http.get("\(server.baseURL)/admin/tenants/\(main.tenant)/identity-providers", headers: admin)
            let secret = try #require(client.clientSecret)
            #expect(list.status == 200 && !list.text.contains(secret))
            #expect((try list.json()["providers"] as? [[String: Any]])?.count == 2)
            let listed = try await tessera(["admin", "identity-provider", "list", "--tenant", main.tenant], environment: cli)
            #expect(listed.2.contains("home\tHome Insurance\t") && listed.2.contains("home-mail\tHome (e-mail)\t"), "\(listed.2)")
            let removed = try await tessera(["admin", "identity-provider", "remove", "--tenant", main.tenant, "--name", "home-mail"], environment: cli)
            #expect(removed.0 == 0 && removed.2.contains("removed: home-mail"), "\(removed.2)")
            let after = try await main.http.get("\(main.issuer)/directory/kk_apps").json()
            #expect((after["kk_app_list"] as? [[String: Any]])?.map { $0["kk_app_id"] as? String } == ["home"])

            // An e-mail address the provider does not vouch for links nobody.
            try await home.createUser("eve", attributes: ["email": "carl@example.org", "email_verified": "false"])
            let (eveDevice, _) = try await activateDevice(home, username: "eve")
            try await main.createUser("carl", attributes: ["email": "carl@example.org"])
            let readded = try await tessera(
                [
                    "admin", "identity-provider", "add", "--tenant", main.tenant, "--name", "home-mail", "--display-name", "Home (e-mail)",
                    "--discovery-url", "\(home.issuer)/.well-known/openid-configuration", "--client-id", client.clientID,
                    "--client-secret=\(secret)", "--link-claim", "email", "--link-field", "email",
                ], environment: cli)
            #expect(readded.0 == 0, "\(readded.2)")
            let sixth = try await main.openLogin(service)
            let unverifiedStart = try await main.http.get(
                try Self.providerLink(in: sixth.page).replacingOccurrences(of: "provider=home", with: "provider=home-mail"),
                headers: ["Cookie": sixth.cookie])
            let unverifiedBack = try await Self.signInAtProvider(try #require(unverifiedStart.header("Location")), provider: home, device: eveDevice)
            let unverified = try await main.http.get(unverifiedBack, headers: ["Cookie": try Self.cookies(after: unverifiedStart, login: sixth.cookie)])
            #expect(unverified.status == 403 && unverified.text.contains("no account here is linked"), "\(unverified.status) \(unverified.text)")

            // A tenant with linked identities can be deleted.
            let deleted = try await main.http.send("DELETE", "\(server.baseURL)/admin/tenants/\(main.tenant)?force=true", headers: admin)
            #expect(deleted.status == 200, "\(deleted.text)")
        }
    }

    /// The invitation page's provider form, the provider's login page, the confirmation and
    /// the linked page, in Debian's Chromium under the pages' own Content-Security-Policy
    /// (Tests/interop/federation_browser.py).
    @Test("linking from an invitation in Chromium: the provider form goes on to the provider, the confirmation names both accounts, nothing is linked before its button")
    func linkingInBrowser() async throws {
        // The provider on a server of its own: another origin than the invitation page's.
        try await withServer { providerServer in try await withServer { server in
            let home = try await Scenario.make(on: providerServer)
            let main = try await Scenario.make(on: server)
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            let callback = "\(main.issuer)/authorize/federation/callback"
            try await home.createUser("alice", attributes: ["email": "alice@example.org", "email_verified": "true"])
            let (homeDevice, _) = try await activateDevice(home, username: "alice")
            let client = try await home.createService(policy: "device+pin", attributes: ["email", "email_verified"], redirectURI: callback, name: "Main")
            let added = try await main.http.postJSON(
                "\(server.baseURL)/admin/tenants/\(main.tenant)/identity-providers",
                [
                    "name": "home", "display_name": "Home", "discovery_url": "\(home.issuer)/.well-known/openid-configuration",
                    "client_id": client.clientID, "client_secret": try #require(client.clientSecret),
                ], headers: admin)
            #expect(added.status == 201, "\(added.text)")
            try await main.createUser("mia")
            let invitation = try await main.invite("mia")
            let (lines, continuation) = AsyncStream<String>.makeStream()
            let confirmed = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-confirmed-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: confirmed) }
            let steps = Task { () -> (approved: Bool, linkedBeforeConfirming: Bool?) in
                var approved = false
                var linkedBefore: Bool?
                for await line in lines {
                    let parts = line.split(separator: " ").map(String.init)
                    if parts.count >= 3, parts[0] == "SCAN", let link = URL(string: parts[1]) {
                        var information = try await homeDevice.authenticator.start(url: link)
                        if parts[2] != "none" { try information.pickNumber(parts[2]) }
                        approved = try await signAndFinish(information, device: homeDevice, factors: [.device, .pin]).isUserLogin
                    } else if line == "CONFIRMING" {
                        linkedBefore = try await main.audit().contains { $0.action == "federation.link" }
                        // Only now may the script press the button.
                        _ = FileManager.default.createFile(atPath: confirmed.path, contents: Data())
                    }
                }
                return (approved, linkedBefore)
            }
            let result = try await Python.run(
                "federation_browser.py", [],
                environment: [
                    "INVITATION_URL": invitation.absoluteString, "PROVIDER_ISSUER": home.issuer, "IDENTITY": "alice@example.org", "USERNAME": "mia",
                    "CONFIRMED_FILE": confirmed.path, "SCREENSHOT_DIR": screenshotDirectory().path,
                ],
                timeout: .seconds(180), onLine: { continuation.yield($0) })
            continuation.finish()
            let outcome = try await steps.value
            #expect(result.status == 0, "\(result.errors)\n\(result.output.suffix(3000))")
            #expect(result.output.contains("RESULT ") && result.output.contains(#""accessibility": []"#), "\(result.output)")
            #expect(outcome.approved, "the provider's device approved its login")
            #expect(outcome.linkedBeforeConfirming == false, "nothing was linked before the button")
            #expect(try await main.audit().contains { $0.action == "federation.link" })
            homeDevice.remove()
        } }
    }

}
