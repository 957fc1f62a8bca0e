import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

extension Administration {
    /// Checks a service and writes its policy in normal form; creation and every update
    /// go through here, so no service is left without a redirect URI (unless it is
    /// backchannel-only) or a policy. The addresses the server will call (notification
    /// endpoint, back-channel logout) are not loopback, private or link-local ones unless
    /// `allowsPrivateOutbound` (`OutboundTargets`).
    static func checkedService(_ service: ServiceRecord, allowsPrivateOutbound: Bool) throws -> ServiceRecord {
        var service = service
        service.name = service.name.trimmingCharacters(in: .whitespaces)
        guard (1...128).contains(service.name.count) else { throw DomainError.invalidRequest("a service needs a name of 1 to 128 characters") }
        // A backchannel-only service, or one without the code grant, needs no redirect URI;
        // every other one needs at least one.
        let signsInUsers = service.allowedGrantTypes.contains(GrantType.authorizationCode)
        guard !service.redirectURIs.isEmpty || service.backchannelMode != nil || !signsInUsers, service.redirectURIs.count <= 20,
            service.redirectURIs.allSatisfy(Validation.isRedirectURI)
        else {
            throw DomainError.invalidRequest(
                "redirect URIs must be absolute, without fragment, and https, http on a loopback host, or a private-use scheme")
        }
        switch (service.backchannelMode, service.notificationEndpoint) {
        case (.ping, let endpoint?):
            guard Validation.isNotificationEndpoint(endpoint) else {
                throw DomainError.invalidRequest("the notification endpoint must be an https URL (http only on a loopback host)")
            }
            if let refusal = OutboundTargets.refusal(endpoint, allowsPrivate: allowsPrivateOutbound) {
                throw DomainError.invalidRequest("backchannel_client_notification_endpoint is refused: \(refusal)")
            }
        case (.ping, nil):
            throw DomainError.invalidRequest("ping mode needs backchannel_client_notification_endpoint")
        case (_, .some):
            throw DomainError.invalidRequest("a notification endpoint is for ping mode only")
        default:
            break
        }
        for (field, uri) in [("logo_uri", service.logoURI), ("policy_uri", service.policyURI), ("tos_uri", service.tosURI)] {
            guard let uri else { continue }
            guard uri.count <= 2048, Validation.isNotificationEndpoint(uri) else {
                throw DomainError.invalidRequest("\(field) must be an https URL (http only on a loopback host)")
            }
        }
        // The server fetches the logo for the login page: not from inside.
        if let logo = service.logoURI, let refusal = OutboundTargets.refusal(logo, allowsPrivate: allowsPrivateOutbound) {
            throw DomainError.invalidRequest("logo_uri is refused: \(refusal)")
        }
        if let uris = service.postLogoutRedirectURIs {
            guard uris.count <= 20, uris.allSatisfy(Validation.isRedirectURI) else {
                throw DomainError.invalidRequest(
                    "post-logout redirect URIs must be absolute, without fragment, and https, http on a loopback host, or a private-use scheme")
            }
            if uris.isEmpty { service.postLogoutRedirectURIs = nil }
        }
        if let uri = service.backchannelLogoutURI {
            // OpenID Back-Channel Logout §2.2: an absolute URI without a fragment; https unless on a loopback host.
            guard Validation.isNotificationEndpoint(uri), !uri.contains("#") else {
                throw DomainError.invalidRequest("backchannel_logout_uri must be an https URL (http only on a loopback host), without fragment")
            }
            if let refusal = OutboundTargets.refusal(uri, allowsPrivate: allowsPrivateOutbound) {
                throw DomainError.invalidRequest("backchannel_logout_uri is refused: \(refusal)")
            }
        }
        if service.backchannelMode != nil && service.isPublic {
            throw DomainError.invalidRequest("backchannel authentication is for confidential services (it needs client authentication)")
        }
        guard service.attributes.allSatisfy(Validation.isAttributeName), Set(service.attributes).count == service.attributes.count
        else {
            throw DomainError.invalidRequest("attribute names are lower-case identifiers, each once, and not registered claim names")
        }
        if let roles = service.roles {
            let policy = service.policy
            guard roles.count <= 20, Set(roles.map(\.name)).count == roles.count else {
                throw DomainError.invalidRequest("roles: at most 20, each name once")
            }
            service.roles = try roles.map { role in
                guard (1...64).contains(role.name.count),
                    role.name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
                else { throw DomainError.invalidRequest("roles: a role name is 1 to 64 characters of letters, digits, '_' and '-'") }
                guard role.policy.alternatives.allSatisfy(policy.allows) else {
                    throw DomainError.invalidRequest("roles: \(role.name) names combinations the service's policy does not allow")
                }
                return role
            }
            if service.roles?.isEmpty == true { service.roles = nil }
        }
        try checkMachineSettings(service, allowsPrivateOutbound: allowsPrivateOutbound)
        // A pairwise service keys its identifiers with a salt of its own, made once.
        if service.subjectType == .pairwise && service.pairwiseSalt == nil {
            service.pairwiseSalt = Base64URL.encode(Secrets.randomBytes(32))
        }
        let lifetime = service.sessionLifetime ?? sessionLifetimes.upperBound
        if let value = service.sessionLifetime, !sessionLifetimes.contains(value) {
            throw DomainError.invalidRequest("session_lifetime is 300 to 31536000 seconds (or null: the tenant's)")
        }
        if let idle = service.sessionIdleLifetime, !sessionLifetimes.contains(idle) || idle > lifetime {
            throw DomainError.invalidRequest("session_idle_lifetime is 300 to 31536000 seconds and at most session_lifetime (or null)")
        }
        return service
    }

    package func createService(_ input: Components.Schemas.CreateService, tenant: TenantRecord, logger: Logger) async throws -> Components.Schemas.Service {
        let name = input.name.trimmingCharacters(in: .whitespaces)
        let mode = try input.backchannelTokenDeliveryMode.map { try BackchannelMode.documented($0) }
        let attributes = input.attributes ?? []
        let method = input.tokenEndpointAuthMethod?.rawValue
        if let isPublic = input._public, let method, isPublic != (method == ClientAuthMethod.none) {
            throw DomainError.invalidRequest("public and token_endpoint_auth_method disagree (a public service's method is none)")
        }
        let isPublic = input._public ?? (method == ClientAuthMethod.none)
        let secret = isPublic || method == ClientAuthMethod.privateKeyJWT ? nil : Secrets.randomToken()
        let clientID = try input.clientId.map(Self.chosenClientID) ?? ClientID(Secrets.identifier(byteCount: 16))
        var service =
            ServiceRecord(
                id: ServiceID(Secrets.identifier(byteCount: 12)), tenantID: tenant.id, clientID: clientID,
                name: name, secretDigest: secret.map(Secrets.digest), isPublic: isPublic,
                redirectURIs: input.redirectUris ?? [], policy: try input.policy.map { try .documented($0, field: "policy") } ?? .standard,
                attributes: attributes, backchannelMode: mode,
                notificationEndpoint: input.backchannelClientNotificationEndpoint,
                roles: try input.roles?.map(ServiceRole.init), subjectType: try input.subjectType.map { try SubjectType.documented($0) } ?? .public,
                createdAt: domain.epochNow())
        for toggle in ServiceSwitch.all { service[keyPath: toggle.record] = input[keyPath: toggle.created] ?? toggle.standard }
        service.idTokenAlgorithm = try input.idTokenSignedResponseAlg.map { try SigningAlgorithm.documented($0) } ?? .es256
        service.postLogoutRedirectURIs = input.postLogoutRedirectUris
        service.backchannelLogoutURI = input.backchannelLogoutUri
        service.logoURI = input.logoUri
        service.policyURI = input.policyUri
        service.tosURI = input.tosUri
        var ignored: [String] = []
        try MachineSettings(created: input).apply(to: &service, changed: &ignored)
        let record = try Self.checkedService(service, allowsPrivateOutbound: domain.settings.allowsPrivateOutbound)
        // The JWKS has the key of the service's algorithm before its first token.
        _ = try await domain.tokenIssuer(for: tenant, signingFor: record, logger: logger)
        let policy = record.policy
        try await domain.store.transaction { tx in
            if input.clientId != nil, try await tx.service(clientID: record.clientID) != nil {
                throw DomainError(.conflict, .conflict, "client_id '\(record.clientID.rawValue)' is taken")
            }
            try await tx.insertService(record)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .serviceCreate, target: record.clientID.rawValue,
                details: [
                    "name": name, "policy": policy.description, "public": String(isPublic),
                    "backchannel_token_delivery_mode": mode?.rawValue ?? "none",
                    "number_matching": String(record.numberMatching), "subject_type": record.subjectType.rawValue,
                    "id_token_signed_response_alg": record.idTokenAlgorithm.rawValue,
                ], at: record.createdAt)
        }
        await domain.servicesChanged(logger: logger)
        logger.info("service created", metadata: ["tenant": "\(tenant.name)", "client_id": "\(record.clientID)"])
        return Components.Schemas.Service(record, secret: secret, issuer: domain.issuer(forTenantNamed: tenant.name))
    }

    /// A client_id an administrator chooses: 1 to 128 of `A-Z a-z 0-9 . _ ~ -`, and none of
    /// the server's own sign-in services'.
    static func chosenClientID(_ text: String) throws -> ClientID {
        guard (1...128).contains(text.utf8.count), text.utf8.allSatisfy({ byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte)
        }) else {
            throw DomainError.invalidRequest("a client_id is 1 to 128 characters of letters, digits, '.', '_', '~' and '-'")
        }
        let clientID = ClientID(text)
        if WebSessions.isBuiltIn(clientID) {
            throw DomainError.invalidRequest("client_id '\(text)' is the server's own sign-in service's")
        }
        return clientID
    }

    package func listServices(tenant: TenantRecord) async throws -> [Components.Schemas.Service] {
        let services = try await domain.store.read { try await $0.services(tenantID: tenant.id) }
        return services.map { Components.Schemas.Service($0, secret: nil, issuer: domain.issuer(forTenantNamed: tenant.name)) }
    }

    /// The tenant's service with this client id, or `not_found` (another tenant's too).
    func service(clientID: ClientID, tenant: TenantRecord, tx: StoreTransaction) async throws -> ServiceRecord {
        guard let service = try await tx.service(clientID: clientID), service.tenantID == tenant.id else {
            throw DomainError.notFound("service '\(clientID.rawValue.prefix(64))'")
        }
        return service
    }

    package func getService(clientID: ClientID, tenant: TenantRecord) async throws -> Components.Schemas.Service {
        let service = try await domain.store.read { try await self.service(clientID: clientID, tenant: tenant, tx: $0) }
        return Components.Schemas.Service(service, secret: nil, issuer: domain.issuer(forTenantNamed: tenant.name))
    }

    /// A change to a service: only what the body names changes (`null` clears the
    /// backchannel settings or a session lifetime, falling back to the tenant's).
    /// The console's and account page's own services are the server's: their policy and
    /// redirect URI are what keeps operator sign-in strong.
    static func refuseBuiltIn(_ clientID: ClientID) throws {
        if WebSessions.isBuiltIn(clientID) {
            throw DomainError.conflict("this is the server's own sign-in service for the console or account page: it is not changed here")
        }
    }

    package func updateService(clientID: ClientID, _ input: ServiceChanges, tenant: TenantRecord, logger: Logger) async throws -> Components.Schemas.Service {
        try Self.refuseBuiltIn(clientID)
        let now = domain.epochNow()
        let updated: ServiceRecord = try await domain.store.transaction { tx in
            var next = try await service(clientID: clientID, tenant: tenant, tx: tx)
            var changed: [String] = []
            try Self.settle(input, on: &next, changed: &changed)
            guard !changed.isEmpty else { throw DomainError.invalidRequest("the body changes nothing") }
            next = try Self.checkedService(next, allowsPrivateOutbound: domain.settings.allowsPrivateOutbound)
            try await tx.updateService(next)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .serviceUpdate, target: clientID.rawValue,
                details: ["changed": changed.joined(separator: ",")], at: now)
            return next
        }
        await domain.servicesChanged(logger: logger)
        logger.info("service updated", metadata: ["tenant": "\(tenant.name)", "client_id": "\(clientID)"])
        _ = try await domain.tokenIssuer(for: tenant, signingFor: updated, logger: logger)
        return Components.Schemas.Service(updated, secret: nil, issuer: domain.issuer(forTenantNamed: tenant.name))
    }

    /// Sets the settings `input` names on `next` and lists them in `changed`: a service's
    /// update and a configuration document's service go through here (`checkedService`
    /// then checks them together).
    static func settle(_ input: ServiceChanges, on next: inout ServiceRecord, changed: inout [String]) throws {
        if let name = input.name { next.name = name; changed.append("name") }
        if let uris = input.redirectUris { next.redirectURIs = uris; changed.append("redirect_uris") }
        if let policy = input.policy { next.policy = try .documented(policy, field: "policy"); changed.append("policy") }
        if let attributes = input.attributes { next.attributes = attributes; changed.append("attributes") }
        switch input.patch(\.backchannelTokenDeliveryMode, .backchannelTokenDeliveryMode) {
        case .absent: break
        case .null: next.backchannelMode = nil; changed.append("backchannel_token_delivery_mode")
        case .value(let text):
            next.backchannelMode = try BackchannelMode.documented(text)
            changed.append("backchannel_token_delivery_mode")
        }
        switch input.patch(\.backchannelClientNotificationEndpoint, .backchannelClientNotificationEndpoint) {
        case .absent: if next.backchannelMode != .ping { next.notificationEndpoint = nil }
        case .null: next.notificationEndpoint = nil; changed.append("backchannel_client_notification_endpoint")
        case .value(let url): next.notificationEndpoint = url; changed.append("backchannel_client_notification_endpoint")
        }
        switch input.patch(\.sessionLifetime, .sessionLifetime) {
        case .absent: break
        case .null: next.sessionLifetime = nil; changed.append("session_lifetime")
        case .value(let seconds): next.sessionLifetime = Int64(seconds); changed.append("session_lifetime")
        }
        switch input.patch(\.sessionIdleLifetime, .sessionIdleLifetime) {
        case .absent: break
        case .null: next.sessionIdleLifetime = nil; changed.append("session_idle_lifetime")
        case .value(let seconds): next.sessionIdleLifetime = Int64(seconds); changed.append("session_idle_lifetime")
        }
        for toggle in ServiceSwitch.all {
            guard let value = input[keyPath: toggle.changed] else { continue }
            next[keyPath: toggle.record] = value
            changed.append(toggle.field)
        }
        switch input.patch(\.roles, .roles) {
        case .absent: break
        case .null: next.roles = nil; changed.append("roles")
        case .value(let roles): next.roles = try roles.map(ServiceRole.init); changed.append("roles")
        }
        if let type = input.subjectType { next.subjectType = try SubjectType.documented(type); changed.append("subject_type") }
        if let algorithm = input.idTokenSignedResponseAlg {
            next.idTokenAlgorithm = try SigningAlgorithm.documented(algorithm)
            changed.append("id_token_signed_response_alg")
        }
        switch input.patch(\.postLogoutRedirectUris, .postLogoutRedirectUris) {
        case .absent: break
        case .null: next.postLogoutRedirectURIs = nil; changed.append("post_logout_redirect_uris")
        case .value(let uris): next.postLogoutRedirectURIs = uris; changed.append("post_logout_redirect_uris")
        }
        switch input.patch(\.backchannelLogoutUri, .backchannelLogoutUri) {
        case .absent: break
        case .null: next.backchannelLogoutURI = nil; changed.append("backchannel_logout_uri")
        case .value(let uri): next.backchannelLogoutURI = uri; changed.append("backchannel_logout_uri")
        }
        for (path, key, record, field) in [
            (\Components.Schemas.ServiceFields.logoUri, Components.Schemas.ServiceFields.CodingKeys.logoUri, \ServiceRecord.logoURI, "logo_uri"),
            (\.policyUri, .policyUri, \.policyURI, "policy_uri"), (\.tosUri, .tosUri, \.tosURI, "tos_uri"),
        ] {
            switch input.patch(path, key) {
            case .absent: break
            case .null: next[keyPath: record] = nil; changed.append(field)
            case .value(let uri): next[keyPath: record] = uri; changed.append(field)
            }
        }
        try MachineSettings(changes: input).apply(to: &next, changed: &changed)
    }

    /// A new client secret, shown once; the old one stops working at once (on the other
    /// nodes when they hear of it, see `Domain.service(clientID:in:)`).
    package func rotateSecret(clientID: ClientID, tenant: TenantRecord, logger: Logger) async throws -> Components.Schemas.Service {
        let now = domain.epochNow()
        let secret = Secrets.randomToken()
        let updated: ServiceRecord = try await domain.store.transaction { tx in
            var next = try await service(clientID: clientID, tenant: tenant, tx: tx)
            guard !next.isPublic else { throw DomainError.invalidRequest("a public service has no client secret") }
            guard next.authMethod == nil else {
                throw DomainError.invalidRequest("a private_key_jwt service has no client secret: it signs assertions with its keys")
            }
            next.secretDigest = Secrets.digest(secret)
            try await tx.updateService(next)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .serviceRotateSecret, target: clientID.rawValue, details: [:], at: now)
            return next
        }
        await domain.servicesChanged(logger: logger)
        logger.info("client secret rotated", metadata: ["tenant": "\(tenant.name)", "client_id": "\(clientID)"])
        return Components.Schemas.Service(updated, secret: secret, issuer: domain.issuer(forTenantNamed: tenant.name))
    }

    /// Removes a service: its sessions end and its codes, tokens and requests go.
    public func deleteService(clientID: ClientID, tenant: TenantRecord, logger: Logger) async throws {
        try Self.refuseBuiltIn(clientID)
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            let service = try await service(clientID: clientID, tenant: tenant, tx: tx)
            let ended = try await tx.endSessions(.service(service.id), reason: .serviceRemoved, at: now)
            try await tx.deleteService(id: service.id)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .serviceDelete, target: clientID.rawValue,
                details: ["name": service.name, "sessions_ended": String(ended)], at: now)
        }
        await domain.servicesChanged(logger: logger)
        logger.info("service deleted", metadata: ["tenant": "\(tenant.name)", "client_id": "\(clientID)"])
    }
}

/// A service's on/off setting, whole: its field in the admin API (`openapi.yaml`), its
/// column in the record, its value on a new service, and how the console's form shows it.
/// Creating, changing and showing a service, and the console's service form, all go
/// through `ServiceSwitch.all`: a new switch is a row here and its value in the answer
/// below (besides its field in the spec, its record column, its migration and the rule
/// that reads it: five files in all).
public struct ServiceSwitch: Sendable {
    /// The admin API's field, which is also the console form's field.
    public let field: String
    /// On the console's form: the checkbox's id (its label is the catalog's
    /// `console.switch.FIELD`); nil: not on the form.
    public let console: String?
    /// A new service's value when the request does not say.
    public let standard: Bool
    let record: any WritableKeyPath<ServiceRecord, Bool> & Sendable
    package let shown: any WritableKeyPath<Components.Schemas.Service, Bool> & Sendable
    package let created: any WritableKeyPath<Components.Schemas.CreateService, Bool?> & Sendable
    package let changed: any WritableKeyPath<ServiceChanges, Bool?> & Sendable

    /// Every switch, in the order the console's form shows them.
    public static let all: [ServiceSwitch] = [
        ServiceSwitch(
            field: "number_matching",
            console: "service-number-matching",
            standard: true, record: \.numberMatching, shown: \.numberMatching, created: \.numberMatching, changed: \.numberMatching),
        ServiceSwitch(
            field: "require_pushed_authorization_requests",
            console: "service-require-par", standard: false,
            record: \.requirePushedAuthorizationRequests, shown: \.requirePushedAuthorizationRequests,
            created: \.requirePushedAuthorizationRequests, changed: \.requirePushedAuthorizationRequests),
        ServiceSwitch(
            field: "dpop_bound_access_tokens",
            console: "service-dpop-bound", standard: false,
            record: \.dpopBound, shown: \.dpopBoundAccessTokens, created: \.dpopBoundAccessTokens, changed: \.dpopBoundAccessTokens),
        ServiceSwitch(
            field: "app_identity_token", console: nil, standard: false, record: \.appIdentityToken, shown: \.appIdentityToken,
            created: \.appIdentityToken, changed: \.appIdentityToken),
        ServiceSwitch(
            field: "gematik_profile", console: nil, standard: false, record: \.gematikProfile, shown: \.gematikProfile,
            created: \.gematikProfile, changed: \.gematikProfile),
    ]
}

extension Components.Schemas.Service {
    /// A service as the admin API shows it; its secret only in the answer that made it.
    init(_ service: ServiceRecord, secret: String?, issuer: String) {
        // The switches are set from ServiceSwitch.all below.
        self.init(
            clientId: service.clientID.rawValue, clientSecret: secret, logoUri: service.logoURI, policyUri: service.policyURI,
            tosUri: service.tosURI, name: service.name, _public: service.isPublic,
            redirectUris: service.redirectURIs, policy: service.policy.description, attributes: service.attributes,
            backchannelTokenDeliveryMode: service.backchannelMode.flatMap { .init(rawValue: $0.rawValue) },
            backchannelClientNotificationEndpoint: service.notificationEndpoint,
            sessionLifetime: service.sessionLifetime.map(Int.init), sessionIdleLifetime: service.sessionIdleLifetime.map(Int.init),
            numberMatching: false, roles: (service.roles ?? []).map { .init(name: $0.name, policy: $0.policy.description) },
            subjectType: .init(rawValue: service.subjectType.rawValue) ?? ._public, appIdentityToken: false,
            idTokenSignedResponseAlg: .init(rawValue: service.idTokenAlgorithm.rawValue) ?? .es256,
            postLogoutRedirectUris: service.postLogoutRedirectURIs ?? [], backchannelLogoutUri: service.backchannelLogoutURI,
            requirePushedAuthorizationRequests: false, dpopBoundAccessTokens: false, gematikProfile: false,
            grantTypes: service.allowedGrantTypes.compactMap(Components.Schemas.GrantType.init(rawValue:)),
            tokenEndpointAuthMethod: .init(rawValue: service.endpointAuthMethod) ?? .clientSecretBasic, scopes: service.scopes ?? [],
            audience: service.audience, accessTokenLifetime: service.accessTokenLifetime.map(Int.init),
            jwks: service.jwks.flatMap { try? JSONDecoder().decode(JwksPayload.self, from: Data($0.utf8)) }, jwksUri: service.jwksURI,
            issuer: issuer)
        for toggle in ServiceSwitch.all { self[keyPath: toggle.shown] = service[keyPath: toggle.record] }
    }
}

extension ServiceRole {
    /// A role as a request spells it; its policy refused with the role's name.
    init(_ role: Components.Schemas.Role) throws {
        self.init(name: role.name, policy: try .documented(role.policy, field: "roles: \(role.name)"))
    }
}

/// A service's machine-client settings as a request names them (grant types, how it
/// authenticates, its keys, and its client-credentials tokens' scopes, audience and
/// lifetime), from either body, applied to the record in one place.
struct MachineSettings {
    var grantTypes: Patch<[String]> = .absent
    var authMethod: Patch<String> = .absent
    var scopes: Patch<[String]> = .absent
    var audience: Patch<String> = .absent
    var accessTokenLifetime: Patch<Int> = .absent
    var jwks: Patch<String> = .absent
    var jwksURI: Patch<String> = .absent

    init(created input: Components.Schemas.CreateService) throws {
        grantTypes = Patch(input.grantTypes?.map(\.rawValue))
        authMethod = Patch(input.tokenEndpointAuthMethod?.rawValue)
        scopes = Patch(input.scopes)
        audience = Patch(input.audience)
        accessTokenLifetime = Patch(input.accessTokenLifetime)
        jwks = Patch(try input.jwks.map(Self.text))
        jwksURI = Patch(input.jwksUri)
    }

    init(changes input: ServiceChanges) throws {
        grantTypes = input.patch(\.grantTypes, .grantTypes).map { $0.map(\.rawValue) }
        authMethod = input.patch(\.tokenEndpointAuthMethod, .tokenEndpointAuthMethod).map(\.rawValue)
        scopes = input.patch(\.scopes, .scopes)
        audience = input.patch(\.audience, .audience)
        accessTokenLifetime = input.patch(\.accessTokenLifetime, .accessTokenLifetime)
        jwks = try input.patch(\.jwks, .jwks).map(Self.text)
        jwksURI = input.patch(\.jwksUri, .jwksUri)
    }

    /// A JWK Set as the record keeps it: JSON with sorted keys.
    static func text(_ set: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(set), as: UTF8.self)
    }

    /// Sets what the request names on `service` and lists the fields in `changed`. The
    /// method moves a confidential service between its secret and private_key_jwt (which
    /// drops the secret: `rotate-secret` makes a new one after a move back); between public
    /// and confidential it does not move.
    func apply(to service: inout ServiceRecord, changed: inout [String]) throws {
        if grantTypes.set(&service.grantTypes) != nil { changed.append("grant_types") }
        switch authMethod {
        case .absent: break
        case .null, .value(ClientAuthMethod.secretBasic), .value(ClientAuthMethod.secretPost):
            guard !service.isPublic else {
                throw DomainError.invalidRequest("token_endpoint_auth_method cannot change between none and a secret or key")
            }
            service.authMethod = nil
            changed.append("token_endpoint_auth_method")
        case .value(ClientAuthMethod.privateKeyJWT):
            guard !service.isPublic else {
                throw DomainError.invalidRequest("token_endpoint_auth_method cannot change between none and a secret or key")
            }
            if service.authMethod == nil { service.secretDigest = nil }
            service.authMethod = ClientAuthMethod.privateKeyJWT
            changed.append("token_endpoint_auth_method")
        case .value(let method):
            guard method == ClientAuthMethod.none, service.isPublic else {
                throw DomainError.invalidRequest("token_endpoint_auth_method cannot change between none and a secret or key")
            }
            changed.append("token_endpoint_auth_method")
        }
        if scopes.set(&service.scopes) != nil { changed.append("scopes") }
        if audience.set(&service.audience) != nil { changed.append("audience") }
        if accessTokenLifetime.map(Int64.init).set(&service.accessTokenLifetime) != nil { changed.append("access_token_lifetime") }
        if jwks.set(&service.jwks) != nil { changed.append("jwks") }
        if jwksURI.set(&service.jwksURI) != nil { changed.append("jwks_uri") }
    }
}

extension Patch {
    /// A request's optional field: absent when nil.
    init(_ value: Value?) { self = value.map { .value($0) } ?? .absent }

    func map<Other: Codable & Sendable>(_ transform: (Value) throws -> Other) rethrows -> Patch<Other> {
        switch self {
        case .absent: .absent
        case .null: .null
        case .value(let value): .value(try transform(value))
        }
    }

    /// Writes the field's new value (nil for `null`) into `target`; nil when absent.
    @discardableResult
    func set(_ target: inout Value?) -> Value?? {
        switch self {
        case .absent: return nil
        case .null: target = nil; return .some(nil)
        case .value(let value): target = value; return .some(value)
        }
    }
}

extension Administration {
    /// The machine-client settings: the grants a service may use, its method, its keys
    /// (inline or by an address the server may call), its scopes, audience and lifetime.
    static func checkMachineSettings(_ service: ServiceRecord, allowsPrivateOutbound: Bool) throws {
        if let types = service.grantTypes {
            guard !types.isEmpty, Set(types).count == types.count, types.allSatisfy(GrantType.all.contains) else {
                throw DomainError.invalidRequest("grant_types: each of \(GrantType.all.joined(separator: ", ")) at most once, at least one")
            }
        }
        if service.allowedGrantTypes.contains(GrantType.clientCredentials) && service.isPublic {
            throw DomainError.invalidRequest("client_credentials is for confidential services (it needs client authentication)")
        }
        if let scopes = service.scopes {
            guard scopes.count <= 50, Set(scopes).count == scopes.count, scopes.allSatisfy(ScopeList.isScope) else {
                throw DomainError.invalidRequest("scopes: at most 50, each once, of printable characters without space, quote or backslash")
            }
            guard !scopes.contains(where: { ScopeClaims.userScopes.contains($0) }) else {
                throw DomainError.invalidRequest("scopes: openid, offline_access, groups and the claim scopes are for users' logins, not machine tokens")
            }
        }
        if let audience = service.audience, !(1...512).contains(audience.count) {
            throw DomainError.invalidRequest("audience is 1 to 512 characters")
        }
        if let lifetime = service.accessTokenLifetime, !accessTokenLifetimes.contains(lifetime) {
            throw DomainError.invalidRequest("access_token_lifetime is 60 to 3600 seconds (or null: the tenant's)")
        }
        let usesKeys = service.authMethod == ClientAuthMethod.privateKeyJWT
        if let method = service.authMethod, method != ClientAuthMethod.privateKeyJWT {
            throw DomainError.invalidRequest("unknown token_endpoint_auth_method \(method.prefix(64))")
        }
        switch (service.jwks, service.jwksURI) {
        case (nil, nil):
            if usesKeys { throw DomainError.invalidRequest("private_key_jwt needs jwks or jwks_uri") }
        case (.some, .some):
            throw DomainError.invalidRequest("give jwks or jwks_uri, not both")
        case (let set?, nil):
            guard usesKeys else { throw DomainError.invalidRequest("jwks is for private_key_jwt services") }
            guard let keys = ClientKeys.parse(Data(set.utf8)), !keys.isEmpty else {
                throw DomainError.invalidRequest("jwks is a JWK Set of 1 to 20 public signing keys (EC P-256, RSA or Ed25519)")
            }
        case (nil, let uri?):
            guard usesKeys else { throw DomainError.invalidRequest("jwks_uri is for private_key_jwt services") }
            guard uri.count <= 2048, Validation.isNotificationEndpoint(uri), !uri.contains("#") else {
                throw DomainError.invalidRequest("jwks_uri must be an https URL (http only on a loopback host), without fragment")
            }
            if let refusal = OutboundTargets.refusal(uri, allowsPrivate: allowsPrivateOutbound) {
                throw DomainError.invalidRequest("jwks_uri is refused: \(refusal)")
            }
        }
    }
}
