import Foundation
import TesseraCore
import TesseraCrypto

/// A request a service started from its server for one of this device's users (a push
/// step-up, OpenID CIBA): show the service, the binding message and the expiry, then
/// approve it with `Authenticator.start(pending:)` and the usual sign/finish, or `deny` it.
public struct PendingAuthentication: Sendable, Hashable {
    /// The request's id: the service's `auth_req_id`.
    public let requestID: RequestID
    /// The service asking.
    public let service: ServiceInformation
    /// The text the service shows beside its request: show it, so the user can check the two match.
    public let bindingMessage: String?
    /// The user the request is for (one of the activation's users).
    public let username: String
    /// After this the request times out.
    public let expiresAt: Date
    /// `pending`, or `ongoingOnAnotherDevice` when another device of the user took it up.
    public let status: PendingRequestStatus
    /// The activation that sees the request (and answers it).
    public let activation: Activation

    init(_ wire: PendingRequest, activation: Activation) {
        requestID = wire.requestID
        service = wire.service
        bindingMessage = wire.bindingMessage
        username = wire.username
        expiresAt = wire.expiresAt
        status = wire.status
        self.activation = activation
    }
}

extension Authenticator {
    /// The requests waiting for any activation on this device, soonest expiry first. An
    /// activation that cannot ask (removed on the server, locked) does not hide the
    /// others' requests; only when none can ask is its error thrown.
    ///
    /// ```swift
    /// for request in try await authenticator.pendingRequests() where request.status == .pending {
    ///     show("\(request.service.name): \(request.bindingMessage ?? "")")
    /// }
    /// ```
    public func pendingRequests() async throws -> [PendingAuthentication] {
        var result: [PendingAuthentication] = []
        var failures: [any Error] = []
        let activations = try await registry.all()
        for activation in activations {
            do {
                let list = try await pendingList(activation, wait: 0, version: nil)
                result += list.requests.map { PendingAuthentication($0, activation: activation) }
            } catch {
                failures.append(error)
            }
        }
        if let failure = failures.first, failures.count == activations.count { throw failure }
        return result.sorted { ($0.expiresAt, $0.requestID.rawValue) < ($1.expiresAt, $1.requestID.rawValue) }
    }

    /// The pending requests now and after every change, for as long as it is iterated.
    /// Each activation long-polls its server (`wait` seconds at a time), so this works
    /// without any push service; a push only makes the app start listening sooner.
    ///
    /// `wait` is clamped to 1...30 seconds. An activation that cannot ask shows no requests
    /// and tries again with a growing pause; stop listening by leaving the loop or cancelling
    /// its task.
    ///
    /// ```swift
    /// for try await requests in authenticator.pendingRequestUpdates() {
    ///     guard let request = requests.first(where: { $0.status == .pending }) else { continue }
    ///     guard await userApproves(request) else { try await authenticator.deny(pending: request); continue }
    ///     var info = try await authenticator.start(pending: request)
    ///     // sign info with its factors and finish it, as any login
    /// }
    /// ```
    public func pendingRequestUpdates(wait: Int = 25) -> AsyncThrowingStream<[PendingAuthentication], any Error> {
        let wait = min(max(wait, 1), 30)
        let (stream, continuation) = AsyncThrowingStream<[PendingAuthentication], any Error>.makeStream()
        let task = Task {
            do {
                let activations = try await registry.all()
                let snapshot = PendingSnapshot(expected: activations.count)
                if activations.isEmpty { continuation.yield([]) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for activation in activations {
                        group.addTask {
                            var version: String?
                            var backOff = 1
                            while !Task.isCancelled {
                                let list: PendingRequestList
                                // The record as it is now: a rotation of its background key may have come since.
                                let current = await registry.current(activation)
                                do {
                                    list = try await pendingList(current, wait: version == nil ? 0 : wait, version: version)
                                    backOff = 1
                                } catch {
                                    // One activation that cannot ask (offline, locked, removed) shows
                                    // nothing and tries again later; the others go on.
                                    if Task.isCancelled { return }
                                    if version != "", let all = await snapshot.update(activation.id, []) { continuation.yield(all) }
                                    version = ""
                                    try await Task.sleep(nanoseconds: UInt64(backOff) * 1_000_000_000)
                                    backOff = min(backOff * 2, 60)
                                    continue
                                }
                                guard list.version != version else { continue }
                                version = list.version
                                let requests = list.requests.map { PendingAuthentication($0, activation: current) }
                                if let all = await snapshot.update(activation.id, requests) { continuation.yield(all) }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Claims a pending request for this device; the others then see it as
    /// `ongoingOnAnotherDevice`. Sign the result and `finish` it as any login.
    ///
    /// ```swift
    /// var info = try await authenticator.start(pending: request)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(await askForPIN()))
    /// let result = try await authenticator.finish(info)   // .userLogin or .lockout
    /// ```
    public func start(pending: PendingAuthentication) async throws -> AuthenticationUserInformation {
        try await claim(pending.requestID.rawValue, activation: pending.activation)
    }

    /// Takes up a step-up request whose id (`auth_req_id`) the app received from its own
    /// server, as VeridiumID's `authenticateWith(profile:sessionId)` does: the request
    /// need not be in `pendingRequests()` first. The answer is the request to sign and
    /// `finish` (its `.userLogin` result carries the `identityToken` when the service
    /// allows it), or where the request already stands: authenticated, ongoing on another
    /// device, canceled, failed or timed out.
    ///
    /// ```swift
    /// switch try await authenticator.authenticate(sessionID: idFromMyServer) {
    /// case .sign(var information):
    ///     try information.sign(factor: DeviceFactor())
    ///     try information.sign(factor: PinFactor(pin))
    ///     if case .userLogin(let result) = try await authenticator.finish(information) {
    ///         try await myServer.send(result.identityToken)
    ///     }
    /// case .ended(let status):
    ///     show(status)   // .authenticated, .ongoingOnAnotherDevice, .canceled, .failed, .timeout
    /// }
    /// ```
    ///
    /// Each activation on the device (of `issuer`, when given) is asked in turn; an id
    /// none of them knows throws `noActivation` for the issuer, or the server's `not_found`.
    public func authenticate(sessionID: String, issuer: String? = nil) async throws -> StepUpStart {
        guard (1...256).contains(sessionID.utf8.count), Base64URL.isURLSafe(sessionID) else {
            throw TesseraKitError.invalidLink("a session id is base64url")
        }
        let activations = try await registry.all().filter { issuer == nil || $0.issuer == issuer }
        guard !activations.isEmpty else { throw TesseraKitError.noActivation(issuer: issuer ?? "any issuer") }
        var notFound: (any Error)?
        for activation in activations {
            let path = "device/authentications/\(sessionID)"
            let state: PendingRequestState
            do {
                state = try await readingGet(activation, path, as: PendingRequestState.self)
            } catch TesseraKitError.server(let status, let error, let description) where status == 404 {
                // Not a request of this activation's users: the next activation may know it.
                notFound = TesseraKitError.server(status: status, error: error, description: description)
                continue
            }
            guard state.requestID.rawValue == sessionID else { throw TesseraKitError.transport("the server answered for another request") }
            guard state.status == .pending else { return .ended(state.status) }
            return .sign(try await claim(sessionID, activation: activation))
        }
        throw notFound ?? TesseraKitError.noActivation(issuer: issuer ?? "any issuer")
    }

    /// Declines a pending request: the service's token request gets `access_denied`.
    ///
    /// It claims the request first, so it throws as `start(pending:)` does, for instance
    /// when another device has taken the request up.
    ///
    /// ```swift
    /// if !(await userApproves(request)) {
    ///     try await authenticator.deny(pending: request)
    /// }
    /// ```
    public func deny(pending: PendingAuthentication) async throws {
        try await deny(try await start(pending: pending))
    }

    /// Where a pending request stands now, as this device sees it: authenticated,
    /// ongoing on another device, canceled, failed, timeout, or still pending.
    ///
    /// ```swift
    /// var info = try await authenticator.start(pending: request)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: PinFactor(await askForPIN()))
    /// _ = try await authenticator.finish(info)
    /// show(try await authenticator.status(of: request))   // .authenticated
    /// ```
    public func status(of pending: PendingAuthentication) async throws -> PendingRequestStatus {
        let path = "device/authentications/\(pending.requestID.rawValue)"
        return try await readingGet(await registry.current(pending.activation), path, as: PendingRequestState.self).status
    }

    /// Asks every activation's server to wake this device through a push service when a
    /// request arrives: `apns` with the APNs device token, or `webhook` with a token the
    /// server's push gateway knows. Without it the app finds requests by asking.
    ///
    /// Only the activations on the device now are registered: call it again after an
    /// activation, and whenever the platform hands out a new token.
    ///
    /// ```swift
    /// // in application(_:didRegisterForRemoteNotificationsWithDeviceToken:)
    /// let hex = deviceToken.map { String(format: "%02x", $0) }.joined()
    /// Task { try await authenticator.registerPush(kind: "apns", token: hex) }
    /// ```
    public func registerPush(kind: String, token: String) async throws {
        // Every activation is asked, even after one fails; the first failure is thrown after.
        var failure: (any Error)?
        for activation in try await registry.all() {
            do {
                _ = try await devicePost(activation, "device/push", body: PushRegistration(kind: kind, token: token), as: [String: String].self)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    /// No more pushes for any activation on this device.
    ///
    /// Stops at the first activation whose server refuses.
    ///
    /// ```swift
    /// // the user turned notifications off in the app's settings
    /// try await authenticator.unregisterPush()
    /// // pendingRequestUpdates() still finds requests by long polling
    /// ```
    public func unregisterPush() async throws {
        for activation in try await registry.all() {
            let path = "device/push"
            _ = try await client.delete(
                try endpoint(activation, path),
                headers: ["Authorization": try await deviceToken(activation, method: "DELETE", path: path)], as: [String: String].self)
        }
    }

    func pendingList(_ activation: Activation, wait: Int, version: String?) async throws -> PendingRequestList {
        var query = ""
        if let version, wait > 0 { query = "?wait=\(wait)&version=\(version)" }
        // The server holds a long poll up to `wait` seconds: give the answer time beyond that.
        return try await readingGet(
            activation, "device/pending", query: query, timeout: TimeInterval(wait + 15), as: PendingRequestList.self)
    }
}

/// What `authenticate(sessionID:)` found: a request to sign, or where it already stands.
public enum StepUpStart: Sendable {
    /// Claimed for this device: sign it with the factors it asks for and `finish` it (or `deny` it).
    case sign(AuthenticationUserInformation)
    /// Past waiting for this device: `authenticated`, `ongoingOnAnotherDevice`,
    /// `canceled`, `failed` or `timeout`.
    case ended(PendingRequestStatus)
}

/// The latest list of each activation; complete once every activation has reported.
private actor PendingSnapshot {
    let expected: Int
    var lists: [ActivationID: [PendingAuthentication]] = [:]

    init(expected: Int) { self.expected = expected }

    func update(_ id: ActivationID, _ requests: [PendingAuthentication]) -> [PendingAuthentication]? {
        lists[id] = requests
        guard lists.count == expected else { return nil }
        return lists.values.flatMap { $0 }.sorted { ($0.expiresAt, $0.requestID.rawValue) < ($1.expiresAt, $1.requestID.rawValue) }
    }
}
