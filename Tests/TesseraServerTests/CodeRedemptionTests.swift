import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import TesseraCrypto
import TesseraStore
import TesseraTestSupport
import TesseraTesting
import Testing

/// The token endpoint's code exchange, whose usual case takes one statement
/// (`Grants.quickRedemption`) and everything else the transaction it falls back to: each
/// refusal is the transaction's, a refused code is spent or not as before, and a code
/// redeemed twice at once ends the session the winner got. On PostgreSQL in the suite's
/// PostgreSQL pass (where the quick path is a data-modifying WITH), on SQLite otherwise.
@Suite("The code exchange: the quick path and the transaction refuse alike")
struct CodeRedemptionTests {
    @Test("refusals before and after the spend, an expired code, a disabled user, and a race of two redemptions that ends the winner's session")
    func refusals() async throws {
        guard let database = try await TestDatabase.fresh() else {
            try await Self.refusals(on: try await RouterHarness.make())
            return
        }
        do {
            try await SQLStore.withPostgres(url: database, logger: Logger(label: "test")) { store in
                try await Self.refusals(on: try await RouterHarness.make(store: store))
            }
        } catch {
            await TestDatabase.drop(database)
            throw error
        }
        await TestDatabase.drop(database)
    }

    static func refusals(on harness: RouterHarness) async throws {
        try await harness.run { client in
            try await client.admin(.post, "/admin/tenants", #"{"name":"demo"}"#)
            func service(_ name: String) async throws -> (id: String, secret: String) {
                let (_, made) = try await client.admin(
                    .post, "/admin/tenants/demo/services",
                    #"{"name":"\#(name)","redirect_uris":["https://shop.example/cb"],"number_matching":false,"policy":"device+pin"}"#)
                return (try #require(made["client_id"] as? String), try #require(made["client_secret"] as? String))
            }
            let shop = try await service("Shop")
            let other = try await service("Other")
            let (device, userID) = try await RouterDevice.activated("alice", tenant: "demo", client: client, clock: harness.clock)
            var browser = RouterBrowser(client: client)
            let verifier = String(repeating: "v", count: 43)
            let challenge = PKCE.challenge(forVerifier: verifier)

            /// A code of an approved login, with or without a PKCE challenge.
            func code(pkce: Bool = true) async throws -> String {
                var authorize = "/t/demo/authorize?client_id=\(shop.id)&redirect_uri=https%3A%2F%2Fshop.example%2Fcb&response_type=code&scope=openid"
                if pkce { authorize += "&code_challenge=\(challenge)&code_challenge_method=S256" }
                let page = try await browser.get(authorize)
                let requestID = try RouterDevice.requestID(on: page)
                #expect(try await device.approve(try await device.start(page)))
                let complete = try await browser.get("/t/demo/authorize/complete?request=\(requestID)")
                let location = try #require(complete.headers[.location], "\(complete.status) \(complete.text)")
                return String(try #require(location.firstMatch(of: /[?&]code=([^&]+)/)?.1))
            }
            func post(_ form: String, as caller: (id: String, secret: String) = shop) async throws -> (HTTPResponse.Status, [String: Any]) {
                let credentials = Data("\(caller.id):\(caller.secret)".utf8).base64EncodedString()
                let response = try await client.executeRequest(
                    uri: "/t/demo/token", method: .post,
                    headers: [.authorization: "Basic \(credentials)", .contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: form))
                return (response.status, response.json)
            }
            func exchange(_ code: String, verifier: String? = verifier, as caller: (id: String, secret: String) = shop) async throws
                -> (HTTPResponse.Status, [String: Any])
            {
                var form = "grant_type=authorization_code&code=\(code)&redirect_uri=https%3A%2F%2Fshop.example%2Fcb"
                if let verifier { form += "&code_verifier=\(verifier)" }
                return try await post(form, as: caller)
            }
            func refused(_ answer: (HTTPResponse.Status, [String: Any]), _ saying: String) -> Bool {
                answer.0 == .badRequest && answer.1["error"] as? String == "invalid_grant"
                    && (answer.1["error_description"] as? String ?? "").contains(saying)
            }

            // The usual case: tokens, and a refresh token that works.
            let tokens = try await exchange(try await code())
            #expect(tokens.0 == .ok, "\(tokens.1)")
            let refreshToken = try #require(tokens.1["refresh_token"] as? String)
            #expect(try await post("grant_type=refresh_token&refresh_token=\(refreshToken)").0 == .ok)

            // Refused after the spend: the code gets one try.
            let unchallenged = try await code(pkce: false)
            let noChallenge = try await exchange(unchallenged)
            #expect(refused(noChallenge, "had no code challenge"), "\(noChallenge.1)")
            let again = try await exchange(unchallenged, verifier: nil)
            #expect(refused(again, "used already"), "\(again.1)")
            let guessed = try await code()
            let wrong = try await exchange(guessed, verifier: String(repeating: "w", count: 43))
            #expect(refused(wrong, "does not match"), "\(wrong.1)")
            let right = try await exchange(guessed)
            #expect(refused(right, "used already"), "\(right.1)")
            let missing = try await exchange(try await code(), verifier: nil)
            #expect(refused(missing, "code_verifier is missing"), "\(missing.1)")

            // Refused before the spend: another client's try leaves the code to its own.
            let taken = try await code()
            let stolen = try await exchange(taken, as: other)
            #expect(refused(stolen, "another client"), "\(stolen.1)")
            #expect(try await exchange(taken).0 == .ok)

            // Expired.
            let late = try await code()
            harness.clock.advance(by: 61)
            let expired = try await exchange(late)
            #expect(refused(expired, "expired"), "\(expired.1)")

            // Two redemptions at once: one gets tokens; the other, a reuse, ends that session.
            let raced = try await code()
            async let first = exchange(raced)
            async let second = exchange(raced)
            let answers = try await [first, second]
            #expect(answers.map(\.0.code).sorted() == [200, 400], "\(answers.map(\.1))")
            let winner = try #require(answers.first { $0.0 == .ok }?.1["refresh_token"] as? String)
            let ended = try await post("grant_type=refresh_token&refresh_token=\(winner)")
            #expect(ended.0 == .badRequest, "the winner's session ended with the reuse: \(ended.1)")

            // A user disabled between the approval and the exchange gets no tokens.
            let pending = try await code()
            #expect(try await client.admin(.post, "/admin/tenants/demo/users/\(userID)/disable").0 == .ok)
            let disabled = try await exchange(pending)
            #expect(refused(disabled, "disabled"), "\(disabled.1)")
        }
    }
}
