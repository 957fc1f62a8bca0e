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
/// sees what the async call sees, and a step-up delegate hears `didFinish` for an approval
/// and `didCancel` (the request declined) for a closed prompt. (CompatTests runs the whole
/// set, the event stream and the shared instance among them, against a live server.)
@Suite("TesseraKitCompat's facades against the router")
struct FacadeTests {
    /// A CIBA request of the bank for `username`; its `auth_req_id`.
    func stepUp(_ client: any TestClientProtocol, bank: (id: String, secret: String), for username: String) async throws -> String {
        let started = try await client.backchannelRequest(tenant: "demo", client: bank, form: "scope=openid&login_hint=\(username)")
        return try #require(started.json["auth_req_id"] as? String, "\(started.text)")
    }

    @Test("a completion handler gets the pending list; a step-up delegate hears didFinish, then didCancel for a closed prompt")
    func completionAndDelegate() async throws {
        let harness = try await RouterHarness.make()
        try await harness.run { client in
            try await client.admin(.post, "/admin/tenants", #"{"name":"demo"}"#)
            let (_, created) = try await client.admin(
                .post, "/admin/tenants/demo/services",
                #"{"name":"Bank","redirect_uris":["https://bank.example/cb"],"policy":"device+pin","backchannel_token_delivery_mode":"poll"}"#)
            let bank = (id: try #require(created["client_id"] as? String), secret: try #require(created["client_secret"] as? String))
            let (device, _) = try await RouterDevice.activated("ida", tenant: "demo", client: client, clock: harness.clock)

            let first = try await stepUp(client, bank: bank, for: "ida")
            let listed = try await withCheckedThrowingContinuation { continuation in
                device.authenticator.pendingRequests { continuation.resume(with: $0) }
            }
            #expect(listed.map(\.requestID.rawValue) == [first])

            try await delegate(device.authenticator, approving: first, thenCancelling: try await stepUp(client, bank: bank, for: "ida"))
            #expect(try await device.authenticator.pendingRequests().isEmpty, "both requests are answered")
        }
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
