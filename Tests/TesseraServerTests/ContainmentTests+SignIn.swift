import Foundation
import HTTPTypes
import HummingbirdTesting
import TesseraTesting
import TesseraTestSupport
import Testing

@testable import TesseraServer

extension ContainmentTests {
    /// Finding 2, the callback's edges: a sign-in kept too long is refused before its code
    /// is redeemed, and one refused after the redemption (its factors no longer meet the
    /// process policy) leaves no session behind.
    @Test("the account page's callback refuses a sign-in older than 15 minutes, and a refused sign-in leaves no session")
    func accountSignInEdges() async throws {
        let harness = try await RouterHarness.make()
        try await harness.run { client in
            try await client.admin(.post, "/admin/tenants", #"{"name":"demo","process_policy":"device+pin"}"#)
            let (device, userID) = try await RouterDevice.activated("alice", tenant: "demo", client: client, clock: harness.clock)
            func sessions() async throws -> Int {
                let (_, listed) = try await client.admin(.get, "/admin/tenants/demo/users/\(userID)/sessions")
                return (listed["sessions"] as? [[String: Any]])?.count ?? -1
            }

            /// Starts a sign-in, lets `between` happen, logs in with the device; the callback's answer.
            func signIn(between: () async throws -> Void) async throws -> (RouterBrowser, TestResponse) {
                var browser = RouterBrowser(client: client)
                let start = try await browser.get("/t/demo/account/login")
                let authorize = try #require(start.headers[.location])
                try await between()
                let page = try await browser.get(authorize)
                let requestID = try RouterDevice.requestID(on: page)
                #expect(try await device.approve(try await device.start(page)))
                let complete = try await browser.get("/t/demo/authorize/complete?request=\(requestID)")
                let callback = try await browser.get(try #require(complete.headers[.location]))
                return (browser, callback)
            }

            // Kept for longer than 15 minutes: refused, the code never redeemed.
            let (late, stale) = try await signIn { harness.clock.advance(by: 901) }
            #expect(stale.status == .forbidden, "\(stale.status)")
            #expect(late.cookies["tessera_account"] == nil)
            #expect(try await sessions() == 0)

            // The process policy grows stricter while the user signs in: refused after the
            // code's redemption, and the session that redemption began ends with it.
            let (refusedBrowser, refused) = try await signIn {
                let (status, _) = try await client.admin(.patch, "/admin/tenants/demo", #"{"process_policy":"device+pin+otp"}"#)
                #expect(status == .ok)
            }
            #expect(refused.status == .forbidden, "\(refused.status)")
            #expect(refusedBrowser.cookies["tessera_account"] == nil)
            #expect(try await sessions() == 0, "no session is left by the refused sign-in")

            // Within the time and the policy, it opens.
            try await client.admin(.patch, "/admin/tenants/demo", #"{"process_policy":"device+pin"}"#)
            let (browser, opened) = try await signIn {}
            #expect(opened.status == .seeOther, "\(opened.status) \(opened.text)")
            #expect(browser.cookies["tessera_account"] != nil)
            #expect(try await sessions() == 1)
        }
    }
}
