import Crypto
import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore
import TesseraWebAuthn

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
            processPolicy: record.processPolicy.description, ssoLifetime: record.ssoLifetime, ssoPolicy: record.ssoPolicy?.description,
            sessionLifetime: Int(record.sessionLifetime), sessionIdleLifetime: Int(record.sessionIdleLifetime),
            historyRetention: Int(record.historyRetention), auditRetention: record.auditRetention.map(Int.init),
            accessTokenLifetime: Int(record.accessTokenLifetime), appLinks: record.appLinks.map(Components.Schemas.AppLinks.init),
            webauthnTrustAnchors: record.webAuthnTrustAnchors, webauthnRpId: domain.passkeys.relyingParty(for: record).id,
            dynamicRegistration: record.dynamicRegistration, androidAppsHostWide: record.androidAppsHostWide,
            invitationsByEmailOnly: record.invitationsByEmailOnly, inviteProvisionedUsers: record.inviteProvisionedUsers,
            recoveryCodes: record.recoveryCodes,
            notices: record.notices.compactMap(Components.Schemas.Tenant.NoticesPayloadPayload.init(rawValue:)),
            defaultLanguage: .init(rawValue: record.defaultLanguage) ?? .en, branding: brandingView(record),
            texts: .init(additionalProperties: record.texts.mapValues { .init(additionalProperties: $0) }))
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
                processPolicy: try input.processPolicy.map { try .documented($0, field: "process_policy") } ?? .standard,
                ssoLifetime: input.ssoLifetime ?? 0, ssoPolicy: try input.ssoPolicy.map { try .documented($0, field: "sso_policy") },
                createdAt: now))
        let key = try ServerSigningKey.generate(.es256)
        let sealed = try domain.box.seal(key.privateBytes, context: SealingContext.signingKey(kid: key.kid))
        try await domain.store.transaction { tx in
            if try await tx.tenant(named: input.name) != nil {
                throw DomainError(.conflict, .conflict, "a tenant named '\(input.name)' exists")
            }
            try await tx.insertTenant(tenant)
            try await tx.insertSigningKey(SigningKeyRecord(kid: key.kid, tenantID: tenant.id, sealedKey: sealed, active: true, createdAt: now))
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .tenantCreate, target: tenant.name,
                details: ["process_policy": tenant.processPolicy.description], at: now)
        }
        logger.info("tenant created", metadata: ["tenant": "\(tenant.name)"])
        return tenantView(tenant)
    }

    package func listTenants() async throws -> [Components.Schemas.Tenant] {
        let tenants = try await domain.store.read { try await $0.tenants() }
        return tenants.filter(caller.reaches).map(tenantView)
    }

    // MARK: Users and invitations

    package func createUser(_ input: Components.Schemas.CreateUser, tenant: TenantRecord, logger: Logger) async throws
        -> Components.Schemas.User
    {
        let attributes = try Self.checkNewUser(input.username, attributes: input.attributes?.additionalProperties ?? [:])
        let record = UserRecord(
            id: UserID(Secrets.identifier(byteCount: 12)), tenantID: tenant.id, username: input.username,
            attributes: attributes, createdAt: domain.epochNow())
        try await domain.store.transaction { tx in
            if try await tx.user(tenantID: tenant.id, username: input.username) != nil {
                throw DomainError(.conflict, .conflict, "the user exists in this tenant")
            }
            try await tx.insertUser(record)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .userCreate, target: record.id.rawValue,
                details: ["username": record.username, "attributes": attributes.keys.sorted().joined(separator: ",")], at: record.createdAt)
        }
        logger.info("user created", metadata: ["tenant": "\(tenant.name)", "user_id": "\(record.id)"])
        return Components.Schemas.User(record)
    }

    /// Writes an invitation for `user` in `tx`: sent to `email` or `phone` when given (the
    /// outbox sends it after the commit), audited as `invitation.create`. Returns its link.
    static func writeInvitation(
        _ tx: StoreTransaction, domain: Domain, user: UserRecord, tenant: TenantRecord, email: String?, phone: String?, expiresAt: Int64,
        actor: Audit.Actor, now: Int64, details extra: [String: String] = [:]
    ) async throws -> String {
        let code = Secrets.randomToken()
        let record = InvitationRecord(
            id: Secrets.identifier(byteCount: 12), tenantID: tenant.id, userID: user.id, codeDigest: Secrets.digest(code),
            pinSalt: Secrets.randomToken(byteCount: 16), expiresAt: expiresAt, usedAt: nil, createdAt: now)
        let url = "\(domain.issuer(forTenantNamed: tenant.name))/activate?code=\(code)"
        try await tx.insertInvitation(record)
        var details = extra.merging(["username": user.username, "invitation_id": record.id]) { $1 }
        let content = MessageContent(
            template: "invitation", tenant: tenant, values: ["link": url, "username": user.username, "expires_at": String(expiresAt)])
        if let email {
            details["deliver"] = "email"
            try await Messages.enqueue(tx, domain: domain, tenantID: tenant.id, channel: .email, recipient: email, content: content, at: now)
        }
        if let phone {
            details["deliver"] = "message"
            try await Messages.enqueue(tx, domain: domain, tenantID: tenant.id, channel: .message, recipient: phone, content: content, at: now)
        }
        try await Audit.record(tx, tenantID: tenant.id, actor: actor, action: .invitationCreate, target: user.id.rawValue, details: details, at: now)
        return url
    }

    /// A new user's username and attributes, or why they are not valid.
    static func checkNewUser(_ username: String, attributes: [String: String]) throws -> [String: String] {
        guard Validation.isUsername(username) else {
            throw DomainError.invalidRequest("a username is 1 to 128 characters without control characters or outer spaces")
        }
        guard attributes.count <= 64, attributes.keys.allSatisfy(Validation.isAttributeName),
            attributes.values.allSatisfy({ $0.count <= 1024 })
        else { throw DomainError.invalidRequest("attribute names are lower-case identifiers and values at most 1024 characters") }
        return attributes
    }

    package func invite(_ input: Components.Schemas.CreateInvitation, tenant: TenantRecord, logger: Logger) async throws
        -> Components.Schemas.Invitation
    {
        let lifetime = input.ttlSeconds.map(TimeInterval.init) ?? TimeInterval(domain.settings.invitationLifetime)
        guard (1...(30 * 86_400)).contains(lifetime) else { throw DomainError.invalidRequest("ttl_seconds must be between 1 and 2592000") }
        guard let user = try await domain.store.read({ try await $0.user(tenantID: tenant.id, username: input.username) }) else {
            throw DomainError.notFound("user '\(input.username.prefix(128))'")
        }
        // By e-mail (asked, or the tenant's rule): to the user's own address, and the link is in no answer.
        var email: String?
        if tenant.invitationsByEmailOnly, input.deliver == .link {
            throw DomainError.invalidRequest("deliver link: tenant '\(tenant.name)' sends invitations by e-mail only")
        }
        if input.deliver == .email || tenant.invitationsByEmailOnly {
            guard domain.settings.sendsEmail else {
                throw DomainError.invalidRequest("deliver email: this server sends no e-mail (it has no --smtp-url)")
            }
            guard let address = user.attributes["email"], !address.isEmpty else {
                throw DomainError.invalidRequest("deliver email: user '\(user.username.prefix(128))' has no email attribute")
            }
            guard let valid = Validation.emailAddress(address) else {
                throw DomainError.invalidRequest("deliver email: the email attribute of user '\(user.username.prefix(128))' is not an address")
            }
            email = valid
        }
        // To the message gateway: the user's phone number.
        var phone: String?
        if input.deliver == .message {
            guard domain.settings.sendsMessages else {
                throw DomainError.invalidRequest("deliver message: this server has no message gateway (--message-webhook)")
            }
            guard let number = user.attributes["phone_number"], !number.isEmpty else {
                throw DomainError.invalidRequest("deliver message: user '\(user.username.prefix(128))' has no phone_number attribute")
            }
            phone = number
        }
        let now = domain.now()
        let expiresAt = now.addingTimeInterval(lifetime)
        let url = try await domain.store.transaction { tx in
            try await Self.writeInvitation(
                tx, domain: domain, user: user, tenant: tenant, email: email, phone: phone, expiresAt: Int64(expiresAt.timeIntervalSince1970),
                actor: caller.actor, now: Int64(now.timeIntervalSince1970))
        }
        let deliver: Components.Schemas.Invitation.DeliverPayload = email != nil ? .email : phone != nil ? .message : .link
        logger.info("invitation created", metadata: ["tenant": "\(tenant.name)", "user_id": "\(user.id)", "deliver": "\(deliver.rawValue)"])
        return Components.Schemas.Invitation(
            url: deliver == .link ? url : nil, username: user.username, expiresAt: expiresAt.timeIntervalSince1970,
            deliver: deliver, email: email, phoneNumber: phone)
    }

    // MARK: Activations

    package func listActivations(username: String?, tenant: TenantRecord) async throws -> [Components.Schemas.Activation] {
        try await domain.store.read { tx in
            var userID: UserID?
            if let username {
                guard let user = try await tx.user(tenantID: tenant.id, username: username) else {
                    throw DomainError.notFound("user '\(username.prefix(128))'")
                }
                userID = user.id
            }
            var names: [UserID: String] = [:]
            var views: [Components.Schemas.Activation] = []
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
                views.append(
                    Components.Schemas.Activation(
                        activation, username: names[activation.userID] ?? "",
                        mergedUsers: try await tx.linkedUsers(activationID: activation.id).map(\.username)))
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

    package func unlock(activationID id: ActivationID, logger: Logger) async throws -> Components.Schemas.Activation {
        let now = domain.epochNow()
        let result: Components.Schemas.Activation = try await domain.store.transaction { tx in
            var activation = try await reachableActivation(id, tx: tx)
            guard try await tx.unlock(activationID: id) else { throw DomainError.notFound("activation") }
            try await Audit.record(
                tx, tenantID: activation.tenantID, actor: caller.actor, action: .activationUnlock, target: id.rawValue,
                details: ["failed_attempts": String(activation.failedAttempts)], at: now)
            activation.failures = FactorFailures()
            activation.lockedUntil = nil
            activation.permanentlyLocked = false
            return Components.Schemas.Activation(activation, username: try await tx.user(id: activation.userID)?.username ?? "")
        }
        logger.notice("activation unlocked by admin", metadata: ["activation_id": "\(id)"])
        return result
    }

    /// Removes an activation and its keys: its proofs and tokens are refused from now on.
    package func revoke(activationID id: ActivationID, logger: Logger) async throws -> Components.Schemas.Activation {
        let now = domain.epochNow()
        let result: Components.Schemas.Activation = try await domain.store.transaction { tx in
            let activation = try await reachableActivation(id, tx: tx)
            guard try await tx.deleteActivation(id: id, at: now) else { throw DomainError.notFound("activation") }
            try await Audit.record(
                tx, tenantID: activation.tenantID, actor: caller.actor, action: .activationRevoke, target: id.rawValue,
                details: ["user_id": activation.userID.rawValue, "alias": activation.alias ?? ""], at: now)
            try await Notices.send(
                .deviceRemoved, tx: tx, domain: domain, tenantID: activation.tenantID, userID: activation.userID,
                details: ["device": activation.alias ?? ""], at: now)
            var revoked = activation
            revoked.status = .revoked
            return Components.Schemas.Activation(revoked, username: try await tx.user(id: activation.userID)?.username ?? "")
        }
        logger.notice("activation revoked by admin", metadata: ["activation_id": "\(id)"])
        return result
    }

    // MARK: Audit

    /// The audit log, newest first: one tenant's or all (a tenant's key sees its own only),
    /// from `since`, with actions beginning `action`, by `actor`, at most `limit` entries.
    package func audit(tenant: TenantRecord?, since: Int64?, action: String? = nil, actor: String? = nil, limit: Int) async throws
        -> [Components.Schemas.AuditEntry]
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
        return entries.map { Components.Schemas.AuditEntry($0, tenant: $0.tenantID.flatMap { names[$0] }) }
    }

    // MARK: Feeds

    /// The audit log after `cursor` in commit order: every tenant's for a global caller
    /// (or `tenant`'s), a tenant's caller its own. Entries committed since the last read
    /// are numbered first (`StoreTransaction.sequenceFeed`).
    package func auditFeed(tenant: TenantRecord?, cursor: String?, limit: Int) async throws -> Components.Schemas.AuditFeedPage {
        let (tenantID, after) = try feedStart(tenant: tenant, cursor: cursor)
        let rows = try await feed(.audit) { tx in try await tx.auditFeed(after: after, tenantID: tenantID, limit: limit) }
        return .init(
            entries: rows.map { Components.Schemas.AuditEntry($0.entry, tenant: $0.tenantName) },
            nextCursor: String(rows.last?.entry.seq ?? after))
    }

    /// The authentication history after `cursor` in commit order, as `auditFeed`.
    package func historyFeed(tenant: TenantRecord?, cursor: String?, limit: Int) async throws -> Components.Schemas.HistoryFeedPage {
        let (tenantID, after) = try feedStart(tenant: tenant, cursor: cursor)
        let rows = try await feed(.history) { tx in try await tx.historyFeed(after: after, tenantID: tenantID, limit: limit) }
        return .init(
            entries: rows.map { Components.Schemas.HistoryEntry($0.entry, username: $0.username, tenant: $0.tenantName) },
            nextCursor: String(rows.last?.entry.seq ?? after))
    }

    /// The tenant a feed is narrowed to (the caller's own for a tenant's caller) and the
    /// number after which it starts: a cursor is the last `seq` of a page, none is 0.
    private func feedStart(tenant: TenantRecord?, cursor: String?) throws -> (TenantID?, Int64) {
        if let tenant { try caller.check(scope: tenant) }
        var after: Int64 = 0
        if let cursor {
            guard (1...20).contains(cursor.utf8.count), cursor.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int64(cursor) else {
                throw DomainError.invalidRequest("cursor is not one this server gave")
            }
            after = value
        }
        return (tenant?.id ?? caller.tenantID, after)
    }

    /// Numbers what committed since the last read (a write of its own, committed before
    /// the page is read), then reads the page.
    private func feed<R: Sendable>(_ table: FeedTable, _ read: (StoreTransaction) async throws -> R) async throws -> R {
        try await domain.store.transaction { tx in try await tx.sequenceFeed(table) }
        return try await domain.store.read(read)
    }
}

extension Components.Schemas.AuditEntry {
    init(_ entry: AuditRecord, tenant: String?) {
        self.init(
            id: entry.id, tenant: tenant, actor: entry.actor, action: entry.action, target: entry.target,
            details: .init(additionalProperties: entry.details), at: Double(entry.at), seq: entry.seq.map(Int.init),
            sourceAddress: entry.sourceAddress, userAgent: entry.userAgent, httpRequestId: entry.httpRequestID)
    }
}

extension Components.Schemas.HistoryEntry {
    init(_ record: HistoryRecord, username: String?, tenant: String? = nil) {
        self.init(
            id: record.id, userId: record.userID?.rawValue, username: username, activationId: record.activationID.rawValue,
            requestId: record.requestID.rawValue, service: record.service, purpose: record.purpose.rawValue,
            outcome: record.outcome.rawValue, factors: record.factors.map(\.rawValue), at: Double(record.at), tenant: tenant,
            seq: record.seq.map(Int.init), sourceAddress: record.sourceAddress, userAgent: record.userAgent,
            httpRequestId: record.httpRequestID)
    }
}

extension Components.Schemas.Activation {
    /// `mergedUsers`: the users merged into the activation by invitations (it signs in as them too).
    init(_ activation: ActivationRecord, username: String, mergedUsers: [String] = []) {
        self.init(
            id: activation.id.rawValue, username: username, alias: activation.alias,
            factors: activation.enrolledFactors.sorted().map(\.rawValue), status: activation.status.rawValue,
            failedAttempts: activation.failedAttempts, lockedUntil: activation.lockedUntil.map(Double.init),
            permanentlyLocked: activation.permanentlyLocked, createdAt: Double(activation.createdAt),
            lastUsedAt: activation.lastUsedAt.map(Double.init), mergedUsers: mergedUsers)
    }
}

extension Domain {
    /// The operator's use cases, done by `caller` (the bootstrap token unless said otherwise).
    public func administration(as caller: AdminCaller = .bootstrap) -> Administration { Administration(domain: self, caller: caller) }
}
