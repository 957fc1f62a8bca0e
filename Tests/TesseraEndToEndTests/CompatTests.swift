import Foundation
import TesseraCore
import TesseraKit
import TesseraKitCompat
import TesseraTesting
import TesseraTestSupport
import Testing

/// The call shapes of the commercial SDKs (TesseraKitCompat), against a real server.
@Suite("TesseraKitCompat: completion handlers, the step-up delegate, the event stream, the shared instance", .tags(.live), .timeLimit(.minutes(5)))
struct CompatTests {
    /// Waits for a completion handler's result, as the app's callback would get it.
    func called<T: Sendable>(_ call: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in call { continuation.resume(with: $0) } }
    }

    @Test("an activation, a login and the app's tokens through completion handlers alone; the file of completion variants is what its script writes")
    func completions() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let app = try await scenario.createService(isPublic: true, redirectURI: "com.example.app:/callback")
            try await scenario.createUser("gus")
            let device = try TestDevice()
            defer { device.remove() }
            let invitation = try await scenario.invite("gus")
            let activated = try await called { device.personalizer.activate(url: invitation, pin: "2468", alias: "gus's phone", completion: $0) }
            #expect(activated.activation.username == "gus")
            let activations = try await called { device.personalizer.activations(completion: $0) }
            #expect(activations.count == 1)

            // A browser login approved with completion handlers.
            let login = try await scenario.openLogin(app)
            var information = try await called { device.authenticator.start(url: login.authenticationURL, completion: $0) }
            try information.sign(factor: DeviceFactor())
            try information.sign(factor: PinFactor("2468"))
            let signed = information
            guard case .userLogin = try await called({ device.authenticator.finish(signed, completion: $0) }) else {
                Issue.record("the login was not approved")
                return
            }
            // The app's own tokens: a status without throwing, as the token manager answers.
            let tokens = TokenManager(keyStore: device.keyStore, transport: device.transport)
            let status = await withCheckedContinuation { continuation in
                tokens.status(clientID: app.clientID, username: "gus") { continuation.resume(returning: $0) }
            }
            #expect(status == .noTokenDataAvailable)

            // Every public async call has its variant: the generated file is up to date.
            let check = try await Program.run("/usr/bin/env", ["python3", Self.root.appendingPathComponent("scripts/compat_completions.py").path, "--check"])
            #expect(check.status == 0, "\(check.errors)")
        }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("a step-up with a delegate: approved is didFinish with the login, a cancelled prompt is didCancel and declines, a wrong PIN is didFail with the lockout; the event stream tells the pending request and a watched user's status; the shared instance hands out its parts")
    func stepUpEventsAndShared() async throws {
        try await withServer(backchannelInterval: 1) { server in
            let scenario = try await Scenario.make(on: server)
            let helper = StepUpAndRolesTests()
            let bank = try await helper.createService(scenario, ["backchannel_token_delivery_mode": "poll"])
            try await scenario.createUser("ida", attributes: ["email": "ida@example.com"])
            let (device, _) = try await activateDevice(scenario, username: "ida")
            defer { device.remove() }

            // The shared instance, configured once.
            let shared = TesseraKitShared()
            #expect(!shared.isConfigured)
            shared.configure(keyStore: device.keyStore, transport: device.transport, biometrics: device.biometrics)
            #expect(try await shared.personalizer.activations().first?.username == "ida")

            // The event stream: the waiting request shows up.
            let events = TesseraEvents(authenticator: shared.authenticator, tokens: shared.tokens, watching: [("app", "ida")], wait: 1)
            let seen = Recorded()
            let observation = events.observe { event in Task { await seen.add(event) } }
            defer { observation.cancel() }
            let first = try await helper.startStepUp(scenario, bank, ["login_hint": "ida"])
            // Both parts of the stream run at once: wait for each (a loaded machine may take seconds).
            for _ in 0..<300 where await !seen.both(first) { try await Task.sleep(for: .milliseconds(100)) }
            #expect(await seen.pending(first), "the request came through the event stream")
            #expect(await seen.statuses() == [.noTokenDataAvailable], "the watched user's status, told once")

            try await stepUps(scenario, helper, bank, shared.authenticator, first: first)
        }
    }

    /// The step-ups, on the main actor as an app's delegate lives.
    @MainActor
    func stepUps(_ scenario: Scenario, _ helper: StepUpAndRolesTests, _ bank: Scenario.Service, _ authenticator: Authenticator, first: String)
        async throws
    {
        let recorder = StepUpRecorder()
        let stepUp = StepUp(authenticator: authenticator, delegate: recorder)
        func waitForDelegate(_ count: Int) async throws { try await recorder.wait(for: count) }
        // Approved.
        stepUp.start(sessionID: first) { _ in [DeviceFactor(), PinFactor("2468")] }
        try await waitForDelegate(1)
        #expect(recorder.finished.first?.status == .authenticated && recorder.finished.first?.login != nil)
        #expect(recorder.finished.first?.sessionID == first)
        // The user closes the PIN prompt: declined.
        let second = try await helper.startStepUp(scenario, bank, ["login_hint": "ida"])
        stepUp.start(sessionID: second) { _ in throw TesseraKitError.cancelled }
        try await waitForDelegate(2)
        #expect(recorder.cancelled.first?.status == .canceled)
        let polled = try await scenario.tokenRequest(
            ["grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": second], service: bank)
        #expect(try polled.json()["error"] as? String == "access_denied", "\(polled.text)")
        // A wrong PIN: didFail, with the lockout.
        let third = try await helper.startStepUp(scenario, bank, ["login_hint": "ida"])
        stepUp.start(sessionID: third) { _ in [DeviceFactor(), PinFactor("0000")] }
        try await waitForDelegate(3)
        let failure = try #require(recorder.failed.first)
        #expect(failure.status == .failed)
        #expect({ if case TesseraKitError.pendingLockout = failure.error as Any { true } else { false } }(), "\(String(describing: failure.error))")
    }

    actor Recorded {
        var events: [TesseraEvent] = []
        func add(_ event: TesseraEvent) { events.append(event) }
        func pending(_ id: String) -> Bool {
            events.contains { if case .pendingRequests(let list) = $0 { list.contains { $0.requestID.rawValue == id } } else { false } }
        }
        /// The request `id` and a status, each seen.
        func both(_ id: String) -> Bool { pending(id) && !statuses().isEmpty }
        func statuses() -> [LoginStatus] {
            events.compactMap { if case .loginStatus(_, _, let status) = $0 { status } else { nil } }
        }
    }
}
