import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Recovery codes, for a tenant that offers them (`recovery_codes`): a user makes ten
/// single-use codes with a device (the account process `recovery_codes`); after losing
/// every device, a code and a confirmation start a new activation. The confirmation is
/// the user's mailbox where the server sends e-mail and the user has an address (the
/// activation link goes there), an operator's approval otherwise. Wrong codes count
/// against the user's own lock under the tenant's lockout policy; every use is audited
/// and told to the user.
public struct Recovery: Sendable {
    let domain: Domain

    /// How many codes a user has at once.
    public static let codeCount = 10
    /// How long a recovery waits for its approval, and its activation link then lives.
    public static let lifetime: Int64 = 86_400

    /// Crockford's base32 without I, L, O, U: 20 characters, 100 bits, shown as four groups.
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    static func makeCode() -> String {
        let bytes = Array(Secrets.randomBytes(20))
        let characters = bytes.map { alphabet[Int($0) & 31] }
        return stride(from: 0, to: 20, by: 5).map { String(characters[$0..<$0 + 5]) }.joined(separator: "-")
    }

    /// A code as typed, in the form its digest is taken of: upper case, without spaces or dashes.
    static func normalized(_ code: String) -> String {
        String(code.uppercased().filter { $0 != "-" && !$0.isWhitespace })
    }

    /// Bound to the user: the same code of two users has two digests.
    static func digest(_ code: String, userID: UserID) -> String {
        Secrets.digest("recovery-code:\(userID.rawValue):\(normalized(code))")
    }

    /// Ten new codes for the user in `tx` (the old ones stop working). The caller audits.
    static func makeCodes(tx: StoreTransaction, userID: UserID, now: Int64) async throws -> [String] {
        let codes = (0..<codeCount).map { _ in makeCode() }
        try await tx.replaceRecoveryCodes(userID: userID, digests: codes.map { digest($0, userID: userID) }, now: now)
        return codes
    }

    /// The wait after the `failures`-th consecutive wrong code: the tenant's lockout
    /// policy's waits, but never a permanent lock. Anyone who knows a username can guess
    /// its codes, so a lock for good would let them switch recovery off for that user; a
    /// guess a minute at most (the policy's longest wait) leaves 100-bit codes safe.
    static func lock(afterFailures failures: Int, policy: LockoutPolicy, now: Int64) -> LockoutInformation? {
        let at = Date(timeIntervalSince1970: TimeInterval(now))
        guard let lock = policy.lock(afterFailures: failures, at: at) else { return nil }
        guard lock.isPermanent else { return lock }
        let longest = max(LockoutPolicy.minimumLongestWait, policy.waits.max() ?? LockoutPolicy.minimumLongestWait)
        return LockoutInformation(isPermanent: false, lockedUntil: at.addingTimeInterval(TimeInterval(longest)))
    }

    static func notOffered(_ tenant: TenantRecord) -> DomainError {
        DomainError.invalidRequest("tenant '\(tenant.name)' does not offer recovery codes")
    }

    // MARK: Using a code

    /// The outcome of a code, committed either way (a wrong one counts).
    private enum Attempt: Sendable {
        case accepted(RecoveryStatus)
        case wrong
        case locked
    }

    /// `POST {issuer}/recover`: a code of the user's. Wrong (or an unknown user) is
    /// `invalid_grant`, the same for both; during a lock `account_locked`.
    public func recover(_ request: RecoveryRequest, tenant: TenantRecord, logger: Logger) async throws -> RecoveryStatus {
        guard tenant.recoveryCodes else { throw Self.notOffered(tenant) }
        guard Validation.isUsername(request.username), (1...64).contains(request.code.count) else {
            throw DomainError.invalidRequest("a username and a recovery code are needed")
        }
        let wrong = DomainError.invalidGrant("the username or the recovery code is wrong")
        let now = domain.epochNow()
        let email = domain.settings.sendsEmail
        // Attempts on one username take turns (on PostgreSQL): each reads the failures the
        // previous one wrote, so parallel guesses all count.
        let queue = "recovery:\(tenant.id.rawValue):\(request.username)"
        let attempt = try await domain.store.transaction(queue: queue) { tx -> Attempt? in
            guard let user = try await tx.user(tenantID: tenant.id, username: request.username), user.disabledAt == nil else { return nil }
            let (failures, lockedUntil) = try await tx.recoveryLock(userID: user.id)
            // During a wait no code is looked at, a right one neither.
            if let lockedUntil, lockedUntil > now { return .locked }
            guard try await tx.useRecoveryCode(userID: user.id, digest: Self.digest(request.code, userID: user.id), now: now) else {
                let count = failures + 1
                let lock = Self.lock(afterFailures: count, policy: tenant.lockoutPolicy, now: now)
                let until = lock.map { Int64(($0.lockedUntil ?? .distantPast).timeIntervalSince1970) }
                try await tx.setRecoveryLock(userID: user.id, failures: count, lockedUntil: until)
                try await Audit.record(
                    tx, tenantID: tenant.id, actor: .user(user.id), action: .recoveryRefused, target: user.id.rawValue,
                    details: ["failures": String(count), "locked_until": until.map(String.init) ?? "-"], at: now)
                return .wrong
            }
            try await tx.setRecoveryLock(userID: user.id, failures: 0, lockedUntil: nil)
            let left = try await tx.recoveryCodesLeft(userID: user.id)
            let id = "rec_" + Secrets.identifier(byteCount: 12)
            let address = email ? user.attributes["email"].flatMap(Validation.emailAddress) : nil
            let expiresAt = now + Self.lifetime
            var details = ["codes_left": String(left), "recovery_id": id]
            let status: RecoveryStatus
            if let address {
                // Confirmed by the mailbox: the activation link goes there.
                try await tx.insertRecovery(
                    RecoveryRecord(id: id, tenantID: tenant.id, userID: user.id, handleDigest: nil, status: "emailed", createdAt: now, expiresAt: expiresAt))
                _ = try await Administration.writeInvitation(
                    tx, domain: domain, user: user, tenant: tenant, email: address, phone: nil, expiresAt: expiresAt, actor: .user(user.id),
                    now: now, details: ["source": "recovery", "recovery_id": id])
                details["confirmation"] = "email"
                status = RecoveryStatus(recoveryID: id, status: "emailed", expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt)))
            } else {
                let handle = Secrets.randomToken()
                try await tx.insertRecovery(
                    RecoveryRecord(
                        id: id, tenantID: tenant.id, userID: user.id, handleDigest: Secrets.digest(handle), status: "awaiting_approval",
                        createdAt: now, expiresAt: expiresAt))
                details["confirmation"] = "approval"
                status = RecoveryStatus(
                    recoveryID: id, status: "awaiting_approval", handle: handle, expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt)))
            }
            try await Audit.record(
                tx, tenantID: tenant.id, actor: .user(user.id), action: .recoveryUse, target: user.id.rawValue, details: details, at: now)
            try await Notices.send(.recoveryUsed, tx: tx, domain: domain, tenantID: tenant.id, userID: user.id, at: now)
            return .accepted(status)
        }
        switch attempt {
        case .accepted(let status)?:
            logger.info("recovery started", metadata: ["tenant": "\(tenant.name)", "recovery_id": "\(status.recoveryID)", "status": "\(status.status)"])
            return status
        case .locked?, .wrong?, nil:
            // Alike for a wrong code, a locked user and an unknown one: the answer does not
            // say whether the username exists.
            logger.info("recovery code refused", metadata: ["tenant": "\(tenant.name)"])
            throw wrong
        }
    }

    /// `POST {issuer}/recover/{id}` with the handle: where a recovery awaiting approval
    /// stands; once approved, the activation link (made now, given once).
    public func status(id: String, handle: String, tenant: TenantRecord, logger: Logger) async throws -> RecoveryStatus {
        guard tenant.recoveryCodes else { throw Self.notOffered(tenant) }
        let unknown = DomainError.notFound("recovery")
        let now = domain.epochNow()
        return try await domain.store.transaction { tx in
            guard let recovery = try await tx.recovery(id: id), recovery.tenantID == tenant.id, let digest = recovery.handleDigest,
                Secrets.constantTimeEquals(digest, Secrets.digest(handle))
            else { throw unknown }
            let expires = Date(timeIntervalSince1970: TimeInterval(recovery.expiresAt))
            guard recovery.expiresAt > now else { return RecoveryStatus(recoveryID: id, status: "expired", expiresAt: expires) }
            guard recovery.status == "approved" else { return RecoveryStatus(recoveryID: id, status: recovery.status, expiresAt: expires) }
            guard try await tx.moveRecovery(id: id, from: "approved", to: "used"), let user = try await tx.user(id: recovery.userID) else {
                return RecoveryStatus(recoveryID: id, status: "used", expiresAt: expires)
            }
            let url = try await Administration.writeInvitation(
                tx, domain: domain, user: user, tenant: tenant, email: nil, phone: nil, expiresAt: recovery.expiresAt, actor: .user(user.id),
                now: now, details: ["source": "recovery", "recovery_id": id])
            logger.info("recovery link given", metadata: ["tenant": "\(tenant.name)", "recovery_id": "\(id)"])
            return RecoveryStatus(recoveryID: id, status: "approved", url: url, expiresAt: expires)
        }
    }
}

extension Recovery {
    /// A user's recoveries, newest first (404 for a user of another tenant).
    package func list(userID: UserID, tenant: TenantRecord) async throws -> [RecoveryRecord] {
        try await domain.store.read { tx in
            guard let user = try await tx.user(id: userID), user.tenantID == tenant.id else {
                throw DomainError.notFound("user '\(userID.rawValue.prefix(64))'")
            }
            // Shown as they stand: one past its expiry reads expired.
            let now = domain.epochNow()
            return try await tx.recoveries(userID: user.id).map { recovery in
                var recovery = recovery
                if recovery.expiresAt <= now, ["emailed", "awaiting_approval", "approved"].contains(recovery.status) { recovery.status = "expired" }
                return recovery
            }
        }
    }

    /// An operator's approval of a recovery awaiting it (the user told them its id).
    package func approve(_ id: String, userID: UserID, tenant: TenantRecord, caller: AdminCaller, logger: Logger) async throws -> RecoveryRecord {
        let now = domain.epochNow()
        let approved = try await domain.store.transaction { tx -> RecoveryRecord in
            guard var recovery = try await tx.recovery(id: id), recovery.tenantID == tenant.id, recovery.userID == userID else {
                throw DomainError.notFound("recovery '\(id.prefix(64))'")
            }
            guard recovery.expiresAt > now else { throw DomainError.invalidRequest("the recovery has expired; the user starts another") }
            guard try await tx.moveRecovery(id: id, from: "awaiting_approval", to: "approved", approvedAt: now, approvedBy: caller.actor.text) else {
                throw DomainError.conflict("the recovery is not awaiting approval (it is \(recovery.status))")
            }
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .recoveryApprove, target: userID.rawValue, details: ["recovery_id": id],
                at: now)
            recovery.status = "approved"
            recovery.approvedAt = now
            recovery.approvedBy = caller.actor.text
            return recovery
        }
        logger.info("recovery approved", metadata: ["tenant": "\(tenant.name)", "recovery_id": "\(id)"])
        return approved
    }
}

extension Domain {
    public var recovery: Recovery { Recovery(domain: self) }
}
