import Foundation
import Hummingbird
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraRecords

/// The device API under `{issuer}/device`: activation; claiming, finishing or denying
/// authentication requests; account processes; in-app logins; the pending list and push
/// targets. Each handler decodes, calls one use case, and encodes; docs/PROTOCOL.md has
/// the exchanges.
struct DeviceRoutes {
    let state: ServerState
    var domain: Domain { state.domain }

    func register(on tenant: RouterGroup<TesseraRequestContext>) {
        // Activation and finishing carry their own proofs: no device token.
        let throttled = tenant.group().add(
            middleware: AddressThrottle(group: "device", limiter: state.limiter, settings: state.configuration.throttle))
        let open = throttled.group("device")
        open.post("activation/start", use: startActivation)
        open.post("activation/complete", use: completeActivation)
        open.post("authentications/:request/finish", use: finish)
        // A user who lost every device: a recovery code, then the outcome by its handle.
        throttled.post("recover", use: recover)
        throttled.post("recover/:recovery", use: recoveryStatus)

        // Reading pending requests and their state: the device key or the background key.
        let reading = throttled.group("device").add(
            middleware: DeviceAuthentication(
                domain: domain, limiter: state.limiter, settings: state.configuration.throttle, acceptsBackgroundKey: true))
        reading.get("authentications/:request", use: requestState)
        reading.get("pending", use: pending)
        // Claiming reads the activation again in its transaction: a kept device key may check the token.
        let claiming = throttled.group("device").add(
            middleware: DeviceAuthentication(domain: domain, limiter: state.limiter, settings: state.configuration.throttle, readAgain: true))
        claiming.post("authentications/:request/claim", use: claim)
        // Everything else acts for the activation: the device key only.
        let device = throttled.group("device").add(
            middleware: DeviceAuthentication(domain: domain, limiter: state.limiter, settings: state.configuration.throttle))
        device.post("authentications/:request/deny", use: deny)
        device.post("push", use: registerPush)
        device.delete("push", use: removePush)
        device.post("in-app", use: startInApp)
        device.post("in-app/:request/code", use: inAppCode)
        device.post("sso/code", use: singleSignOnCode)
        device.post("processes", use: startProcess)
        device.post("processes/:request/complete", use: completeProcess)
        device.get("history", use: history)
    }

    // MARK: Activation

    @Sendable func startActivation(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(ActivationStartRequest.self, from: request)
        return JSONResponse.make(try await domain.activations.offer(code: input.code, tenant: try context.requireTenant()))
    }

    @Sendable func completeActivation(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let (input, _) = try await RequestDecoding.deviceJSON(ActivationCompleteRequest.self, from: request, opening: open(for: tenant))
        let receipt = try await domain.activations.complete(input, tenant: tenant, logger: context.logger)
        return JSONResponse.make(receipt, status: .created)
    }

    // MARK: Attempts

    @Sendable func claim(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let selection = try await RequestDecoding.optionalJSON(ClaimRequest.self, from: request) ?? ClaimRequest(userID: nil)
        let challenge = try await domain.attempts.claim(
            requestID: context.parameters.id("request"), selection: selection, caller: try context.requireDevice(),
            tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(challenge)
    }

    @Sendable func finish(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let tenant = try context.requireTenant()
        let (input, encrypted) = try await RequestDecoding.deviceJSON(FinishRequest.self, from: request, opening: open(for: tenant))
        let finished = try await domain.attempts.finish(
            requestID: context.parameters.id("request"), input: input, encrypted: encrypted, tenant: tenant, logger: context.logger)
        recordMetrics(finished)
        return JSONResponse.make(finished.response)
    }

    /// Opens a body sent as a JWE to the tenant's encryption key (gematik IDP profile).
    private func open(for tenant: TenantRecord) -> (String) throws -> Data {
        let key = domain.gematikProfile.encryptionKey(for: tenant)
        return { try JWE.decrypt($0, with: key).plaintext }
    }

    @Sendable func deny(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let purpose = try await domain.attempts.deny(
            requestID: context.parameters.id("request"), caller: try context.requireDevice(), tenant: try context.requireTenant(),
            logger: context.logger)
        state.metrics.authentication(purpose: purpose, outcome: .denied)
        return JSONResponse.make(["status": AuthenticationStatus.denied])
    }

    /// Counts an answered attempt (and a lock it set) in the metrics.
    private func recordMetrics(_ finished: Attempts.Finished) {
        let outcome = finished.response
        guard outcome.result == .lockout else {
            return state.metrics.authentication(purpose: finished.purpose, outcome: .approved)
        }
        let permanent = outcome.lockout?.isPermanent == true
        state.metrics.authentication(purpose: finished.purpose, outcome: permanent ? .locked : .failed)
        if let lock = finished.lockSet { state.metrics.lockout(permanent: lock.isPermanent) }
    }

    // MARK: Recovery

    @Sendable func recover(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(RecoveryRequest.self, from: request)
        let status = try await domain.recovery.recover(input, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(status, status: .created)
    }

    @Sendable func recoveryStatus(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        struct Input: Decodable { let handle: String }
        let input = try await RequestDecoding.json(Input.self, from: request)
        let id = try context.parameters.require("recovery")
        return JSONResponse.make(try await domain.recovery.status(id: id, handle: input.handle, tenant: try context.requireTenant(), logger: context.logger))
    }

    // MARK: Account processes

    @Sendable func startProcess(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(ProcessStartRequest.self, from: request)
        let information = try await domain.accountProcesses.start(
            input, caller: try context.requireDevice(), tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(information, status: .created)
    }

    @Sendable func completeProcess(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(ProcessCompletionRequest.self, from: request)
        let completion = try await domain.accountProcesses.complete(
            requestID: context.parameters.id("request"), input: input, caller: try context.requireDevice(),
            tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(completion)
    }

    /// `GET {issuer}/device/history?limit=N`: this activation's authentications, newest first.
    @Sendable func history(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let limit = try RequestDecoding.limit(try RequestDecoding.query(request), maximum: 500)
        return JSONResponse.make(try await domain.accountProcesses.history(limit: limit, caller: try context.requireDevice()))
    }

    // MARK: In-app login

    /// `POST {issuer}/device/in-app`: creates the request, already taken up by the calling
    /// activation, and answers with what to sign.
    @Sendable func startInApp(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(InAppAuthenticationStart.self, from: request)
        let challenge = try await domain.inApp.start(input, caller: try context.requireDevice(), tenant: try context.requireTenant())
        return JSONResponse.make(challenge, status: .created)
    }

    /// `POST {issuer}/device/in-app/{request}/code`: the approved request's authorization
    /// code, once, to the activation that signed it.
    @Sendable func inAppCode(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let code = try await domain.inApp.code(
            requestID: context.parameters.id("request"), caller: try context.requireDevice(), tenant: try context.requireTenant())
        return JSONResponse.make(code)
    }

    /// `POST {issuer}/device/sso/code`: a code for a further service on the activation's
    /// single sign-on session (native single sign-on).
    @Sendable func singleSignOnCode(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(SingleSignOnCodeRequest.self, from: request)
        let code = try await domain.inApp.singleSignOnCode(input, caller: try context.requireDevice(), tenant: try context.requireTenant())
        return JSONResponse.make(code)
    }

    // MARK: Pending requests and push

    /// `GET {issuer}/device/pending[?wait=SECONDS&version=V]`: the open requests of the
    /// activation's users (a background token may ask). With `wait`, returns when the list differs from `version` or
    /// the wait is over, whichever comes first.
    @Sendable func pending(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let query = try RequestDecoding.query(request)
        let wait = try RequestDecoding.wait(query)
        let tenant = try context.requireTenant()
        let requests = domain.deviceRequests
        let caller = try context.requireReadingDevice()
        let (activation, users) = try await inOwnTask { try await requests.begin(caller: caller) }
        let list = try await state.longPoll(watching: Set(users.map(EventKey.user)), caller: "device \(activation.id)",
            perCaller: state.configuration.throttle.longPollsPerDevice
        ) {
            try await requests.list(activation: activation, users: users, tenant: tenant)
        } waitFor: { list in
            guard wait > 0, query["version"] == list.version else { return nil }
            // Wake up no later than the first request expires, so the list never shows a dead one for long.
            let firstExpiry = list.requests.map { Int64($0.expiresAt.timeIntervalSince1970) }.min() ?? Int64.max
            return .seconds(max(0, min(wait, firstExpiry - state.epochNow())))
        }
        return JSONResponse.make(list)
    }

    /// `GET {issuer}/device/authentications/{id}`: where a backchannel request for one of
    /// the activation's users stands, as this device sees it (a background token may ask).
    @Sendable func requestState(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let answer = try await domain.deviceRequests.state(
            requestID: context.parameters.id("request"), caller: try context.requireReadingDevice(), tenant: try context.requireTenant())
        return JSONResponse.make(answer)
    }

    /// `POST {issuer}/device/push`: sets the activation's push target.
    @Sendable func registerPush(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(PushRegistration.self, from: request)
        try await domain.deviceRequests.registerPush(
            input, kinds: Pusher.kinds, caller: try context.requireDevice(), tenant: try context.requireTenant())
        return JSONResponse.make(["status": "registered", "kind": input.kind])
    }

    /// `DELETE {issuer}/device/push`: no more pushes for this activation.
    @Sendable func removePush(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await domain.deviceRequests.removePush(caller: try context.requireDevice())
        return JSONResponse.make(["status": "removed"])
    }
}
