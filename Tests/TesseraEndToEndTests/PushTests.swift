import Crypto
import Foundation
import Testing
import TesseraCore
import TesseraKit
import TesseraServer
import TesseraTesting

/// Wake-up pushes for backchannel requests, through the two notifiers, each against a
/// local stand-in of its push service.
@Suite("Push notifiers: webhook gateway and APNs", .tags(.live), .timeLimit(.minutes(5)))
struct PushTests {
    func startRequest(_ scenario: Scenario, _ service: Scenario.Service, user: String) async throws -> String {
        let response = try await scenario.tokenRequest(
            ["scope": "openid", "login_hint": user, "binding_message": "Confirm order 7"], service: service, endpoint: "bc-authorize")
        return try #require(try response.json()["auth_req_id"] as? String, "\(response.text)")
    }

    @Test("webhook: the gateway gets the wake-up with its bearer token; devices without a registration get none")
    func webhook() async throws {
        let gateway = try await CallbackReceiver.start()
        let server = try await TestServer.start(
            push: PushConfiguration(webhookURL: "\(gateway.baseURL)/push", webhookToken: "gateway-secret"))
        do {
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(backchannelMode: "poll", name: "Web Shop")
            try await scenario.createUser("kim")
            let (phone, _) = try await activateDevice(scenario, username: "kim")
            let (laptop, _) = try await activateDevice(scenario, username: "kim")
            try await phone.authenticator.registerPush(kind: "webhook", token: "up-kim-phone")

            let id = try await startRequest(scenario, service, user: "kim")
            let push = try await gateway.next()
            #expect(push.path == "/push")
            #expect(push.headers["authorization"] == "Bearer gateway-secret")
            let body = try push.json()
            #expect(body["token"] as? String == "up-kim-phone")
            #expect(body["request_id"] as? String == id)
            #expect(body["issuer"] as? String == scenario.issuer)
            #expect(body["title"] as? String == "Sign-in request")
            #expect(!String(decoding: push.body, as: UTF8.self).contains("Web Shop"), "a push names neither the service nor the request's text")
            #expect(body["binding_message"] == nil, "a push wakes; it does not carry the request")
            try await Task.sleep(for: .milliseconds(300))
            #expect(await gateway.pending().isEmpty, "the laptop registered no push target")
            // The woken device reads the request with a signed call.
            #expect(try await phone.authenticator.pendingRequests().map(\.requestID.rawValue) == [id])

            // Unregistered: no more pushes.
            try await phone.authenticator.unregisterPush()
            _ = try await startRequest(scenario, service, user: "kim")
            try await Task.sleep(for: .milliseconds(300))
            #expect(await gateway.pending().isEmpty)

            // Bad registrations are refused.
            await #expect(throws: TesseraKitError.self) { try await laptop.authenticator.registerPush(kind: "sms", token: "x") }
            await #expect(throws: TesseraKitError.self) { try await laptop.authenticator.registerPush(kind: "apns", token: "not-hex") }
            phone.remove()
            laptop.remove()
            await server.stop()
            await gateway.stop()
        } catch {
            await server.stop()
            await gateway.stop()
            throw error
        }
    }

    @Test("APNs: HTTP/2 with an ES256 provider token to a local stand-in; a token APNs calls gone is forgotten")
    func apns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try await Python.run("tls_check.py", ["make", directory.path])
        #expect(made.status == 0, "\(made.errors)")
        let teamKey = P256.Signing.PrivateKey()
        let keyFile = directory.appendingPathComponent("AuthKey_ABC123DEFG.p8")
        try Data(teamKey.pemRepresentation.utf8).write(to: keyFile)
        let good = String(repeating: "ab", count: 32)
        let gone = String(repeating: "cd", count: 32)
        let standIn = try await APNsStandIn.start(
            certificate: directory.appendingPathComponent("cert.pem").path, privateKey: directory.appendingPathComponent("key.pem").path,
            teamKey: teamKey.publicKey, keyID: "ABC123DEFG", teamID: "TEAM123456", topic: "com.example.authenticator",
            goneTokens: [gone])
        let server = try await TestServer.start(
            push: PushConfiguration(
                apns: APNsConfiguration(
                    keyFile: keyFile.path, keyID: "ABC123DEFG", teamID: "TEAM123456", topic: "com.example.authenticator",
                    server: standIn.baseURL, trustRootsFile: directory.appendingPathComponent("cert.pem").path)))
        do {
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(backchannelMode: "poll", name: "Bank")
            try await scenario.createUser("lou")
            let (phone, _) = try await activateDevice(scenario, username: "lou")
            let (tablet, _) = try await activateDevice(scenario, username: "lou")
            try await phone.authenticator.registerPush(kind: "apns", token: good)
            try await tablet.authenticator.registerPush(kind: "apns", token: gone)

            let id = try await startRequest(scenario, service, user: "lou")
            var pushes = [try await standIn.next(), try await standIn.next()]
            pushes.sort { $0.deviceToken < $1.deviceToken }
            #expect(pushes.map(\.deviceToken) == [good, gone])
            for push in pushes {
                #expect(push.overHTTP2, "APNs is spoken over HTTP/2")
                #expect(push.headers["apns-priority"] == "10")
                let body = try push.json()
                let alert = (body["aps"] as? [String: Any])?["alert"] as? [String: Any]
                #expect(alert?["title"] as? String == "Sign-in request")
                #expect(!String(decoding: push.body, as: UTF8.self).contains("Bank"))
                #expect((body["tessera"] as? [String: Any])?["request_id"] as? String == id)
            }
            // The gone token is forgotten (as background work, once APNs has answered 410):
            // only the phone's target is left, and the next request reaches only the phone.
            let forgotten = try await eventually {
                try await TestDatabase.integer("SELECT COUNT(*) FROM push_targets", on: server.databaseLocation) == 1
            }
            #expect(forgotten, "the token APNs called gone is still a push target")
            _ = try await startRequest(scenario, service, user: "lou")
            #expect(try await standIn.next().deviceToken == good)
            try await Task.sleep(for: .milliseconds(300))
            #expect(await standIn.pending().isEmpty)
            phone.remove()
            tablet.remove()
            await server.stop()
            await standIn.stop()
        } catch {
            await server.stop()
            await standIn.stop()
            throw error
        }
    }
}
