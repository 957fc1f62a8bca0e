import Foundation
import JWTKit
import TesseraCore
import TesseraRecords
import TesseraStore
import TesseraTexts

/// A tenant's OpenID Provider metadata (OpenID Connect Discovery 1.0 §3, RFC 8414, CIBA §4).
public struct Discovery: Codable, Sendable {
    let issuer: String
    let authorizationEndpoint: String
    let tokenEndpoint: String
    let userinfoEndpoint: String
    let jwksURI: String
    let revocationEndpoint: String
    let introspectionEndpoint: String
    let backchannelAuthenticationEndpoint: String
    let endSessionEndpoint: String
    let pushedAuthorizationRequestEndpoint: String
    /// Only for a tenant that takes dynamic client registration.
    let registrationEndpoint: String?
    /// The gematik profile's encryption key (`key_verifier`).
    let pukIDPEncURI: String
    let requirePushedAuthorizationRequests = false
    let dpopSigningAlgValuesSupported = DPoP.algorithms
    let backchannelLogoutSupported = true
    let backchannelLogoutSessionSupported = true
    let frontchannelLogoutSupported = false
    let promptValuesSupported = ["none", "login", "consent", "select_account"]
    let uiLocalesSupported = Catalog.languages
    let claimsParameterSupported = false
    let requestParameterSupported = false
    let requestURIParameterSupported = false
    let backchannelTokenDeliveryModesSupported = ["poll", "ping"]
    let backchannelUserCodeParameterSupported = false
    let revocationEndpointAuthMethodsSupported = ClientAuthMethod.all
    let revocationEndpointAuthSigningAlgValuesSupported = ClientAssertions.algorithms
    let introspectionEndpointAuthMethodsSupported = ClientAuthMethod.all.filter { $0 != ClientAuthMethod.none }
    let introspectionEndpointAuthSigningAlgValuesSupported = ClientAssertions.algorithms
    let responseTypesSupported = ["code"]
    let responseModesSupported = ["query"]
    let grantTypesSupported = GrantType.all + [Backchannel.grantType]
    let subjectTypesSupported = SubjectType.allCases.map(\.rawValue)
    let idTokenSigningAlgValuesSupported = SigningAlgorithm.allCases.map(\.rawValue)
    let tokenEndpointAuthMethodsSupported = ClientAuthMethod.all
    let tokenEndpointAuthSigningAlgValuesSupported = ClientAssertions.algorithms
    let codeChallengeMethodsSupported = ["S256"]
    let scopesSupported: [String]
    let claimsSupported: [String]
    let acrValuesSupported: [String]
    let authorizationResponseIssParameterSupported = true

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case revocationEndpoint = "revocation_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case backchannelAuthenticationEndpoint = "backchannel_authentication_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case registrationEndpoint = "registration_endpoint"
        case pukIDPEncURI = "uri_puk_idp_enc"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case backchannelLogoutSupported = "backchannel_logout_supported"
        case backchannelLogoutSessionSupported = "backchannel_logout_session_supported"
        case frontchannelLogoutSupported = "frontchannel_logout_supported"
        case promptValuesSupported = "prompt_values_supported"
        case uiLocalesSupported = "ui_locales_supported"
        case claimsParameterSupported = "claims_parameter_supported"
        case requestParameterSupported = "request_parameter_supported"
        case requestURIParameterSupported = "request_uri_parameter_supported"
        case backchannelTokenDeliveryModesSupported = "backchannel_token_delivery_modes_supported"
        case backchannelUserCodeParameterSupported = "backchannel_user_code_parameter_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
        case revocationEndpointAuthSigningAlgValuesSupported = "revocation_endpoint_auth_signing_alg_values_supported"
        case introspectionEndpointAuthSigningAlgValuesSupported = "introspection_endpoint_auth_signing_alg_values_supported"
        case tokenEndpointAuthSigningAlgValuesSupported = "token_endpoint_auth_signing_alg_values_supported"
        case responseTypesSupported = "response_types_supported"
        case responseModesSupported = "response_modes_supported"
        case grantTypesSupported = "grant_types_supported"
        case subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case scopesSupported = "scopes_supported"
        case claimsSupported = "claims_supported"
        case acrValuesSupported = "acr_values_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
    }
}

extension Domain {
    /// The tenant's metadata: its endpoints, and the claims and `acr` values its services use.
    public func discovery(for tenant: TenantRecord) async throws -> Discovery {
        let base = issuer(forTenantNamed: tenant.name)
        let services = try await store.read { try await $0.services(tenantID: tenant.id) }
        var attributes = Set<String>()
        var combinations = Set<String>()
        var machineScopes = Set<String>()
        for service in services {
            attributes.formUnion(service.attributes)
            machineScopes.formUnion(service.scopes ?? [])
            for alternative in service.policy.alternatives {
                combinations.insert(Grants.acr(for: alternative))
            }
        }
        return Discovery(
            issuer: base, authorizationEndpoint: base + "/authorize", tokenEndpoint: base + "/token",
            userinfoEndpoint: base + "/userinfo", jwksURI: base + "/jwks", revocationEndpoint: base + "/revoke",
            introspectionEndpoint: base + "/introspect", backchannelAuthenticationEndpoint: base + "/bc-authorize",
            endSessionEndpoint: base + "/logout", pushedAuthorizationRequestEndpoint: base + "/par",
            registrationEndpoint: tenant.dynamicRegistration ? base + "/register" : nil, pukIDPEncURI: base + "/puk_idp_enc",
            scopesSupported: ScopeClaims.userScopes + machineScopes.subtracting(ScopeClaims.userScopes).sorted(),
            claimsSupported: ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "sid", "role", "groups"] + attributes.sorted(),
            acrValuesSupported: combinations.sorted())
    }
}

/// The discovery document signed (gematik IDP profile, A_20512, A_20591): the same
/// members, `iat` and an `exp` 24 hours later, as a JWS with the tenant's ES256 key and its
/// certificate in `x5c`, so a client that trusts the certificate trusts the endpoints.
public struct SignedDiscovery: JWTPayload {
    public static let lifetime: Int64 = 86_400
    let document: Discovery
    let iat: Int64
    let exp: Int64

    enum CodingKeys: String, CodingKey { case iat, exp }

    public func encode(to encoder: any Encoder) throws {
        try document.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iat, forKey: .iat)
        try container.encode(exp, forKey: .exp)
    }

    public init(from decoder: any Decoder) throws {
        document = try Discovery(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iat = try container.decode(Int64.self, forKey: .iat)
        exp = try container.decode(Int64.self, forKey: .exp)
    }

    init(document: Discovery, iat: Int64) {
        self.document = document
        self.iat = iat
        exp = iat + Self.lifetime
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension Domain {
    /// `{issuer}/.well-known/openid-configuration.jwt`: the signed discovery document.
    public func signedDiscovery(for tenant: TenantRecord) async throws -> String {
        let document = try await discovery(for: tenant)
        return try await tokenIssuer(for: tenant).signWithCertificate(SignedDiscovery(document: document, iat: epochNow()))
    }
}

/// The association files that let a tenant's app open its sign-in and activation links
/// on the phone that shows them, from the tenants' `app_links`, chosen by the host the
/// file is asked for: a tenant's own link domain lists that tenant's apps only.
extension Domain {
    /// The tenants whose apps the files for `host` (the request's `Host`, any port
    /// dropped) list: the one whose link domain it is, or else every tenant.
    private func tenants(servedOn host: String?) async throws -> (tenants: [TenantRecord], linkDomain: Bool) {
        let tenants = try await store.read { try await $0.tenants() }
        // The issuer's host is never a tenant's link domain, and a host two tenants name
        // (stored before either was refused) lists neither's apps: it is nobody's.
        guard let name = host.map(Self.hostName), name != settings.publicHost else { return (tenants, false) }
        let owners = tenants.filter { $0.appLinks?.linkDomain == name }
        if owners.count > 1 { return ([], true) }
        if let owner = owners.first { return ([owner], true) }
        return (tenants, false)
    }

    /// `Host` without its port, in lower case (`[::1]:8080` is `[::1]`).
    static func hostName(_ host: String) -> String {
        let lower = host.lowercased()
        if lower.hasPrefix("["), let end = lower.firstIndex(of: "]") { return String(lower[...end]) }
        return String(lower.split(separator: ":", maxSplits: 1).first ?? "")
    }

    /// `/.well-known/apple-app-site-association`: the iOS apps for the link paths below
    /// each issuer (iOS scopes them by path): on a tenant's link domain, that tenant's.
    public func appleAppSiteAssociation(host: String?) async throws -> AppleAppSiteAssociation {
        let tenants = try await tenants(servedOn: host).tenants
        let details = tenants.compactMap { tenant -> AppleAppSiteAssociation.Detail? in
            guard let links = tenant.appLinks, !links.appleAppIDs.isEmpty else { return nil }
            let paths = AppLinks.linkPaths(issuer: issuer(forTenantNamed: tenant.name))
            return .init(appIDs: links.appleAppIDs, components: paths.map { ["/": $0, "comment": "tenant \(tenant.name)"] })
        }
        return AppleAppSiteAssociation(applinks: .init(details: details))
    }

    /// `/.well-known/assetlinks.json`: Android apps and their signing certificates. Android
    /// does not scope app links by path (the app's manifest does), so an app listed for a
    /// host opens every tenant's links on it: on a tenant's link domain the file lists that
    /// tenant's apps; on any other host (the issuer's), only the apps an admin for every
    /// tenant listed host-wide (`android_apps_host_wide`).
    public func androidAssetLinks(host: String?) async throws -> [AssetLinkStatement] {
        let (tenants, linkDomain) = try await tenants(servedOn: host)
        let listed = linkDomain ? tenants : tenants.filter { $0.androidAppsHostWide && $0.appLinks?.linkDomain == nil }
        var seen = Set<AppLinks.AndroidApp>()
        return listed.flatMap { $0.appLinks?.androidApps ?? [] }.filter { seen.insert($0).inserted }.map {
            AssetLinkStatement(target: .init(packageName: $0.packageName, sha256CertFingerprints: $0.sha256CertFingerprints))
        }
    }
}

public struct AppleAppSiteAssociation: Codable, Sendable {
    public struct Detail: Codable, Sendable {
        public let appIDs: [String]
        public let components: [[String: String]]
    }
    public struct AppLinksSection: Codable, Sendable {
        public let details: [Detail]
    }
    public let applinks: AppLinksSection
}

/// A Digital Asset Links statement: the app handles the host's links.
public struct AssetLinkStatement: Codable, Sendable {
    public struct Target: Codable, Sendable {
        public var namespace = "android_app"
        public let packageName: String
        public let sha256CertFingerprints: [String]
        enum CodingKeys: String, CodingKey {
            case namespace
            case packageName = "package_name"
            case sha256CertFingerprints = "sha256_cert_fingerprints"
        }
    }
    public var relation = ["delegate_permission/common.handle_all_urls"]
    public let target: Target
}
