import Crypto
import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// The webhook outbox, as every node's sender works it.
///
/// - **Dispatch.** What happened is already recorded in the transaction that made it: an
///   audit entry, a history entry, or (for what neither records: a session's end, a CIBA
///   request answered) an `events` row. The dispatcher reads the three feeds in commit
///   order (`StoreTransaction.sequenceFeed`) from where it stopped, and writes one delivery
///   per matching hook, numbered in that order, moving its place in the same transaction:
///   each event reaches each hook's outbox exactly once, whichever node dispatches (they
///   take turns on their place's row), and a change that commits is never missed.
/// - **Delivery.** Each hook's first waiting delivery is taken by one node for a lease,
///   signed (Standard Webhooks) and posted; a 2xx answer delivers it, anything else tries
///   it again after a back-off, and the hook's later deliveries wait: at least once, in
///   order per hook. A delivery still failing `maximumAge` seconds after it was written
///   (or after the hook was enabled again) disables the hook, with an audit entry; what it
///   misses keeps waiting for `enable`.
public struct WebhookOutbox: Sendable {
    let domain: Domain
    /// Seconds a delivery may keep failing before its hook is disabled.
    public let maximumAge: Int64

    /// Seconds a taken delivery is the taker's (a node that stops meanwhile leaves it to the others after this).
    static let lease: Int64 = 60
    /// Entries read from each feed per dispatch.
    static let batch = 500

    /// A delivery ready to send: where, with what, signed with which secret.
    public struct Send: Sendable {
        public let delivery: WebhookDeliveryRecord
        public let url: String
        public let secret: Data
        public let tenantID: TenantID?

        /// The Standard Webhooks headers of this attempt at `timestamp`.
        public func headers(at timestamp: Int64) -> [(String, String)] {
            StandardWebhooks.headers(id: delivery.id, timestamp: timestamp, body: delivery.payload, secret: secret)
        }
    }

    /// Writes the deliveries of what committed since the last dispatch; returns how many.
    public func dispatch() async throws -> Int {
        // With no hook at all, nothing is read and the places stay where they are.
        guard try await domain.store.read({ try await !$0.webhooks().isEmpty }) else { return 0 }
        var written = 0
        for table in [FeedTable.audit, .history, .events] {
            try await domain.store.transaction { tx in try await tx.sequenceFeed(table) }
            written += try await domain.store.transaction { tx in
                let name = "dispatched:\(table.rawValue)"
                let after = try await tx.lockedPosition(name)
                let (events, last) = try await Self.read(table, after: after, tx: tx)
                guard let last else { return 0 }
                // The hooks are read after the events (on PostgreSQL each statement sees what
                // committed before it): an event that committed after a hook did finds the
                // hook here. Read before the events, a hook made in between (its own
                // `webhook.create` first) would miss what came right after it.
                let hooks = try await tx.webhooks()
                var deliveries: [WebhookDeliveryRecord] = []
                for event in events {
                    for hook in hooks where hook.wants(event.type) && event.at >= hook.createdAt
                        && (hook.tenantID == nil || hook.tenantID == event.tenantID)
                    {
                        deliveries.append(
                            WebhookDeliveryRecord(
                                id: "msg_" + Secrets.randomToken(byteCount: 16), webhookID: hook.id, seq: 0, eventID: event.id,
                                event: event.type, payload: event.payload, createdAt: domain.epochNow()))
                    }
                }
                try await tx.insertDeliveries(deliveries)
                try await tx.setPosition(name, last)
                if table == .history { try await tx.forgetRemovedHistory(through: last) }
                return deliveries.count
            }
        }
        return written
    }

    /// An event as the hooks get it.
    struct Event {
        let id: String
        let type: String
        let tenantID: TenantID?
        let at: Int64
        let payload: String
    }

    /// Up to `batch` events of a feed after `after`, and the last number read (nil: none).
    static func read(_ table: FeedTable, after: Int64, tx: StoreTransaction) async throws -> ([Event], Int64?) {
        switch table {
        case .audit:
            let rows = try await tx.auditFeed(after: after, tenantID: nil, limit: batch)
            return (
                try rows.map { row in
                    let type = "audit.\(row.entry.action)"
                    let id = "evt_" + row.entry.id
                    return Event(
                        id: id, type: type, tenantID: row.entry.tenantID, at: row.entry.at,
                        payload: try WebhookPayload.encode(
                            id: id, type: type, at: row.entry.at, tenant: row.tenantName,
                            data: Components.Schemas.AuditEntry(row.entry, tenant: row.tenantName)))
                }, rows.last?.entry.seq)
        case .history:
            let rows = try await tx.historyFeed(after: after, tenantID: nil, limit: batch)
            return (
                try rows.compactMap { row in
                    guard let type = loginEvent(row.entry) else { return nil }
                    let id = "evt_" + row.entry.id
                    return Event(
                        id: id, type: type, tenantID: row.entry.tenantID, at: row.entry.at,
                        payload: try WebhookPayload.encode(
                            id: id, type: type, at: row.entry.at, tenant: row.tenantName,
                            data: Components.Schemas.HistoryEntry(row.entry, username: row.username, tenant: row.tenantName)))
                }, rows.last?.entry.seq)
        case .events:
            let rows = try await tx.eventsFeed(after: after, limit: batch)
            return (
                try rows.map { row in
                    let id = "evt_" + row.entry.id
                    return Event(
                        id: id, type: row.entry.type, tenantID: row.entry.tenantID, at: row.entry.at,
                        payload: try WebhookPayload.encode(id: id, type: row.entry.type, at: row.entry.at, tenant: row.tenantName, data: row.entry.data))
                }, rows.last?.entry.seq)
        }
    }

    /// The event a history entry is: a login's outcome (account processes are audited instead).
    static func loginEvent(_ entry: HistoryRecord) -> String? {
        guard entry.purpose == .login else { return nil }
        switch entry.outcome {
        case .approved, .completed: return "login.succeeded"
        case .failed, .denied: return "login.failed"
        case .locked: return "login.locked"
        }
    }

    /// The due first delivery of each enabled hook, taken for the lease, up to `limit`.
    public func takeDue(limit: Int = 32) async throws -> [Send] {
        let now = domain.epochNow()
        // Most looks find nothing: a read decides whether a transaction is worth it.
        guard try await domain.store.read({ try await $0.hasDueDeliveries(now: now) }) else { return [] }
        let (taken, hooks) = try await domain.store.transaction { tx in
            (try await tx.takeDueDeliveries(now: now, lease: Self.lease, limit: limit), try await tx.webhooks())
        }
        let byID = Dictionary(uniqueKeysWithValues: hooks.map { ($0.id, $0) })
        return try taken.compactMap { delivery in
            guard let hook = byID[delivery.webhookID] else { return nil }
            let text = try domain.box.open(hook.sealedSecret, context: SealingContext.webhookSecret(id: hook.id))
            guard let secret = StandardWebhooks.key(of: String(decoding: text, as: UTF8.self)) else {
                throw StoreError(.corrupt, "webhook \(hook.id): its secret is not base64")
            }
            return Send(delivery: delivery, url: hook.url, secret: secret, tenantID: hook.tenantID)
        }
    }

    public func delivered(_ send: Send, status: Int) async throws {
        try await domain.store.transaction { tx in try await tx.deliveryDelivered(id: send.delivery.id, at: domain.epochNow(), status: status) }
    }

    /// What became of a failed attempt.
    public enum Failure: Sendable, Equatable {
        case retrying(at: Int64)
        /// The hook was disabled: the delivery is past the maximum age.
        case disabled
    }

    /// An attempt that came to nothing: tried again after the back-off, or, past the
    /// maximum age, the hook is disabled (once, whichever node sees it first).
    public func failed(_ send: Send, status: Int?, error: String) async throws -> Failure {
        let now = domain.epochNow()
        return try await domain.store.transaction { tx in
            guard let hook = try await tx.webhook(id: send.delivery.webhookID) else { return .disabled }
            if now - max(send.delivery.createdAt, hook.enabledAt) >= maximumAge {
                let reason = "deliveries failed for \(maximumAge) seconds (last: \(status.map { "HTTP \($0)" } ?? error))"
                try await tx.deliveryFailed(id: send.delivery.id, at: now, status: status, error: error, next: now)
                if try await tx.disableWebhook(id: hook.id, at: now, reason: reason) {
                    try await Audit.record(
                        tx, tenantID: hook.tenantID, actor: .system, action: .webhookDisable, target: hook.id,
                        details: ["reason": reason], at: now, origin: nil)
                }
                return .disabled
            }
            let next = now + Self.backoff(afterAttempt: send.delivery.attempts)
            try await tx.deliveryFailed(id: send.delivery.id, at: now, status: status, error: error, next: next)
            return .retrying(at: next)
        }
    }

    /// Seconds before the next attempt: 1, 2, 4 … doubling to an hour (webhook deliveries
    /// and messages to people alike).
    static func backoff(afterAttempt attempts: Int) -> Int64 {
        min(Int64(1) << Int64(min(max(attempts - 1, 0), 12)), 3600)
    }

    /// Deliveries waiting in every hook's outbox (the `tessera_outbound_pending{kind="webhook"}` gauge).
    public func waiting() async throws -> Int {
        try await domain.store.read { try await $0.waitingDeliveries() }
    }
}

extension Domain {
    /// Messages waiting in each outbox, all nodes, by kind.
    public func outboxWaiting() async throws -> [String: Int] {
        try await store.read { try await $0.outboxes() }.mapValues(\.waiting)
    }

    public func webhookOutbox(maximumAge: Int64) -> WebhookOutbox { WebhookOutbox(domain: self, maximumAge: maximumAge) }
}

/// The Standard Webhooks signature (standardwebhooks.com): `webhook-id`,
/// `webhook-timestamp`, and `webhook-signature` as `v1,` and the base64 HMAC-SHA256 of
/// `id.timestamp.body` keyed with the secret's bytes (the base64 after `whsec_`).
public enum StandardWebhooks {
    public static func headers(id: String, timestamp: Int64, body: String, secret: Data) -> [(String, String)] {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(id).\(timestamp).\(body)".utf8), using: SymmetricKey(data: secret))
        return [("webhook-id", id), ("webhook-timestamp", String(timestamp)), ("webhook-signature", "v1," + Data(mac).base64EncodedString())]
    }

    /// The key bytes of a `whsec_…` secret, or nil when it is none (at least 16 bytes).
    public static func key(of secret: String) -> Data? {
        guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))), key.count >= 16 else { return nil }
        return key
    }
}
