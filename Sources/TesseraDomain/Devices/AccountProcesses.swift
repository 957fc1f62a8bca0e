import Crypto
import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Account processes: the device starts one for a purpose, finishes it like a login
/// (same proofs, same lockout counter), and completes the approved process once with
/// its new data.
public struct AccountProcesses: Sendable {
    let domain: Domain

    /// Starts a process for `input.purpose`: a request of the calling activation's own,
    /// to be finished like a login under the tenant's process policy.
    public func start(_ input: ProcessStartRequest, caller: DeviceCaller, tenant: TenantRecord, logger: Logger) async throws
        -> AuthenticationChallenge
    {
        var parameters = ProcessParameters()
        switch input.purpose {
        case .login:
            throw DomainError.invalidRequest("a login is started by a service, not by the device")
        case .addFactor:
            guard let factor = input.factor, factor == .biometric || factor == .otp || factor == .securitykey else {
                throw DomainError.invalidRequest("add_factor needs factor 'biometric', 'otp' or 'securitykey'")
            }
            parameters.factor = factor
        case .changePin, .requestNewActivationData:
            parameters.pinSalt = Secrets.randomToken(byteCount: 16)
        case .merge:
            guard let code = input.code, (1...256).contains(code.utf8.count) else {
                throw DomainError.invalidRequest("merge needs the invitation's code")
            }
            let (invitation, user) = try await domain.activations.usableInvitation(code: code, tenant: tenant)
            guard invitation.sealedPinKey == nil else {
                throw DomainError.invalidRequest("activation data for a new device cannot be merged")
            }
            parameters.invitationDigest = invitation.codeDigest
            parameters.username = user.username
        case .unregisterDevice:
            guard let target = input.target, target != caller.activation.id else {
                throw DomainError.invalidRequest("unregister_device needs the id of another activation (target)")
            }
            let other = try await domain.store.read { try await $0.activation(id: target) }
            guard let other, other.tenantID == tenant.id, other.userID == caller.activation.userID else {
                throw DomainError.notFound("activation")
            }
            parameters.target = target
            parameters.targetAlias = other.alias
        case .recoveryCodes:
            guard tenant.recoveryCodes else { throw Recovery.notOffered(tenant) }
        case .delete, .listDevices, .backgroundKey:
            break
        }
        let now = domain.epochNow()
        let lifetime = domain.settings.requestLifetime
        let requestID = RequestID(Secrets.randomToken())
        let information = try await domain.store.transaction { tx -> AuthenticationChallenge in
            // A running lock stops processes exactly as it stops logins.
            let current = try await caller.begin(tx, now: now)
            if input.purpose == .merge, let username = parameters.username {
                guard let invited = try await tx.user(tenantID: tenant.id, username: username), invited.id != current.userID,
                    try await !tx.linkedUsers(activationID: current.id).contains(where: { $0.id == invited.id })
                else { throw DomainError(.conflict, .conflict, "this activation stands for the invited user already") }
            }
            let record = AuthRequestRecord(
                id: requestID, tenantID: tenant.id, serviceID: nil, purpose: input.purpose, status: .claimed,
                challenge: Secrets.randomToken(), activationID: current.id, userID: current.userID, redirectURI: nil, state: nil,
                nonce: nil, codeChallenge: nil, scope: "", browserDigest: nil, confirmedAttributes: nil, factors: nil, authTime: nil,
                process: parameters, createdAt: now, expiresAt: now + lifetime)
            try await tx.insertAuthRequest(record)
            return try await domain.attempts.userInformation(record, activation: current, tenant: tenant, tx: tx)
        }
        logger.info(
            "account process started",
            metadata: ["tenant": "\(tenant.name)", "activation_id": "\(caller.activation.id)", "purpose": "\(input.purpose.rawValue)"])
        return information
    }

    // MARK: Approval (inside the finishing transaction)

    /// The answer to a successful proof for an account process. A merge is carried out
    /// here; every other process is approved and waits for its completion.
    func approved(
        _ authRequest: AuthRequestRecord, purpose: AuthenticationPurpose, activation: ActivationRecord, tenant: TenantRecord,
        history: HistoryRecord, tx: StoreTransaction, now: Int64
    ) async throws -> FinishResponse {
        let parameters = authRequest.process ?? ProcessParameters()
        var entry = history
        if purpose == .merge {
            guard let digest = parameters.invitationDigest, let invitation = try await tx.invitation(codeDigest: digest),
                invitation.tenantID == tenant.id, invitation.expiresAt > now,
                try await tx.consumeInvitation(id: invitation.id, now: now),
                let user = try await tx.user(id: invitation.userID)
            else { throw DomainError.invalidGrant("the invitation was used or has expired") }
            guard user.id != activation.userID, try await !tx.linkedUsers(activationID: activation.id).contains(where: { $0.id == user.id })
            else { throw DomainError(.conflict, .conflict, "this activation stands for the invited user already") }
            try await tx.linkUser(activationID: activation.id, userID: user.id, now: now)
            guard try await tx.completeProcess(id: authRequest.id, purpose: purpose, activationID: activation.id, now: now)
            else { throw DomainError.invalidGrant("the process was completed already") }
            try await Audit.record(
                tx, tenantID: tenant.id, actor: .activation(activation.id), action: .activationMerge, target: activation.id.rawValue,
                details: ["user_id": user.id.rawValue, "username": user.username, "invitation_id": invitation.id], at: now)
            entry.outcome = .completed
            try await tx.insertHistory(entry)
            return FinishResponse(
                result: .apiAccessMergeComplete, merged: MergeSummary(idmIdentifier: user.id, username: user.username))
        }
        try await tx.insertHistory(entry)
        // A security key is registered with options for this process's user.
        var securityKey: WebAuthnJSON.CreationOptions?
        if purpose == .addFactor, parameters.factor == .securitykey {
            guard let user = try await tx.user(id: authRequest.userID ?? activation.userID) else { throw StoreError(.corrupt, "process without user") }
            securityKey = try await domain.passkeys.deviceRegistrationOptions(user: user, requestID: authRequest.id, tenant: tenant, tx: tx)
        }
        return FinishResponse(
            result: FinishOutcome(approved: purpose),
            process: ProcessGrant(
                requestID: authRequest.id, purpose: purpose,
                expiresAt: Date(timeIntervalSince1970: TimeInterval(authRequest.expiresAt)), pinSalt: parameters.pinSalt,
                description: parameters.description, securityKey: securityKey))
    }

    // MARK: Completion

    /// Completes an approved process once, with the new data it needs, in the
    /// transaction that spends it. Each purpose checks its body before the transaction and
    /// says what it does inside it (`Step`); the spending, the audit entry and the history
    /// entry are the same for all.
    public func complete(
        requestID: RequestID, input: ProcessCompletionRequest, caller: DeviceCaller, tenant: TenantRecord, logger: Logger
    ) async throws -> ProcessCompletion {
        guard let record = try await domain.store.read({ try await $0.authRequest(id: requestID) }), record.tenantID == tenant.id,
            case let purpose = record.purpose, purpose.isAccountProcess, purpose != .merge
        else { throw DomainError.notFound("account process") }
        guard record.activationID == caller.activation.id else {
            throw DomainError(.forbidden, .accessDenied, "this process belongs to another activation")
        }
        let now = domain.epochNow()
        try checkCompletable(record, now: now)
        let process = Process(record: record, caller: caller, tenant: tenant, issuer: domain.issuer(forTenantNamed: tenant.name), now: now)

        let step: Step =
            switch purpose {
            case .addFactor where process.parameters.factor == .biometric: try addBiometrics(input, process)
            case .addFactor where process.parameters.factor == .securitykey: try await addSecurityKey(input, process)
            case .addFactor: try addOneTimePasswords(input, process)
            case .changePin: try changePin(input, process)
            case .requestNewActivationData: try newActivationData(input, process)
            case .delete: deleteActivation(process)
            case .unregisterDevice: unregisterDevice(process)
            case .listDevices: listDevices(process)
            case .recoveryCodes: try recoveryCodes(process)
            case .backgroundKey: try backgroundKey(input, process)
            case .login, .merge: throw DomainError.notFound("account process")
            }

        let activationID = process.activationID
        let completion = try await domain.store.transaction { tx -> ProcessCompletion in
            let current = try await caller.begin(tx, now: now)
            // Spent first: of two parallel completions only one gets past this line.
            guard try await tx.completeProcess(id: requestID, purpose: purpose, activationID: activationID, now: now) else {
                throw DomainError.invalidGrant("the process was completed already or has expired")
            }
            let outcome = try await step(tx, current)
            if purpose != .listDevices {
                try await Audit.record(
                    tx, tenantID: tenant.id, actor: .activation(activationID), action: Self.auditAction(purpose),
                    target: (outcome.target ?? activationID).rawValue, details: outcome.details, at: now)
            }
            if purpose != .delete {
                try await tx.insertHistory(
                    HistoryRecord(
                        id: orderedID(), tenantID: tenant.id, activationID: activationID,
                        userID: current.userID, requestID: requestID, service: nil, purpose: purpose, outcome: .completed,
                        factors: record.factors ?? [], at: now))
            }
            return outcome.completion
        }
        logger.info(
            "account process completed",
            metadata: ["tenant": "\(tenant.name)", "activation_id": "\(activationID)", "purpose": "\(purpose.rawValue)"])
        return completion
    }

    /// The approved process being completed, and who completes it.
    struct Process: Sendable {
        let record: AuthRequestRecord
        let caller: DeviceCaller
        let tenant: TenantRecord
        let issuer: String
        let now: Int64

        var requestID: RequestID { record.id }
        var purpose: AuthenticationPurpose { record.purpose }
        var parameters: ProcessParameters { record.process ?? ProcessParameters() }
        var activationID: ActivationID { caller.activation.id }
    }

    /// What a purpose does in the transaction that spends the process, given the calling
    /// activation as it stands there: the answer, the audit entry's details, and its target
    /// when that is not the calling activation.
    typealias Step = @Sendable (StoreTransaction, ActivationRecord) async throws -> StepOutcome

    struct StepOutcome: Sendable {
        var completion: ProcessCompletion
        var details: [String: String] = [:]
        var target: ActivationID?
    }

    /// Adding biometrics: a new key, other than the device key, that signed this process.
    private func addBiometrics(_ input: ProcessCompletionRequest, _ process: Process) throws -> Step {
        guard let jwk = input.biometricKey, let registration = input.biometricRegistration else {
            throw DomainError.invalidRequest("adding biometrics needs biometric_key and biometric_registration")
        }
        let activation = process.caller.activation
        let others = [try DeviceChecks.deviceKey(of: activation)] + [try activation.backgroundKey?.publicKey()].compactMap { $0 }
        let key = try DeviceChecks.distinctKey(jwk, name: "biometric_key", besides: others)
        let jws = try DeviceChecks.parseJWS(registration, type: JWSType.keyRegistration)
        guard let claims = try? jws.verified(with: key, as: ProcessKeyClaims.self).claims, claims.rid == process.requestID.rawValue, claims.sub == process.activationID.rawValue
        else { throw DomainError.invalidRequest("biometric_registration is not signed by the new key for this process") }
        try domain.checkTimes(iat: Int64(claims.iat), exp: Int64(claims.exp), audience: claims.aud, issuer: process.issuer)
        let stored = try JSONCoding.string(PublicJWK(key))
        return { tx, _ in
            try await tx.updateBiometricKey(activationID: process.activationID, key: stored)
            return try await Self.factorAdded(.biometric, process, tx: tx)
        }
    }

    /// Registering a background key: a new key, other than the activation's signing keys,
    /// replacing the one before it (the old one stops working at once).
    private func backgroundKey(_ input: ProcessCompletionRequest, _ process: Process) throws -> Step {
        guard let jwk = input.backgroundKey else { throw DomainError.invalidRequest("background_key needs background_key") }
        let activation = process.caller.activation
        let signing = [try DeviceChecks.deviceKey(of: activation)] + [try activation.biometricKey?.publicKey()].compactMap { $0 }
        let stored = try JSONCoding.string(PublicJWK(try DeviceChecks.distinctKey(jwk, name: "background_key", besides: signing)))
        return { tx, _ in
            try await tx.updateBackgroundKey(activationID: process.activationID, key: stored)
            return StepOutcome(completion: ProcessCompletion(purpose: process.purpose))
        }
    }

    /// Adding a security key: its registration for this process's user, verified.
    private func addSecurityKey(_ input: ProcessCompletionRequest, _ process: Process) async throws -> Step {
        guard let credential = input.securityKey else { throw DomainError.invalidRequest("adding a security key needs security_key") }
        let key = try await domain.passkeys.verifyDeviceRegistration(
            credential, name: input.securityKeyName, requestID: process.requestID,
            userID: process.record.userID ?? process.caller.activation.userID, activation: process.caller.activation, tenant: process.tenant)
        return { tx, _ in
            try await Passkeys.insert(key, tx: tx)
            try await tx.setActivationSecurityKey(activationID: process.activationID, keyID: key.id)
            try await Audit.record(
                tx, tenantID: process.tenant.id, actor: .activation(process.activationID), action: .securityKeyEnrol, target: key.id.rawValue,
                details: [
                    "user_id": key.userID.rawValue, "name": key.name, "attestation": key.attestation, "via": "device",
                    "activation_id": process.activationID.rawValue,
                ], at: process.now)
            try await Notices.send(
                .passkeyAdded, tx: tx, domain: domain, tenantID: process.tenant.id, userID: key.userID, details: ["passkey": key.name],
                at: process.now)
            var outcome = try await Self.factorAdded(.securitykey, process, tx: tx)
            outcome.details["security_key_id"] = key.id.rawValue
            return outcome
        }
    }

    /// Adding one-time passwords: the device's TOTP secret, sealed.
    private func addOneTimePasswords(_ input: ProcessCompletionRequest, _ process: Process) throws -> Step {
        let secret = try DeviceChecks.totpSecret(input.totpSecret)
        let sealed = try domain.box.seal(secret, context: SealingContext.totpSecret(activationID: process.activationID))
        return { tx, _ in
            try await tx.updateTOTPSecret(activationID: process.activationID, sealed: sealed)
            return try await Self.factorAdded(.otp, process, tx: tx)
        }
    }

    /// The answer to an added factor: every factor the activation now has.
    private static func factorAdded(_ factor: FactorType, _ process: Process, tx: StoreTransaction) async throws -> StepOutcome {
        guard let updated = try await tx.activation(id: process.activationID) else { throw StoreError(.corrupt, "activation vanished") }
        return StepOutcome(
            completion: ProcessCompletion(purpose: process.purpose, factors: updated.enrolledFactors.sorted()), details: ["factor": factor.rawValue])
    }

    /// A new PIN: its key, sealed; the sessions the old one started end.
    private func changePin(_ input: ProcessCompletionRequest, _ process: Process) throws -> Step {
        let sealed = try domain.box.seal(try DeviceChecks.pinKey(input.pinKey), context: SealingContext.pinKey(activationID: process.activationID))
        return { tx, _ in
            try await tx.updatePinKey(activationID: process.activationID, sealed: sealed)
            try await tx.endSSOSessions(activationID: process.activationID)
            return StepOutcome(completion: ProcessCompletion(purpose: process.purpose))
        }
    }

    /// New activation data: an invitation for another device of the same user, with the
    /// PIN key chosen now; with `retire`, activating it removes this activation.
    private func newActivationData(_ input: ProcessCompletionRequest, _ process: Process) throws -> Step {
        if let alias = input.alias, alias.count > 128 { throw DomainError.invalidRequest("alias is longer than 128 characters") }
        let pinKey = try DeviceChecks.pinKey(input.pinKey)
        let alias = input.alias, retire = input.retire ?? false
        let code = Secrets.randomToken()
        let invitationID = Secrets.identifier(byteCount: 12)
        let expiresAt = process.now + domain.settings.invitationLifetime
        let sealed = try domain.box.seal(pinKey, context: SealingContext.invitationPinKey(invitationID: invitationID))
        return { tx, current in
            try await tx.insertInvitation(
                InvitationRecord(
                    id: invitationID, tenantID: process.tenant.id, userID: current.userID, codeDigest: Secrets.digest(code),
                    pinSalt: process.parameters.pinSalt ?? Secrets.randomToken(byteCount: 16), expiresAt: expiresAt, usedAt: nil,
                    createdAt: process.now, sealedPinKey: sealed, alias: alias, retiresActivationID: retire ? process.activationID : nil,
                    createdByActivationID: process.activationID))
            return StepOutcome(
                completion: ProcessCompletion(
                    purpose: process.purpose, url: "\(process.issuer)/activate?code=\(code)",
                    expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt))),
                details: ["invitation_id": invitationID, "retire": String(retire)])
        }
    }

    /// Deleting the calling activation.
    private func deleteActivation(_ process: Process) -> Step {
        { tx, current in
            _ = try await tx.deleteActivation(id: process.activationID, at: process.now)
            try await Notices.send(
                .deviceRemoved, tx: tx, domain: domain, tenantID: process.tenant.id, userID: current.userID,
                details: ["device": current.alias ?? ""], at: process.now)
            return StepOutcome(completion: ProcessCompletion(purpose: process.purpose, removed: process.activationID))
        }
    }

    /// Removing another activation of the same user.
    private func unregisterDevice(_ process: Process) -> Step {
        { tx, current in
            guard let target = process.parameters.target, let other = try await tx.activation(id: target), other.userID == current.userID,
                try await tx.deleteActivation(id: target, at: process.now)
            else { throw DomainError.notFound("activation") }
            try await Notices.send(
                .deviceRemoved, tx: tx, domain: domain, tenantID: process.tenant.id, userID: other.userID,
                details: ["device": other.alias ?? ""], at: process.now)
            return StepOutcome(
                completion: ProcessCompletion(purpose: process.purpose, removed: target), details: ["target": target.rawValue], target: target)
        }
    }

    /// The user's activations, the calling one marked.
    private func listDevices(_ process: Process) -> Step {
        { tx, current in
            let devices = try await tx.activations(tenantID: process.tenant.id, userID: current.userID).map { activation in
                DeviceSummary(
                    activationID: activation.id, alias: activation.alias, factors: activation.enrolledFactors.sorted(),
                    createdAt: Date(timeIntervalSince1970: TimeInterval(activation.createdAt)),
                    lastUsedAt: activation.lastUsedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) },
                    current: activation.id == process.activationID)
            }
            return StepOutcome(completion: ProcessCompletion(purpose: process.purpose, devices: devices))
        }
    }

    /// Ten new recovery codes for the account, in place of the old ones.
    private func recoveryCodes(_ process: Process) throws -> Step {
        guard process.tenant.recoveryCodes else { throw Recovery.notOffered(process.tenant) }
        return { tx, current in
            let codes = try await Recovery.makeCodes(tx: tx, userID: current.userID, now: process.now)
            return StepOutcome(completion: ProcessCompletion(purpose: process.purpose, recoveryCodes: codes), details: ["codes": String(codes.count)])
        }
    }

    static func auditAction(_ purpose: AuthenticationPurpose) -> AuditAction {
        switch purpose {
        case .addFactor: .factorAdd
        case .changePin: .pinChange
        case .requestNewActivationData: .activationDataCreate
        case .delete: .activationDelete
        case .unregisterDevice: .activationUnregister
        case .merge: .activationMerge
        case .listDevices: .devicesList
        case .recoveryCodes: .recoveryCodesCreate
        case .backgroundKey: .backgroundKeySet
        case .login: .login
        }
    }

    /// Clear errors for the stale objects: a process not yet approved, finished, or expired.
    private func checkCompletable(_ record: AuthRequestRecord, now: Int64) throws {
        switch record.status {
        case .approved:
            guard record.expiresAt > now else { throw DomainError(.invalid, .expiredToken, "the process has expired") }
        case .completed:
            throw DomainError.invalidGrant("the process was completed already")
        case .pending, .claimed:
            throw DomainError(.invalid, .invalidGrant, "the process has not been approved by an authentication")
        default:
            throw DomainError(.invalid, .invalidGrant, "the process ended as \(record.status.rawValue)")
        }
    }

    // MARK: History

    /// This activation's authentications, newest first (`GET {issuer}/device/history`).
    public func history(limit: Int, caller: DeviceCaller) async throws -> HistoryResponse {
        let now = domain.epochNow()
        let entries = try await domain.store.transaction { tx -> [HistoryEntry] in
            try await caller.spendToken(tx, now: now)
            var names: [UserID: String] = [:]
            var entries: [HistoryEntry] = []
            for record in try await tx.history(activationID: caller.activation.id, limit: limit) {
                if let userID = record.userID, names[userID] == nil { names[userID] = try await tx.user(id: userID)?.username }
                entries.append(
                    HistoryEntry(
                        requestID: record.requestID, service: record.service,
                        purpose: record.purpose, outcome: record.outcome.rawValue,
                        factors: record.factors,
                        username: record.userID.flatMap { names[$0] }, at: Date(timeIntervalSince1970: TimeInterval(record.at))))
            }
            return entries
        }
        return HistoryResponse(entries: entries)
    }
}

extension Domain {
    public var accountProcesses: AccountProcesses { AccountProcesses(domain: self) }
}
