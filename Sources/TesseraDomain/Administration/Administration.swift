import Crypto
import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraStore

/// What an operator does through the admin API: tenants, services, users, invitations,
/// activations (list, unlock, revoke), signing keys and the audit log. Every change is
/// audited in its own transaction.
public struct Administration: Sendable {
    let domain: Domain
    /// Who calls: audited as the actor, and its tenant (if any) is the only one it reaches.
    public let caller: AdminCaller

    // MARK: Tenants

    /// The longest single sign-on session a tenant may have: one day.
    public static let maximumSSOLifetime = 86_400

    package func tenantView(_ record: TenantRecord) -> Components.Schemas.Tenant {
        Components.Schemas.Tenant(
            id: record.id.rawValue, name: record.name, issuer: domain.issuer(forTenantNamed: record.name), lockout: .init(record.lockoutPolicy),
            processPolicy: record.processPolicy, ssoLifetime: record.ssoLifetime, ssoPolicy: record.ssoPolicy,
            sessionLifetime: Int(record.sessionLifetime), sessionIdleLifetime: Int(record.sessionIdleLifetime),
            historyRetention: Int(record.historyRetention), auditRetention: record.auditRetention.map(Int.init),
            accessTokenLifetime: Int(record.accessTokenLifetime), appLinks: record.appLinks.map(Components.Schemas.AppLinks.init),
            webauthnTrustAnchors: record.webAuthnTrustAnchors, webauthnRpId: domain.passkeys.relyingParty(for: record).id,
            dynamicRegistration: record.dynamicRegistration, androidAppsHostWide: record.androidAppsHostWide)
    }

    package func createTenant(_ input: TenantCreation, logger: Logger) async throws -> Components.Schemas.Tenant {
        guard Validation.isTenantName(input.name) else {
            throw DomainError.invalidRequest("a tenant name is 1 to 63 characters of a-z, 0-9 and '-', not starting with '-'")
        }
        let lockout = try input.lockout.map(LockoutPolicy.documented)
        try Self.checkFloors(lockout)
        let now = domain.epochNow()
        let tenant = try Self.checkedSettings(
            TenantRecord(
                id: TenantID(Secrets.identifier(byteCount: 12)), name: input.name, lockoutPolicy: lockout ?? .standard,
                processPolicy: input.processPolicy ?? AuthenticatorPolicy.accountProcessDefault, ssoLifetime: input.ssoLifetime ?? 0,
                ssoPolicy: input.ssoPolicy ?? ((input.ssoLifetime ?? 0) > 0 ? "device" : nil), createdAt: now))
        let key = try ServerSigningKey.generate(.es256)
        let sealed = try domain.box.seal(key.privateBytes, context: SealingContext.signingKey(kid: key.kid))
        try await domain.store.transaction { tx in
            if try await tx.tenant(named: input.name) != nil {
                throw DomainError(.conflict, .conflict, "a tenant named '\(input.name)' exists")
            }
            try await tx.insertTenant(tenant)
            try await tx.insertSigningKey(SigningKeyRecord(kid: key.kid, tenantID: tenant.id, sealedKey: sealed, active: true, createdAt: now))
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: "tenant.create", target: tenant.name,
                details: ["process_policy": tenant.processPolicy], at: now)
        }
        logger.info("tenant created", metadata: ["tenant": "\(tenant.name)"])
        return tenantView(tenant)
    }

    package func listTenants() async throws -> [Components.Schemas.Tenant] {
        let tenants = try await domain.store.read { try await $0.tenants() }
        return tenants.filter(caller.reaches).map(tenantView)
    }

    // MARK: Users and invitations

    public struct CreateUser: Codable, Sendable {
        let username: String
        let attributes: [String: String]?

        public init(username: String, attributes: [String: String]?) {
            self.username = username
            self.attributes = attributes
        }
    }

    public struct UserView: Codable, Sendable {
        public let id: UserID
        public let username: String
        public let attributes: [String: String]
        public let disabled: Bool
        public let createdAt: Date

        enum CodingKeys: String, CodingKey {
            case id, username, attributes, disabled
            case createdAt = "created_at"
        }

        init(_ user: UserRecord) {
            id = user.id
            username = user.username
            attributes = user.attributes
            disabled = user.disabledAt != nil
            createdAt = Date(timeIntervalSince1970: TimeInterval(user.createdAt))
        }
    }

    public func createUser(_ input: CreateUser, tenant: TenantRecord, logger: Logger) async throws -> UserView {
        guard Validation.isUsername(input.username) else {
            throw DomainError.invalidRequest("a username is 1 to 128 characters without control characters or outer spaces")
        }
        let attributes = input.attributes ?? [:]
        guard attributes.count <= 64, attributes.keys.allSatisfy(Validation.isAttributeName),
            attributes.values.allSatisfy({ $0.count <= 1024 })
        else { throw DomainError.invalidRequest("attribute names are lower-case identifiers and values at most 1024 characters") }
        let record = UserRecord(
            id: UserID(Secrets.identifier(byteCount: 12)), tenantID: tenant.id, username: input.username,
            attributes: attributes, createdAt: domain.epochNow())
        try await domain.store.transaction { tx in
            if try await tx.user(tenantID: tenant.id, username: input.username) != nil {
                throw DomainError(.conflict, .conflict, "the user exists in this tenant")
            }
            try await tx.insertUser(record)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: "user.create", target: record.id.rawValue,
                details: ["username": record.username, "attributes": attributes.keys.sorted().joined(separator: ",")], at: record.createdAt)
        }
        logger.info("user created", metadata: ["tenant": "\(tenant.name)", "user_id": "\(record.id)"])
        return UserView(record)
    }

    public struct CreateInvitation: Codable, Sendable {
        let username: String
        let ttlSeconds: Int?

        public init(username: String, ttlSeconds: Int?) {
            self.username = username
            self.ttlSeconds = ttlSeconds
        }

        enum CodingKeys: String, CodingKey {
            case username
            case ttlSeconds = "ttl_seconds"
        }
    }

    public struct InvitationView: Codable, Sendable {
        public let url: String
        public let username: String
        public let expiresAt: Date
        enum CodingKeys: String, CodingKey {
            case url, username
            case expiresAt = "expires_at"
        }
    }

    public func invite(_ input: CreateInvitation, tenant: TenantRecord, logger: Logger) async throws -> InvitationView {
        let lifetime = input.ttlSeconds.map(TimeInterval.init) ?? TimeInterval(domain.settings.invitationLifetime)
        guard (1...(30 * 86_400)).contains(lifetime) else { throw DomainError.invalidRequest("ttl_seconds must be between 1 and 2592000") }
        guard let user = try await domain.store.read({ try await $0.user(tenantID: tenant.id, username: input.username) }) else {
            throw DomainError.notFound("user '\(input.username.prefix(128))'")
        }
        let code = Secrets.randomToken()
        let now = domain.now()
        let expiresAt = now.addingTimeInterval(lifetime)
        let record = InvitationRecord(
            id: Secrets.identifier(byteCount: 12), tenantID: tenant.id, userID: user.id, codeDigest: Secrets.digest(code),
            pinSalt: Secrets.randomToken(byteCount: 16), expiresAt: Int64(expiresAt.timeIntervalSince1970), usedAt: nil,
            createdAt: Int64(now.timeIntervalSince1970))
        try await domain.store.transaction { tx in
            try await tx.insertInvitation(record)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: "invitation.create", target: user.id.rawValue,
                details: ["username": user.username, "invitation_id": record.id], at: record.createdAt)
        }
        logger.info("invitation created", metadata: ["tenant": "\(tenant.name)", "user_id": "\(user.id)"])
        let url = "\(domain.issuer(forTenantNamed: tenant.name))/activate?code=\(code)"
        return InvitationView(url: url, username: user.username, expiresAt: expiresAt)
    }

    // MARK: Activations

    public struct ActivationView: Codable, Sendable {
        public let id: ActivationID
        public let username: String
        public let alias: String?
        public let factors: [FactorType]
        public let status: String
        public let failedAttempts: Int
        public let lockedUntil: Date?
        public let permanentlyLocked: Bool
        public let createdAt: Date
        public let lastUsedAt: Date?
        /// Users merged into this activation by invitations: it signs in as them too.
        public var mergedUsers: [String] = []

        enum CodingKeys: String, CodingKey {
            case id, username, alias, factors, status
            case mergedUsers = "merged_users"
            case failedAttempts = "failed_attempts"
            case lockedUntil = "locked_until"
            case permanentlyLocked = "permanently_locked"
            case createdAt = "created_at"
            case lastUsedAt = "last_used_at"
        }
    }

    func view(_ activation: ActivationRecord, username: String) -> ActivationView {
        ActivationView(
            id: activation.id, username: username, alias: activation.alias, factors: activation.enrolledFactors.sorted(),
            status: activation.status.rawValue, failedAttempts: activation.failedAttempts,
            lockedUntil: activation.lockedUntil.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            permanentlyLocked: activation.permanentlyLocked,
            createdAt: Date(timeIntervalSince1970: TimeInterval(activation.createdAt)),
            lastUsedAt: activation.lastUsedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }

    public func listActivations(username: String?, tenant: TenantRecord) async throws -> [ActivationView] {
        try await domain.store.read { tx in
            var userID: UserID?
            if let username {
                guard let user = try await tx.user(tenantID: tenant.id, username: username) else {
                    throw DomainError.notFound("user '\(username.prefix(128))'")
                }
                userID = user.id
            }
            var names: [UserID: String] = [:]
            var views: [ActivationView] = []
            var activations = try await tx.activations(tenantID: tenant.id, userID: userID)
            // Activations merged with the user stand for it too: list them, so they can be revoked.
            if let userID {
                for id in try await tx.activationIDs(linkedTo: userID) where !activations.contains(where: { $0.id == id }) {
                    if let merged = try await tx.activation(id: id) { activations.append(merged) }
                }
            }
            for activation in activations {
                if names[activation.userID] == nil {
                    names[activation.userID] = try await tx.user(id: activation.userID)?.username ?? ""
                }
                var entry = view(activation, username: names[activation.userID] ?? "")
                entry.mergedUsers = try await tx.linkedUsers(activationID: activation.id).map(\.username)
                views.append(entry)
            }
            return views
        }
    }

    /// The activation, if its tenant is one the caller may act on: another tenant's is as
    /// unknown as a missing one, and an operator's device needs a global admin.
    func reachableActivation(_ id: ActivationID, tx: StoreTransaction) async throws -> ActivationRecord {
        guard let activation = try await tx.activation(id: id), let tenant = try await tx.tenant(id: activation.tenantID) else {
            throw DomainError.notFound("activation")
        }
        // An id names no tenant: one the caller does not reach is not found, whether it is
        // another tenant's or a console operator's (which only a global admin reaches).
        guard caller.reaches(tenant) else { throw DomainError.notFound("activation") }
        return activation
    }

    public func unlock(activationID id: ActivationID, logger: Logger) async throws -> ActivationView {
        let now = domain.epochNow()
        let result: ActivationView = try await domain.store.transaction { tx in
            var activation = try await reachableActivation(id, tx: tx)
            guard try await tx.unlock(activationID: id) else { throw DomainError.notFound("activation") }
            try await Audit.record(
                tx, tenantID: activation.tenantID, actor: caller.actor, action: "activation.unlock", target: id.rawValue,
                details: ["failed_attempts": String(activation.failedAttempts)], at: now)
            activation.failures = FactorFailures()
            activation.lockedUntil = nil
            activation.permanentlyLocked = false
            return view(activation, username: try await tx.user(id: activation.userID)?.username ?? "")
        }
        logger.notice("activation unlocked by admin", metadata: ["activation_id": "\(id)"])
        return result
    }

    /// Removes an activation and its keys: its proofs and tokens are refused from now on.
    public func revoke(activationID id: ActivationID, logger: Logger) async throws -> ActivationView {
        let now = domain.epochNow()
        let result: ActivationView = try await domain.store.transaction { tx in
            let activation = try await reachableActivation(id, tx: tx)
            guard try await tx.deleteActivation(id: id, at: now) else { throw DomainError.notFound("activation") }
            try await Audit.record(
                tx, tenantID: activation.tenantID, actor: caller.actor, action: "activation.revoke", target: id.rawValue,
                details: ["user_id": activation.userID.rawValue, "alias": activation.alias ?? ""], at: now)
            var revoked = activation
            revoked.status = .revoked
            return view(revoked, username: try await tx.user(id: activation.userID)?.username ?? "")
        }
        logger.notice("activation revoked by admin", metadata: ["activation_id": "\(id)"])
        return result
    }

    // MARK: Audit

    public struct AuditView: Codable, Sendable {
        public let id: String
        public let tenant: String?
        public let actor: String
        public let action: String
        public let target: String?
        public let details: [String: String]
        public let at: Date
    }

    /// The audit log, newest first: one tenant's or all (a tenant's key sees its own only),
    /// from `since`, with actions beginning `action`, by `actor`, at most `limit` entries.
    public func audit(tenant: TenantRecord?, since: Int64?, action: String? = nil, actor: String? = nil, limit: Int) async throws
        -> [AuditView]
    {
        if let tenant { try caller.check(scope: tenant) }
        guard (action?.count ?? 0) <= 64, (actor?.count ?? 0) <= 200 else {
            throw DomainError.invalidRequest("action is at most 64 characters and actor at most 200")
        }
        let tenantID = tenant?.id ?? caller.tenantID
        let (entries, tenants) = try await domain.store.read { tx in
            (
                try await tx.audit(tenantID: tenantID, since: since, actionPrefix: action, actor: actor, limit: limit),
                try await tx.tenants()
            )
        }
        let names = Dictionary(uniqueKeysWithValues: tenants.map { ($0.id, $0.name) })
        return entries.map { entry in
            AuditView(
                id: entry.id, tenant: entry.tenantID.flatMap { names[$0] }, actor: entry.actor, action: entry.action,
                target: entry.target, details: entry.details,
                at: Date(timeIntervalSince1970: TimeInterval(entry.at)))
        }
    }
}

extension Domain {
    /// The operator's use cases, done by `caller` (the bootstrap token unless said otherwise).
    public func administration(as caller: AdminCaller = .bootstrap) -> Administration { Administration(domain: self, caller: caller) }
}
