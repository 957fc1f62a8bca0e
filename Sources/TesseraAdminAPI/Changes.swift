package import TesseraCore

// The admin API's request bodies that the generator cannot express, written by hand over the
// generated component types (openapi-generator-config.yaml names them in typeOverrides):
// a PATCH body must tell an absent field (unchanged) from `null` (removed), and the
// generator drops a field whose schema is a nullable reference (`lockout` of a new tenant).

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
    }
}

/// `UpdateService`: the settings a PATCH names; `.null` removes those that may be removed.
package struct ServiceChanges: Codable, Hashable, Sendable {
    package var name: String?
    package var redirectURIs: [String]?
    package var policy: String?
    package var attributes: [String]?
    package var backchannelTokenDeliveryMode: Patch<String> = .absent
    package var backchannelClientNotificationEndpoint: Patch<String> = .absent
    package var sessionLifetime: Patch<Int> = .absent
    package var sessionIdleLifetime: Patch<Int> = .absent
    package var numberMatching: Bool?
    /// Replaced whole (`null` or `[]` removes them).
    package var roles: Patch<[Components.Schemas.Role]> = .absent
    package var subjectType: String?
    package var appIdentityToken: Bool?
    package var idTokenSignedResponseAlg: String?
    /// Replaced whole (`null` or `[]` removes them).
    package var postLogoutRedirectURIs: Patch<[String]> = .absent
    package var backchannelLogoutURI: Patch<String> = .absent
    package var requirePushedAuthorizationRequests: Bool?
    package var dpopBoundAccessTokens: Bool?
    package var gematikProfile: Bool?

    package init() {}

    package enum CodingKeys: String, CodingKey {
        case name, policy, attributes, roles
        case redirectURIs = "redirect_uris"
        case backchannelTokenDeliveryMode = "backchannel_token_delivery_mode"
        case backchannelClientNotificationEndpoint = "backchannel_client_notification_endpoint"
        case sessionLifetime = "session_lifetime"
        case sessionIdleLifetime = "session_idle_lifetime"
        case numberMatching = "number_matching"
        case subjectType = "subject_type"
        case appIdentityToken = "app_identity_token"
        case idTokenSignedResponseAlg = "id_token_signed_response_alg"
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case backchannelLogoutURI = "backchannel_logout_uri"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case dpopBoundAccessTokens = "dpop_bound_access_tokens"
        case gematikProfile = "gematik_profile"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        redirectURIs = try container.decodeIfPresent([String].self, forKey: .redirectURIs)
        policy = try container.decodeIfPresent(String.self, forKey: .policy)
        attributes = try container.decodeIfPresent([String].self, forKey: .attributes)
        backchannelTokenDeliveryMode = try Patch(container, .backchannelTokenDeliveryMode)
        backchannelClientNotificationEndpoint = try Patch(container, .backchannelClientNotificationEndpoint)
        sessionLifetime = try Patch(container, .sessionLifetime)
        sessionIdleLifetime = try Patch(container, .sessionIdleLifetime)
        numberMatching = try container.decodeIfPresent(Bool.self, forKey: .numberMatching)
        roles = try Patch(container, .roles)
        subjectType = try container.decodeIfPresent(String.self, forKey: .subjectType)
        appIdentityToken = try container.decodeIfPresent(Bool.self, forKey: .appIdentityToken)
        idTokenSignedResponseAlg = try container.decodeIfPresent(String.self, forKey: .idTokenSignedResponseAlg)
        postLogoutRedirectURIs = try Patch(container, .postLogoutRedirectURIs)
        backchannelLogoutURI = try Patch(container, .backchannelLogoutURI)
        requirePushedAuthorizationRequests = try container.decodeIfPresent(Bool.self, forKey: .requirePushedAuthorizationRequests)
        dpopBoundAccessTokens = try container.decodeIfPresent(Bool.self, forKey: .dpopBoundAccessTokens)
        gematikProfile = try container.decodeIfPresent(Bool.self, forKey: .gematikProfile)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(redirectURIs, forKey: .redirectURIs)
        try container.encodeIfPresent(policy, forKey: .policy)
        try container.encodeIfPresent(attributes, forKey: .attributes)
        try backchannelTokenDeliveryMode.encode(into: &container, .backchannelTokenDeliveryMode)
        try backchannelClientNotificationEndpoint.encode(into: &container, .backchannelClientNotificationEndpoint)
        try sessionLifetime.encode(into: &container, .sessionLifetime)
        try sessionIdleLifetime.encode(into: &container, .sessionIdleLifetime)
        try container.encodeIfPresent(numberMatching, forKey: .numberMatching)
        try roles.encode(into: &container, .roles)
        try container.encodeIfPresent(subjectType, forKey: .subjectType)
        try container.encodeIfPresent(appIdentityToken, forKey: .appIdentityToken)
        try container.encodeIfPresent(idTokenSignedResponseAlg, forKey: .idTokenSignedResponseAlg)
        try postLogoutRedirectURIs.encode(into: &container, .postLogoutRedirectURIs)
        try backchannelLogoutURI.encode(into: &container, .backchannelLogoutURI)
        try container.encodeIfPresent(requirePushedAuthorizationRequests, forKey: .requirePushedAuthorizationRequests)
        try container.encodeIfPresent(dpopBoundAccessTokens, forKey: .dpopBoundAccessTokens)
        try container.encodeIfPresent(gematikProfile, forKey: .gematikProfile)
    }
}
