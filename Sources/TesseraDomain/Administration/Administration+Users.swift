import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraStore

extension Administration {
    // MARK: Users

    public struct UserPage: Codable, Sendable {
        public let users: [UserView]
        /// Pass as `cursor` for the next page; absent on the last page.
        public let nextCursor: String?

        enum CodingKeys: String, CodingKey {
            case users
            case nextCursor = "next_cursor"
        }
    }

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

    public func listUsers(_ query: UserQuery, tenant: TenantRecord) async throws -> UserPage {
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
        return UserPage(users: matching.map(UserView.init), nextCursor: next)
    }

    /// The tenant's user with this id, or `not_found` (another tenant's too).
    func user(_ id: UserID, tenant: TenantRecord, tx: StoreTransaction) async throws -> UserRecord {
        guard let user = try await tx.user(id: id), user.tenantID == tenant.id else {
            throw DomainError.notFound("user '\(id.rawValue.prefix(64))'")
        }
        return user
    }

    public struct SessionView: Codable, Sendable {
        public let id: SessionID
        public let clientID: ClientID?
        public let service: String?
        public let factors: [FactorType]
        public let activationID: ActivationID?
        public let createdAt: Date
        public let lastRefreshedAt: Date
        public let expiresAt: Date

        enum CodingKeys: String, CodingKey {
            case id, service, factors
            case clientID = "client_id"
            case activationID = "activation_id"
            case createdAt = "created_at"
            case lastRefreshedAt = "last_refreshed_at"
            case expiresAt = "expires_at"
        }
    }

    public struct UserDetail: Codable, Sendable {
        public let user: UserView
        public let activations: [ActivationView]
        public let sessions: [SessionView]
        public let securityKeys: [SecurityKeyView]

        enum CodingKeys: String, CodingKey {
            case user, activations, sessions
            case securityKeys = "security_keys"
        }
    }

    public func getUser(_ id: UserID, tenant: TenantRecord) async throws -> UserDetail {
        let now = domain.epochNow()
        return try await domain.store.read { tx in
            let user = try await user(id, tenant: tenant, tx: tx)
            var activations: [ActivationView] = []
            for activation in try await tx.activations(tenantID: tenant.id, userID: user.id) {
                var entry = view(activation, username: user.username)
                entry.mergedUsers = try await tx.linkedUsers(activationID: activation.id).map(\.username)
                activations.append(entry)
            }
            return UserDetail(
                user: UserView(user), activations: activations, sessions: try await sessionViews(of: user.id, tx: tx, now: now),
                securityKeys: try await tx.securityKeys(userID: user.id).map(SecurityKeyView.init))
        }
    }

    func sessionViews(of userID: UserID, tx: StoreTransaction, now: Int64) async throws -> [SessionView] {
        var services: [ServiceID: ServiceRecord?] = [:]
        var views: [SessionView] = []
        for session in try await tx.liveSessions(userID: userID, now: now) {
            if services[session.serviceID] == nil { services[session.serviceID] = .some(try await tx.service(id: session.serviceID)) }
            let service = services[session.serviceID] ?? nil
            views.append(
                SessionView(
                    id: session.id, clientID: service?.clientID, service: service?.name, factors: session.factors,
                    activationID: session.activationID, createdAt: Date(timeIntervalSince1970: TimeInterval(session.createdAt)),
                    lastRefreshedAt: Date(timeIntervalSince1970: TimeInterval(session.lastRefreshedAt)),
                    expiresAt: Date(timeIntervalSince1970: TimeInterval(min(session.expiresAt, session.lastRefreshedAt + session.idleLifetime)))))
        }
        return views
    }

    public struct UpdateUser: Codable, Sendable {
        let attributes: [String: String]

        public init(attributes: [String: String]) { self.attributes = attributes }
    }

    /// Replaces a user's attributes.
    public func updateUser(_ id: UserID, _ input: UpdateUser, tenant: TenantRecord, logger: Logger) async throws -> UserView {
        try Self.checkAttributes(input.attributes)
        let now = domain.epochNow()
        let user: UserRecord = try await domain.store.transaction { tx in
            var user = try await self.user(id, tenant: tenant, tx: tx)
            user.attributes = input.attributes
            try await tx.updateUserAttributes(id: user.id, attributes: input.attributes)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: "user.update", target: id.rawValue,
                details: ["attributes": input.attributes.keys.sorted().joined(separator: ",")], at: now)
            return user
        }
        logger.info("user updated", metadata: ["tenant": "\(tenant.name)", "user_id": "\(id)"])
        return UserView(user)
    }

    static func checkAttributes(_ attributes: [String: String]) throws {
        guard attributes.count <= 64, attributes.keys.allSatisfy(Validation.isAttributeName),
            attributes.values.allSatisfy({ $0.count <= 1024 })
        else { throw DomainError.invalidRequest("attribute names are lower-case identifiers and values at most 1024 characters") }
    }

    /// Disables a user: every session ends, open requests for them end, and no device
    /// logs them in or starts a session until they are enabled again. Or enables them.
    public func setDisabled(_ disabled: Bool, user id: UserID, tenant: TenantRecord, logger: Logger) async throws -> UserView {
        let now = domain.epochNow()
        let user: UserRecord = try await domain.store.transaction { tx in
            var user = try await self.user(id, tenant: tenant, tx: tx)
            user.disabledAt = disabled ? (user.disabledAt ?? now) : nil
            try await tx.setUserDisabled(id: id, at: user.disabledAt)
            var details: [String: String] = [:]
            if disabled {
                details["sessions_ended"] = String(try await tx.endSessions(.user(id), reason: .userRemoved, at: now))
                try await tx.endSSOSessions(userID: id)
                try await tx.expireOpenRequests(userID: id)
            }
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: disabled ? "user.disable" : "user.enable", target: id.rawValue,
                details: details, at: now)
            return user
        }
        logger.info(disabled ? "user disabled" : "user enabled", metadata: ["tenant": "\(tenant.name)", "user_id": "\(id)"])
        return UserView(user)
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
                tx, tenantID: tenant.id, actor: caller.actor, action: "user.delete", target: id.rawValue,
                details: ["username": user.username, "sessions_ended": String(ended)], at: now)
        }
        logger.info("user deleted", metadata: ["tenant": "\(tenant.name)", "user_id": "\(id)"])
    }

    // MARK: Invitations

    public struct OpenInvitation: Codable, Sendable {
        public let id: String
        public let userID: UserID
        public let username: String
        /// `invitation` from an operator, `activation_data` from a device's account process.
        public let kind: String
        public let createdAt: Date
        public let expiresAt: Date

        enum CodingKeys: String, CodingKey {
            case id, username, kind
            case userID = "user_id"
            case createdAt = "created_at"
            case expiresAt = "expires_at"
        }
    }

    public func listInvitations(tenant: TenantRecord) async throws -> [OpenInvitation] {
        let now = domain.epochNow()
        return try await domain.store.read { tx in
            var names: [UserID: String] = [:]
            var views: [OpenInvitation] = []
            for invitation in try await tx.openInvitations(tenantID: tenant.id, now: now) {
                if names[invitation.userID] == nil { names[invitation.userID] = try await tx.user(id: invitation.userID)?.username ?? "" }
                views.append(
                    OpenInvitation(
                        id: invitation.id, userID: invitation.userID, username: names[invitation.userID] ?? "",
                        kind: invitation.createdByActivationID == nil ? "invitation" : "activation_data",
                        createdAt: Date(timeIntervalSince1970: TimeInterval(invitation.createdAt)),
                        expiresAt: Date(timeIntervalSince1970: TimeInterval(invitation.expiresAt))))
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
                tx, tenantID: tenant.id, actor: caller.actor, action: "invitation.revoke", target: id,
                details: ["user_id": invitation.userID.rawValue], at: now)
        }
        logger.info("invitation revoked", metadata: ["tenant": "\(tenant.name)"])
    }

    // MARK: Sessions

    public func listSessions(user id: UserID, tenant: TenantRecord) async throws -> [SessionView] {
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
                tx, tenantID: tenant.id, actor: caller.actor, action: "session.end", target: id.rawValue,
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
                tx, tenantID: tenant.id, actor: caller.actor, action: "session.end_all", target: id.rawValue,
                details: ["sessions_ended": String(ended)], at: now)
            return ended
        }
        logger.info("sessions ended", metadata: ["tenant": "\(tenant.name)", "count": "\(ended)"])
        return ended
    }

    // MARK: History

    public struct HistoryView: Codable, Sendable {
        public let id: String
        public let userID: UserID?
        public let username: String?
        public let activationID: ActivationID
        public let requestID: RequestID
        public let service: String?
        public let purpose: AuthenticationPurpose
        public let outcome: AttemptOutcome
        public let factors: [FactorType]
        public let at: Date

        enum CodingKeys: String, CodingKey {
            case id, username, service, purpose, outcome, factors, at
            case userID = "user_id"
            case activationID = "activation_id"
            case requestID = "request_id"
        }
    }

    public struct HistoryPage: Codable, Sendable {
        public let entries: [HistoryView]
        public let nextCursor: String?

        enum CodingKeys: String, CodingKey {
            case entries
            case nextCursor = "next_cursor"
        }
    }

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

    public func history(_ query: HistoryQuery, tenant: TenantRecord) async throws -> HistoryPage {
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
            var entries: [HistoryView] = []
            for record in page {
                if let userID = record.userID, names[userID] == nil { names[userID] = try await tx.user(id: userID)?.username }
                entries.append(
                    HistoryView(
                        id: record.id, userID: record.userID, username: record.userID.flatMap { names[$0] }, activationID: record.activationID,
                        requestID: record.requestID, service: record.service, purpose: record.purpose, outcome: record.outcome,
                        factors: record.factors, at: Date(timeIntervalSince1970: TimeInterval(record.at))))
            }
            let next = records.count > query.limit ? page.last.map { Base64URL.encode(Data("\($0.at):\($0.id)".utf8)) } : nil
            return HistoryPage(entries: entries, nextCursor: next)
        }
    }
}
