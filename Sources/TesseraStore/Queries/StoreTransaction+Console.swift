import Foundation
import SQLKit
import TesseraCore

/// An operator of the web console: a user of the operators' tenant with a role, and
/// perhaps one tenant it is limited to (as an admin API key is).
public struct ConsoleOperatorRecord: Codable, Sendable {
    public var userID: UserID
    public var tenantID: TenantID
    public var role: AdminRole
    public var scopeTenantID: TenantID?
    public var createdAt: Int64

    public init(userID: UserID, tenantID: TenantID, role: AdminRole, scopeTenantID: TenantID?, createdAt: Int64) {
        self.userID = userID
        self.tenantID = tenantID
        self.role = role
        self.scopeTenantID = scopeTenantID
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case role
        case userID = "user_id"
        case tenantID = "tenant_id"
        case scopeTenantID = "scope_tenant_id"
        case createdAt = "created_at"
    }
}

/// Which pages a browser session opens.
public enum WebSessionKind: String, Codable, Sendable {
    /// The operators' console at `/console`.
    case console
    /// A user's account page at `/t/{tenant}/account`.
    case account
}

/// A browser's session of the console or the account page. The cookie holds a secret;
/// the row its digest. It lives while its own lifetimes last and the OpenID Connect
/// session of the device login that opened it (`session_id`) does.
public struct WebSessionRecord: Codable, Sendable {
    public var digest: String
    public var kind: WebSessionKind
    public var tenantID: TenantID
    public var userID: UserID
    public var activationID: ActivationID?
    public var sessionID: SessionID
    /// The token every form of the session carries.
    public var csrf: String
    public var createdAt: Int64
    public var lastSeenAt: Int64
    public var expiresAt: Int64
    public var idleLifetime: Int64
    public var endedAt: Int64?

    public init(
        digest: String, kind: WebSessionKind, tenantID: TenantID, userID: UserID, activationID: ActivationID?, sessionID: SessionID,
        csrf: String, createdAt: Int64, expiresAt: Int64, idleLifetime: Int64
    ) {
        self.digest = digest
        self.kind = kind
        self.tenantID = tenantID
        self.userID = userID
        self.activationID = activationID
        self.sessionID = sessionID
        self.csrf = csrf
        self.createdAt = createdAt
        self.lastSeenAt = createdAt
        self.expiresAt = expiresAt
        self.idleLifetime = idleLifetime
    }

    enum CodingKeys: String, CodingKey {
        case digest, kind, csrf
        case tenantID = "tenant_id"
        case userID = "user_id"
        case activationID = "activation_id"
        case sessionID = "session_id"
        case createdAt = "created_at"
        case lastSeenAt = "last_seen_at"
        case expiresAt = "expires_at"
        case idleLifetime = "idle_lifetime"
        case endedAt = "ended_at"
    }
}

extension StoreTransaction {
    // MARK: Console operators

    public func consoleOperator(userID: UserID) async throws -> ConsoleOperatorRecord? {
        try await first("SELECT * FROM console_operators WHERE user_id = \(bind: userID)", as: ConsoleOperatorRecord.self)
    }

    /// Makes the user an operator, or gives an operator its new role and scope.
    public func saveConsoleOperator(_ record: ConsoleOperatorRecord) async throws {
        try await db.raw("DELETE FROM console_operators WHERE user_id = \(bind: record.userID)").run()
        try await insert("console_operators", record)
    }

    // MARK: Web sessions

    public func insertWebSession(_ session: WebSessionRecord) async throws { try await insert("web_sessions", session) }

    public func webSession(digest: String) async throws -> WebSessionRecord? {
        try await first("SELECT * FROM web_sessions WHERE digest = \(bind: digest)", as: WebSessionRecord.self)
    }

    public func touchWebSession(digest: String, at now: Int64) async throws {
        try await db.raw("UPDATE web_sessions SET last_seen_at = \(bind: now) WHERE digest = \(bind: digest)").run()
    }

    /// Ends a live session; `false` when it had ended already.
    public func endWebSession(digest: String, at now: Int64) async throws -> Bool {
        try await db.raw(
            "UPDATE web_sessions SET ended_at = \(bind: now) WHERE digest = \(bind: digest) AND ended_at IS NULL RETURNING digest"
        ).all().count == 1
    }
}

/// What the console's dashboard shows of a tenant.
public struct TenantFigures: Sendable {
    public var users = 0
    public var activations = 0
    /// Logins and failed attempts per hour, oldest hour first.
    public var loginsPerHour: [Int] = []
    public var failuresPerHour: [Int] = []
    public var lockedActivations = 0
    public var openBackchannelRequests = 0

    public init() {}
}

extension StoreTransaction {
    /// A tenant's counts now and its logins and failures in the `hours` hours up to `now`.
    public func tenantFigures(tenantID: TenantID, now: Int64, hours: Int) async throws -> TenantFigures {
        struct Count: Decodable { let count: Int64 }
        struct Bucket: Decodable {
            let hour: Int64
            let outcome: String
            let count: Int64
        }
        var figures = TenantFigures()
        figures.users = Int(try await first("SELECT COUNT(*) AS count FROM users WHERE tenant_id = \(bind: tenantID)", as: Count.self)?.count ?? 0)
        figures.activations = Int(
            try await first("SELECT COUNT(*) AS count FROM activations WHERE tenant_id = \(bind: tenantID)", as: Count.self)?.count ?? 0)
        figures.lockedActivations = Int(
            try await first(
                """
                SELECT COUNT(*) AS count FROM activations WHERE tenant_id = \(bind: tenantID)
                AND (permanently_locked = 1 OR locked_until > \(bind: now))
                """, as: Count.self)?.count ?? 0)
        figures.openBackchannelRequests = Int(
            try await first(
                """
                SELECT COUNT(*) AS count FROM auth_requests WHERE tenant_id = \(bind: tenantID) AND flow = 'ciba'
                AND status IN ('pending', 'claimed') AND expires_at > \(bind: now)
                """, as: Count.self)?.count ?? 0)
        // Hour 0 starts just over `hours` hours ago, so that `now` falls in the last hour.
        let start = now - Int64(hours) * 3600 + 1
        let buckets = try await all(
            """
            SELECT (at - \(bind: start)) / 3600 AS hour, outcome, COUNT(*) AS count FROM authentication_history
            WHERE tenant_id = \(bind: tenantID) AND at >= \(bind: start) AND purpose = 'login'
            AND outcome IN ('approved', 'failed', 'locked')
            GROUP BY hour, outcome
            """, as: Bucket.self)
        figures.loginsPerHour = Array(repeating: 0, count: hours)
        figures.failuresPerHour = Array(repeating: 0, count: hours)
        for bucket in buckets where bucket.hour >= 0 && bucket.hour < hours {
            if bucket.outcome == "approved" {
                figures.loginsPerHour[Int(bucket.hour)] += Int(bucket.count)
            } else {
                figures.failuresPerHour[Int(bucket.hour)] += Int(bucket.count)
            }
        }
        return figures
    }
}
