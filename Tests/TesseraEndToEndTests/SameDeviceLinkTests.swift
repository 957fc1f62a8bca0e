import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraTesting
import Testing
@testable import TesseraKit

/// A login on the phone that shows it: the tenant's app is opened by a universal/app
/// link on its link domain or by its custom scheme, the server serves the association
/// files, and the SDK follows every form of link but only to an issuer it is activated for.
@Suite("Same-device links: custom schemes, universal and app links", .tags(.live), .timeLimit(.minutes(5)))
struct SameDeviceLinkTests {
    static let fingerprint = (0..<32).map { String(format: "%02x", $0 * 7 % 256) }.joined(separator: ":")

    /// The login page's same-device link, as a browser would follow it.
    func sameDeviceLink(_ login: Scenario.BrowserLogin) throws -> URL {
        let page = login.page
        let start = try #require(page.range(of: "id=\"same-device\" href=\""), "the page has a same-device link")
        let rest = page[start.upperBound...]
        let text = String(rest[..<(try #require(rest.firstIndex(of: "\"")))]).replacingOccurrences(of: "&amp;", with: "&")
        return try #require(URL(string: text))
    }

    @Test("the tenant's app links: association files, the page's same-device link on the link domain or the custom scheme, and a login through each")
    func appLinks() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("sam")
            let (device, _) = try await activateDevice(scenario, username: "sam")
            let admin = ["Authorization": "Bearer \(scenario.adminToken)", "Content-Type": "application/json"]
            func patch(_ body: [String: Any]) async throws -> TestHTTP.Response {
                try await scenario.http.send(
                    "PATCH", "\(scenario.baseURL)/admin/tenants/\(scenario.tenant)", headers: admin,
                    body: try JSONSerialization.data(withJSONObject: body))
            }
            let issuerPath = try #require(URLComponents(string: scenario.issuer)?.path)

            // Without app links the same-device link is the issuer's own.
            let plain = try await scenario.openLogin(service)
            #expect(try sameDeviceLink(plain) == plain.authenticationURL)
            let emptyAssociation = try await scenario.http.get("\(scenario.baseURL)/.well-known/apple-app-site-association").json()
            #expect((emptyAssociation["applinks"] as? [String: Any])?["details"] as? [Any] != nil)

            // Settings that are not an app's are refused, and change nothing.
            for bad: [String: Any] in [
                ["link_domain": "https://links.example.com"], ["link_domain": "links.example.com/path"], ["custom_scheme": "https"],
                ["custom_scheme": "javascript"], ["custom_scheme": "my app"], ["apple_app_ids": ["com.example.app"]],
                ["android_apps": [["package_name": "com.example.app", "sha256_cert_fingerprints": ["AB:CD"]]]],
                ["android_apps": [["package_name": "example", "sha256_cert_fingerprints": [Self.fingerprint]]]],
            ] {
                let refused = try await patch(["app_links": bad])
                #expect(refused.status == 400, "\(bad): \(refused.text)")
            }
            let unchanged = try await scenario.http.get("\(scenario.baseURL)/admin/tenants/\(scenario.tenant)", headers: admin).json()
            #expect(unchanged["app_links"] == nil || unchanged["app_links"] is NSNull)

            // A link domain with an iOS and an Android app.
            let set = try await patch([
                "app_links": [
                    "link_domain": "Links.Example.com", "custom_scheme": "myapp", "apple_app_ids": ["ABCDE12345.com.example.wallet"],
                    "android_apps": [["package_name": "com.example.wallet", "sha256_cert_fingerprints": [Self.fingerprint]]],
                ]
            ])
            #expect(set.status == 200, "\(set.text)")
            let links = try #require(try set.json()["app_links"] as? [String: Any])
            #expect(links["link_domain"] as? String == "links.example.com", "kept in normal form")
            let association = try await scenario.http.get("\(scenario.baseURL)/.well-known/apple-app-site-association")
            #expect(association.status == 200 && association.header("Content-Type")?.hasPrefix("application/json") == true)
            let details = try #require((try association.json()["applinks"] as? [String: Any])?["details"] as? [[String: Any]])
            let detail = try #require(details.first { ($0["appIDs"] as? [String]) == ["ABCDE12345.com.example.wallet"] })
            let paths = (detail["components"] as? [[String: String]])?.compactMap { $0["/"] }
            #expect(paths == ["\(issuerPath)/authenticate", "\(issuerPath)/activate"])
            // The Android app is listed on the tenant's link domain (the file chosen by Host), not
            // for the issuer's whole host, where it would open every tenant's links.
            let issuerFile = try await scenario.http.get("\(scenario.baseURL)/.well-known/assetlinks.json")
            #expect(issuerFile.text == "[]", "\(issuerFile.text)")
            let assetLinks = try await scenario.http.get(
                "\(scenario.baseURL)/.well-known/assetlinks.json", headers: ["Host": "links.example.com"])
            let statements = try #require(try JSONSerialization.jsonObject(with: Data(assetLinks.text.utf8)) as? [[String: Any]])
            let statement = try #require(statements.first)
            #expect(statement["relation"] as? [String] == ["delegate_permission/common.handle_all_urls"])
            let target = try #require(statement["target"] as? [String: Any])
            #expect(target["namespace"] as? String == "android_app" && target["package_name"] as? String == "com.example.wallet")
            #expect(target["sha256_cert_fingerprints"] as? [String] == [Self.fingerprint.uppercased()])

            // The page links to the link domain, naming the issuer; the SDK logs in through it.
            let viaDomain = try await scenario.openLogin(service)
            let universal = try sameDeviceLink(viaDomain)
            #expect(universal.host == "links.example.com" && universal.scheme == "https" && universal.path == "\(issuerPath)/authenticate")
            #expect(URLComponents(url: universal, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "issuer" }?.value == scenario.issuer)
            let information = try await device.authenticator.start(url: universal)
            #expect(information.audience == scenario.issuer)
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
            #expect(try await scenario.complete(viaDomain)["code"] != nil)

            // Only a scheme: the page uses it.
            #expect(try await patch(["app_links": ["custom_scheme": "myapp"]]).status == 200)
            let viaScheme = try await scenario.openLogin(service)
            let custom = try sameDeviceLink(viaScheme)
            #expect(custom.scheme == "myapp" && custom.host == "tessera" && custom.path == "/authenticate")
            let claimed = try await device.authenticator.start(url: custom)
            #expect(try await signAndFinish(claimed, device: device, factors: [.device, .pin]).isUserLogin)
            #expect(try await scenario.complete(viaScheme)["code"] != nil)
            let withoutApple = try await scenario.http.get("\(scenario.baseURL)/.well-known/apple-app-site-association").json()
            let remaining = (withoutApple["applinks"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
            #expect(!remaining.contains { ($0["appIDs"] as? [String]) == ["ABCDE12345.com.example.wallet"] })

            // Removed: the issuer's own link again, and the tenant's update is audited.
            #expect(try await patch(["app_links": NSNull()]).status == 200)
            let again = try await scenario.openLogin(service)
            #expect(try sameDeviceLink(again) == again.authenticationURL)
            let changes = try await scenario.audit().filter { $0.action == "tenant.update" }
            #expect(changes.count == 3)
        }
    }

    @Test("the SDK follows a link only to an issuer it holds an activation of, and refuses malformed app links before any call")
    func refusals() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("rae")
            let (device, _) = try await activateDevice(scenario, username: "rae")
            let login = try await scenario.openLogin(service)
            let request = try #require(
                URLComponents(url: login.authenticationURL, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "request" }?.value)
            let issuer = FormEncoding.component(scenario.issuer)
            let before = device.transport.requests.count

            // Links for an issuer this device is not activated with.
            for link in [
                "myapp://tessera/authenticate?request=\(request)&issuer=\(FormEncoding.component("https://other.example.com/t/demo"))",
                "https://links.example.com/t/demo/authenticate?request=\(request)&issuer=\(FormEncoding.component("https://other.example.com/t/demo"))",
            ] {
                do {
                    _ = try await device.authenticator.start(url: try #require(URL(string: link)))
                    Issue.record("\(link) was followed")
                } catch TesseraKitError.noActivation(let named) {
                    #expect(named == "https://other.example.com/t/demo")
                }
            }
            // Malformed: a scheme link without an issuer or off its path, two issuers, an
            // issuer's own link naming another path of the same host, an issuer in clear.
            for link in [
                "myapp://tessera/authenticate?request=\(request)",
                "myapp://elsewhere/authenticate?request=\(request)&issuer=\(issuer)",
                "myapp://tessera/authenticate?request=\(request)&issuer=\(issuer)&issuer=\(issuer)",
                "\(scenario.issuer)/authenticate?request=\(request)&issuer=\(FormEncoding.component(scenario.baseURL + "/t/other"))",
                "myapp://tessera/authenticate?request=\(request)&issuer=\(FormEncoding.component("http://id.example.com/t/demo"))",
                "myapp://tessera/authenticate?request=\(request)&issuer=\(FormEncoding.component(scenario.issuer + "?x=1"))",
                "myapp://tessera/authenticate?request=a%2Fb&issuer=\(issuer)",
            ] {
                do {
                    _ = try await device.authenticator.start(url: try #require(URL(string: link)))
                    Issue.record("\(link) was followed")
                } catch TesseraKitError.invalidLink {}
            }
            #expect(device.transport.requests.count == before, "nothing reached any server")

            // The issuer's own link naming itself is fine, and so is a custom-scheme activation link.
            let named = try #require(URL(string: "\(login.authenticationURL.absoluteString)&issuer=\(issuer)"))
            let information = try await device.authenticator.start(url: named)
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
            let invitation = try await scenario.invite("rae")
            let code = try #require(URLComponents(url: invitation, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)
            let second = try TestDevice()
            let activated = try await second.personalizer.activate(
                url: try #require(URL(string: "myapp://tessera/activate?code=\(code)&issuer=\(issuer)")), pin: "1357")
            #expect(activated.activation.issuer == scenario.issuer)
            second.remove()
        }
    }

    @Test("tessera admin tenant update sets and removes the app links")
    func commandLine() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let environment = ["TESSERA_SERVER": scenario.baseURL, "TESSERA_ADMIN_TOKEN": scenario.adminToken]
            let (status, json, output) = try await tessera(
                [
                    "admin", "tenant", "update", scenario.tenant, "--app-link-domain", "links.example.com", "--app-scheme", "myapp",
                    "--apple-app-id", "ABCDE12345.com.example.wallet", "--android-app", "com.example.wallet=\(Self.fingerprint)", "--json",
                ], environment: environment)
            #expect(status == 0, "\(output)")
            let links = try #require(json["app_links"] as? [String: Any])
            #expect(links["custom_scheme"] as? String == "myapp" && links["apple_app_ids"] as? [String] == ["ABCDE12345.com.example.wallet"])
            let shown = try await tessera(["admin", "tenant", "get", scenario.tenant], environment: environment)
            #expect(shown.2.contains("app_links: link_domain=links.example.com custom_scheme=myapp"), "\(shown.2)")
            let bad = try await tessera(["admin", "tenant", "update", scenario.tenant, "--android-app", "com.example.wallet"], environment: environment)
            #expect(bad.0 != 0)
            let removed = try await tessera(["admin", "tenant", "update", scenario.tenant, "--no-app-links", "--json"], environment: environment)
            #expect(removed.0 == 0 && (removed.1["app_links"] == nil || removed.1["app_links"] is NSNull), "\(removed.2)")
        }
    }
}
