import Foundation
import TesseraCore

/// A subscription of an HTTPS endpoint to events (`POST /admin/webhooks`): of one tenant,
/// or of every tenant (and of none) when `tenantID` is nil. Its signing secret is sealed.
public struct WebhookRecord: Codable, Sendable {
    public var id: String
    public var tenantID: TenantID?
    public var url: String
    /// Event names, `audit.*` for every audit action, or `*` for all.
    @JSONText public var events: [String]
    public var sealedSecret: String
    public var createdAt: Int64
    /// When it was last (re-)enabled: the maximum age of a delivery counts from here at the earliest.
    public var enabledAt: Int64
    public var disabledAt: Int64?
    public var disabledReason: String?

    public init(
        id: String, tenantID: TenantID?, url: String, events: [String], sealedSecret: String, createdAt: Int64, enabledAt: Int64,
        disabledAt: Int64? = nil, disabledReason: String? = nil
    ) {
        self.id = id
        self.tenantID = tenantID
        self.url = url
        self.events = events
        self.sealedSecret = sealedSecret
        self.createdAt = createdAt
        self.enabledAt = enabledAt
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
    }

    /// Whether the hook takes an event of this name.
    public func wants(_ event: String) -> Bool {
        events.contains { $0 == "*" || $0 == event || ($0.hasSuffix(".*") && event.hasPrefix($0.dropLast())) }
    }

    enum CodingKeys: String, CodingKey {
        case id, url, events
        case tenantID = "tenant_id"
        case sealedSecret = "sealed_secret"
        case createdAt = "created_at"
        case enabledAt = "enabled_at"
        case disabledAt = "disabled_at"
        case disabledReason = "disabled_reason"
    }
}

/// One event for one hook in the webhook outbox: sent in `seq` order per hook, at least
/// once, kept after delivery for the hook's delivery log.
public struct WebhookDeliveryRecord: Codable, Sendable {
    /// `msg_…`: the Standard Webhooks `webhook-id`, the same on every attempt.
    public var id: String
    public var webhookID: String
    public var seq: Int64
    /// `evt_…`: the same for every hook the event goes to.
    public var eventID: String
    public var event: String
    /// The JSON body, as it is signed and sent.
    public var payload: String
    public var createdAt: Int64
    public var attempts: Int
    public var nextAttemptAt: Int64
    public var deliveredAt: Int64?
    public var lastAttemptAt: Int64?
    public var lastStatus: Int?
    public var lastError: String?

    public init(
        id: String, webhookID: String, seq: Int64, eventID: String, event: String, payload: String, createdAt: Int64
    ) {
        self.id = id
        self.webhookID = webhookID
        self.seq = seq
        self.eventID = eventID
        self.event = event
        self.payload = payload
        self.createdAt = createdAt
        self.attempts = 0
        self.nextAttemptAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, seq, event, payload, attempts
        case webhookID = "webhook_id"
        case eventID = "event_id"
        case createdAt = "created_at"
        case nextAttemptAt = "next_attempt_at"
        case deliveredAt = "delivered_at"
        case lastAttemptAt = "last_attempt_at"
        case lastStatus = "last_status"
        case lastError = "last_error"
    }
}

/// An event no audit or history entry records (a session's end, a CIBA request answered),
/// written in the transaction of what happened, for the webhooks.
public struct EventRecord: Codable, Sendable {
    public var id: String
    public var tenantID: TenantID?
    public var type: String
    @JSONText public var data: [String: String]
    public var at: Int64
    public var seq: Int64?

    public init(id: String, tenantID: TenantID?, type: String, data: [String: String], at: Int64) {
        self.id = id
        self.tenantID = tenantID
        self.type = type
        self.data = data
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case id, type, data, at, seq
        case tenantID = "tenant_id"
    }
}

/// A message to a person waiting in the outbox (`messages`): its channel (`email`), its
/// recipient and its sealed content (`MessageContent`), tried until sent or too old.
public struct MessageRecord: Codable, Sendable {
    /// Also the e-mail's `Message-ID` (with the server's name): the same on every attempt.
    public var id: String
    public var tenantID: TenantID?
    public var channel: String
    public var recipient: String
    public var sealedContent: String
    public var createdAt: Int64
    public var attempts: Int
    public var nextAttemptAt: Int64
    public var lastError: String?
    /// The `traceparent` of the request that wrote it: the message is sent in its trace.
    public var traceParent: String?

    public init(id: String, tenantID: TenantID?, channel: String, recipient: String, sealedContent: String, createdAt: Int64) {
        self.id = id
        self.tenantID = tenantID
        self.channel = channel
        self.recipient = recipient
        self.sealedContent = sealedContent
        self.createdAt = createdAt
        self.attempts = 0
        self.nextAttemptAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, channel, recipient, attempts
        case tenantID = "tenant_id"
        case sealedContent = "sealed_content"
        case traceParent = "trace_parent"
        case createdAt = "created_at"
        case nextAttemptAt = "next_attempt_at"
        case lastError = "last_error"
    }
}

/// What a message says, before it is rendered for its channel: a template, its language
/// and its values (an invitation's link among them: sealed in the outbox).
public struct MessageContent: Codable, Sendable, Equatable {
    public var template: String
    public var language: String
    public var values: [String: String]
    /// The tenant's own sentences of that language, in place of the catalog's (nil: none).
    public var texts: [String: String]?

    public init(template: String, language: String, values: [String: String], texts: [String: String]? = nil) {
        self.template = template
        self.language = language
        self.values = values
        self.texts = texts
    }

    /// A message of `tenant` to one of its users: in its language, naming it and its app as
    /// its branding does, in its colours, with its links and its own sentences.
    public init(template: String, tenant: TenantRecord, values: [String: String]) {
        var values = values
        values["tenant"] = tenant.name
        let branding = tenant.branding
        if let name = branding?.displayName { values["display_name"] = name }
        if let app = branding?.appName { values["app"] = app }
        for (name, value) in [
            ("primary_color", branding?.primaryColor), ("accent_color", branding?.accentColor), ("support_url", branding?.supportURL),
            ("privacy_url", branding?.privacyURL), ("terms_url", branding?.termsURL),
        ] {
            if let value { values[name] = value }
        }
        let texts = tenant.texts[tenant.defaultLanguage]
        self.init(template: template, language: tenant.defaultLanguage, values: values, texts: texts?.isEmpty == false ? texts : nil)
    }
}
