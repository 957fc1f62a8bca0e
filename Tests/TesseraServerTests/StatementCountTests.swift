import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import TesseraCrypto
import TesseraRecords
import TesseraStore
import TesseraTestSupport
import TesseraTesting
import Testing

/// What each step of a device login sends to the database, counted by the store itself
/// (the statements of every store call, BEGIN and COMMIT included; on PostgreSQL each is a
/// round trip). docs/PERFORMANCE.md reports these figures: a change that adds a statement
/// to a login fails here and says so. The server's background work is off, so that only
/// the requests' statements are counted. Runs on PostgreSQL in the suite's PostgreSQL pass.
@Suite("Statements per login step")
struct StatementCountTests {
    final class Counter: Sendable {
        private let count = Mutex(0)
        func add(_ statements: Int) { count.withLock { $0 += statements } }
        /// The statements since the last take.
        func take() -> Int { count.withLock { value in defer { value = 0 }; return value } }
    }

    @Test("a device login: the page, the claim, the finish, the completion and the token exchange, each in its known number of statements")
    func deviceLogin() async throws {
        guard let database = try await TestDatabase.fresh() else {
            try await Self.login(on: try await RouterHarness.make(background: false), postgres: false)
            return
        }
        do {
            try await SQLStore.withPostgres(url: database, logger: Logger(label: "test")) { store in
                try await Self.login(on: try await RouterHarness.make(store: store, background: false), postgres: true)
            }
        } catch {
            await TestDatabase.drop(database)
            throw error
        }
        await TestDatabase.drop(database)
    }

    static func login(on harness: RouterHarness, postgres: Bool) async throws {
        let counter = Counter()
        harness.store.observers.observe { counter.add($0.statements) }
        try await harness.run { client in
            let shop = try await Shop.make(client: client, clock: harness.clock)
            let (clientID, secret, device, verifier, authorize) = (shop.clientID, shop.secret, shop.device, shop.verifier, shop.authorize)
            var browser = RouterBrowser(client: client)
            // Warm: the service and the tenant's signing key are read once and kept.
            _ = try await browser.get(authorize)

            // Two logins: in the first, the claim reads the activation before its
            // transaction (this node has not kept the device's key yet); from then on
            // neither the claim nor the finish does.
            for login in 1...2 {
                _ = counter.take()
                let page = try await browser.get(authorize)
                let pageStatements = counter.take()
                let requestID = try RouterDevice.requestID(on: page)
                let information = try await device.start(page)
                let claimStatements = counter.take()
                #expect(try await device.approve(information))
                let finishStatements = counter.take()
                let complete = try await browser.get("/t/demo/authorize/complete?request=\(requestID)")
                let completeStatements = counter.take()
                let location = try #require(complete.headers[.location], "\(complete.status) \(complete.text)")
                let code = try #require(location.firstMatch(of: /[?&]code=([^&]+)/)?.1)
                let credentials = Data("\(clientID):\(secret)".utf8).base64EncodedString()
                let token = try await client.executeRequest(
                    uri: "/t/demo/token", method: .post,
                    headers: [.authorization: "Basic \(credentials)", .contentType: "application/x-www-form-urlencoded"],
                    body: .init(
                        string: "grant_type=authorization_code&code=\(code)&redirect_uri=https%3A%2F%2Fshop.example%2Fcb&code_verifier=\(verifier)"))
                #expect(token.status == .ok, "\(token.text)")
                let tokenStatements = counter.take()

                let steps = [pageStatements, claimStatements, finishStatements, completeStatements, tokenStatements]
                if postgres {
                    // The claim: BEGIN, the queue's lock, the rows read as the token's id is
                    // spent (one statement), the claim, COMMIT; the finish: BEGIN, the lock,
                    // the rows read as the proof's id and the challenge are spent, the
                    // approval, COMMIT. One in `expiredSweepOdds` device calls also clears
                    // the activation's expired token ids; the first claim also reads the
                    // activation first. 15 statements in all.
                    let firstLook = login == 1 ? 1 : 0
                    #expect(pageStatements == 1 && completeStatements == 2 && tokenStatements == 2, "login \(login): \(steps)")
                    #expect([5, 6].map { $0 + firstLook }.contains(claimStatements) && [5, 6].contains(finishStatements), "login \(login): \(steps)")
                } else {
                    #expect(steps.allSatisfy { $0 > 0 }, "\(steps)")
                }
            }
        }
    }

    /// Tenant "demo", its service "Shop" (device+PIN, no number matching) and alice's
    /// activated device: the login page's URL (with PKCE) and what redeems its code.
    struct Shop {
        let clientID: String
        let secret: String
        let device: RouterDevice
        let userID: String
        let verifier = String(repeating: "v", count: 43)
        var authorize: String {
            "/t/demo/authorize?client_id=\(clientID)&redirect_uri=https%3A%2F%2Fshop.example%2Fcb&response_type=code&scope=openid"
                + "&code_challenge=\(PKCE.challenge(forVerifier: verifier))&code_challenge_method=S256"
        }

        static func make(client: any TestClientProtocol, clock: TestClock) async throws -> Shop {
            try await client.admin(.post, "/admin/tenants", #"{"name":"demo"}"#)
            let (_, service) = try await client.admin(
                .post, "/admin/tenants/demo/services",
                #"{"name":"Shop","redirect_uris":["https://shop.example/cb"],"number_matching":false,"policy":"device+pin"}"#)
            let (device, userID) = try await RouterDevice.activated("alice", tenant: "demo", client: client, clock: clock)
            return Shop(
                clientID: try #require(service["client_id"] as? String), secret: try #require(service["client_secret"] as? String),
                device: device, userID: userID)
        }
    }
}
