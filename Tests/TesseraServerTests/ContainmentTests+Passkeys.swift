import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraTesting
import Testing

@testable import TesseraServer

extension ContainmentTests {
    /// Finding 2: a passkey added on the account page names what opened the page's session,
    /// and is removed with it, so that a stolen device (or passkey), once removed, leaves no
    /// way back in.
    @Test("a passkey added on the account page goes with the device or the passkey that signed in to the page, and with what that one added")
    func accountPagePasskeysFollowTheirOrigin() async throws {
        let harness = try await RouterHarness.make { $0.publicURL = RouterBrowser.origin }
        try await harness.run { client in
            try await client.admin(.post, "/admin/tenants", #"{"name":"demo","process_policy":"device+pin,securitykey"}"#)
            let (device, userID) = try await RouterDevice.activated("alice", tenant: "demo", client: client, clock: harness.clock)
            let activationID = try #require(try await device.personalizer.activations().first?.id)
            func keys() async throws -> [String] {
                let (_, listed) = try await client.admin(.get, "/admin/tenants/demo/users/\(userID)/security-keys")
                return ((listed["security_keys"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }.sorted()
            }

            // The device signs in to the page and adds "Laptop" and "Phone".
            var byDevice = RouterBrowser(client: client)
            try await byDevice.signInToAccount(tenant: "demo") { _, page in
                let approved = try await device.approve(try await device.start(page))
                #expect(approved)
            }
            let laptop = try SoftwareSecurityKey(file: nil)
            let phone = try SoftwareSecurityKey(file: nil)
            #expect(try await byDevice.addPasskey(laptop, name: "Laptop", tenant: "demo").status == .created)
            #expect(try await byDevice.addPasskey(phone, name: "Phone", tenant: "demo").status == .created)

            // "Laptop" signs in to the page in another browser and adds "Tablet".
            var byLaptop = RouterBrowser(client: client)
            try await byLaptop.signInToAccount(tenant: "demo") { browser, page in try await browser.passkeyLogin(laptop, page: page, tenant: "demo") }
            let tablet = try SoftwareSecurityKey(file: nil)
            #expect(try await byLaptop.addPasskey(tablet, name: "Tablet", tenant: "demo").status == .created)
            // "Tablet" signs in too.
            var byTablet = RouterBrowser(client: client)
            try await byTablet.signInToAccount(tenant: "demo") { browser, page in try await browser.passkeyLogin(tablet, page: page, tenant: "demo") }
            #expect(try await keys() == ["Laptop", "Phone", "Tablet"])

            // Removing "Laptop" removes "Tablet", which it added, and ends the page sessions both opened.
            let (_, listed) = try await client.admin(.get, "/admin/tenants/demo/users/\(userID)/security-keys")
            let laptopID = try #require((listed["security_keys"] as? [[String: Any]])?.first { $0["name"] as? String == "Laptop" }?["id"] as? String)
            let (removed, _) = try await client.admin(.delete, "/admin/tenants/demo/users/\(userID)/security-keys/\(laptopID)")
            #expect(removed == .ok || removed == .noContent)
            #expect(try await keys() == ["Phone"])
            #expect(try await byLaptop.get("/t/demo/account").text.contains(#"id="sign-in""#), "signed out")
            #expect(try await byTablet.get("/t/demo/account").text.contains(#"id="sign-in""#), "signed out")
            let audit = try await client.admin(.get, "/admin/audit?tenant=demo&action=securitykey.remove").1
            let entry = (audit["entries"] as? [[String: Any]])?.first { $0["target"] as? String == laptopID }
            #expect((entry?["details"] as? [String: String])?["keys_added_from_it_removed"] == "1", "\(audit)")

            // Revoking the device removes "Phone", which its page session added.
            #expect(try await byDevice.get("/t/demo/account").text.contains(#"id="security-keys""#), "still signed in")
            let (revoked, _) = try await client.admin(.post, "/admin/activations/\(activationID)/revoke")
            #expect(revoked == .ok)
            #expect(try await keys() == [])
        }
    }
}

extension RouterBrowser {
    /// Signs in to a tenant's account page: `answer` answers its login page (a device, or a
    /// passkey in this browser); then the login completes and the callback opens the page.
    /// Keeps the page's CSRF token.
    mutating func signInToAccount(tenant: String, answer: (RouterBrowser, TestResponse) async throws -> Void) async throws {
        let start = try await get("/t/\(tenant)/account/login")
        let page = try await get(try #require(start.headers[.location]))
        let requestID = try RouterDevice.requestID(on: page)
        try await answer(self, page)
        let complete = try await get("/t/\(tenant)/authorize/complete?request=\(requestID)")
        let opened = try await get(try #require(complete.headers[.location], "\(complete.status) \(complete.text)"))
        #expect(opened.status == .seeOther, "\(opened.status) \(opened.text)")
        let account = try await get("/t/\(tenant)/account")
        csrf = String(try #require(account.text.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1))
    }

    /// The browser's WebAuthn client: a JSON call of the page's with its cookies and CSRF token.
    func json(_ path: String, _ object: Any?) async throws -> TestResponse {
        var headers: HTTPFields = [.cookie: cookieHeader, .contentType: "application/json"]
        headers[HTTPField.Name("X-CSRF-Token")!] = csrf
        let body = try object.map { ByteBuffer(data: try JSONSerialization.data(withJSONObject: $0)) }
        return try await client.executeRequest(uri: path, method: .post, headers: headers, body: body)
    }

    /// The server's public URL, which the browser's client data names.
    static let origin = "http://127.0.0.1:8080"

    static func clientData(type: String, challenge: String) -> Data {
        Data(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    /// Registers a credential of `key` from the signed-in account page.
    func addPasskey(_ key: SoftwareSecurityKey, name: String, tenant: String) async throws -> TestResponse {
        let options = try await json("/t/\(tenant)/account/passkeys/options", nil).json
        let challenge = try #require(options["challenge"] as? String)
        let rp = try #require((options["rp"] as? [String: Any])?["id"] as? String)
        let user = try #require(options["user"] as? [String: Any])
        let clientData = Self.clientData(type: "webauthn.create", challenge: challenge)
        let made = try await key.makeCredential(
            .init(
                clientDataHash: Array(SHA256.hash(data: clientData)), rpID: rp,
                userHandle: Array(Base64URL.decode(try #require(user["id"] as? String)) ?? Data()), userName: name,
                algorithms: [COSEAlgorithm.es256.rawValue], excludeCredentialIDs: [], requireUserVerification: false))
        let id = Base64URL.encode(Data(made.credentialID))
        return try await json(
            "/t/\(tenant)/account/passkeys",
            [
                "name": name,
                "credential": [
                    "id": id, "rawId": id, "type": "public-key",
                    "response": [
                        "clientDataJSON": Base64URL.encode(clientData), "attestationObject": Base64URL.encode(Data(made.attestationObject)),
                        "transports": made.transports,
                    ],
                ],
            ])
    }

    /// Answers a login page with a passkey of `key`, as the page's script does.
    func passkeyLogin(_ key: SoftwareSecurityKey, page: TestResponse, tenant: String) async throws {
        let requestID = try RouterDevice.requestID(on: page)
        let options = try await json("/t/\(tenant)/authorize/passkey/options?request=\(requestID)", [String: String]()).json
        let challenge = try #require(options["challenge"] as? String, "\(options)")
        let clientData = Self.clientData(type: "webauthn.get", challenge: challenge)
        let assertion = try await key.getAssertion(
            .init(
                clientDataHash: Array(SHA256.hash(data: clientData)), rpID: try #require(options["rpId"] as? String), allowCredentialIDs: [],
                requireUserVerification: true))
        let id = Base64URL.encode(Data(assertion.credentialID))
        let answered = try await json(
            "/t/\(tenant)/authorize/passkey?request=\(requestID)",
            [
                "id": id, "rawId": id, "type": "public-key",
                "response": [
                    "clientDataJSON": Base64URL.encode(clientData), "authenticatorData": Base64URL.encode(Data(assertion.authenticatorData)),
                    "signature": Base64URL.encode(Data(assertion.signature)),
                    "userHandle": assertion.userHandle.map { Base64URL.encode(Data($0)) } as Any,
                ],
            ])
        #expect(answered.status == .ok, "\(answered.text)")
    }
}
