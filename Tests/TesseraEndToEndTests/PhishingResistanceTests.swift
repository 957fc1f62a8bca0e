import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraTesting
import Testing
@testable import TesseraKit

/// What the device is given to refuse a login someone else started (the hardening
/// review's finding 5): where the browser is, and the number its page shows.
@Suite("Cross-device phishing: the browser's origin and number matching", .tags(.live), .timeLimit(.minutes(5)))
struct PhishingResistanceTests {
    @Test("new services match numbers: the page shows one, the device gets it among decoys with the browser's origin; a wrong pick ends the login and counts nothing; the right one logs in")
    func numberMatching() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            // On by default for a new service.
            let created = try await scenario.http.postJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services", ["name": "Default", "redirect_uris": ["http://127.0.0.1:9/cb"]],
                headers: ["Authorization": "Bearer \(server.adminToken)"])
            #expect(try created.json()["number_matching"] as? Bool == true)
            let service = try await scenario.createService(numberMatching: true)
            try await scenario.createUser("nina")
            let (device, _) = try await activateDevice(scenario, username: "nina")

            let login = try await scenario.openLogin(service)
            let code = try #require(login.matchCode, "the page shows the number to pick")
            #expect(code.count == 2 && Int(code) != nil)
            var information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(information.numberChoices.count == 3 && Set(information.numberChoices).count == 3)
            #expect(information.numberChoices.contains(code))
            // A second claim (a re-scan) offers the same three: two screens give nothing away.
            let again = try await device.authenticator.start(url: login.authenticationURL)
            #expect(again.numberChoices == information.numberChoices)
            information = again
            let origin = try #require(information.origin, "the device learns where the browser is")
            #expect(origin.address == "127.0.0.1")
            #expect(origin.network == "127.0.0.0/24")
            #expect(abs(origin.startedAt.timeIntervalSinceNow) < 120)

            // Without a pick the SDK refuses before anything is sent; a number not offered too.
            await #expect(throws: TesseraKitError.self) { _ = try await signAndFinish(information, device: device, factors: [.device, .pin]) }
            #expect(throws: TesseraKitError.self) { try information.pickNumber("00") }
            // A wrong pick: the login ends for the browser and the service; no factor counts.
            try information.pickNumber(try #require(information.numberChoices.first { $0 != code }))
            do {
                _ = try await signAndFinish(information, device: device, factors: [.device, .pin])
                Issue.record("a wrong number was accepted")
            } catch TesseraKitError.server(let status, let error, _) {
                #expect(status == 403 && error == "access_denied")
            }
            #expect(try await scenario.status(login)["status"] as? String == "denied")
            #expect(try await scenario.complete(login)["error"] == "access_denied")
            #expect(try await scenario.activations(username: "nina").first?.failedAttempts == 0)
            await #expect(throws: TesseraKitError.self) { _ = try await device.authenticator.start(url: login.authenticationURL) }

            // A proof made without the SDK and without a pick is refused the same way.
            let bare = try await scenario.openLogin(service)
            let claimed = try await device.authenticator.start(url: bare.authenticationURL)
            let activation = claimed.activation
            let key = try PinProof.deriveKeyData(pin: "2468", salt: try #require(Base64URL.decode(activation.pinSalt)))
            let now = Int(Date().timeIntervalSince1970)
            let claims = AuthenticationProofClaims(
                rid: claimed.requestID.rawValue, chal: claimed.challenge.rawValue, aud: claimed.audience, sub: activation.id.rawValue,
                comb: [.device, .pin], attrs: [],
                pin: Base64URL.encode(PinProof.proof(keyData: key, requestID: claimed.requestID.rawValue, challenge: claimed.challenge.rawValue)),
                otp: nil, iat: now, exp: now + 60, jti: Secrets.randomToken(byteCount: 16))
            let proof = try CompactJWS.sign(
                payload: try WireCoding.encoder().encode(claims), header: JWSHeader(typ: "tessera-proof+jwt", kid: activation.id.rawValue),
                signer: try await device.authenticator.registry.signer(activation.deviceKeyLabel))
            let unmatched = try await scenario.http.postJSON(
                "\(scenario.issuer)/device/authentications/\(claimed.requestID.rawValue)/finish", ["proof": proof])
            #expect(unmatched.status == 403, "\(unmatched.text)")
            #expect(try await scenario.status(bare)["status"] as? String == "denied")

            // The right pick logs in.
            let second = try await scenario.openLogin(service)
            var answer = try await device.authenticator.start(url: second.authenticationURL)
            try answer.pickNumber(try #require(second.matchCode))
            #expect(try await signAndFinish(answer, device: device, factors: [.device, .pin]).isUserLogin)
            #expect(try await scenario.complete(second)["code"] != nil)
            device.remove()
        }
    }

    @Test("without number matching no numbers are offered; a backchannel request shows its binding message and has no browser")
    func withoutNumbers() async throws {
        try await withServer(backchannelInterval: 1) { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(backchannelMode: "poll", numberMatching: false)
            try await scenario.createUser("omar")
            let (device, _) = try await activateDevice(scenario, username: "omar")
            let login = try await scenario.openLogin(service)
            #expect(login.matchCode == nil)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(information.numberChoices.isEmpty)
            #expect(information.origin?.address == "127.0.0.1", "the browser's origin is shown with or without numbers")
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)

            let started = try await scenario.tokenRequest(
                ["scope": "openid", "login_hint": "omar", "binding_message": "Pay 42 EUR to Shop"], service: service, endpoint: "bc-authorize")
            #expect(started.status == 200, "\(started.text)")
            let pending = try #require(try await device.authenticator.pendingRequests().first)
            let claimed = try await device.authenticator.start(pending: pending)
            #expect(claimed.bindingMessage == "Pay 42 EUR to Shop")
            #expect(claimed.origin == nil && claimed.numberChoices.isEmpty)
            device.remove()
        }
    }
}
