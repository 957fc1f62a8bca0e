import Foundation
import JWTKit
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Dynamic client registration (RFC 7591) and its management protocol (RFC 7592), for
/// tenants that take it (`dynamic_registration`). A service registers itself with an
/// initial access token an administrator issued (each has a number of uses and an
/// expiry), and gets its client id, its secret (confidential clients) and a registration
/// access token with which it reads, replaces or deletes its registration at
/// `registration_client_uri`. A registered service is an ordinary service: the same
/// checks, the tenant's default factor policy, listed and changed by the admin API.
public struct ClientRegistration: Sendable {
    let domain: Domain

    public static let invalidRedirectURI = DomainError.Code("invalid_redirect_uri")
    public static let invalidMetadata = DomainError.Code("invalid_client_metadata")

    /// The client metadata this server takes (RFC 7591 §2, OpenID Registration, RFC 9126, RFC 9449);
    /// others are ignored.
    public struct Metadata: Codable, Sendable {
        public var redirectURIs: [String]?
        public var clientName: String?
        public var tokenEndpointAuthMethod: String?
        public var grantTypes: [String]?
        public var responseTypes: [String]?
        public var scope: String?
        public var idTokenSignedResponseAlg: String?
        public var postLogoutRedirectURIs: [String]?
        public var backchannelLogoutURI: String?
        public var requirePushedAuthorizationRequests: Bool?
        public var dpopBoundAccessTokens: Bool?
        public var subjectType: SubjectType?
        /// private_key_jwt (RFC 7523): the client's public keys, inline or by address.
        public var jwks: JWKS?
        public var jwksURI: String?
        /// In a replacement (RFC 7592 §2.2): the client's own id.
        public var clientID: String?
        /// Shown on its login page (RFC 7591 §2): its logo, privacy policy and terms.
        public var logoURI: String?
        public var policyURI: String?
        public var tosURI: String?

        enum CodingKeys: String, CodingKey {
            case scope
            case redirectURIs = "redirect_uris"
            case clientName = "client_name"
            case tokenEndpointAuthMethod = "token_endpoint_auth_method"
            case grantTypes = "grant_types"
            case responseTypes = "response_types"
            case idTokenSignedResponseAlg = "id_token_signed_response_alg"
            case postLogoutRedirectURIs = "post_logout_redirect_uris"
            case backchannelLogoutURI = "backchannel_logout_uri"
            case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
            case dpopBoundAccessTokens = "dpop_bound_access_tokens"
            case subjectType = "subject_type"
            case jwks
            case jwksURI = "jwks_uri"
            case clientID = "client_id"
            case logoURI = "logo_uri"
            case policyURI = "policy_uri"
            case tosURI = "tos_uri"
        }
    }

    /// A registration as the client sees it (RFC 7591 §3.2.1, RFC 7592 §3).
    public struct Registered: Encodable, Sendable {
        public let clientID: String
        public let clientSecret: String?
        public let clientIDIssuedAt: Int64
        public let clientSecretExpiresAt: Int64?
        public let registrationAccessToken: String?
        public let registrationClientURI: String
        public let clientName: String
        public let redirectURIs: [String]
        public let tokenEndpointAuthMethod: String
        public let grantTypes: [String]
        public let responseTypes = ["code"]
        public let scope: String
        public let idTokenSignedResponseAlg: String
        public let postLogoutRedirectURIs: [String]
        public let backchannelLogoutURI: String?
        public let requirePushedAuthorizationRequests: Bool
        public let dpopBoundAccessTokens: Bool
        public let subjectType: String
        public let jwks: JWKS?
        public let jwksURI: String?
        public let logoURI: String?
        public let policyURI: String?
        public let tosURI: String?

        enum CodingKeys: String, CodingKey {
            case scope, jwks
            case logoURI = "logo_uri"
            case policyURI = "policy_uri"
            case tosURI = "tos_uri"
            case jwksURI = "jwks_uri"
            case clientID = "client_id"
            case clientSecret = "client_secret"
            case clientIDIssuedAt = "client_id_issued_at"
            case clientSecretExpiresAt = "client_secret_expires_at"
            case registrationAccessToken = "registration_access_token"
            case registrationClientURI = "registration_client_uri"
            case clientName = "client_name"
            case redirectURIs = "redirect_uris"
            case tokenEndpointAuthMethod = "token_endpoint_auth_method"
            case grantTypes = "grant_types"
            case responseTypes = "response_types"
            case idTokenSignedResponseAlg = "id_token_signed_response_alg"
            case postLogoutRedirectURIs = "post_logout_redirect_uris"
            case backchannelLogoutURI = "backchannel_logout_uri"
            case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
            case dpopBoundAccessTokens = "dpop_bound_access_tokens"
            case subjectType = "subject_type"
        }
    }

    static func metadataError(_ message: String) -> DomainError { DomainError(.invalid, invalidMetadata, message) }

    /// The unauthenticated answer: a missing, unknown, used-up or expired token, alike.
    static var invalidToken: DomainError { DomainError(.unauthenticated, .invalidToken, "the registration token is not valid") }

    func requireEnabled(_ tenant: TenantRecord) throws {
        guard tenant.dynamicRegistration else { throw DomainError.notFound("dynamic client registration (off for this tenant)") }
    }

    /// The service the metadata describe, on top of `base` (a new service, or the one replaced).
    func apply(_ metadata: Metadata, to base: ServiceRecord) throws -> ServiceRecord {
        var service = base
        let uris = metadata.redirectURIs ?? []
        let onlyMachine = metadata.grantTypes.map { !$0.contains(GrantType.authorizationCode) } ?? false
        guard !uris.isEmpty || onlyMachine else {
            throw DomainError(.invalid, Self.invalidRedirectURI, "redirect_uris is required")
        }
        service.redirectURIs = uris
        service.name = metadata.clientName ?? "Registered client"
        service.logoURI = metadata.logoURI
        service.policyURI = metadata.policyURI
        service.tosURI = metadata.tosURI
        switch metadata.tokenEndpointAuthMethod ?? ClientAuthMethod.secretBasic {
        case ClientAuthMethod.secretBasic, ClientAuthMethod.secretPost:
            service.isPublic = false
            service.authMethod = nil
        case ClientAuthMethod.privateKeyJWT:
            service.isPublic = false
            service.authMethod = ClientAuthMethod.privateKeyJWT
        case ClientAuthMethod.none:
            service.isPublic = true
            service.authMethod = nil
        default: throw Self.metadataError("token_endpoint_auth_method is client_secret_basic, client_secret_post, private_key_jwt or none")
        }
        // RFC 7591 §2: authorization_code when the client names none. A client that names
        // the code grant gets refresh tokens too, as every service does.
        let grantTypes = metadata.grantTypes ?? [GrantType.authorizationCode]
        guard Set(grantTypes).isSubset(of: GrantType.all), !grantTypes.isEmpty else {
            throw Self.metadataError("grant_types may hold \(GrantType.all.joined(separator: ", "))")
        }
        var allowed = GrantType.all.filter(grantTypes.contains)
        if allowed.contains(GrantType.authorizationCode) && !allowed.contains(GrantType.refreshToken) {
            allowed.insert(GrantType.refreshToken, at: 1)
        }
        service.grantTypes = allowed
        let signsInUsers = allowed.contains(GrantType.authorizationCode)
        guard (metadata.responseTypes ?? (signsInUsers ? ["code"] : [])) == (signsInUsers ? ["code"] : []) else {
            throw Self.metadataError(signsInUsers ? "response_types is [\"code\"]" : "response_types is [] without the authorization_code grant")
        }
        do {
            service.jwks = try metadata.jwks.map(MachineSettings.text)
        } catch {
            throw Self.metadataError("jwks is not a JWK Set")
        }
        service.jwksURI = metadata.jwksURI
        let scopes = Set((metadata.scope ?? "openid").split(separator: " ").map(String.init))
        service.attributes = scopes.flatMap { ScopeClaims.claims[$0] ?? [] }.sorted()
        // A machine client's other scopes are what its client-credentials tokens may carry.
        let machineScopes = scopes.subtracting(ScopeClaims.userScopes).sorted()
        service.scopes = allowed.contains(GrantType.clientCredentials) && !machineScopes.isEmpty ? machineScopes : nil
        // OpenID Connect Dynamic Registration §2: RS256 unless the client asks for another.
        if let named = metadata.idTokenSignedResponseAlg {
            guard let algorithm = SigningAlgorithm(rawValue: named) else {
                throw Self.metadataError("id_token_signed_response_alg is ES256, RS256 or EdDSA")
            }
            service.idTokenAlgorithm = algorithm
        } else {
            service.idTokenAlgorithm = .rs256
        }
        service.postLogoutRedirectURIs = metadata.postLogoutRedirectURIs
        // The server posts to this address from inside its network: a client that registered
        // itself gets https only, and no loopback, private or link-local target whatever the
        // server allows tenant admins (the address is checked again when it is called).
        if let uri = metadata.backchannelLogoutURI,
            URLComponents(string: uri)?.scheme?.lowercased() != "https" || OutboundTargets.refusal(uri, allowsPrivate: false) != nil
        {
            throw Self.metadataError("backchannel_logout_uri must be an https address outside loopback, private and link-local networks")
        }
        service.backchannelLogoutURI = metadata.backchannelLogoutURI
        service.requirePushedAuthorizationRequests = metadata.requirePushedAuthorizationRequests ?? false
        service.dpopBound = metadata.dpopBoundAccessTokens ?? false
        service.subjectType = metadata.subjectType ?? .public
        do {
            return try Administration.checkedService(service, allowsPrivateOutbound: false)
        } catch let error as DomainError where error.kind == .invalid {
            // redirect_uris alone are invalid_redirect_uri (RFC 7591 §3.2.2); post-logout addresses are metadata.
            let aboutRedirectURIs = error.message.hasPrefix("redirect URIs")
            throw DomainError(.invalid, aboutRedirectURIs ? Self.invalidRedirectURI : Self.invalidMetadata, error.message)
        }
    }

    func view(_ service: ServiceRecord, tenant: TenantRecord, secret: String?, registrationToken: String?) -> Registered {
        Registered(
            clientID: service.clientID.rawValue, clientSecret: secret, clientIDIssuedAt: service.createdAt,
            clientSecretExpiresAt: service.endpointAuthMethod == ClientAuthMethod.secretBasic ? 0 : nil, registrationAccessToken: registrationToken,
            registrationClientURI: "\(domain.issuer(forTenantNamed: tenant.name))/register/\(service.clientID)", clientName: service.name,
            redirectURIs: service.redirectURIs, tokenEndpointAuthMethod: service.endpointAuthMethod, grantTypes: service.allowedGrantTypes,
            scope: (["openid"] + ScopeClaims.scopes.filter { scope in !(ScopeClaims.claims[scope] ?? []).isDisjoint(with: service.attributes) }
                + (service.scopes ?? []))
                .joined(separator: " "),
            idTokenSignedResponseAlg: service.idTokenAlgorithm.rawValue, postLogoutRedirectURIs: service.postLogoutRedirectURIs ?? [],
            backchannelLogoutURI: service.backchannelLogoutURI, requirePushedAuthorizationRequests: service.requirePushedAuthorizationRequests,
            dpopBoundAccessTokens: service.dpopBound, subjectType: service.subjectType.rawValue,
            jwks: service.jwks.flatMap { try? JSONDecoder().decode(JWKS.self, from: Data($0.utf8)) }, jwksURI: service.jwksURI,
            logoURI: service.logoURI, policyURI: service.policyURI, tosURI: service.tosURI)
    }

    /// `POST {issuer}/register` with `Authorization: Bearer <initial access token>`.
    public func register(_ metadata: Metadata, initialAccessToken: String?, tenant: TenantRecord, logger: Logger) async throws -> Registered {
        try requireEnabled(tenant)
        guard let initialAccessToken, !initialAccessToken.isEmpty else { throw Self.invalidToken }
        let now = domain.epochNow()
        let secret = Secrets.randomToken()
        let registrationToken = Secrets.randomToken()
        var service = try apply(
            metadata,
            to: ServiceRecord(
                id: ServiceID(Secrets.identifier(byteCount: 12)), tenantID: tenant.id, clientID: ClientID(Secrets.identifier(byteCount: 16)),
                name: "", secretDigest: nil, isPublic: false, redirectURIs: [], policy: .standard,
                attributes: [], numberMatching: true, createdAt: now))
        let hasSecret = service.endpointAuthMethod == ClientAuthMethod.secretBasic
        if hasSecret { service.secretDigest = Secrets.digest(secret) }
        service.registrationDigest = Secrets.digest(registrationToken)
        let record = service
        try await domain.store.transaction { tx in
            // The token's use is spent in the transaction that registers: a refusal above spent nothing.
            guard let token = try await tx.spendRegistrationToken(digest: Secrets.digest(initialAccessToken), now: now),
                token.tenantID == tenant.id
            else { throw Self.invalidToken }
            try await tx.insertService(record)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: .registration(token.id), action: .serviceRegister, target: record.clientID.rawValue,
                details: ["name": record.name, "public": String(record.isPublic), "id_token_signed_response_alg": record.idTokenAlgorithm.rawValue],
                at: now)
        }
        await domain.servicesChanged(logger: logger)
        _ = try await domain.tokenIssuer(for: tenant, signingFor: record, logger: logger)
        logger.info("service registered itself", metadata: ["tenant": "\(tenant.name)", "client_id": "\(record.clientID)"])
        return view(record, tenant: tenant, secret: hasSecret ? secret : nil, registrationToken: registrationToken)
    }

    /// The registered service a registration access token manages.
    func managed(_ clientID: String, token: String?, tenant: TenantRecord, tx: StoreTransaction) async throws -> ServiceRecord {
        guard let token, let service = try await tx.service(clientID: ClientID(clientID)), service.tenantID == tenant.id,
            let digest = service.registrationDigest, Secrets.constantTimeEquals(digest, Secrets.digest(token))
        else { throw Self.invalidToken }
        return service
    }

    /// `GET {issuer}/register/{client_id}` (RFC 7592 §2.1).
    public func read(clientID: String, registrationToken: String?, tenant: TenantRecord) async throws -> Registered {
        try requireEnabled(tenant)
        let service = try await domain.store.read { try await managed(clientID, token: registrationToken, tenant: tenant, tx: $0) }
        return view(service, tenant: tenant, secret: nil, registrationToken: nil)
    }

    /// `PUT {issuer}/register/{client_id}` (RFC 7592 §2.2): the metadata replace the registration's.
    public func update(clientID: String, _ metadata: Metadata, registrationToken: String?, tenant: TenantRecord, logger: Logger) async throws
        -> Registered
    {
        try requireEnabled(tenant)
        guard metadata.clientID == nil || metadata.clientID == clientID else { throw Self.metadataError("client_id is not this registration's") }
        let now = domain.epochNow()
        let updated: ServiceRecord = try await domain.store.transaction { tx in
            let current = try await managed(clientID, token: registrationToken, tenant: tenant, tx: tx)
            var next = try apply(metadata, to: current)
            // The kind of client stays what it registered as: its secret is not shown again.
            guard next.endpointAuthMethod == current.endpointAuthMethod else {
                throw Self.metadataError("token_endpoint_auth_method cannot change between none, a secret and private_key_jwt")
            }
            next.secretDigest = current.secretDigest
            try await tx.updateService(next)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: .registration(clientID), action: .serviceUpdate, target: clientID, details: ["changed": "registration"],
                at: now)
            return next
        }
        await domain.servicesChanged(logger: logger)
        _ = try await domain.tokenIssuer(for: tenant, signingFor: updated, logger: logger)
        return view(updated, tenant: tenant, secret: nil, registrationToken: nil)
    }

    /// `DELETE {issuer}/register/{client_id}` (RFC 7592 §2.3): the service and its sessions go.
    public func delete(clientID: String, registrationToken: String?, tenant: TenantRecord, logger: Logger) async throws {
        try requireEnabled(tenant)
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            let service = try await managed(clientID, token: registrationToken, tenant: tenant, tx: tx)
            try await tx.endSessions(.service(service.id), reason: .serviceRemoved, at: now)
            try await tx.deleteService(id: service.id)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: .registration(clientID), action: .serviceDelete, target: clientID, details: ["name": service.name],
                at: now)
        }
        await domain.servicesChanged(logger: logger)
        logger.info("service deregistered itself", metadata: ["tenant": "\(tenant.name)", "client_id": "\(clientID)"])
    }
}

extension Administration {
    /// A new initial access token (shown once; stored as a digest): 1 to 1000 uses (default
    /// 1), good for 60 s to 30 days (default a day).
    package func createRegistrationToken(_ input: Components.Schemas.CreateRegistrationToken, tenant: TenantRecord, logger: Logger)
        async throws -> Components.Schemas.RegistrationToken
    {
        let uses = input.uses ?? 1
        let ttl = input.ttlSeconds ?? 86_400
        guard (1...1000).contains(uses), (60...2_592_000).contains(ttl) else {
            throw DomainError.invalidRequest("uses is 1 to 1000, ttl_seconds 60 to 2592000")
        }
        let token = Secrets.randomToken()
        let now = domain.epochNow()
        let record = RegistrationTokenRecord(
            id: Secrets.identifier(byteCount: 12), tenantID: tenant.id, digest: Secrets.digest(token), usesLeft: uses,
            expiresAt: now + Int64(ttl), createdAt: now)
        try await domain.store.transaction { tx in
            try await tx.insertRegistrationToken(record)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .registrationTokenCreate, target: record.id,
                details: ["uses": String(uses), "expires_at": String(record.expiresAt)], at: now)
        }
        logger.info("registration token issued", metadata: ["tenant": "\(tenant.name)", "id": "\(record.id)"])
        return Components.Schemas.RegistrationToken(record, token: token)
    }

    package func listRegistrationTokens(tenant: TenantRecord) async throws -> [Components.Schemas.RegistrationToken] {
        try await domain.store.read { try await $0.registrationTokens(tenantID: tenant.id) }.map { Components.Schemas.RegistrationToken($0) }
    }

    public func revokeRegistrationToken(id: String, tenant: TenantRecord, logger: Logger) async throws {
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            guard try await tx.deleteRegistrationToken(id: id, tenantID: tenant.id) else {
                throw DomainError.notFound("registration token '\(id.prefix(64))'")
            }
            try await Audit.record(tx, tenantID: tenant.id, actor: caller.actor, action: .registrationTokenRevoke, target: id, details: [:], at: now)
        }
    }
}

extension Components.Schemas.RegistrationToken {
    /// An initial access token as the admin API shows it; the token itself only in the
    /// answer that made it.
    init(_ record: RegistrationTokenRecord, token: String? = nil) {
        self.init(
            id: record.id, token: token, usesLeft: record.usesLeft, expiresAt: Double(record.expiresAt), createdAt: Double(record.createdAt))
    }
}

extension Domain {
    public var clientRegistration: ClientRegistration { ClientRegistration(domain: self) }
}
