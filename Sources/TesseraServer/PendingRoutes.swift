import Foundation
import Hummingbird
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraStore

/// What a device learns about the backchannel requests services started for its users:
/// the list (long-polled, so no push service is needed) and where one request stands.
extension DeviceRoutes {
    /// `GET {issuer}/device/pending[?wait=SECONDS&version=V]`: the open requests of the
    /// activation's users. With `wait`, returns when the list differs from `version` or
    /// the wait is over, whichever comes first.
    @Sendable func pending(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let tenant = try await state.tenant(named: context.parameters.get("tenant") ?? "")
        let query = try RequestDecoding.query(request)
        let wait = try RequestDecoding.wait(query)
        let caller = try await authenticateDevice(request, tenant: tenant)
        let start = state.epochNow()
        let (activation, users) = try await state.store.transaction { tx in
            let current = try await caller.begin(tx, now: start)
            return (current, try await Self.users(of: current, tx: tx))
        }
        let list = try await state.longPoll(watching: Set(users.map(EventKey.user))) {
            try await pendingList(activation: activation, users: users, tenant: tenant)
        } waitFor: { list in
            guard wait > 0, query["version"] == list.version else { return nil }
            // Wake up no later than the first request expires, so the list never shows a dead one for long.
            let firstExpiry = list.requests.map { Int64($0.expiresAt.timeIntervalSince1970) }.min() ?? Int64.max
            return .seconds(max(0, min(wait, firstExpiry - state.epochNow())))
        }
        return JSONResponse.make(list)
    }

    private func pendingList(activation: ActivationRecord, users: [String], tenant: TenantRecord) async throws -> PendingRequestList {
        let now = state.epochNow()
        let requests = try await state.store.read { tx -> [PendingRequest] in
            var result: [PendingRequest] = []
            for record in try await tx.openBackchannelRequests(userIDs: users, now: now) {
                guard let serviceID = record.serviceID, let service = try await tx.service(id: serviceID),
                    let userID = record.userID, let user = try await tx.user(id: userID)
                else { continue }
                result.append(
                    PendingRequest(
                        requestID: RequestID(record.id),
                        service: ServiceInformation(clientID: ClientID(service.clientID), name: service.name),
                        bindingMessage: record.bindingMessage, username: user.username, userID: UserID(userID),
                        expiresAt: Date(timeIntervalSince1970: TimeInterval(record.expiresAt)),
                        status: Self.status(of: record, seenBy: activation.id, now: now)))
            }
            return result
        }
        let fingerprint = requests.map { "\($0.requestID.rawValue):\($0.status.rawValue)" }.joined(separator: ",")
        return PendingRequestList(requests: requests, version: String(Secrets.digest(fingerprint).prefix(16)))
    }

    /// `GET {issuer}/device/authentications/{id}`: where a backchannel request for one of
    /// the activation's users stands, as this device sees it.
    @Sendable func requestState(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let tenant = try await state.tenant(named: context.parameters.get("tenant") ?? "")
        let requestID = context.parameters.get("request") ?? ""
        let caller = try await authenticateDevice(request, tenant: tenant)
        let now = state.epochNow()
        let status = try await state.store.transaction { tx -> PendingRequestStatus in
            try await caller.spendToken(tx, now: now)
            guard let record = try await tx.authRequest(id: requestID), record.tenantID == tenant.id,
                record.flow == RequestFlow.ciba.rawValue, let userID = record.userID,
                try await Self.users(of: caller.activation, tx: tx).contains(userID)
            else { throw DomainError.notFound("authentication request") }
            return Self.status(of: record, seenBy: caller.activation.id, now: now)
        }
        return JSONResponse.make(PendingRequestState(requestID: RequestID(requestID), status: status))
    }

    static func status(of record: AuthRequestRecord, seenBy activationID: String, now: Int64) -> PendingRequestStatus {
        if let owner = record.activationID, owner != activationID { return .ongoingOnAnotherDevice }
        switch AuthenticationStatus(rawValue: record.status) ?? .expired {
        case .pending, .claimed: return record.expiresAt > now ? .pending : .timeout
        case .approved, .completed: return .authenticated
        case .denied: return .canceled
        case .locked: return .failed
        case .expired: return .timeout
        }
    }

    /// The users an activation stands for: its own and those it was merged with.
    static func users(of activation: ActivationRecord, tx: StoreTransaction) async throws -> [String] {
        [activation.userID] + (try await tx.linkedUsers(activationID: activation.id)).map(\.id)
    }

    /// `POST {issuer}/device/push`: sets the activation's push target.
    @Sendable func registerPush(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let tenant = try await state.tenant(named: context.parameters.get("tenant") ?? "")
        let caller = try await authenticateDevice(request, tenant: tenant)
        let input = try await RequestDecoding.json(PushRegistration.self, from: request)
        guard Pusher.kinds.contains(input.kind) else { throw DomainError.invalidRequest("kind is apns or webhook") }
        let printable = input.token.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }
        guard (1...4096).contains(input.token.count), printable else {
            throw DomainError.invalidRequest("the push token must be 1 to 4096 printable ASCII characters")
        }
        if input.kind == "apns" {
            guard input.token.count <= 200, input.token.allSatisfy(\.isHexDigit) else {
                throw DomainError.invalidRequest("an APNs device token is hexadecimal")
            }
        }
        let now = state.epochNow()
        try await state.store.transaction { tx in
            let current = try await caller.begin(tx, now: now)
            try await tx.setPushTarget(
                PushTargetRecord(activationID: current.id, tenantID: tenant.id, kind: input.kind, token: input.token, createdAt: now))
        }
        return JSONResponse.make(["status": "registered", "kind": input.kind])
    }

    /// `DELETE {issuer}/device/push`: no more pushes for this activation.
    @Sendable func removePush(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let tenant = try await state.tenant(named: context.parameters.get("tenant") ?? "")
        let caller = try await authenticateDevice(request, tenant: tenant)
        let now = state.epochNow()
        try await state.store.transaction { tx in
            try await caller.spendToken(tx, now: now)
            try await tx.removePushTarget(activationID: caller.activation.id)
        }
        return JSONResponse.make(["status": "removed"])
    }
}
