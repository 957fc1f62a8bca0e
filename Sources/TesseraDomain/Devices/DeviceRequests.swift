import Foundation
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// What a device learns about the backchannel requests services started for its users,
/// and where it asks to be woken: the list, one request's state, its push target.
public struct DeviceRequests: Sendable {
    let domain: Domain

    /// Spends the caller's token and reads the activation and the users it stands for:
    /// the start of a long poll for the pending list.
    public func begin(caller: DeviceCaller) async throws -> (ActivationRecord, [UserID]) {
        let now = domain.epochNow()
        return try await domain.store.transaction { tx in
            let current = try await caller.begin(tx, now: now)
            return (current, try await Attempts.users(of: current, tx: tx))
        }
    }

    /// The open backchannel requests of the activation's users, with a version that
    /// changes whenever the list does.
    public func list(activation: ActivationRecord, users: [UserID], tenant: TenantRecord) async throws -> PendingRequestList {
        let now = domain.epochNow()
        let requests = try await domain.store.read { tx -> [PendingRequest] in
            var result: [PendingRequest] = []
            for record in try await tx.openBackchannelRequests(userIDs: users, now: now) {
                guard let serviceID = record.serviceID, let service = try await domain.service(id: serviceID, in: tx),
                    let userID = record.userID, let user = try await tx.user(id: userID)
                else { continue }
                result.append(
                    PendingRequest(
                        requestID: record.id,
                        service: ServiceInformation(clientID: service.clientID, name: service.name),
                        bindingMessage: record.bindingMessage, username: user.username, userID: userID,
                        expiresAt: Date(timeIntervalSince1970: TimeInterval(record.expiresAt)),
                        status: Self.status(of: record, seenBy: activation.id, now: now)))
            }
            return result
        }
        let fingerprint = requests.map { "\($0.requestID.rawValue):\($0.status.rawValue)" }.joined(separator: ",")
        return PendingRequestList(requests: requests, version: String(Secrets.digest(fingerprint).prefix(16)))
    }

    public func state(requestID: RequestID, caller: DeviceCaller, tenant: TenantRecord) async throws -> PendingRequestState {
        let now = domain.epochNow()
        let status = try await domain.store.transaction { tx -> PendingRequestStatus in
            try await caller.spendToken(tx, now: now)
            guard let record = try await tx.authRequest(id: requestID), record.tenantID == tenant.id,
                record.flow == .ciba, let userID = record.userID,
                try await Attempts.users(of: caller.activation, tx: tx).contains(userID)
            else { throw DomainError.notFound("authentication request") }
            return Self.status(of: record, seenBy: caller.activation.id, now: now)
        }
        return PendingRequestState(requestID: requestID, status: status)
    }

    public static func status(of record: AuthRequestRecord, seenBy activationID: ActivationID, now: Int64) -> PendingRequestStatus {
        if let owner = record.activationID, owner != activationID { return .ongoingOnAnotherDevice }
        switch record.status {
        case .pending, .claimed: return record.expiresAt > now ? .pending : .timeout
        case .approved, .completed: return .authenticated
        case .denied: return .canceled
        case .locked: return .failed
        case .expired: return .timeout
        }
    }

    /// `POST {issuer}/device/push`: sets the activation's push target.
    public func registerPush(_ input: PushRegistration, kinds: Set<String>, caller: DeviceCaller, tenant: TenantRecord) async throws {
        guard kinds.contains(input.kind) else { throw DomainError.invalidRequest("kind is apns or webhook") }
        let printable = input.token.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }
        guard (1...4096).contains(input.token.count), printable else {
            throw DomainError.invalidRequest("the push token must be 1 to 4096 printable ASCII characters")
        }
        if input.kind == "apns" {
            guard input.token.count <= 200, input.token.allSatisfy(\.isHexDigit) else {
                throw DomainError.invalidRequest("an APNs device token is hexadecimal")
            }
        }
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            let current = try await caller.begin(tx, now: now)
            try await tx.setPushTarget(
                PushTargetRecord(activationID: current.id, tenantID: tenant.id, kind: input.kind, token: input.token, createdAt: now))
        }
    }

    /// `DELETE {issuer}/device/push`: no more pushes for this activation.
    public func removePush(caller: DeviceCaller) async throws {
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            try await caller.spendToken(tx, now: now)
            try await tx.removePushTarget(activationID: caller.activation.id)
        }
    }
}

/// Where the server wakes a user's devices: the push targets of their active activations.
/// Made from the store alone, since the notifier that sends pushes is made before the
/// domain it serves.
public struct PushTargets: Sendable {
    let store: SQLStore

    public init(store: SQLStore) { self.store = store }

    /// The registered targets of the user's active activations.
    public func of(_ userID: UserID) async throws -> [PushTargetRecord] {
        try await store.read { tx in
            try await tx.pushTargets(activationIDs: try await tx.activeActivationIDs(userID: userID))
        }
    }

    /// A push service said the token is gone: the target goes.
    public func forget(activationID: ActivationID, token: String) async throws {
        try await store.transaction { tx in
            try await tx.removePushTarget(activationID: activationID, token: token)
        }
    }
}

extension Domain {
    public var deviceRequests: DeviceRequests { DeviceRequests(domain: self) }

    /// The gauges `/metrics` reads of the store: open backchannel requests on all nodes,
    /// and this node's database connections in use and at most.
    public func storeGauges() async -> (openBackchannelRequests: Int?, connectionsInUse: Int, connectionLimit: Int) {
        let pending = try? await store.read { [now = epochNow()] in try await $0.openBackchannelRequestCount(now: now) }
        let pool = store.connectionUse()
        return (pending, pool.inUse, pool.limit)
    }
}
