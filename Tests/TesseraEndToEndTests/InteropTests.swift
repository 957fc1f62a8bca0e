import Foundation
import Testing
import TesseraCore
import TesseraKit
import TesseraTesting

@Suite("Interoperability with outside implementations", .tags(.live, .interop), .timeLimit(.minutes(5)))
struct InteropTests {
    @Test("Authlib completes the code flow with PKCE, verifies the ID token against JWKS (joserfc), introspects and revokes")
    func authlibCodeFlow() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(attributes: ["email"], redirectURI: "http://127.0.0.1:9/authlib")
            try await scenario.createUser("ivy", attributes: ["email": "ivy@example.com"])
            let (device, _) = try await activateDevice(scenario, username: "ivy")

            let (links, continuation) = AsyncStream<String>.makeStream()
            let approval = Task {
                for await line in links where line.hasPrefix("AUTHENTICATION_URL ") {
                    let url = try #require(URL(string: String(line.dropFirst("AUTHENTICATION_URL ".count))))
                    let information = try await device.authenticator.start(url: url)
                    return try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin
                }
                return false
            }
            let result = try await Python.run(
                "oidc_client.py", [],
                environment: [
                    "TESSERA_ISSUER": scenario.issuer, "CLIENT_ID": service.clientID, "CLIENT_SECRET": service.clientSecret ?? "",
                    "REDIRECT_URI": service.redirectURI,
                ],
                onLine: { continuation.yield($0) })
            continuation.finish()
            #expect(try await approval.value, "the device approved the login")
            #expect(result.status == 0, "\(result.errors)")
            let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
            let claims = try #require(object["claims"] as? [String: Any])
            #expect(claims["acr"] as? String == "urn:tessera:acr:device+pin")
            #expect(claims["email"] as? String == "ivy@example.com")
            #expect((object["userinfo"] as? [String: Any])?["email"] as? String == "ivy@example.com")
            // Authlib introspected the access token (RFC 7662), revoked the refresh token (RFC 7009)
            // and saw the access token inactive afterwards.
            #expect((object["introspected"] as? [String: Any])?["token_type"] as? String == "Bearer")
            device.remove()
        }
    }

    @Test("a Python service (requests + joserfc) steps a user up with CIBA and verifies the ID token offline")
    func pythonCIBA() async throws {
        let server = try await TestServer.start(backchannelInterval: 1)
        do {
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(attributes: ["email"], backchannelMode: "poll")
            try await scenario.createUser("june", attributes: ["email": "june@example.com"])
            let (device, _) = try await activateDevice(scenario, username: "june")

            let (lines, continuation) = AsyncStream<String>.makeStream()
            let approval = Task {
                for await line in lines where line.hasPrefix("AUTH_REQ_ID ") {
                    let id = String(line.dropFirst("AUTH_REQ_ID ".count))
                    // The device sees the request with the service's binding message, then approves.
                    let request = try #require(try await device.authenticator.pendingRequests().first { $0.requestID.rawValue == id })
                    #expect(request.bindingMessage == "Approve payment 42")
                    try await Task.sleep(for: .seconds(2))  // the service polls meanwhile
                    let information = try await device.authenticator.start(pending: request)
                    return try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin
                }
                return false
            }
            let result = try await Python.run(
                "ciba_client.py", [],
                environment: [
                    "TESSERA_ISSUER": scenario.issuer, "CLIENT_ID": service.clientID, "CLIENT_SECRET": service.clientSecret ?? "",
                    "LOGIN_HINT": "june", "BINDING_MESSAGE": "Approve payment 42",
                ],
                onLine: { continuation.yield($0) })
            continuation.finish()
            #expect(try await approval.value, "the device approved the request")
            #expect(result.status == 0, "\(result.errors)")
            let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("RESULT ") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
            let claims = try #require(object["claims"] as? [String: Any])
            #expect(claims["email"] as? String == "june@example.com")
            #expect(claims["acr"] as? String == "urn:tessera:acr:device+pin")
            #expect((object["polls"] as? [String])?.contains("authorization_pending") == true)
            let refusals = try #require(object["refusals"] as? [String: [Any]])
            #expect(refusals["unknown_user"]?.last as? String == "unknown_user_id")
            #expect(refusals["unknown_auth_req_id"]?.last as? String == "invalid_grant")
            #expect(refusals["redeemed_twice"]?.last as? String == "invalid_grant")
            device.remove()
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }
}
