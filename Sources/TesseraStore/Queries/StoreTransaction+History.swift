import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: History and audit

    public func insertHistory(_ entry: HistoryRecord) async throws { try await insert("authentication_history", entry) }

    public func history(activationID: ActivationID, limit: Int) async throws -> [HistoryRecord] {
        try await all(
            """
            SELECT * FROM authentication_history WHERE activation_id = \(bind: activationID)
            ORDER BY at DESC, id DESC LIMIT \(bind: limit)
            """, as: HistoryRecord.self)
    }

    public func insertAudit(_ entry: AuditRecord) async throws { try await insert("audit_log", entry) }

    /// Audit entries, newest first: optionally of one tenant, not older than `since`,
    /// with an action beginning with `actionPrefix`, by one `actor`.
    public func audit(tenantID: TenantID?, since: Int64?, actionPrefix: String? = nil, actor: String? = nil, limit: Int) async throws
        -> [AuditRecord]
    {
        var query: SQLQueryString = "SELECT * FROM audit_log WHERE at >= \(bind: since ?? 0)"
        if let tenantID { query += " AND tenant_id = \(bind: tenantID)" }
        // A prefix by its length, not LIKE: `_` is in action names and a wildcard to LIKE. The
        // length is the database's (an integer to both; a bound Swift Int is a bigint to PostgreSQL).
        if let actionPrefix { query += " AND substr(action, 1, length(\(bind: actionPrefix))) = \(bind: actionPrefix)" }
        if let actor { query += " AND actor = \(bind: actor)" }
        query += " ORDER BY at DESC, id DESC LIMIT \(bind: limit)"
        return try await all(query, as: AuditRecord.self)
    }
}

/// A table whose entries a feed pages in commit order (`seq`).
public enum FeedTable: String, Sendable {
    case audit = "audit_log"
    case history = "authentication_history"
    /// What neither records, for the webhooks (`events`).
    case events
}

extension StoreTransaction {
    // MARK: Feeds

    /// Numbers the entries of `table` that have committed since the last call, at most
    /// `batch` of them, above every entry numbered before (in their time order among
    /// themselves). Run in a write transaction of its own before a feed is read, so that
    /// `seq` follows commit order: an entry is numbered only once it is committed, the
    /// sequencers of all nodes take turns on the table's row of `feed_sequences` (held to
    /// their commit), and each numbers above the last, so a reader who has seen `seq` n
    /// has seen, or will never see, every entry below n. A number taken before commit
    /// (a time, a database sequence) would not: a slower transaction could commit an
    /// entry below one a reader has already passed.
    public func sequenceFeed(_ table: FeedTable, batch: Int = 10_000) async throws {
        let name = table.rawValue
        // The turn: the row stays locked until this transaction commits (SQLite has one writer).
        try await db.raw("UPDATE feed_sequences SET value = value WHERE name = \(bind: name)").run()
        try await db.raw(
            """
            UPDATE \(unsafeRaw: name) SET seq = numbered.n
            FROM (
                SELECT id, (SELECT value FROM feed_sequences WHERE name = \(bind: name)) + ROW_NUMBER() OVER (ORDER BY at, id) AS n
                FROM \(unsafeRaw: name) WHERE seq IS NULL ORDER BY at, id LIMIT \(bind: batch)
            ) AS numbered
            WHERE \(unsafeRaw: name).id = numbered.id
            """
        ).run()
        // The next call numbers above the highest number given, even once purges delete it.
        try await db.raw(
            """
            UPDATE feed_sequences SET value = (SELECT MAX(seq) FROM \(unsafeRaw: name))
            WHERE name = \(bind: name) AND EXISTS (SELECT 1 FROM \(unsafeRaw: name) WHERE seq > feed_sequences.value)
            """
        ).run()
    }

    /// Audit entries numbered after `seq` in their order, of one tenant or all, with the
    /// tenant's name.
    public func auditFeed(after seq: Int64, tenantID: TenantID?, limit: Int) async throws -> [FeedRow<AuditRecord>] {
        var query: SQLQueryString = """
            SELECT a.*, t.name AS tenant_name FROM audit_log a LEFT JOIN tenants t ON t.id = a.tenant_id
            WHERE a.seq > \(bind: seq)
            """
        if let tenantID { query += " AND a.tenant_id = \(bind: tenantID)" }
        query += " ORDER BY a.seq LIMIT \(bind: limit)"
        return try await all(query, as: FeedRow<AuditRecord>.self)
    }

    /// History entries numbered after `seq` in their order, of one tenant or all, with the
    /// tenant's name and the user's.
    public func historyFeed(after seq: Int64, tenantID: TenantID?, limit: Int) async throws -> [FeedRow<HistoryRecord>] {
        var query: SQLQueryString = """
            SELECT h.*, t.name AS tenant_name, u.username AS username FROM authentication_history h
            LEFT JOIN tenants t ON t.id = h.tenant_id LEFT JOIN users u ON u.id = h.user_id
            WHERE h.seq > \(bind: seq)
            """
        if let tenantID { query += " AND h.tenant_id = \(bind: tenantID)" }
        query += " ORDER BY h.seq LIMIT \(bind: limit)"
        return try await all(query, as: FeedRow<HistoryRecord>.self)
    }
}

/// A feed's entry with the names its ids stand for (those still there).
public struct FeedRow<Entry: Decodable & Sendable>: Decodable, Sendable {
    public var entry: Entry
    public var tenantName: String?
    public var username: String?

    public init(from decoder: any Decoder) throws {
        entry = try Entry(from: decoder)
        let names = try decoder.container(keyedBy: Names.self)
        tenantName = try names.decodeIfPresent(String.self, forKey: .tenantName)
        username = try names.decodeIfPresent(String.self, forKey: .username)
    }

    private enum Names: String, CodingKey {
        case tenantName = "tenant_name"
        case username
    }
}

struct LinkedUserRow: Codable, Sendable {
    var activationID: ActivationID
    var userID: UserID
    var createdAt: Int64
    enum CodingKeys: String, CodingKey {
        case activationID = "activation_id"
        case userID = "user_id"
        case createdAt = "created_at"
    }
}
