import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCore
import TesseraKit
import TesseraKitCompat
import TesseraTestSupport
import TesseraTesting
import Testing

/// The facades of TesseraKitCompat against the server in router mode: a completion handler
/// sees what the async call sees; a step-up delegate hears `didFinish` for an approval,
/// `didCancel` (the request declined) for a closed prompt and `didFail` for a wrong PIN;
/// the shared instance hands out parts over what it was configured with, and the event
/// stream tells a waiting request and a watched user's status. (CompatTests runs the same
/// set against a live server.)
@Suite("TesseraKitCompat's facades against the router")
struct FacadeTests {
    /// A CIBA request of the bank for `username`; its `auth_req_id`.
    func stepUp(_ client: any TestClientProtocol, bank: (id: String, secret: String), for username: String) async throws -> String {
        let started = try await client.backchannelRequest(tenant: "demo", client: bank, form: "scope=openid&login_hint=\(username)")
        return try #require(started.json["auth_req_id"] as? String, "\(started.text)")
    }

    /// The tenant `demo`, a bank asking for CIBA step-ups (poll mode, device and PIN), and
    /// `ida`'s activated device.
    func bankAndDevice(_ client: any TestClientProtocol, _ harness: RouterHarness) async throws -> ((id: String, secret: String), RouterDevice) {
        try await client.admin(.post, "/admin/tenants", #"{"name":"demo"}"#)
        let (_, created) = try await client.admin(
            .post, "/admin/tenants/demo/services",
            #"{"name":"Bank","redirect_uris":["https://bank.example/cb"],"policy":"device+pin","backchannel_token_delivery_mode":"poll"}"#)
        let bank = (id: try #require(created["client_id"] as? String), secret: try #require(created["client_secret"] as? String))
        let (device, _) = try await RouterDevice.activated("ida", tenant: "demo", client: client, clock: harness.clock)
        return (bank, device)
    }

    @Test("a completion handler gets the pending list; a step-up delegate hears didFinish, then didCancel for a closed prompt")
    func completionAndDelegate() async throws {
        let harness = try await RouterHarness.make()
        try await harness.run { client in
            let (bank, device) = try await bankAndDevice(client, harness)

            let first = try await stepUp(client, bank: bank, for: "ida")
            let listed = try await withCheckedThrowingContinuation { continuation in
                device.authenticator.pendingRequests { continuation.resume(with: $0) }
            }
            #expect(listed.map(\.requestID.rawValue) == [first])

            try await delegate(device.authenticator, approving: first, thenCancelling: try await stepUp(client, bank: bank, for: "ida"))
            #expect(try await device.authenticator.pendingRequests().isEmpty, "both requests are answered")
        }
    }

    @Test(
        "the shared instance's parts share one key store; the event stream tells the waiting request and the watched user's status; a wrong PIN is didFail with the lockout",
        .timeLimit(.minutes(2)))
    func sharedEventsAndFailure() async throws {
        let harness = try await RouterHarness.make()
        try await harness.run { client in
            let (bank, device) = try await bankAndDevice(client, harness)

            let shared = TesseraKitShared()
            #expect(!shared.isConfigured)
            shared.configure(keyStore: device.keyStore, transport: RouterTransport(client: client))
            #expect(shared.isConfigured)
            #expect(try await shared.personalizer.activations().map(\.username) == ["ida"], "the activation the device made")

            // The request waits before the stream starts: its first poll answers at once.
            let waiting = try await stepUp(client, bank: bank, for: "ida")
            let events = TesseraEvents(authenticator: shared.authenticator, tokens: shared.tokens, watching: [("app", "ida")], wait: 1)
            var pending: [String]?
            var status: LoginStatus?
            for await event in events.stream() {
                switch event {
                case .pendingRequests(let list): pending = list.map(\.requestID.rawValue)
                case .loginStatus(let clientID, let username, let told):
                    #expect(clientID == "app" && username == "ida")
                    status = told
                }
                if pending != nil, status != nil { break }
            }
            #expect(pending == [waiting], "the waiting request, through the stream")
            #expect(status == .noTokenDataAvailable, "the watched user has no tokens in the app")

            try await failing(shared.authenticator, waiting)
        }
    }

    /// A step-up with a wrong PIN, on the main actor as an app's delegate lives.
    @MainActor
    func failing(_ authenticator: Authenticator, _ request: String) async throws {
        let recorder = StepUpRecorder()
        StepUp(authenticator: authenticator, delegate: recorder).start(sessionID: request) { _ in [DeviceFactor(), PinFactor("000000")] }
        try await recorder.wait(for: 1)
        let failure = try #require(recorder.failed.first, "didFail")
        #expect(failure.status == .failed && failure.sessionID == request)
        #expect({ if case TesseraKitError.pendingLockout = failure.error as Any { true } else { false } }(), "\(String(describing: failure.error))")
        #expect(recorder.finished.isEmpty && recorder.cancelled.isEmpty)
    }

    /// The step-ups, on the main actor as an app's delegate lives.
    @MainActor
    func delegate(_ authenticator: Authenticator, approving first: String, thenCancelling second: String) async throws {
        let recorder = StepUpRecorder()
        let stepUp = StepUp(authenticator: authenticator, delegate: recorder)
        stepUp.start(sessionID: first) { _ in [DeviceFactor(), PinFactor("246810")] }
        try await recorder.wait(for: 1)
        #expect(recorder.finished.first?.status == .authenticated && recorder.finished.first?.login != nil)
        stepUp.start(sessionID: second) { _ in throw TesseraKitError.cancelled }
        try await recorder.wait(for: 2)
        #expect(recorder.cancelled.first?.status == .canceled && recorder.cancelled.first?.sessionID == second)
        #expect(recorder.failed.isEmpty)
    }
}
