import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

extension Administration {
    // MARK: Users

    /// What `GET …/users` filters by: part of the username, an attribute's exact value,
    /// the cursor of the previous page.
    public struct UserQuery: Sendable {
        public var username: String?
        public var search: String?
        public var attribute: String?
        public var cursor: String?
        public var limit: Int

        public init(username: String?, search: String?, attribute: String?, cursor: String?, limit: Int) {
            self.username = username
            self.search = search
            self.attribute = attribute
            self.cursor = cursor
            self.limit = limit
        }
    }

    package func listUsers(_ query: UserQuery, tenant: TenantRecord) async throws -> Components.Schemas.UserPage {
        var filter = UserFilter(username: query.username, search: query.search)
        if let search = query.search, search.isEmpty || search.count > 128 {
            throw DomainError.invalidRequest("search is 1 to 128 characters")
        }
        if let attribute = query.attribute {
            guard let equals = attribute.firstIndex(of: "="), Validation.isAttributeName(String(attribute[..<equals])) else {
                throw DomainError.invalidRequest("attribute is name=value, with a lower-case attribute name")
            }
            filter.attribute = (String(attribute[..<equals]), String(attribute[attribute.index(after: equals)...]))
        }
        if let cursor = query.cursor {
            guard let data = Base64URL.decode(cursor), let username = String(data: data, encoding: .utf8) else {
                throw DomainError.invalidRequest("cursor is not one this server gave")
            }
            filter.after = username
        }
        let users = try await domain.store.read { try await $0.users(tenantID: tenant.id, filter: filter, limit: query.limit + 1) }
        let page = users.prefix(query.limit)
        let next = users.count > query.limit ? page.last.map { Base64URL.encode(Data($0.username.utf8)) } : nil
        // The store matches the attribute with LIKE, which ignores ASCII case on SQLite:
        // the value is compared exactly here (a page may hold fewer than `limit` users).
        let matching = page.filter { user in filter.attribute.map { user.attributes[$0.key] == $0.value } ?? true }
        return Components.Schemas.UserPage(users: matching.map(Components.Schemas.User.init), nextCursor: next)
    }

    /// The tenant's user with this id, or `not_found` (another tenant's too).
    func user(_ id: UserID, tenant: TenantRecord, tx: StoreTransaction) async throws -> UserRecord {
        guard let user = try await tx.user(id: id), user.tenantID == tenant.id else {
            throw DomainError.notFound("user '\(id.rawValue.prefix(64))'")
        }
        return user
    }

    package func getUser(_ id: UserID, tenant: TenantRecord) async throws -> Components.Schemas.UserDetail {
        let now = domain.epochNow()
        return try await domain.store.read { tx in
            let user = try await user(id, tenant: tenant, tx: tx)
            var activations: [Components.Schemas.Activation] = []
            for activation in try await tx.activations(tenantID: tenant.id, userID: user.id) {
                activations.append(
                    Components.Schemas.Activation(
                        activation, username: user.username, mergedUsers: try await tx.linkedUsers(activationID: activation.id).map(\.username)))
            }
            return Components.Schemas.UserDetail(
                user: Components.Schemas.User(user), activations: activations, sessions: try await sessionViews(of: user.id, tx: tx, now: now),
                securityKeys: try await tx.securityKeys(userID: user.id).map { try Components.Schemas.SecurityKey(SecurityKeyView($0)) })
        }
    }

    func sessionViews(of userID: UserID, tx: StoreTransaction, now: Int64) async throws -> [Components.Schemas.Session] {
        var services: [ServiceID: ServiceRecord?] = [:]
        var views: [Components.Schemas.Session] = []
        for session in try await tx.liveSessions(userID: userID, now: now) {
            if services[session.serviceID] == nil { services[session.serviceID] = .some(try await tx.service(id: session.serviceID)) }
            let service = services[session.serviceID] ?? nil
            views.append(
                Components.Schemas.Session(
                    id: session.id.rawValue, clientId: service?.clientID.rawValue, service: service?.name, factors: session.factors.map(\.rawValue),
                    activationId: session.activationID?.rawValue, createdAt: Double(session.createdAt),
                    lastRefreshedAt: Double(session.lastRefreshedAt),
                    expiresAt: Double(min(session.expiresAt, session.lastRefreshedAt + session.idleLifetime))))
        }
        return views
    }

    /// Replaces a user's attributes.
    package func updateUser(_ id: UserID, _ input: Components.Schemas.UpdateUser, tenant: TenantRecord, logger: Logger) async throws
        -> Components.Schemas.User
    {
        let attributes = input.attributes.additionalProperties
        try Self.checkAttributes(attributes)
        let now = domain.epochNow()
        let user: UserRecord = try await domain.store.transaction { tx in
            var user = try await self.user(id, tenant: tenant, tx: tx)
            user.attributes = attributes
            try await tx.updateUserAttributes(id: user.id, attributes: attributes)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .userUpdate, target: id.rawValue,
                details: ["attributes": attributes.keys.sorted().joined(separator: ",")], at: now)
            return user
        }
        logger.info("user updated", metadata: ["tenant": "\(tenant.name)", "user_id": "\(id)"])
        return Components.Schemas.User(user)
    }

    static func checkAttributes(_ attributes: [String: String]) throws {
        guard attributes.count <= 64, attributes.keys.allSatisfy(Validation.isAttributeName),
            attributes.values.allSatisfy({ $0.count <= 1024 })
        else { throw DomainError.invalidRequest("attribute names are lower-case identifiers and values at most 1024 characters") }
    }

    /// Disables a user: every session ends, open requests for them end, and no device
    /// logs them in or starts a session until they are enabled again. Or enables them.
    package func setDisabled(_ disabled: Bool, user id: UserID, tenant: TenantRecord, logger: Logger) async throws
        -> Components.Schemas.User
    {
        let now = domain.epochNow()
        let user: UserRecord = try await domain.store.transaction { tx in
            var user = try await self.user(id, tenant: tenant, tx: tx)
            let details = try await Self.setDisabled(disabled, user: &user, tx: tx, now: now)
            try await tx.setUserDisabled(id: id, at: user.disabledAt)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: disabled ? .userDisable : .userEnable, target: id.rawValue,
                details: details, at: now)
            return user
        }
        logger.info(disabled ? "user disabled" : "user enabled", metadata: ["tenant": "\(tenant.name)", "user_id": "\(id)"])
        return Components.Schemas.User(user)
    }

    /// Marks the user disabled (keeping an earlier time) or enabled; disabling ends their
    /// sessions, single sign-on and open requests at once. The audit details; the caller
    /// writes the user.
    static func setDisabled(_ disabled: Bool, user: inout UserRecord, tx: StoreTransaction, now: Int64) async throws -> [String: String] {
        user.disabledAt = disabled ? (user.disabledAt ?? now) : nil
        guard disabled else { return [:] }
        let ended = try await tx.endSessions(.user(user.id), reason: .userRemoved, at: now)
        try await tx.endSSOSessions(userID: user.id)
        try await tx.expireOpenRequests(userID: user.id)
        return ["sessions_ended": String(ended)]
    }

    /// Removes a user with their devices, sessions, invitations and history (the audit
    /// log keeps that it happened).
    public func deleteUser(_ id: UserID, tenant: TenantRecord, logger: Logger) async throws {
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            let user = try await user(id, tenant: tenant, tx: tx)
            let ended = try await tx.endSessions(.user(id), reason: .userRemoved, at: now)
            try await tx.deleteUser(id: id, now: now)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .userDelete, target: id.rawValue,
                details: ["username": user.username, "sessions_ended": String(ended)], at: now)
        }
        logger.info("user deleted", metadata: ["tenant": "\(tenant.name)", "user_id": "\(id)"])
    }

    // MARK: Invitations

    /// Open invitations: `invitation` from an operator, `activation_data` from a device's account process.
    package func listInvitations(tenant: TenantRecord) async throws -> [Components.Schemas.OpenInvitation] {
        let now = domain.epochNow()
        return try await domain.store.read { tx in
            var names: [UserID: String] = [:]
            var views: [Components.Schemas.OpenInvitation] = []
            for invitation in try await tx.openInvitations(tenantID: tenant.id, now: now) {
                if names[invitation.userID] == nil { names[invitation.userID] = try await tx.user(id: invitation.userID)?.username ?? "" }
                views.append(
                    Components.Schemas.OpenInvitation(
                        id: invitation.id, userId: invitation.userID.rawValue, username: names[invitation.userID] ?? "",
                        kind: invitation.createdByActivationID == nil ? .invitation : .activationData,
                        createdAt: Double(invitation.createdAt), expiresAt: Double(invitation.expiresAt)))
            }
            return views
        }
    }

    /// Ends an open invitation (or activation data) now: its link no longer activates.
    public func revokeInvitation(_ id: String, tenant: TenantRecord, logger: Logger) async throws {
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            guard let invitation = try await tx.invitation(id: id), invitation.tenantID == tenant.id else {
                throw DomainError.notFound("invitation '\(id.prefix(64))'")
            }
            guard try await tx.revokeInvitation(id: id, now: now) else {
                throw DomainError.conflict("the invitation was used or has expired")
            }
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .invitationRevoke, target: id,
                details: ["user_id": invitation.userID.rawValue], at: now)
        }
        logger.info("invitation revoked", metadata: ["tenant": "\(tenant.name)"])
    }

    // MARK: Sessions

    package func listSessions(user id: UserID, tenant: TenantRecord) async throws -> [Components.Schemas.Session] {
        let now = domain.epochNow()
        return try await domain.store.read { tx in
            _ = try await user(id, tenant: tenant, tx: tx)
            return try await sessionViews(of: id, tx: tx, now: now)
        }
    }

    /// Ends one session: its refresh tokens are refused and its access tokens inactive.
    public func endSession(_ id: SessionID, tenant: TenantRecord, logger: Logger) async throws {
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            guard let session = try await tx.session(id: id), session.tenantID == tenant.id else {
                throw DomainError.notFound("session '\(id.rawValue.prefix(64))'")
            }
            guard try await tx.endSessions(.session(id), reason: .revoked, at: now) == 1 else {
                throw DomainError.conflict("the session has ended already")
            }
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .sessionEnd, target: id.rawValue,
                details: ["user_id": session.userID.rawValue], at: now)
        }
        logger.info("session ended", metadata: ["tenant": "\(tenant.name)"])
    }

    /// Ends every session of a user; returns how many ended.
    public func endSessions(user id: UserID, tenant: TenantRecord, logger: Logger) async throws -> Int {
        let now = domain.epochNow()
        let ended = try await domain.store.transaction { tx in
            _ = try await user(id, tenant: tenant, tx: tx)
            let ended = try await tx.endSessions(.user(id), reason: .revoked, at: now)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .sessionEndAll, target: id.rawValue,
                details: ["sessions_ended": String(ended)], at: now)
            return ended
        }
        logger.info("sessions ended", metadata: ["tenant": "\(tenant.name)", "count": "\(ended)"])
        return ended
    }

    // MARK: History

    public struct HistoryQuery: Sendable {
        public var username: String?
        public var activationID: ActivationID?
        public var service: String?
        public var outcome: String?
        public var since: Int64?
        public var until: Int64?
        public var cursor: String?
        public var limit: Int

        public init(
            username: String?, activationID: ActivationID?, service: String?, outcome: String?, since: Int64?, until: Int64?,
            cursor: String?, limit: Int
        ) {
            self.username = username
            self.activationID = activationID
            self.service = service
            self.outcome = outcome
            self.since = since
            self.until = until
            self.cursor = cursor
            self.limit = limit
        }
    }

    package func history(_ query: HistoryQuery, tenant: TenantRecord) async throws -> Components.Schemas.HistoryPage {
        var filter = HistoryFilter(activationID: query.activationID, service: query.service, since: query.since, until: query.until)
        if let outcome = query.outcome {
            guard let value = AttemptOutcome(rawValue: outcome) else {
                throw DomainError.invalidRequest("outcome is one of \(AttemptOutcome.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            filter.outcome = value
        }
        if let cursor = query.cursor {
            guard let data = Base64URL.decode(cursor), let text = String(data: data, encoding: .utf8),
                let colon = text.firstIndex(of: ":"), let at = Int64(text[..<colon])
            else { throw DomainError.invalidRequest("cursor is not one this server gave") }
            filter.before = (at, String(text[text.index(after: colon)...]))
        }
        return try await domain.store.read { tx in
            if let username = query.username {
                guard let user = try await tx.user(tenantID: tenant.id, username: username) else {
                    throw DomainError.notFound("user '\(username.prefix(128))'")
                }
                filter.userID = user.id
            }
            let records = try await tx.history(tenantID: tenant.id, filter: filter, limit: query.limit + 1)
            let page = records.prefix(query.limit)
            var names: [UserID: String] = [:]
            var entries: [Components.Schemas.HistoryEntry] = []
            for record in page {
                if let userID = record.userID, names[userID] == nil { names[userID] = try await tx.user(id: userID)?.username }
                entries.append(Components.Schemas.HistoryEntry(record, username: record.userID.flatMap { names[$0] }))
            }
            let next = records.count > query.limit ? page.last.map { Base64URL.encode(Data("\($0.at):\($0.id)".utf8)) } : nil
            return Components.Schemas.HistoryPage(entries: entries, nextCursor: next)
        }
    }
}

extension Components.Schemas.User {
    init(_ user: UserRecord) {
        self.init(
            id: user.id.rawValue, username: user.username, attributes: .init(additionalProperties: user.attributes),
            disabled: user.disabledAt != nil, createdAt: Double(user.createdAt))
    }
}
