import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Console operators

    public func consoleOperator(userID: UserID) async throws -> ConsoleOperatorRecord? {
        try await first("SELECT * FROM console_operators WHERE user_id = \(bind: userID)", as: ConsoleOperatorRecord.self)
    }

    /// Every operator of the console, oldest first.
    public func consoleOperators() async throws -> [ConsoleOperatorRecord] {
        try await all("SELECT * FROM console_operators ORDER BY created_at, user_id", as: ConsoleOperatorRecord.self)
    }

    /// Takes the console from an operator (the user stays); false when it was none.
    public func deleteConsoleOperator(userID: UserID) async throws -> Bool {
        try await db.raw("DELETE FROM console_operators WHERE user_id = \(bind: userID) RETURNING user_id").all().count == 1
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
public struct TenantFigures: Sendable, Equatable {
    public var users = 0
    public var activations = 0
    /// Logins and failed attempts per hour, oldest hour first.
    public var loginsPerHour: [Int] = []
    public var failuresPerHour: [Int] = []
    public var lockedActivations = 0
    public var openBackchannelRequests = 0

    public init(hours: Int = 0) {
        loginsPerHour = Array(repeating: 0, count: hours)
        failuresPerHour = Array(repeating: 0, count: hours)
    }
}

extension StoreTransaction {
    /// Every tenant's counts now and its logins and failures in the `hours` hours up to
    /// `now`, in one grouped statement whatever the number of tenants; a tenant with
    /// nothing to count is absent (all zeros).
    public func tenantFigures(now: Int64, hours: Int) async throws -> [TenantID: TenantFigures] {
        struct Row: Decodable {
            let tenantID: TenantID
            let kind: String
            let hour: Int64
            let count: Int64

            enum CodingKeys: String, CodingKey {
                case tenantID = "tenant_id"
                case kind, hour, count
            }
        }
        // Hour 0 starts just over `hours` hours ago, so that `now` falls in the last hour.
        let start = now - Int64(hours) * 3600 + 1
        let rows = try await all(
            """
            SELECT tenant_id, 'users' AS kind, CAST(-1 AS BIGINT) AS hour, COUNT(*) AS count FROM users GROUP BY 1, 2, 3
            UNION ALL
            SELECT tenant_id, 'activations', CAST(-1 AS BIGINT), COUNT(*) FROM activations GROUP BY 1, 2, 3
            UNION ALL
            SELECT tenant_id, 'locked_activations', CAST(-1 AS BIGINT), COUNT(*) FROM activations
            WHERE permanently_locked = 1 OR locked_until > \(bind: now) GROUP BY 1, 2, 3
            UNION ALL
            SELECT tenant_id, 'open_backchannel', CAST(-1 AS BIGINT), COUNT(*) FROM auth_requests
            WHERE flow = 'ciba' AND status IN ('pending', 'claimed') AND expires_at > \(bind: now) GROUP BY 1, 2, 3
            UNION ALL
            SELECT tenant_id, outcome, (at - \(bind: start)) / 3600, COUNT(*) FROM authentication_history
            WHERE at >= \(bind: start) AND purpose = 'login' AND outcome IN ('approved', 'failed', 'locked') GROUP BY 1, 2, 3
            """, as: Row.self)
        var figures: [TenantID: TenantFigures] = [:]
        for row in rows {
            var tenant = figures[row.tenantID] ?? TenantFigures(hours: hours)
            let count = Int(row.count)
            switch row.kind {
            case "users": tenant.users = count
            case "activations": tenant.activations = count
            case "locked_activations": tenant.lockedActivations = count
            case "open_backchannel": tenant.openBackchannelRequests = count
            case "approved" where (0..<Int64(hours)).contains(row.hour): tenant.loginsPerHour[Int(row.hour)] += count
            case _ where (0..<Int64(hours)).contains(row.hour): tenant.failuresPerHour[Int(row.hour)] += count
            default: break
            }
            figures[row.tenantID] = tenant
        }
        return figures
    }
}
