import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCore
import TesseraTestSupport
import TesseraTesting
import Testing

@testable import TesseraKit

/// The SDK's token manager against the server in router mode: its decisions (log in, keep,
/// refresh with rotation when the clock passes the expiry, give up on a refused refresh,
/// wait on a lost connection, log out) on a clock the test moves, with no sockets.
@Suite("The SDK's token manager against the router")
struct TokenManagerTests {
    @Test("log in as a public client, DPoP-bound tokens, a refresh that rotates, a replay that outdates, no network, logout, two users")
    func decisions() async throws {
        let harness = try await RouterHarness.make()
        // The app's clock: the server's runs on, and checks the proofs' times against its own.
        let clock = TestClock.running()
        try await harness.run { client in
            try await client.admin(.post, "/admin/tenants", #"{"name":"demo"}"#)
            let (status, app) = try await client.admin(
                .post, "/admin/tenants/demo/services",
                #"{"name":"App","public":true,"redirect_uris":["com.example.app:/callback"],"policy":"device+pin"}"#)
            #expect(status == .created)
            let clientID = try #require(app["client_id"] as? String)
            let (device, _) = try await RouterDevice.activated("bo", tenant: "demo", client: client, clock: harness.clock)
            let (_, cy) = try await client.admin(.post, "/admin/tenants/demo/users", #"{"username":"cy"}"#)
            let cyID = try #require(cy["id"] as? String)
            func sessionsOfCy() async throws -> Int {
                let (_, listed) = try await client.admin(.get, "/admin/tenants/demo/users/\(cyID)/sessions")
                return (listed["sessions"] as? [[String: Any]])?.count ?? -1
            }
            let (_, invitation) = try await client.admin(.post, "/admin/tenants/demo/invitations", #"{"username":"cy"}"#)
            let link = try #require(invitation["url"] as? String)
            _ = try await device.personalizer.activate(url: try #require(URL(string: link)), pin: "135790")
            let transport = RouterTransport(client: client)
            let tokens = TokenManager(keyStore: device.keyStore, transport: transport, now: { clock.now() })
            func login(_ manager: TokenManager, _ username: String, pin: String, redirectURI: String = "com.example.app:/callback") async -> LoginStatus {
                await manager.login(authenticator: device.authenticator, clientID: clientID, redirectURI: redirectURI, username: username) {
                    try $0.sign(factor: DeviceFactor())
                    try $0.sign(factor: PinFactor(pin))
                }
            }

            #expect(await tokens.status(username: "bo") == .noTokenDataAvailable)
            #expect(await login(tokens, "bo", pin: "246810", redirectURI: "com.example.app:/other") == .cannotAcquireAuthorizationCode)
            #expect(await login(tokens, "bo", pin: "246810") == .ok)
            #expect(await login(tokens, "cy", pin: "135790") == .ok)
            #expect(try await tokens.users().map(\.username).sorted() == ["bo", "cy"])

            // DPoP by default: a resource request carries a proof; the token alone is refused.
            let (ok, access) = await tokens.accessToken(username: "bo")
            #expect(ok == .ok)
            #expect(try await tokens.users().first { $0.username == "bo" }?.tokenType == "DPoP")
            let userinfo = try #require(URL(string: "\(harness.publicURL)/t/demo/userinfo"))
            func read(_ headers: [String: String]) async throws -> HTTPResponse.Status {
                var fields = HTTPFields()
                for (name, value) in headers {
                    let field = try #require(HTTPField.Name(name))
                    fields[field] = value
                }
                return try await client.executeRequest(uri: "/t/demo/userinfo", method: .get, headers: fields, body: nil).status
            }
            let (_, headers) = await tokens.authorizationHeaders(method: "GET", url: userinfo, username: "bo")
            #expect(try await read(try #require(headers)) == .ok)
            #expect(try await read(["Authorization": "Bearer \(try #require(access))"]) == .unauthorized)
            let before = try #require(try await tokens.users().first { $0.username == "bo" }?.refreshToken)

            // Past the access token's lifetime on the app's clock: refreshed and rotated.
            clock.advance(by: 600)
            let (refreshed, renewed) = await tokens.accessToken(username: "bo")
            #expect(refreshed == .ok && renewed != access)
            #expect(try await tokens.users().first { $0.username == "bo" }?.refreshToken != before)
            let (_, renewedHeaders) = await tokens.authorizationHeaders(method: "GET", url: userinfo, username: "bo")
            #expect(try await read(try #require(renewedHeaders)) == .ok)

            // Without DPoP, a replayed refresh token ends the session: the next refresh finds
            // the tokens outdated. The other user's stay good.
            let bearer = TokenManager(keyStore: device.keyStore, transport: transport, now: { clock.now() }, dpop: false)
            #expect(await login(bearer, "bo", pin: "246810") == .ok)
            let replayed = try #require(try await bearer.users().first { $0.username == "bo" }?.refreshToken)
            clock.advance(by: 600)
            #expect(await bearer.status(username: "bo") == .ok)
            let replay = try await client.executeRequest(
                uri: "/t/demo/token", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: .init(string: "grant_type=refresh_token&client_id=\(clientID)&refresh_token=\(replayed)"))
            #expect(replay.status == .badRequest && replay.text.contains("invalid_grant"), "\(replay.text)")
            clock.advance(by: 600)
            #expect(await bearer.status(username: "bo") == .tokenDataIsOutdated)
            #expect(await tokens.status(username: "cy") == .ok)

            // No connection: the tokens stay; the status says to try later.
            clock.advance(by: 600)
            let offline = TokenManager(keyStore: device.keyStore, transport: UnreachableTransport(), now: { clock.now() })
            #expect(await offline.status(username: "cy") == .cannotAcquireTokenData)
            #expect(await tokens.status(username: "cy") == .ok)

            // Logout revokes at the server (the session ends) and forgets here.
            #expect(try await sessionsOfCy() == 1)
            try await tokens.logout(username: "cy")
            #expect(await tokens.status(username: "cy") == .noTokenDataAvailable)
            #expect(try await sessionsOfCy() == 0)
        }
    }
}
