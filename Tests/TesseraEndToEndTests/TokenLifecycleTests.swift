import Foundation
import Testing
import TesseraCore
import TesseraKit
import TesseraTesting

@Suite("Token revocation (RFC 7009) and introspection (RFC 7662)", .tags(.live), .timeLimit(.minutes(5)))
struct TokenLifecycleTests {
    /// A login up to the tokens: access, refresh and ID token.
    func tokens(_ scenario: Scenario, _ service: Scenario.Service, device: TestDevice) async throws -> (access: String, refresh: String) {
        let (login, code) = try await approvedLogin(scenario, service, device: device)
        let json = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
        return (try #require(json["access_token"] as? String), try #require(json["refresh_token"] as? String))
    }

    @Test("introspection describes a client's own live tokens and nothing else")
    func introspection() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            let other = try await scenario.createService()
            let publicClient = try await scenario.createService(isPublic: true)
            try await scenario.createUser("jo")
            let (device, _) = try await activateDevice(scenario, username: "jo")
            let (access, refresh) = try await tokens(scenario, service, device: device)

            let described = try await scenario.tokenRequest(["token": access], service: service, endpoint: "introspect")
            #expect(described.status == 200)
            #expect(described.header("Cache-Control") == "no-store")
            let json = try described.json()
            #expect(json["active"] as? Bool == true)
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["client_id"] as? String == service.clientID)
            #expect(json["sub"] is String)
            #expect(json["username"] == nil, "only the subject, no attribute the user did not confirm")
            #expect(json["iss"] as? String == scenario.issuer)
            #expect((json["scope"] as? String)?.contains("openid") == true)
            #expect(json["acr"] as? String == "urn:tessera:acr:device+pin")

            let refreshJSON = try await scenario.tokenRequest(
                ["token": refresh, "token_type_hint": "refresh_token"], service: service, endpoint: "introspect"
            ).json()
            #expect(refreshJSON["active"] as? Bool == true)
            #expect(refreshJSON["token_type"] as? String == "refresh_token")
            // A wrong hint does not hide the token (RFC 7009 §2.1 / RFC 7662 §2.1).
            let hinted = try await scenario.tokenRequest(
                ["token": refresh, "token_type_hint": "access_token"], service: service, endpoint: "introspect"
            ).json()
            #expect(hinted["active"] as? Bool == true)

            // Another client learns nothing; garbage is inactive; public clients may not introspect.
            let foreign = try await scenario.tokenRequest(["token": access], service: other, endpoint: "introspect").json()
            #expect(foreign.keys.sorted() == ["active"] && foreign["active"] as? Bool == false)
            let garbage = try await scenario.tokenRequest(["token": "not-a-token"], service: service, endpoint: "introspect").json()
            #expect(garbage["active"] as? Bool == false)
            #expect(try await scenario.tokenRequest(["token": access], service: publicClient, endpoint: "introspect").status == 401)
            #expect(try await scenario.tokenRequest([:], service: service, endpoint: "introspect").status == 400)
            let wrongSecret = Scenario.Service(clientID: service.clientID, clientSecret: "wrong", redirectURI: service.redirectURI)
            #expect(try await scenario.tokenRequest(["token": access], service: wrongSecret, endpoint: "introspect").status == 401)

            // A rotated refresh token is no longer active; its successor is.
            let rotated = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": refresh], service: service).json()
            let next = try #require(rotated["refresh_token"] as? String)
            #expect(try await scenario.tokenRequest(["token": refresh], service: service, endpoint: "introspect").json()["active"] as? Bool == false)
            #expect(try await scenario.tokenRequest(["token": next], service: service, endpoint: "introspect").json()["active"] as? Bool == true)
            device.remove()
        }
    }

    @Test("revoking a refresh or access token ends the whole session; another client's attempt or an unknown token changes nothing")
    func revocation() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            let other = try await scenario.createService()
            try await scenario.createUser("kim")
            let (device, _) = try await activateDevice(scenario, username: "kim")

            // Revoking the refresh token: refresh, userinfo and introspection all stop.
            let first = try await tokens(scenario, service, device: device)
            // Another client's attempt is answered like an unknown token and changes nothing.
            #expect(try await scenario.tokenRequest(["token": first.refresh], service: other, endpoint: "revoke").status == 200)
            #expect(try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(first.access)"]).status == 200)
            let revoked = try await scenario.tokenRequest(["token": first.refresh], service: service, endpoint: "revoke")
            #expect(revoked.status == 200)
            #expect(try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(first.access)"]).status == 401)
            let refreshed = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": first.refresh], service: service)
            #expect(refreshed.status == 400)
            #expect(try refreshed.json()["error"] as? String == "invalid_grant")
            #expect(try await scenario.tokenRequest(["token": first.access], service: service, endpoint: "introspect").json()["active"] as? Bool == false)
            // Revoking again, or an unknown token, is still a 200.
            #expect(try await scenario.tokenRequest(["token": first.refresh], service: service, endpoint: "revoke").status == 200)
            #expect(try await scenario.tokenRequest(["token": "unknown"], service: service, endpoint: "revoke").status == 200)
            #expect(try await scenario.tokenRequest([:], service: service, endpoint: "revoke").status == 400)

            // Revoking the access token ends its session too, and only that session.
            let second = try await tokens(scenario, service, device: device)
            let third = try await tokens(scenario, service, device: device)
            #expect(try await scenario.tokenRequest(["token": second.access], service: other, endpoint: "revoke").status == 200)
            #expect(
                try await scenario.tokenRequest(["token": second.access], service: service, endpoint: "introspect").json()["active"] as? Bool == true,
                "another client's revocation changed nothing")
            #expect(try await scenario.tokenRequest(["token": second.access], service: service, endpoint: "revoke").status == 200)
            #expect(
                try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": second.refresh], service: service).status == 400)
            #expect(try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(third.access)"]).status == 200)
            #expect(
                try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": third.refresh], service: service).status == 200)

            let discovery = try await scenario.http.get("\(scenario.issuer)/.well-known/openid-configuration").json()
            #expect(discovery["revocation_endpoint"] as? String == "\(scenario.issuer)/revoke")
            #expect(discovery["introspection_endpoint"] as? String == "\(scenario.issuer)/introspect")
            device.remove()
        }
    }

    @Test("revoking a device ends every session its logins started, at /token, /userinfo and /introspect; another device's live on")
    func deviceRevocationEndsSessions() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("lee")
            let (lost, activation) = try await activateDevice(scenario, username: "lee")
            let (kept, _) = try await activateDevice(scenario, username: "lee")
            let stolen = try await tokens(scenario, service, device: lost)
            // Rotated once, so the session is more than its first refresh token.
            let rotated = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": stolen.refresh], service: service).json()
            let stolenRefresh = try #require(rotated["refresh_token"] as? String)
            let stolenAccess = try #require(rotated["access_token"] as? String)
            let other = try await tokens(scenario, service, device: kept)
            // A code the device's login earned, not yet redeemed when the device goes.
            let (pending, pendingCode) = try await approvedLogin(scenario, service, device: lost)

            try await scenario.revoke(activation.activation.id.rawValue)

            let late = try await scenario.redeem(code: pendingCode, service: service, verifier: pending.verifier)
            #expect(late.status == 400, "the code of a removed device starts no session")

            let refused = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": stolenRefresh], service: service)
            #expect(refused.status == 400)
            #expect(try refused.json()["error"] as? String == "invalid_grant")
            for access in [stolen.access, stolenAccess] {
                #expect(try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(access)"]).status == 401)
                #expect(try await scenario.tokenRequest(["token": access], service: service, endpoint: "introspect").json()["active"] as? Bool == false)
            }
            #expect(try await scenario.tokenRequest(["token": stolenRefresh], service: service, endpoint: "introspect").json()["active"] as? Bool == false)

            // The other device's session is untouched.
            #expect(try await scenario.http.get("\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(other.access)"]).status == 200)
            #expect(try await scenario.tokenRequest(["token": other.access], service: service, endpoint: "introspect").json()["active"] as? Bool == true)
            #expect(try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": other.refresh], service: service).status == 200)
            lost.remove()
            kept.remove()
        }
    }
}
