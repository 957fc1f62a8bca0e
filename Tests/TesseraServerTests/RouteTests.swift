import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import SQLKit
import TesseraCore
import TesseraKit
import TesseraRecords
import TesseraTesting
import TesseraTestSupport
import Testing

@testable import TesseraServer
@testable import TesseraStore

/// Routes and middleware in Hummingbird's `.router` mode: no sockets, the real application.
@Suite("Routes and middleware (router mode)")
struct RouteTests {
    @Test("an unknown tenant is a 404: JSON for the API, a page for the browser's /authorize")
    func unknownTenant() async throws {
        let harness = try await RouterHarness.make()
        try await harness.run { client in
            let api = try await client.executeRequest(uri: "/t/nowhere/jwks", method: .get, headers: [:], body: nil)
            #expect(api.status == .notFound)
            #expect(api.json["error"] as? String == "not_found")
            let page = try await client.executeRequest(uri: "/t/nowhere/authorize?client_id=x", method: .get, headers: [:], body: nil)
            #expect(page.status == .notFound)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("This sign-in address does not exist"))
        }
    }

    @Test("device routes need a Tessera-Device token, admin routes the admin token, token endpoints a client")
    func authenticationAtTheEdge() async throws {
        let harness = try await RouterHarness.make()
        try await harness.run { client in
            try await client.admin(.post, "/admin/tenants", #"{"name":"demo"}"#)
            let device = try await client.executeRequest(
                uri: "/t/demo/device/pending", method: .get, headers: [.authorization: "Tessera-Device not-a-jws"], body: nil)
            #expect(device.status == .unauthorized)
            #expect(device.json["error"] as? String == "invalid_token")
            let admin = try await client.executeRequest(uri: "/admin/tenants", method: .get, headers: [:], body: nil)
            #expect(admin.status == .unauthorized)
            #expect(admin.headers[.wwwAuthenticate] == #"Bearer realm="tessera-admin""#)
            let token = try await client.executeRequest(
                uri: "/t/demo/token", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded", .authorization: "Basic \(Data("nobody:wrong".utf8).base64EncodedString())"],
                body: ByteBuffer(string: "grant_type=refresh_token&refresh_token=x"))
            #expect(token.status == .unauthorized)
            #expect(token.json["error"] as? String == "invalid_client")
            #expect(token.headers[.wwwAuthenticate] == #"Basic realm="tessera""#)
        }
    }

    @Test("a failure the server cannot answer is one opaque 500, logged once at error level with the request id, counted by route")
    func serverErrors() async throws {
        let harness = try await RouterHarness.make()
        let store = harness.store
        try await harness.run { client in
            try await client.admin(.post, "/admin/tenants", #"{"name":"demo"}"#)
            try await client.admin(.post, "/admin/tenants/demo/services", #"{"name":"Shop","redirect_uris":["https://shop.example/cb"]}"#)
            // A row the server cannot read: the discovery document lists every service's attributes.
            try await store.transaction { tx in try await tx.db.raw("UPDATE services SET attributes = 'not json'").run() }
            let failed = try await client.executeRequest(uri: "/t/demo/.well-known/openid-configuration", method: .get, headers: [:], body: nil)
            #expect(failed.status == .internalServerError)
            #expect(failed.json["error"] as? String == "server_error")
            #expect(!failed.text.contains("JSON"), "the caller learns nothing of the cause")

            let errors = harness.log.recorded.filter { $0.level == .error }
            #expect(errors.count == 1, "one line per failed request: \(errors.map(\.message))")
            let line = try #require(errors.first)
            #expect(line.metadata["hb.request.id"] != nil)
            #expect(line.metadata["status"] == "500")
            #expect(line.metadata["error"]?.contains("corrupt") == true)

            let metrics = try await client.executeRequest(
                uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(RouterHarness.metricsToken)"], body: nil
            ).text
            #expect(metrics.contains(#"tessera_http_server_errors_total{route="/t/{tenant}/.well-known/openid-configuration"} 1"#))
        }
    }

    @Test("the SDK over an in-process transport: activate, a wrong PIN locks, the lock ends on the server's clock, then login")
    func sdkOverTheRouter() async throws {
        let harness = try await RouterHarness.make()
        let clock = harness.clock
        try await harness.run { client in
            try await client.admin(.post, "/admin/tenants", #"{"name":"demo","lockout":{"free_attempts":0,"waits":[60],"permanent_after":5}}"#)
            let (_, service) = try await client.admin(
                .post, "/admin/tenants/demo/services",
                #"{"name":"Shop","redirect_uris":["https://shop.example/cb"],"attributes":["email"],"number_matching":false}"#)
            try await client.admin(.post, "/admin/tenants/demo/users", #"{"username":"alice","attributes":{"email":"a@example.com"}}"#)
            let (_, invitation) = try await client.admin(.post, "/admin/tenants/demo/invitations", #"{"username":"alice"}"#)

            let keys = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: keys) }
            let keyStore = try FileKeyStore(directory: keys)
            let transport = RouterTransport(client: client)
            let personalizer = Personalizer(keyStore: keyStore, transport: transport, now: { clock.now() })
            let authenticator = Authenticator(keyStore: keyStore, transport: transport, now: { clock.now() })
            let invitationURL = try #require(invitation["url"] as? String)
            _ = try await personalizer.activate(url: try #require(URL(string: invitationURL)), pin: "246810")

            let clientID = try #require(service["client_id"] as? String)
            let page = try await client.executeRequest(
                uri: "/t/demo/authorize?client_id=\(clientID)&redirect_uri=https%3A%2F%2Fshop.example%2Fcb&response_type=code&scope=openid",
                method: .get, headers: [:], body: nil)
            let requestID = try #require(page.text.firstMatch(of: /request=([A-Za-z0-9_-]+)/)?.1)
            let link = try #require(URL(string: "\(harness.publicURL)/t/demo/authenticate?request=\(requestID)"))

            var information = try await authenticator.start(url: link)
            try information.sign(factor: DeviceFactor())
            try information.sign(factor: PinFactor("999999"))
            guard case .lockout(let lock, var retry) = try await authenticator.finish(information) else {
                Issue.record("a wrong PIN answers lockout")
                return
            }
            #expect(lock.lockedUntil != nil)
            // While the lock runs, the SDK gets the pending lockout without proving anything.
            await #expect(throws: TesseraKitError.self) { _ = try await authenticator.start(url: link) }

            clock.advance(by: 61)
            try retry.sign(factor: DeviceFactor())
            try retry.sign(factor: PinFactor("246810"))
            guard case .userLogin = try await authenticator.finish(retry) else {
                Issue.record("the right PIN after the wait logs in")
                return
            }
        }
    }
}
