import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Webhooks

    public func insertWebhook(_ hook: WebhookRecord) async throws { try await insert("webhooks", hook) }

    public func webhooks() async throws -> [WebhookRecord] {
        try await all("SELECT * FROM webhooks ORDER BY created_at, id", as: WebhookRecord.self)
    }

    public func webhook(id: String) async throws -> WebhookRecord? {
        try await first("SELECT * FROM webhooks WHERE id = \(bind: id)", as: WebhookRecord.self)
    }

    /// Removes a hook with its outbox and delivery log; false when there was none.
    public func deleteWebhook(id: String) async throws -> Bool {
        try await db.raw("DELETE FROM webhook_deliveries WHERE webhook_id = \(bind: id)").run()
        return try await !db.raw("DELETE FROM webhooks WHERE id = \(bind: id) RETURNING id").all().isEmpty
    }

    /// A hook's new address and events; what waits in its outbox stays.
    public func updateWebhook(id: String, url: String, events: [String]) async throws {
        try await db.raw(
            "UPDATE webhooks SET url = \(bind: url), events = \(bind: try JSONCoding.string(events)) WHERE id = \(bind: id)"
        ).run()
    }

    public func setWebhookSecret(id: String, sealed: String) async throws {
        try await db.raw("UPDATE webhooks SET sealed_secret = \(bind: sealed) WHERE id = \(bind: id)").run()
    }

    /// Stops sending to a hook (what it misses waits in its outbox); false when it was not enabled.
    public func disableWebhook(id: String, at now: Int64, reason: String) async throws -> Bool {
        try await !db.raw(
            """
            UPDATE webhooks SET disabled_at = \(bind: now), disabled_reason = \(bind: reason)
            WHERE id = \(bind: id) AND disabled_at IS NULL RETURNING id
            """
        ).all().isEmpty
    }

    /// Sends to a hook again: what waits in its outbox is due now, its attempts counted afresh.
    public func enableWebhook(id: String, at now: Int64) async throws {
        try await db.raw(
            "UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL, enabled_at = \(bind: now) WHERE id = \(bind: id)"
        ).run()
        try await db.raw(
            """
            UPDATE webhook_deliveries SET next_attempt_at = \(bind: now), attempts = 0
            WHERE webhook_id = \(bind: id) AND delivered_at IS NULL
            """
        ).run()
    }

    // MARK: Events

    public func insertEvent(_ event: EventRecord) async throws { try await insert("events", event) }

    /// Events numbered after `seq`, in their order, with the tenant's name.
    public func eventsFeed(after seq: Int64, limit: Int) async throws -> [FeedRow<EventRecord>] {
        try await all(
            """
            SELECT e.*, t.name AS tenant_name FROM events e LEFT JOIN tenants t ON t.id = e.tenant_id
            WHERE e.seq > \(bind: seq) ORDER BY e.seq LIMIT \(bind: limit)
            """, as: FeedRow<EventRecord>.self)
    }

    // MARK: The outbox

    /// A named position (`feed_sequences`), its row locked to this transaction's commit:
    /// one dispatcher at a time, of all nodes.
    public func lockedPosition(_ name: String) async throws -> Int64 {
        try await db.raw("UPDATE feed_sequences SET value = value WHERE name = \(bind: name)").run()
        return try await db.raw("SELECT value FROM feed_sequences WHERE name = \(bind: name)").first(decodingColumn: "value", as: Int64.self)
            ?? 0
    }

    public func setPosition(_ name: String, _ value: Int64) async throws {
        try await db.raw("UPDATE feed_sequences SET value = \(bind: value) WHERE name = \(bind: name)").run()
    }

    /// Numbers `deliveries` above every delivery numbered before (the counter's row stays
    /// locked to this transaction's commit, so numbers follow commit order) and writes them;
    /// returns them numbered.
    @discardableResult
    public func insertDeliveries(_ deliveries: [WebhookDeliveryRecord]) async throws -> [WebhookDeliveryRecord] {
        guard !deliveries.isEmpty else { return [] }
        let last = try await db.raw(
            """
            UPDATE feed_sequences SET value = value + \(bind: deliveries.count) WHERE name = 'webhook_deliveries' RETURNING value
            """
        ).first(decodingColumn: "value", as: Int64.self) ?? Int64(deliveries.count)
        var seq = last - Int64(deliveries.count)
        var numbered: [WebhookDeliveryRecord] = []
        for var delivery in deliveries {
            seq += 1
            delivery.seq = seq
            try await insert("webhook_deliveries", delivery)
            numbered.append(delivery)
        }
        return numbered
    }

    /// The first waiting delivery of each enabled hook, if it is due, each taken for
    /// `lease` seconds (its attempt counted): a condition on the row, so that of several
    /// nodes only one takes it, and a hook's next delivery waits until this one is done.
    public func takeDueDeliveries(now: Int64, lease: Int64, limit: Int) async throws -> [WebhookDeliveryRecord] {
        let due = try await all(
            """
            SELECT d.* FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE w.disabled_at IS NULL AND d.delivered_at IS NULL AND d.next_attempt_at <= \(bind: now)
                AND d.seq = (SELECT MIN(e.seq) FROM webhook_deliveries e WHERE e.webhook_id = d.webhook_id AND e.delivered_at IS NULL)
            ORDER BY d.seq LIMIT \(bind: limit)
            """, as: WebhookDeliveryRecord.self)
        var taken: [WebhookDeliveryRecord] = []
        for delivery in due {
            let rows = try await db.raw(
                """
                UPDATE webhook_deliveries SET next_attempt_at = \(bind: now + lease), attempts = attempts + 1
                WHERE id = \(bind: delivery.id) AND next_attempt_at = \(bind: delivery.nextAttemptAt) AND delivered_at IS NULL
                RETURNING id
                """
            ).all()
            if rows.count == 1 {
                var mine = delivery
                mine.attempts += 1
                taken.append(mine)
            }
        }
        return taken
    }

    public func deliveryDelivered(id: String, at now: Int64, status: Int) async throws {
        try await db.raw(
            """
            UPDATE webhook_deliveries SET delivered_at = \(bind: now), last_attempt_at = \(bind: now), last_status = \(bind: status),
                last_error = NULL
            WHERE id = \(bind: id)
            """
        ).run()
    }

    /// An attempt that came to nothing: tried again at `next`.
    public func deliveryFailed(id: String, at now: Int64, status: Int?, error: String, next: Int64) async throws {
        try await db.raw(
            """
            UPDATE webhook_deliveries SET next_attempt_at = \(bind: next), last_attempt_at = \(bind: now), last_status = \(bind: status),
                last_error = \(bind: String(error.prefix(200)))
            WHERE id = \(bind: id) AND delivered_at IS NULL
            """
        ).run()
    }

    /// A hook's deliveries, newest first.
    public func deliveries(webhookID: String, limit: Int) async throws -> [WebhookDeliveryRecord] {
        try await all(
            "SELECT * FROM webhook_deliveries WHERE webhook_id = \(bind: webhookID) ORDER BY seq DESC LIMIT \(bind: limit)",
            as: WebhookDeliveryRecord.self)
    }

    /// Deliveries waiting, of enabled hooks and disabled ones.
    public func waitingDeliveries() async throws -> Int {
        try await db.raw("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE delivered_at IS NULL").first(decodingColumn: "n", as: Int.self) ?? 0
    }

    /// Deliveries waiting, per hook.
    public func waitingDeliveriesByHook() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await db.raw(
            "SELECT webhook_id, COUNT(*) AS n FROM webhook_deliveries WHERE delivered_at IS NULL GROUP BY webhook_id"
        ).all() {
            counts[try row.decode(column: "webhook_id", as: String.self)] = try row.decode(column: "n", as: Int.self)
        }
        return counts
    }

    /// Each outbox (`email`, `message`, `webhook`, `logout`): messages waiting, and of those the ones whose last attempt failed.
    public func outboxes() async throws -> [String: (waiting: Int, failing: Int)] {
        func counts(_ query: SQLQueryString) async throws -> (Int, Int) {
            let row = try await db.raw(query).first()
            return (try row?.decode(column: "waiting", as: Int?.self) ?? 0, try row?.decode(column: "failing", as: Int?.self) ?? 0)
        }
        return [
            "email": try await counts(
                "SELECT COUNT(*) AS waiting, SUM(CASE WHEN last_error IS NULL THEN 0 ELSE 1 END) AS failing FROM messages WHERE channel = 'email'"),
            "message": try await counts(
                "SELECT COUNT(*) AS waiting, SUM(CASE WHEN last_error IS NULL THEN 0 ELSE 1 END) AS failing FROM messages WHERE channel = 'message'"),
            "webhook": try await counts(
                """
                SELECT COUNT(*) AS waiting, SUM(CASE WHEN last_error IS NULL THEN 0 ELSE 1 END) AS failing
                FROM webhook_deliveries WHERE delivered_at IS NULL
                """),
            "logout": try await counts(
                "SELECT COUNT(*) AS waiting, SUM(CASE WHEN attempts > 0 THEN 1 ELSE 0 END) AS failing FROM logout_notices"),
        ]
    }

    /// Removes the history entries numbered up to `seq` whose activation was deleted while
    /// the webhooks had yet to hear of them (`deleteActivation` leaves them for this).
    public func forgetRemovedHistory(through seq: Int64) async throws {
        try await db.raw(
            """
            DELETE FROM authentication_history WHERE seq <= \(bind: seq)
                AND NOT EXISTS (SELECT 1 FROM activations a WHERE a.id = authentication_history.activation_id)
            """
        ).run()
    }

    // MARK: Messages to people

    public func insertMessage(_ message: MessageRecord) async throws {
        var message = message
        if message.traceParent == nil { message.traceParent = RequestTrace.current?.own }
        try await insert("messages", message)
    }

    /// Up to `limit` messages due, each taken for `lease` seconds (`takeLeased`).
    public func takeDueMessages(now: Int64, lease: Int64, limit: Int) async throws -> [MessageRecord] {
        try await takeLeased("messages", now: now, lease: lease, limit: limit)
    }

    /// Whether any message is due: a read, so that an idle look costs no write lock.
    public func hasDueMessages(now: Int64) async throws -> Bool {
        try await hasDue("messages", now: now)
    }

    /// Whether any enabled hook's delivery is due (a read, as above).
    public func hasDueDeliveries(now: Int64) async throws -> Bool {
        try await db.raw(
            """
            SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE d.delivered_at IS NULL AND d.next_attempt_at <= \(bind: now) AND w.disabled_at IS NULL LIMIT 1
            """
        ).first() != nil
    }

    /// Sent (or given up): the message leaves the outbox.
    public func deleteMessage(id: String) async throws {
        try await db.raw("DELETE FROM messages WHERE id = \(bind: id)").run()
    }

    public func postponeMessage(id: String, until next: Int64, error: String) async throws {
        try await db.raw(
            "UPDATE messages SET next_attempt_at = \(bind: next), last_error = \(bind: String(error.prefix(200))) WHERE id = \(bind: id)"
        ).run()
    }
}
