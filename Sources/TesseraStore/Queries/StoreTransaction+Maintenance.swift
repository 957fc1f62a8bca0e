import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

/// What the purge deletes, each by a time column with an index of its own (but idle
/// sessions, whose end is a sum).
public enum PurgeTarget: String, CaseIterable, Sendable {
    /// Authentication requests past their expiry.
    case authRequests = "auth_requests"
    /// Codes and refresh tokens past their expiry and the reuse-detection window.
    case expiredGrants = "expired_grants"
    /// Spent codes and rotated refresh tokens past the reuse-detection window.
    case spentGrants = "spent_grants"
    /// Sessions past their lifetime, their idle lifetime, or their end, and the reuse-detection window.
    case expiredSessions = "expired_sessions"
    case idleSessions = "idle_sessions"
    case endedSessions = "ended_sessions"
    /// Spent device-token ids past their expiry (a replay is refused by `exp` from then on).
    case deviceTokenIDs = "device_token_ids"
    /// Single sign-on sessions past their expiry.
    case ssoSessions = "sso_sessions"
    /// Invitations (activation links) past their expiry and the reuse-detection window.
    case invitations
    /// Console and account-page sessions past their lifetime or their end.
    case webSessions = "web_sessions"
    /// WebAuthn challenges past their expiry (never used, or abandoned).
    case webAuthnCeremonies = "webauthn_ceremonies"
    /// Pushed authorization requests past their minute.
    case pushedRequests = "pushed_requests"
    /// Seen DPoP proofs too old to be replayed.
    case dpopProofs = "dpop_proofs"
    /// Client assertions' ids and revoked client-credentials tokens past their expiry.
    case singleUseIDs = "single_use_ids"
    /// Logins at external providers never finished.
    case federationLogins = "federation_logins"
    /// Webhook deliveries delivered longer ago than the reuse-detection window (the delivery log's week).
    case webhookDeliveries = "webhook_deliveries"
    /// Events for the webhooks (session ends, CIBA answers) older than that week.
    case events
    /// Recoveries (a recovery code used) past their expiry and the reuse-detection window.
    case recoveries
}

/// The tables `tessera admin stats` counts.
public let countedTables = [
    "tenants", "signing_keys", "services", "users", "invitations", "activations", "activation_users", "auth_requests",
    "grants", "sessions", "sso_sessions", "device_token_ids", "push_targets", "authentication_history", "audit_log",
    "web_sessions", "security_keys", "webauthn_ceremonies", "logout_notices", "pushed_requests", "dpop_proofs", "registration_tokens",
    "identity_providers", "federated_identities", "federation_logins", "webhooks", "webhook_deliveries", "events", "messages",
    "single_use_ids", "user_groups", "group_members", "recovery_codes", "recoveries",
]

extension StoreTransaction {
    // MARK: Purge

    /// Deletes up to `limit` rows of `target` that are done with at `now`; rows spent
    /// after `spentBefore` stay (so a reuse is still recognised). Returns how many went.
    /// Idempotent, so several nodes may purge at once.
    public func purge(_ target: PurgeTarget, now: Int64, spentBefore: Int64, limit: Int) async throws -> Int {
        switch target {
        case .authRequests: try await deleteBatch(table: "auth_requests", key: "id", where: "expires_at < \(bind: now)", limit: limit)
        case .expiredGrants: try await deleteBatch(table: "grants", key: "digest", where: "expires_at < \(bind: spentBefore)", limit: limit)
        case .spentGrants: try await deleteBatch(table: "grants", key: "digest", where: "used_at < \(bind: spentBefore)", limit: limit)
        case .expiredSessions: try await deleteBatch(table: "sessions", key: "id", where: "expires_at < \(bind: spentBefore)", limit: limit)
        case .idleSessions:
            try await deleteBatch(table: "sessions", key: "id", where: "last_refreshed_at + idle_lifetime < \(bind: spentBefore)", limit: limit)
        case .endedSessions: try await deleteBatch(table: "sessions", key: "id", where: "ended_at < \(bind: spentBefore)", limit: limit)
        case .deviceTokenIDs: try await deleteBatch(table: "device_token_ids", key: "jti", where: "expires_at < \(bind: now)", limit: limit)
        case .invitations: try await deleteBatch(table: "invitations", key: "id", where: "expires_at < \(bind: spentBefore)", limit: limit)
        case .webSessions:
            try await deleteBatch(
                table: "web_sessions", key: "digest",
                where: "expires_at < \(bind: now) OR ended_at IS NOT NULL OR last_seen_at + idle_lifetime < \(bind: now)", limit: limit)
        case .webAuthnCeremonies:
            try await deleteBatch(table: "webauthn_ceremonies", key: "challenge", where: "expires_at < \(bind: now)", limit: limit)
        case .dpopProofs:
            try await deleteBatch(table: "dpop_proofs", key: "digest", where: "expires_at < \(bind: now)", limit: limit)
        case .singleUseIDs:
            try await deleteBatch(table: "single_use_ids", key: "digest", where: "expires_at < \(bind: now)", limit: limit)
        case .federationLogins:
            try await deleteBatch(table: "federation_logins", key: "state_digest", where: "expires_at < \(bind: now)", limit: limit)
        case .pushedRequests:
            try await deleteBatch(table: "pushed_requests", key: "digest", where: "expires_at < \(bind: now)", limit: limit)
        case .webhookDeliveries:
            try await deleteBatch(table: "webhook_deliveries", key: "id", where: "delivered_at < \(bind: spentBefore)", limit: limit)
        case .events:
            try await deleteBatch(table: "events", key: "id", where: "at < \(bind: spentBefore)", limit: limit)
        case .recoveries:
            try await deleteBatch(table: "recoveries", key: "id", where: "expires_at < \(bind: spentBefore)", limit: limit)
        case .ssoSessions:
            // Keyed by two columns, and never more than one row per device and user: no batches.
            try await db.raw("DELETE FROM sso_sessions WHERE expires_at < \(bind: now) RETURNING 1").all().count
        }
    }

    /// Deletes up to `limit` rows of `table` matching `condition`; returns how many went.
    private func deleteBatch(table: String, key: String, where condition: SQLQueryString, limit: Int) async throws -> Int {
        var query: SQLQueryString = "DELETE FROM \(ident: table) WHERE \(ident: key) IN (SELECT \(ident: key) FROM \(ident: table) WHERE "
        query.appendInterpolation(condition)
        query.appendLiteral(" LIMIT \(limit)) RETURNING 1")
        return try await db.raw(query).all().count
    }

    /// Deletes up to `limit` history entries of a tenant older than `before`.
    public func purgeHistory(tenantID: TenantID, before: Int64, limit: Int) async throws -> Int {
        try await deleteBatch(
            table: "authentication_history", key: "id", where: "tenant_id = \(bind: tenantID) AND at < \(bind: before)", limit: limit)
    }

    /// Deletes up to `limit` audit entries of a tenant older than `before`.
    public func purgeAudit(tenantID: TenantID, before: Int64, limit: Int) async throws -> Int {
        try await deleteBatch(table: "audit_log", key: "id", where: "tenant_id = \(bind: tenantID) AND at < \(bind: before)", limit: limit)
    }

    // MARK: Counts and the last purge

    /// The number of rows of each of `countedTables`.
    public func rowCounts() async throws -> [String: Int] {
        struct Row: Decodable { let count: Int64 }
        var counts: [String: Int] = [:]
        for table in countedTables {
            let row = try await first("SELECT COUNT(*) AS count FROM \(ident: table)", as: Row.self)
            counts[table] = Int(row?.count ?? 0)
        }
        return counts
    }

    /// Records a run of a maintenance task (the latest run of any node).
    public func recordMaintenance(_ name: String, at: Int64, details: [String: Int]) async throws {
        try await db.raw(
            """
            INSERT INTO maintenance (name, at, details) VALUES (\(bind: name), \(bind: at), \(bind: try JSONCoding.string(details)))
            ON CONFLICT (name) DO UPDATE SET at = excluded.at, details = excluded.details
            """
        ).run()
    }

    /// The last run of a maintenance task: when, and what it counted.
    public func lastMaintenance(_ name: String) async throws -> (at: Int64, details: [String: Int])? {
        struct Row: Decodable {
            let at: Int64
            let details: String
        }
        guard let row = try await first("SELECT at, details FROM maintenance WHERE name = \(bind: name)", as: Row.self) else {
            return nil
        }
        return (row.at, try JSONCoding.decode([String: Int].self, row.details))
    }
}
