package import TesseraCore

// The admin API's request bodies that the generator cannot express, written over the
// generated component types (openapi-generator-config.yaml names them in typeOverrides):
// a PATCH body must tell an absent field (unchanged) from `null` (removed), and the
// generator drops a field whose schema is a nullable reference (`lockout` of a tenant).
// `Changes` does the first for any generated fields type; the tenant's two bodies, which
// hold nullable references, are written out.

/// `CreateTenant`: a new tenant's name and first settings.
package struct TenantCreation: Codable, Hashable, Sendable {
    package var name: String
    package var lockout: Components.Schemas.Lockout?
    package var processPolicy: String?
    package var ssoLifetime: Int?
    package var ssoPolicy: String?

    package init(name: String, lockout: Components.Schemas.Lockout? = nil, processPolicy: String? = nil, ssoLifetime: Int? = nil, ssoPolicy: String? = nil) {
        self.name = name
        self.lockout = lockout
        self.processPolicy = processPolicy
        self.ssoLifetime = ssoLifetime
        self.ssoPolicy = ssoPolicy
    }

    package enum CodingKeys: String, CodingKey {
        case name, lockout
        case processPolicy = "process_policy"
        case ssoLifetime = "sso_lifetime"
        case ssoPolicy = "sso_policy"
    }
}

/// `UpdateTenant`: the settings a PATCH names; `.null` removes those that may be removed.
package struct TenantChanges: Codable, Hashable, Sendable {
    package var lockout: Components.Schemas.Lockout?
    package var processPolicy: String?
    package var ssoLifetime: Int?
    package var ssoPolicy: Patch<String> = .absent
    package var sessionLifetime: Int?
    package var sessionIdleLifetime: Int?
    package var historyRetention: Int?
    package var auditRetention: Patch<Int> = .absent
    package var accessTokenLifetime: Int?
    package var appLinks: Patch<Components.Schemas.AppLinks> = .absent
    package var webAuthnTrustAnchors: Patch<String> = .absent
    package var webAuthnRPID: Patch<String> = .absent
    package var dynamicRegistration: Bool?
    package var invitationsByEmailOnly: Bool?
    package var inviteProvisionedUsers: Bool?
    package var recoveryCodes: Bool?
    package var notices: [String]?
    package var defaultLanguage: String?
    package var branding: Patch<Components.Schemas.Branding> = .absent
    /// Language → catalog key → the tenant's own sentence.
    package var texts: Patch<[String: [String: String]]> = .absent

    package init() {}

    package enum CodingKeys: String, CodingKey {
        case lockout
        case processPolicy = "process_policy"
        case ssoLifetime = "sso_lifetime"
        case ssoPolicy = "sso_policy"
        case sessionLifetime = "session_lifetime"
        case sessionIdleLifetime = "session_idle_lifetime"
        case historyRetention = "history_retention"
        case auditRetention = "audit_retention"
        case accessTokenLifetime = "access_token_lifetime"
        case appLinks = "app_links"
        case webAuthnTrustAnchors = "webauthn_trust_anchors"
        case webAuthnRPID = "webauthn_rp_id"
        case dynamicRegistration = "dynamic_registration"
        case invitationsByEmailOnly = "invitations_by_email_only"
        case inviteProvisionedUsers = "invite_provisioned_users"
        case recoveryCodes = "recovery_codes"
        case notices
        case defaultLanguage = "default_language"
        case branding, texts
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        lockout = try container.decodeIfPresent(Components.Schemas.Lockout.self, forKey: .lockout)
        processPolicy = try container.decodeIfPresent(String.self, forKey: .processPolicy)
        ssoLifetime = try container.decodeIfPresent(Int.self, forKey: .ssoLifetime)
        ssoPolicy = try Patch(container, .ssoPolicy)
        sessionLifetime = try container.decodeIfPresent(Int.self, forKey: .sessionLifetime)
        sessionIdleLifetime = try container.decodeIfPresent(Int.self, forKey: .sessionIdleLifetime)
        historyRetention = try container.decodeIfPresent(Int.self, forKey: .historyRetention)
        auditRetention = try Patch(container, .auditRetention)
        accessTokenLifetime = try container.decodeIfPresent(Int.self, forKey: .accessTokenLifetime)
        appLinks = try Patch(container, .appLinks)
        webAuthnTrustAnchors = try Patch(container, .webAuthnTrustAnchors)
        webAuthnRPID = try Patch(container, .webAuthnRPID)
        dynamicRegistration = try container.decodeIfPresent(Bool.self, forKey: .dynamicRegistration)
        invitationsByEmailOnly = try container.decodeIfPresent(Bool.self, forKey: .invitationsByEmailOnly)
        inviteProvisionedUsers = try container.decodeIfPresent(Bool.self, forKey: .inviteProvisionedUsers)
        recoveryCodes = try container.decodeIfPresent(Bool.self, forKey: .recoveryCodes)
        notices = try container.decodeIfPresent([String].self, forKey: .notices)
        defaultLanguage = try container.decodeIfPresent(String.self, forKey: .defaultLanguage)
        branding = try Patch(container, .branding)
        texts = try Patch(container, .texts)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(lockout, forKey: .lockout)
        try container.encodeIfPresent(processPolicy, forKey: .processPolicy)
        try container.encodeIfPresent(ssoLifetime, forKey: .ssoLifetime)
        try ssoPolicy.encode(into: &container, .ssoPolicy)
        try container.encodeIfPresent(sessionLifetime, forKey: .sessionLifetime)
        try container.encodeIfPresent(sessionIdleLifetime, forKey: .sessionIdleLifetime)
        try container.encodeIfPresent(historyRetention, forKey: .historyRetention)
        try auditRetention.encode(into: &container, .auditRetention)
        try container.encodeIfPresent(accessTokenLifetime, forKey: .accessTokenLifetime)
        try appLinks.encode(into: &container, .appLinks)
        try webAuthnTrustAnchors.encode(into: &container, .webAuthnTrustAnchors)
        try webAuthnRPID.encode(into: &container, .webAuthnRPID)
        try container.encodeIfPresent(dynamicRegistration, forKey: .dynamicRegistration)
        try container.encodeIfPresent(invitationsByEmailOnly, forKey: .invitationsByEmailOnly)
        try container.encodeIfPresent(inviteProvisionedUsers, forKey: .inviteProvisionedUsers)
        try container.encodeIfPresent(recoveryCodes, forKey: .recoveryCodes)
        try container.encodeIfPresent(notices, forKey: .notices)
        try container.encodeIfPresent(defaultLanguage, forKey: .defaultLanguage)
        try branding.encode(into: &container, .branding)
        try texts.encode(into: &container, .texts)
    }
}

/// `ConfigTenant`: a tenant in a configuration document: its name, its settings (absent or
/// `null`: every one its default) and what it holds.
package struct TenantDocument: Codable, Hashable, Sendable {
    package var name: String
    package var settings: TenantChanges?
    package var services: [Components.Schemas.ConfigService]?
    package var identityProviders: [Components.Schemas.CreateIdentityProvider]?
    package var webhooks: [Components.Schemas.ConfigWebhook]?

    package init(
        name: String, settings: TenantChanges? = nil, services: [Components.Schemas.ConfigService]? = nil,
        identityProviders: [Components.Schemas.CreateIdentityProvider]? = nil, webhooks: [Components.Schemas.ConfigWebhook]? = nil
    ) {
        self.name = name
        self.settings = settings
        self.services = services
        self.identityProviders = identityProviders
        self.webhooks = webhooks
    }

    package enum CodingKeys: String, CodingKey {
        case name, settings, services, webhooks
        case identityProviders = "identity_providers"
    }
}

/// A generated type of settings that a PATCH body names (every field optional).
package protocol ChangeableFields: Codable, Hashable, Sendable {
    associatedtype CodingKeys: CodingKey
    /// No field named.
    static var none: Self { get }
}

/// A PATCH body over generated fields: the values it sets, and the fields it sets to `null`
/// (which the generated type, reading `null` as absent, cannot tell). Its fields are read
/// and written as its own (`changes.name`); `patch` and `set` speak of one field as
/// absent, `null` or a value.
@dynamicMemberLookup
package struct Changes<Fields: ChangeableFields>: Codable, Hashable, Sendable {
    package var fields: Fields
    /// The JSON names of the fields sent as `null`.
    package private(set) var cleared: Set<String> = []

    package init(_ fields: Fields = .none) {
        self.fields = fields
    }

    package subscript<Value>(dynamicMember path: WritableKeyPath<Fields, Value>) -> Value {
        get { fields[keyPath: path] }
        set { fields[keyPath: path] = newValue }
    }

    /// Whether the body names nothing.
    package var isEmpty: Bool { fields == .none && cleared.isEmpty }

    /// One field as the body means it: absent, `null` or a value.
    package func patch<Value>(_ path: KeyPath<Fields, Value?>, _ key: Fields.CodingKeys) -> Patch<Value> {
        if let value = fields[keyPath: path] { return .value(value) }
        return cleared.contains(key.stringValue) ? .null : .absent
    }

    /// Names one field: absent, `null` or a value.
    package mutating func set<Value>(_ path: WritableKeyPath<Fields, Value?>, _ key: Fields.CodingKeys, _ patch: Patch<Value>) {
        cleared.remove(key.stringValue)
        fields[keyPath: path] = nil
        switch patch {
        case .absent: break
        case .null: cleared.insert(key.stringValue)
        case .value(let value): fields[keyPath: path] = value
        }
    }

    package init(from decoder: any Decoder) throws {
        fields = try Fields(from: decoder)
        let container = try decoder.container(keyedBy: JSONKey.self)
        for key in container.allKeys where Fields.CodingKeys(stringValue: key.stringValue) != nil {
            if try container.decodeNil(forKey: key) { cleared.insert(key.stringValue) }
        }
    }

    package func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var container = encoder.container(keyedBy: JSONKey.self)
        for name in cleared.sorted() { try container.encodeNil(forKey: JSONKey(name)) }
    }
}

/// A member name of a JSON object.
struct JSONKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// `UpdateService`: the settings of a service a PATCH names.
package typealias ServiceChanges = Changes<Components.Schemas.ServiceFields>

extension Components.Schemas.ServiceFields: ChangeableFields {
    package static var none: Self { .init() }
}
