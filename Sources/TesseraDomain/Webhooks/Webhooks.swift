import Crypto
import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Webhooks as the admin API manages them (`/admin/webhooks`): HTTPS endpoints subscribed
/// to events, of one tenant or of all, each with its own signing secret (`whsec_…`, shown
/// once, kept sealed). Managing them needs the admin role; a tenant's key reaches its own
/// tenant's hooks only, and the operators' tenant's hooks need an admin of every tenant.
public struct Webhooks: Sendable {
    let domain: Domain
    let caller: AdminCaller

    /// The events a hook may name besides `audit.ACTION`, `audit.*`, `login.*` and `*`.
    public static let eventNames = ["login.succeeded", "login.failed", "login.locked", "ciba.answered", "session.ended"]

    /// Whether `name` is an event (or a pattern of events) a hook may subscribe to.
    static func isEventName(_ name: String) -> Bool {
        if ["*", "audit.*", "login.*"].contains(name) || eventNames.contains(name) { return true }
        guard name.hasPrefix("audit.") else { return false }
        return AuditAction(rawValue: String(name.dropFirst("audit.".count))) != nil
    }

    /// A hook's address and events, or why they are not valid; the events sorted, each
    /// once. Creating a hook and a configuration document's hooks go through here.
    static func checked(url: String, events: [String], allowsPrivate: Bool) throws -> [String] {
        guard url.utf8.count <= 2048, let scheme = URL(string: url)?.scheme?.lowercased(), OutboundTargets.host(of: url) != nil,
            scheme == "https" || (scheme == "http" && allowsPrivate)
        else { throw DomainError.invalidRequest("url must be an https URL with a host") }
        if let refusal = OutboundTargets.refusal(url, allowsPrivate: allowsPrivate) {
            throw DomainError.invalidRequest("url is refused: \(refusal)")
        }
        guard (1...100).contains(events.count) else { throw DomainError.invalidRequest("events names 1 to 100 events") }
        if let unknown = events.first(where: { !isEventName($0) }) {
            throw DomainError.invalidRequest(
                "events: '\(unknown.prefix(100))' is not an event (audit.ACTION, audit.*, login.*, \(eventNames.joined(separator: ", ")) or *)")
        }
        return Array(Set(events)).sorted()
    }

    /// Whether `secret` is one a hook can sign with (`whsec_` and at least 16 bytes in base64).
    static func isSecret(_ secret: String) -> Bool {
        secret.utf8.count <= 200 && StandardWebhooks.key(of: secret) != nil
    }

    package func create(_ body: Components.Schemas.CreateWebhook, logger: Logger) async throws -> Components.Schemas.Webhook {
        let events = try Self.checked(url: body.url, events: body.events, allowsPrivate: domain.settings.allowsPrivateOutbound)
        var tenant: TenantRecord?
        if let name = body.tenant {
            tenant = try await domain.tenant(named: name)
        } else if let own = caller.tenantID {
            tenant = try await domain.store.read { try await $0.tenant(id: own) }
        }
        if let tenant { try caller.check(tenant: tenant) }
        let id = "wh_" + Secrets.randomToken(byteCount: 12)
        let secret = Self.newSecret()
        let now = domain.epochNow()
        let record = WebhookRecord(
            id: id, tenantID: tenant?.id, url: body.url, events: events,
            sealedSecret: try domain.box.seal(Data(secret.utf8), context: SealingContext.webhookSecret(id: id)), createdAt: now, enabledAt: now)
        try await domain.store.transaction { tx in
            // A hook is named by its address in its scope (configuration documents): one per address.
            if try await tx.webhooks().contains(where: { $0.tenantID == record.tenantID && $0.url == record.url }) {
                throw DomainError.conflict("\(tenant.map { "tenant \($0.name)" } ?? "the global scope") has a webhook with this url")
            }
            try await tx.insertWebhook(record)
            try await Audit.record(
                tx, tenantID: tenant?.id, actor: caller.actor, action: .webhookCreate, target: id,
                details: ["url": record.url, "events": record.events.joined(separator: ",")], at: now)
        }
        logger.notice("webhook created", metadata: ["webhook_id": "\(id)"])
        return Components.Schemas.Webhook(record, tenant: tenant?.name, waiting: 0, secret: secret)
    }

    package func list() async throws -> Components.Schemas.WebhookList {
        let (hooks, tenants, waiting) = try await domain.store.read { tx in
            (try await tx.webhooks(), try await tx.tenants(), try await tx.waitingDeliveriesByHook())
        }
        let byID = Dictionary(uniqueKeysWithValues: tenants.map { ($0.id, $0) })
        return .init(
            webhooks: hooks.filter { hook in
                guard let tenantID = hook.tenantID else { return caller.tenantID == nil }
                return byID[tenantID].map(caller.reaches) ?? false
            }.map { Components.Schemas.Webhook($0, tenant: $0.tenantID.flatMap { byID[$0]?.name }, waiting: waiting[$0.id] ?? 0) })
    }

    package func get(_ id: String) async throws -> Components.Schemas.Webhook {
        let (hook, tenant) = try await reachable(id)
        let waiting = try await domain.store.read { try await $0.waitingDeliveriesByHook()[id] ?? 0 }
        return Components.Schemas.Webhook(hook, tenant: tenant?.name, waiting: waiting)
    }

    package func remove(_ id: String, logger: Logger) async throws {
        let (hook, _) = try await reachable(id)
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            guard try await tx.deleteWebhook(id: id) else { throw DomainError.notFound("webhook") }
            try await Audit.record(
                tx, tenantID: hook.tenantID, actor: caller.actor, action: .webhookRemove, target: id, details: ["url": hook.url], at: now)
        }
        logger.notice("webhook removed", metadata: ["webhook_id": "\(id)"])
    }

    /// A new secret, in this answer only; deliveries are signed with it from now on.
    package func rotate(_ id: String, logger: Logger) async throws -> Components.Schemas.Webhook {
        let (hook, tenant) = try await reachable(id)
        let secret = Self.newSecret()
        let sealed = try domain.box.seal(Data(secret.utf8), context: SealingContext.webhookSecret(id: id))
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            try await tx.setWebhookSecret(id: id, sealed: sealed)
            try await Audit.record(tx, tenantID: hook.tenantID, actor: caller.actor, action: .webhookRotateSecret, target: id, details: [:], at: now)
        }
        logger.notice("webhook secret rotated", metadata: ["webhook_id": "\(id)"])
        var rotated = hook
        rotated.sealedSecret = sealed
        return try await Components.Schemas.Webhook(rotated, tenant: tenant?.name, waiting: 0, secret: secret).counting(domain)
    }

    /// A `webhook.test` event for this hook alone, behind what already waits for it.
    package func test(_ id: String) async throws -> Components.Schemas.WebhookDelivery {
        let (hook, tenant) = try await reachable(id)
        let now = domain.epochNow()
        let eventID = "evt_" + orderedID()
        let payload = try WebhookPayload.encode(
            id: eventID, type: "webhook.test", at: now, tenant: tenant?.name, data: ["webhook_id": hook.id])
        let delivery = WebhookDeliveryRecord(
            id: "msg_" + orderedID(), webhookID: hook.id, seq: 0, eventID: eventID, event: "webhook.test", payload: payload, createdAt: now)
        let stored = try await domain.store.transaction { tx in try await tx.insertDeliveries([delivery]) }
        return Components.Schemas.WebhookDelivery(stored.first ?? delivery)
    }

    /// Sends again to a hook that was disabled: what waits in its outbox goes first, in order.
    package func enable(_ id: String, logger: Logger) async throws -> Components.Schemas.Webhook {
        let (hook, _) = try await reachable(id)
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            try await tx.enableWebhook(id: id, at: now)
            try await Audit.record(tx, tenantID: hook.tenantID, actor: caller.actor, action: .webhookEnable, target: id, details: [:], at: now)
        }
        logger.notice("webhook enabled", metadata: ["webhook_id": "\(id)"])
        return try await get(id)
    }

    package func deliveries(_ id: String, limit: Int) async throws -> Components.Schemas.WebhookDeliveries {
        _ = try await reachable(id)
        return .init(deliveries: try await domain.store.read { try await $0.deliveries(webhookID: id, limit: limit) }.map(Components.Schemas.WebhookDelivery.init))
    }

    /// The hook and its tenant, or 404 when the caller does not reach it.
    private func reachable(_ id: String) async throws -> (WebhookRecord, TenantRecord?) {
        let (hook, tenant) = try await domain.store.read { tx -> (WebhookRecord?, TenantRecord?) in
            let hook = try await tx.webhook(id: id)
            return (hook, try await hook?.tenantID.asyncMap { try await tx.tenant(id: $0) } ?? nil)
        }
        guard let hook else { throw DomainError.notFound("webhook") }
        if let tenant {
            try caller.check(tenant: tenant)
        } else if caller.tenantID != nil {
            throw DomainError.notFound("webhook")
        }
        return (hook, tenant)
    }

    /// `whsec_` and 32 random bytes in base64, as the Standard Webhooks libraries read it.
    static func newSecret() -> String {
        "whsec_" + Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).base64EncodedString()
    }
}

extension Components.Schemas.Webhook {
    init(_ hook: WebhookRecord, tenant: String?, waiting: Int, secret: String? = nil) {
        self.init(
            id: hook.id, url: hook.url, events: hook.events, tenant: tenant, createdAt: Double(hook.createdAt),
            enabledAt: Double(hook.enabledAt), disabledAt: hook.disabledAt.map(Double.init), disabledReason: hook.disabledReason,
            waiting: waiting, secret: secret)
    }

    /// With the number of deliveries waiting for it now.
    func counting(_ domain: Domain) async throws -> Self {
        var counted = self
        counted.waiting = try await domain.store.read { try await $0.waitingDeliveriesByHook()[id] ?? 0 }
        return counted
    }
}

extension Components.Schemas.WebhookDelivery {
    init(_ delivery: WebhookDeliveryRecord) {
        self.init(
            id: delivery.id, eventId: delivery.eventID, event: delivery.event, seq: Int(delivery.seq), createdAt: Double(delivery.createdAt),
            attempts: delivery.attempts, nextAttemptAt: delivery.deliveredAt == nil ? Double(delivery.nextAttemptAt) : nil,
            deliveredAt: delivery.deliveredAt.map(Double.init), lastAttemptAt: delivery.lastAttemptAt.map(Double.init),
            lastStatus: delivery.lastStatus, lastError: delivery.lastError)
    }
}

/// The body of a delivery (the document's `WebhookEvent`): the event's id, its type, when
/// it happened, the tenant's name and its data.
public enum WebhookPayload {
    struct Body<Data: Encodable>: Encodable {
        let id: String
        let type: String
        let timestamp: String
        let tenant: String?
        let data: Data
    }

    public static func encode(id: String, type: String, at: Int64, tenant: String?, data: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let timestamp = Date(timeIntervalSince1970: TimeInterval(at)).formatted(.iso8601)
        return String(decoding: try encoder.encode(Body(id: id, type: type, timestamp: timestamp, tenant: tenant, data: data)), as: UTF8.self)
    }
}

extension Domain {
    /// The webhooks as `caller` may manage them.
    package func webhooks(as caller: AdminCaller) -> Webhooks { Webhooks(domain: self, caller: caller) }
}
