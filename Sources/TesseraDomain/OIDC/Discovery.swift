import Foundation
import TesseraCore
import TesseraStore

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
    let backchannelTokenDeliveryModesSupported = ["poll", "ping"]
    let backchannelUserCodeParameterSupported = false
    let revocationEndpointAuthMethodsSupported = ["client_secret_basic", "client_secret_post", "none"]
    let introspectionEndpointAuthMethodsSupported = ["client_secret_basic", "client_secret_post"]
    let responseTypesSupported = ["code"]
    let responseModesSupported = ["query"]
    let grantTypesSupported = ["authorization_code", "refresh_token", Backchannel.grantType]
    let subjectTypesSupported = ["public"]
    let idTokenSigningAlgValuesSupported = ["ES256"]
    let tokenEndpointAuthMethodsSupported = ["client_secret_basic", "client_secret_post", "none"]
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
        case backchannelTokenDeliveryModesSupported = "backchannel_token_delivery_modes_supported"
        case backchannelUserCodeParameterSupported = "backchannel_user_code_parameter_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
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
        for service in services {
            attributes.formUnion(service.attributes)
            for alternative in try AuthenticatorPolicy(parsing: service.policy).alternatives {
                combinations.insert(Grants.acr(for: alternative))
            }
        }
        return Discovery(
            issuer: base, authorizationEndpoint: base + "/authorize", tokenEndpoint: base + "/token",
            userinfoEndpoint: base + "/userinfo", jwksURI: base + "/jwks", revocationEndpoint: base + "/revoke",
            introspectionEndpoint: base + "/introspect", backchannelAuthenticationEndpoint: base + "/bc-authorize",
            scopesSupported: ["openid", "offline_access"],
            claimsSupported: ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "sid"] + attributes.sorted(),
            acrValuesSupported: combinations.sorted())
    }
}
