import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCore
import TesseraCrypto
import TesseraTestSupport
import TesseraTesting
import Testing

@testable import TesseraKit

/// Background work on a locked phone (docs/PROTOCOL.md, "Device tokens"): the SDK's file
/// store models the two Keychain classes under a simulated lock; with it locked, a token
/// refresh and a poll of pending requests go through, and approving a login does not, on
/// the device (its key cannot be read) nor on the server (the background key is refused).
@Suite("Background keys: refresh and poll while locked, approve only unlocked")
struct BackgroundKeyTests {
    /// A device over the router whose key store sits behind `lock`.
    struct LockedDevice {
        let lock = SimulatedDeviceLock()
        let keyStore: FileKeyStore
        let personalizer: Personalizer
        let authenticator: Authenticator

        init(client: any TestClientProtocol, clock: TestClock) throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locked-device-\(UUID().uuidString)")
            keyStore = try FileKeyStore(directory: folder, lock: lock)
            let transport = RouterTransport(client: client)
            personalizer = Personalizer(keyStore: keyStore, transport: transport, now: { clock.now() })
            authenticator = Authenticator(keyStore: keyStore, transport: transport, now: { clock.now() })
        }
    }

    /// A device call with a token the test signs itself: `type` and the key under `label`.
    func call(
        _ client: any TestClientProtocol, _ device: LockedDevice, _ activation: Activation, _ method: HTTPRequest.Method, _ path: String,
        type: String, key label: String
    ) async throws -> TestResponse {
        let token = try await device.authenticator.deviceToken(activation, method: method.rawValue, path: path, type: type, key: label)
        return try await client.executeRequest(
            uri: "/t/demo/" + path, method: method, headers: [.authorization: token, .contentType: "application/json"],
            body: method == .post ? ByteBuffer(string: "{}") : nil)
    }

    /// The account process `background_key`, started and approved with device and PIN.
    func approvedProcess(_ device: LockedDevice, _ activation: Activation) async throws -> AccountProcess {
        var process = try await device.personalizer.startBackgroundKey(activation: activation)
        try process.sign(factor: DeviceFactor())
        try process.sign(factor: PinFactor("246810"))
        guard case .apiAccessBackgroundKey(let approved) = try await device.personalizer.finish(process) else {
            throw TesseraKitError.wrongProcess("the background key process was not approved")
        }
        return approved
    }

    /// Approves a `background_key` process and completes it by hand with `key`, which the
    /// device does not keep.
    func completeRaw(_ client: any TestClientProtocol, _ device: LockedDevice, _ activation: Activation, key: PublicJWK) async throws
        -> TestResponse
    {
        let process = try await approvedProcess(device, activation)
        let path = "device/processes/\(process.requestID.rawValue)/complete"
        let token = try await device.authenticator.deviceToken(activation, method: "POST", path: path)
        let body = String(decoding: try WireCoding.encoder().encode(ProcessCompletionRequest(backgroundKey: key)), as: UTF8.self)
        return try await client.executeRequest(
            uri: "/t/demo/" + path, method: .post, headers: [.authorization: token, .contentType: "application/json"],
            body: ByteBuffer(string: body))
    }

    @Test("locked: refresh and pending requests work, approval is refused; rotation by an account process")
    func lockedPhone() async throws {
        let harness = try await RouterHarness.make()
        let appClock = TestClock.running()
        try await harness.run { client in
            try await client.admin(.post, "/admin/tenants", #"{"name":"demo"}"#)
            let (_, app) = try await client.admin(
                .post, "/admin/tenants/demo/services",
                #"{"name":"App","public":true,"redirect_uris":["com.example.app:/callback"],"policy":"device+pin"}"#)
            let clientID = try #require(app["client_id"] as? String)
            let (_, bank) = try await client.admin(
                .post, "/admin/tenants/demo/services",
                #"{"name":"Bank","redirect_uris":["https://bank.example/cb"],"policy":"device+pin","backchannel_token_delivery_mode":"poll"}"#)
            let bankID = try #require(bank["client_id"] as? String)
            let bankSecret = try #require(bank["client_secret"] as? String)
            try await client.admin(.post, "/admin/tenants/demo/users", #"{"username":"bo"}"#)
            let (_, invitation) = try await client.admin(.post, "/admin/tenants/demo/invitations", #"{"username":"bo"}"#)

            // Activated while unlocked: the activation registers a background key.
            let device = try LockedDevice(client: client, clock: harness.clock)
            let link = try #require(invitation["url"] as? String)
            let activated = try await device.personalizer.activate(url: try #require(URL(string: link)), pin: "246810")
            var activation = activated.activation
            #expect(activation.hasBackgroundKey)
            let tokens = TokenManager(keyStore: device.keyStore, transport: RouterTransport(client: client), now: { appClock.now() })
            let login = await tokens.login(authenticator: device.authenticator, clientID: clientID, redirectURI: "com.example.app:/callback", username: "bo") {
                try $0.sign(factor: DeviceFactor())
                try $0.sign(factor: PinFactor("246810"))
            }
            #expect(login == .ok)
            let (_, access) = await tokens.accessToken(username: "bo")

            // The bank asks for a step-up (OpenID CIBA).
            let started = try await client.backchannelRequest(
                tenant: "demo", client: (bankID, bankSecret), form: "scope=openid&login_hint=bo&binding_message=Pay%2010%20EUR")
            #expect(started.status == .ok, "\(started.text)")
            let requestID = try #require(started.json["auth_req_id"] as? String)

            // Locked: what approves cannot be read, what works in the background can.
            device.lock.lock()
            do {
                _ = try await device.keyStore.key(label: activation.deviceKeyLabel)
                Issue.record("the device key was read while locked")
            } catch TesseraKitError.deviceLocked {
            }
            appClock.advance(by: 600)
            let (refreshed, renewed) = await tokens.accessToken(username: "bo")
            #expect(refreshed == .ok && renewed != nil && renewed != access, "a refresh works while locked")
            let pending = try await device.authenticator.pendingRequests()
            let request = try #require(pending.first { $0.requestID.rawValue == requestID }, "the request is seen while locked")
            #expect(request.bindingMessage == "Pay 10 EUR")
            #expect(try await device.authenticator.status(of: request) == .pending)
            do {
                _ = try await device.authenticator.start(pending: request)
                Issue.record("a request was claimed while the device was locked")
            } catch TesseraKitError.deviceLocked {
            }

            // The server lets the background key read and nothing else.
            let claim = "device/authentications/\(requestID)/claim"
            let refused = try await call(client, device, activation, .post, claim, type: "tessera-background+jwt", key: activation.backgroundKeyLabel)
            #expect(refused.status == .forbidden && refused.text.contains("access_denied"), "\(refused.text)")
            let history = try await call(
                client, device, activation, .get, "device/history", type: "tessera-background+jwt", key: activation.backgroundKeyLabel)
            #expect(history.status == .forbidden)
            // It reads the request's state, once per token.
            let statePath = "device/authentications/\(requestID)"
            let stateToken = try await device.authenticator.deviceToken(
                activation, method: "GET", path: statePath, type: "tessera-background+jwt", key: activation.backgroundKeyLabel)
            for expected in [HTTPResponse.Status.ok, .unauthorized] {
                let read = try await client.executeRequest(uri: "/t/demo/" + statePath, method: .get, headers: [.authorization: stateToken], body: nil)
                #expect(read.status == expected, "\(read.text)")
            }
            // A background key cannot pass for the device key either.
            let posing = try await call(client, device, activation, .post, claim, type: "tessera-device+jwt", key: activation.backgroundKeyLabel)
            #expect(posing.status == .unauthorized, "\(posing.text)")

            // Unlocked: the same request is approved as usual.
            device.lock.unlock()
            var information = try await device.authenticator.start(pending: request)
            try information.sign(factor: DeviceFactor())
            try information.sign(factor: PinFactor("246810"))
            guard case .userLogin = try await device.authenticator.finish(information) else {
                Issue.record("the step-up was not approved")
                return
            }

            // An account process replaces the background key; the old one stops working.
            let oldToken = try await device.authenticator.deviceToken(
                activation, method: "GET", path: "device/pending", type: "tessera-background+jwt", key: activation.backgroundKeyLabel)
            let approved = try await approvedProcess(device, activation)
            let rotated = try await device.personalizer.finishBackgroundKey(approved)
            #expect(rotated.backgroundKeyGeneration == 1)
            #expect(try await device.keyStore.key(label: activation.backgroundKeyLabel) == nil, "the old key is gone from the device")
            let stale = try await client.executeRequest(uri: "/t/demo/device/pending", method: .get, headers: [.authorization: oldToken], body: nil)
            #expect(stale.status == .unauthorized)
            activation = rotated
            device.lock.lock()
            #expect(try await device.authenticator.pendingRequests().isEmpty, "the new key reads while locked")
            device.lock.unlock()

            // A background key that is the device key is refused, and changes nothing.
            let deviceKey = try #require(try await device.keyStore.key(label: activation.deviceKeyLabel))
            let same = try await completeRaw(client, device, activation, key: deviceKey.publicJWK)
            #expect(same.status == .badRequest && same.text.contains("differ"), "\(same.text)")
            device.lock.lock()
            #expect(try await device.authenticator.pendingRequests().isEmpty, "the registered key still reads")

            // The audit log names the change.
            device.lock.unlock()
            let (_, audit) = try await client.admin(.get, "/admin/audit?tenant=demo&action=background_key.set")
            #expect((audit["entries"] as? [[String: Any]])?.count == 1, "\(audit)")
            device.lock.unlock()

            // The server knows another key than the device (a rotation whose answer was lost):
            // unlocked, the device key reads instead; locked, the server's 401 is what the app
            // hears, not the lock.
            let elsewhere = try await completeRaw(client, device, activation, key: SoftwareSigningKey().publicJWK)
            #expect(elsewhere.status == .ok, "\(elsewhere.text)")
            #expect(try await device.authenticator.pendingRequests().isEmpty)
            device.lock.lock()
            do {
                _ = try await device.authenticator.pendingRequests()
                Issue.record("read pending requests while locked with a key the server does not know")
            } catch TesseraKitError.server(let status, _, _) {
                #expect(status == 401)
            }
            device.lock.unlock()

            // Without its background key (lost, or unknown to an older server) the device key
            // reads instead: while unlocked only.
            try await device.keyStore.setItem(nil, label: activation.backgroundKeyLabel)
            #expect(try await device.authenticator.pendingRequests().isEmpty)
            device.lock.lock()
            do {
                _ = try await device.authenticator.pendingRequests()
                Issue.record("read pending requests while locked without a background key")
            } catch TesseraKitError.deviceLocked {
            }
        }
    }
}
