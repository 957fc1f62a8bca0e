import Foundation
import Crypto
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Configuration as code: a document of what a server holds besides its users, devices
/// and keys (`GET /admin/export`), and the server made to match one (`POST /admin/apply`).
///
/// A resource is named by what stays when it is copied to another server: a tenant by its
/// name, a service by its `client_id`, a provider by its name, a webhook by its URL (in
/// its tenant, or among the global ones), an operator by its username. Every setting is
/// written out on export; a setting a document leaves out takes its default, so applying
/// an export gives the same export back. Secrets are never exported: the document holds a
/// reference (`${env:NAME}`) that `tessera admin apply` resolves before sending it.
extension Administration {
    package typealias Document = Components.Schemas.Configuration
    package typealias Change = Components.Schemas.ConfigChange

    /// The document of the tenants the caller reaches (or the one named), sorted, with the
    /// global webhooks and the operators for a caller of every tenant.
    package func exportConfiguration(tenant name: String?) async throws -> Document {
        try caller.check(.read)
        let named = try await name.asyncMap { try await domain.tenant(named: $0) }
        if let named { try caller.check(tenant: named) }
        return try await domain.store.read { tx in
            let tenants = try await tx.tenants().filter { named == nil ? caller.reaches($0) : $0.id == named?.id }.sorted { $0.name < $1.name }
            let hooks = try await tx.webhooks()
            var documented: [Components.Schemas.ConfigTenant] = []
            for tenant in tenants {
                let services = try await tx.services(tenantID: tenant.id).filter { !WebSessions.isBuiltIn($0.clientID) }
                    .sorted { $0.clientID.rawValue < $1.clientID.rawValue }
                    .map { service in
                        Components.Schemas.ConfigService(
                            clientId: service.clientID.rawValue,
                            clientSecret: service.secretDigest == nil ? nil : Self.reference("service", tenant: tenant.name, name: service.clientID.rawValue),
                            settings: .init(settingsOf: service))
                    }
                let providers = try await tx.identityProviders(tenantID: tenant.id).sorted { $0.name < $1.name }.map { provider in
                    var input = Components.Schemas.CreateIdentityProvider(settingsOf: provider)
                    if provider.sealedClientSecret != nil { input.clientSecret = Self.reference("provider", tenant: tenant.name, name: provider.name) }
                    return input
                }
                documented.append(
                    .init(
                        name: tenant.name, settings: TenantChanges(settingsOf: tenant), services: services, identityProviders: providers,
                        webhooks: Self.documented(hooks.filter { $0.tenantID == tenant.id }, scope: tenant.name)))
            }
            guard name == nil, caller.isGlobalAdmin else { return Document(version: 1, tenants: documented) }
            let operators = try await self.operators(tx)
            return Document(
                version: 1, tenants: documented, webhooks: Self.documented(hooks.filter { $0.tenantID == nil }, scope: ""),
                operators: operators.map { .init(username: $0.username, role: .init(rawValue: $0.role.rawValue) ?? .auditor, tenant: $0.tenant) }
                    .sorted { $0.username < $1.username })
        }
    }

    /// The reference a document holds for a secret: an environment variable named after
    /// the secret's kind, tenant and owner, with a digest of the three so no two are alike.
    static func reference(_ kind: String, tenant: String, name: String) -> String {
        let readable = "\(kind)_\(tenant)_\(name)".uppercased().unicodeScalars
            .map { ("A"..."Z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" }
        let digest = SHA256.hash(data: Data("\(kind)\u{0}\(tenant)\u{0}\(name)".utf8)).prefix(4).map { String(format: "%02X", $0) }.joined()
        return "${env:TESSERA_\(String(readable))_\(digest)}"
    }

    /// Whether a value is a reference a document holds rather than a secret: sent as is, it
    /// would become a secret anyone can read off the export.
    static func isReference(_ value: String) -> Bool {
        value.hasPrefix("${") && value.hasSuffix("}")
    }

    static func documented(_ hooks: [WebhookRecord], scope: String) -> [Components.Schemas.ConfigWebhook] {
        hooks.sorted { $0.url < $1.url }.map { hook in
            .init(url: hook.url, events: hook.events, secret: reference("webhook", tenant: scope, name: hook.url))
        }
    }

    /// The console's operators: username, role and the tenant each is limited to.
    private func operators(_ tx: StoreTransaction) async throws -> [(record: ConsoleOperatorRecord, username: String, role: AdminRole, tenant: String?)] {
        var found: [(ConsoleOperatorRecord, String, AdminRole, String?)] = []
        for record in try await tx.consoleOperators() {
            guard let user = try await tx.user(id: record.userID) else { continue }
            // An operator limited to a tenant that is gone is left out: written without its
            // tenant, it would come back as an operator of every tenant.
            var scope: String?
            if let scopeID = record.scopeTenantID {
                guard let name = try await tx.tenant(id: scopeID)?.name else { continue }
                scope = name
            }
            found.append((record, user.username, record.role, scope))
        }
        return found
    }

    /// Makes the server match `document` in one transaction (or, with `dryRun`, says what
    /// that would change), and audits it as one `apply` entry when it changes anything.
    package func applyConfiguration(
        _ document: Document, dryRun: Bool, prune: Bool, http: any OutboundHTTP, logger: Logger
    ) async throws -> Components.Schemas.ConfigurationApplied {
        try caller.check(.manage)
        guard document.version == 1 else { throw DomainError.invalidRequest("version: this server reads documents of version 1") }
        let tenants = document.tenants ?? []
        try Self.checkNames(document)
        try Self.refuseReferences(document)
        if caller.tenantID != nil {
            guard document.webhooks == nil, document.operators == nil else {
                throw DomainError(.forbidden, .accessDenied, "global webhooks and operators are applied with a key for every tenant")
            }
        }
        let digest = try Self.digest(document)
        // Providers are read from their discovery documents before anything is written.
        let existing = try await domain.store.read { tx in
            var found: [String: [String: IdentityProviderRecord]] = [:]
            for tenant in tenants {
                guard let record = try await tx.tenant(named: tenant.name) else { continue }
                try caller.check(tenant: record)
                found[tenant.name] = Dictionary(uniqueKeysWithValues: try await tx.identityProviders(tenantID: record.id).map { ($0.name, $0) })
            }
            return found
        }
        for tenant in tenants where existing[tenant.name] == nil {
            guard caller.tenantID == nil else { throw DomainError.notFound("tenant '\(tenant.name)'") }
            guard caller.isGlobalAdmin || tenant.name != WebSessions.operatorsTenant else {
                throw DomainError(.forbidden, .accessDenied, "only an admin of every tenant administers the console's operators")
            }
        }
        for tenant in tenants {
            for provider in tenant.identityProviders ?? [] where existing[tenant.name]?[provider.name]?.discoveryURL != provider.discoveryUrl {
                let probe = try identityProviderRecord(
                    provider, tenant: TenantRecord(id: TenantID(""), name: tenant.name, lockoutPolicy: .standard, processPolicy: .standard, createdAt: 0),
                    id: "probe", createdAt: 0)
                _ = try await discover(probe, http: http)
            }
        }
        let now = domain.epochNow()
        let plan: Plan
        do {
            plan = try await domain.store.transaction { tx in
                var plan = Plan(administration: self, prune: prune, now: now)
                try await plan.apply(document, tx: tx)
                if dryRun { throw DryRun(plan: plan) }
                if !plan.changes.isEmpty {
                    // One entry: the tenant's when only one tenant changed, else the server's.
                    let touched = Set(plan.changes.map(\.tenant))
                    let scope = touched.count == 1 ? touched.first.flatMap { name in plan.tenants[name ?? ""] } : nil
                    let summary = plan.changes.map { "\($0.action.rawValue) \($0.kind.rawValue) \($0.tenant.map { "\($0)/" } ?? "")\($0.name)" }
                        .joined(separator: "; ")
                    try await Audit.record(
                        tx, tenantID: scope, actor: caller.actor, action: .apply, target: "configuration",
                        details: [
                            "digest": digest, "changes": String(plan.changes.count), "pruned": String(prune),
                            "tenants": tenants.map(\.name).joined(separator: ","),
                            "changed": summary.count > 2000 ? String(summary.prefix(1997)) + "..." : summary,
                        ], at: now)
                }
                return plan
            }
        } catch let dry as DryRun {
            plan = dry.plan
        }
        // A dry run's secrets were never kept: they are not shown.
        let changes = dryRun ? plan.changes.map { var change = $0; change.secret = nil; return change } : plan.changes
        if !dryRun, !changes.isEmpty {
            await domain.announce(RequestNotice(keys: plan.touchedTenants.map(EventKey.tenant(named:))), logger: logger)
            await domain.servicesChanged(logger: logger)
            // The JWKS has the key of each service's algorithm before its first token.
            // Best effort: the changes are committed, and a missing key is made at the first token.
            for (tenantName, service) in plan.signingServices {
                do {
                    let tenant = try await domain.tenant(named: tenantName)
                    _ = try await domain.tokenIssuer(for: tenant, signingFor: service, logger: logger)
                } catch {
                    logger.warning("a service's signing key was not made yet", metadata: ["tenant": "\(tenantName)", "client_id": "\(service.clientID)"])
                }
            }
            logger.notice("configuration applied", metadata: ["changes": "\(changes.count)", "digest": "\(digest)"])
        }
        return .init(digest: digest, dryRun: dryRun, changes: changes)
    }

    /// Refuses a document that names a thing twice.
    static func checkNames(_ document: Document) throws {
        func once(_ names: [String], _ what: String) throws {
            var seen: Set<String> = []
            for name in names where !seen.insert(name).inserted {
                throw DomainError.invalidRequest("\(what) '\(name.prefix(128))' is named twice")
            }
        }
        let tenants = document.tenants ?? []
        try once(tenants.map(\.name), "tenant")
        try once(tenants.flatMap { $0.services ?? [] }.map(\.clientId), "client_id")
        for tenant in tenants {
            try once((tenant.identityProviders ?? []).map(\.name), "identity provider of \(tenant.name)")
            try once((tenant.webhooks ?? []).map(\.url), "webhook of \(tenant.name)")
        }
        try once((document.webhooks ?? []).map(\.url), "global webhook")
        try once((document.operators ?? []).map(\.username), "operator")
    }

    /// Refuses a secret that is still a reference (`${env:…}`): `tessera admin apply`
    /// resolves them; a document posted as exported would set secrets anyone can read.
    static func refuseReferences(_ document: Document) throws {
        func check(_ value: String?, _ place: @autoclosure () -> String) throws {
            guard let value, isReference(value) else { return }
            throw DomainError.invalidRequest("\(place()) is a reference (\(value.prefix(80))): resolve it first (tessera admin apply does)")
        }
        for hook in document.webhooks ?? [] { try check(hook.secret, "the secret of webhook \(hook.url.prefix(200))") }
        for tenant in document.tenants ?? [] {
            for service in tenant.services ?? [] { try check(service.clientSecret, "the client_secret of service \(service.clientId)") }
            for provider in tenant.identityProviders ?? [] {
                try check(provider.clientSecret, "the client_secret of identity provider \(provider.name)")
            }
            for hook in tenant.webhooks ?? [] { try check(hook.secret, "the secret of webhook \(hook.url.prefix(200))") }
        }
    }

    /// The document's SHA-256 (base64url) over its canonical JSON, each secret replaced by its digest.
    static func digest(_ document: Document) throws -> String {
        var blind = document
        func hidden(_ secret: String?) -> String? { secret.map { "sha256:" + Secrets.digest($0) } }
        blind.webhooks = blind.webhooks?.map { var hook = $0; hook.secret = hidden(hook.secret); return hook }
        blind.tenants = blind.tenants?.map { tenant in
            var tenant = tenant
            tenant.services = tenant.services?.map { var service = $0; service.clientSecret = hidden(service.clientSecret); return service }
            tenant.identityProviders = tenant.identityProviders?.map { var provider = $0; provider.clientSecret = hidden(provider.clientSecret); return provider }
            tenant.webhooks = tenant.webhooks?.map { var hook = $0; hook.secret = hidden(hook.secret); return hook }
            return tenant
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Secrets.digest(String(decoding: try encoder.encode(blind), as: UTF8.self))
    }

    /// The names of the fields whose values differ between two views of a resource.
    static func differences(_ before: some Encodable, _ after: some Encodable) throws -> [String] {
        func fields(_ value: some Encodable) throws -> [String: Data] {
            let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any] ?? [:]
            return try object.mapValues { try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys, .fragmentsAllowed]) }
        }
        let (old, new) = (try fields(before), try fields(after))
        return Set(old.keys).union(new.keys).sorted().filter { old[$0] != new[$0] }
    }
}

/// A dry run's changes, thrown to roll its transaction back.
private struct DryRun: Error {
    let plan: Plan
}

/// One application of a document inside its transaction: what it changed, and what must
/// be told after the commit.
private struct Plan: Sendable {
    let administration: Administration
    let prune: Bool
    let now: Int64
    var changes: [Components.Schemas.ConfigChange] = []
    /// The document's tenants by name, as written.
    var tenants: [String: TenantID] = [:]
    var touchedTenants: Set<String> = []
    /// Services whose ID-token algorithm may need a signing key of the tenant.
    var signingServices: [(String, ServiceRecord)] = []

    var domain: Domain { administration.domain }

    mutating func record(_ action: Components.Schemas.ConfigChange.ActionPayload, _ kind: Components.Schemas.ConfigChange.KindPayload, tenant: String?, name: String, fields: [String]? = nil, secret: String? = nil) {
        changes.append(.init(action: action, kind: kind, tenant: tenant, name: name, fields: fields, secret: secret))
        if let tenant { touchedTenants.insert(tenant) }
    }

    mutating func apply(_ document: Components.Schemas.Configuration, tx: StoreTransaction) async throws {
        for tenant in (document.tenants ?? []).sorted(by: { $0.name < $1.name }) {
            let record = try await apply(tenant, tx: tx)
            tenants[record.name] = record.id
            try await applyServices(tenant.services ?? [], tenant: record, tx: tx)
            try await applyProviders(tenant.identityProviders ?? [], tenant: record, tx: tx)
            let hooks = try await tx.webhooks().filter { $0.tenantID == record.id }
            try await applyWebhooks(tenant.webhooks ?? [], existing: hooks, tenant: record, tx: tx)
        }
        if let hooks = document.webhooks {
            try await applyWebhooks(hooks, existing: try await tx.webhooks().filter { $0.tenantID == nil }, tenant: nil, tx: tx)
        }
        if let operators = document.operators { try await applyOperators(operators, tx: tx) }
    }

    // MARK: Tenants

    mutating func apply(_ document: Components.Schemas.ConfigTenant, tx: StoreTransaction) async throws -> TenantRecord {
        guard Validation.isTenantName(document.name) else {
            throw DomainError.invalidRequest("a tenant name is 1 to 63 characters of a-z, 0-9 and '-', not starting with '-'")
        }
        let existing = try await tx.tenant(named: document.name)
        // Checked again in the transaction that writes: the tenant may have come or gone.
        if let existing {
            try administration.caller.check(tenant: existing)
        } else if administration.caller.tenantID != nil {
            throw DomainError.notFound("tenant '\(document.name)'")
        } else if document.name == WebSessions.operatorsTenant, !administration.caller.isGlobalAdmin {
            throw DomainError(.forbidden, .accessDenied, "only an admin of every tenant administers the console's operators")
        }
        var next = TenantRecord(
            id: existing?.id ?? TenantID(Secrets.identifier(byteCount: 12)), name: document.name, lockoutPolicy: .standard, processPolicy: .standard,
            createdAt: existing?.createdAt ?? now)
        next.androidAppsHostWide = existing?.androidAppsHostWide ?? false
        // A document does not hold the logo, which stays as uploaded.
        if let logo = existing?.branding, logo.logoDigest != nil {
            var kept = Branding()
            kept.logoType = logo.logoType
            kept.logoDigest = logo.logoDigest
            next.branding = kept
        }
        var named: [String] = []
        let settings = document.settings ?? TenantChanges()
        do {
            try administration.settle(settings, on: &next, changed: &named)
            next = try Administration.checkedSettings(next)
        } catch let error as DomainError {
            throw error.prefixed("tenant \(document.name): ")
        }
        if let id = next.webAuthnRPID, !domain.passkeys.isValidRelyingPartyID(id) {
            throw DomainError.invalidRequest("tenant \(document.name): webauthn_rp_id must be the public URL's host or a parent domain of it, in lower case")
        }
        next = try await administration.placedAppLinks(next, before: existing ?? next, tx: tx)
        guard let existing else {
            try await tx.insertTenant(next)
            let key = try ServerSigningKey.generate(.es256)
            let sealed = try domain.box.seal(key.privateBytes, context: SealingContext.signingKey(kid: key.kid))
            try await tx.insertSigningKey(SigningKeyRecord(kid: key.kid, tenantID: next.id, sealedKey: sealed, active: true, createdAt: now))
            record(.create, .tenant, tenant: next.name, name: next.name)
            return next
        }
        let fields = try Administration.differences(TenantChanges(settingsOf: existing), TenantChanges(settingsOf: next))
        if !fields.isEmpty {
            if fields.contains("audit_retention"), administration.caller.tenantID != nil {
                throw DomainError(.forbidden, .accessDenied, "audit_retention is set with a key for every tenant")
            }
            try await tx.updateTenantSettings(next)
            record(.update, .tenant, tenant: next.name, name: next.name, fields: fields)
        }
        return next
    }

    // MARK: Services

    mutating func applyServices(_ documents: [Components.Schemas.ConfigService], tenant: TenantRecord, tx: StoreTransaction) async throws {
        let current = try await tx.services(tenantID: tenant.id).filter { !WebSessions.isBuiltIn($0.clientID) }
        for document in documents {
            let clientID = try Administration.chosenClientID(document.clientId)
            let existing = try await tx.service(clientID: clientID)
            if let existing, existing.tenantID != tenant.id {
                throw DomainError(.conflict, .conflict, "client_id '\(clientID.rawValue)' is another tenant's service")
            }
            let isPublic = document.settings.tokenEndpointAuthMethod?.rawValue == ClientAuthMethod.none
            if let existing, existing.isPublic != isPublic {
                throw DomainError.invalidRequest(
                    "service \(clientID.rawValue): token_endpoint_auth_method cannot change between none and a secret or key (remove the service and add it again)")
            }
            var next = ServiceRecord(
                id: existing?.id ?? ServiceID(Secrets.identifier(byteCount: 12)), tenantID: tenant.id, clientID: clientID, name: "",
                secretDigest: nil, isPublic: isPublic, redirectURIs: [], policy: .standard, attributes: [],
                subjectType: .public, pairwiseSalt: existing?.pairwiseSalt, createdAt: existing?.createdAt ?? now)
            for toggle in ServiceSwitch.all { next[keyPath: toggle.record] = toggle.standard }
            next.registrationDigest = existing?.registrationDigest
            var named: [String] = []
            do {
                try Administration.settle(ServiceChanges(document.settings), on: &next, changed: &named)
                next = try Administration.checkedService(next, allowsPrivateOutbound: domain.settings.allowsPrivateOutbound)
            } catch let error as DomainError {
                throw error.prefixed("service \(clientID.rawValue): ")
            }
            // The secret: the document's, else the one it has, else a new one (in the answer).
            var made: String?
            var secretChanged = false
            if !next.isPublic && next.authMethod == nil {
                if let secret = document.clientSecret {
                    guard (16...512).contains(secret.utf8.count) else {
                        throw DomainError.invalidRequest("service \(clientID.rawValue): client_secret is 16 to 512 characters")
                    }
                    next.secretDigest = Secrets.digest(secret)
                } else if let digest = existing?.secretDigest {
                    next.secretDigest = digest
                } else {
                    let secret = Secrets.randomToken()
                    made = secret
                    next.secretDigest = Secrets.digest(secret)
                }
                secretChanged = existing != nil && existing?.secretDigest.map { Secrets.constantTimeEquals(Data($0.utf8), Data(next.secretDigest!.utf8)) } != true
            } else if document.clientSecret != nil {
                throw DomainError.invalidRequest("service \(clientID.rawValue): a public or private_key_jwt service has no client_secret")
            }
            guard let existing else {
                try await tx.insertService(next)
                record(.create, .service, tenant: tenant.name, name: clientID.rawValue, secret: made)
                signingServices.append((tenant.name, next))
                continue
            }
            try Administration.refuseBuiltIn(clientID)
            var fields = try Administration.differences(
                Components.Schemas.ServiceFields(settingsOf: existing), Components.Schemas.ServiceFields(settingsOf: next))
            if secretChanged { fields.append("client_secret") }
            guard !fields.isEmpty else { continue }
            try await tx.updateService(next)
            record(.update, .service, tenant: tenant.name, name: clientID.rawValue, fields: fields, secret: made)
            signingServices.append((tenant.name, next))
        }
        guard prune else { return }
        let named = Set(documents.map(\.clientId))
        for service in current where !named.contains(service.clientID.rawValue) {
            _ = try await tx.endSessions(.service(service.id), reason: .serviceRemoved, at: now)
            try await tx.deleteService(id: service.id)
            record(.delete, .service, tenant: tenant.name, name: service.clientID.rawValue)
        }
    }

    // MARK: Identity providers

    mutating func applyProviders(_ documents: [Components.Schemas.CreateIdentityProvider], tenant: TenantRecord, tx: StoreTransaction) async throws {
        let current = try await tx.identityProviders(tenantID: tenant.id)
        for document in documents {
            let existing = current.first { $0.name == document.name }
            var next: IdentityProviderRecord
            do {
                next = try administration.identityProviderRecord(
                    document, tenant: tenant, id: existing?.id ?? Secrets.identifier(byteCount: 12), createdAt: existing?.createdAt ?? now)
            } catch let error as DomainError {
                throw error.prefixed("identity provider \(document.name): ")
            }
            guard let existing else {
                try await tx.insertIdentityProvider(next)
                record(.create, .identityProvider, tenant: tenant.name, name: next.name)
                continue
            }
            var fields = try Administration.differences(
                Components.Schemas.CreateIdentityProvider(settingsOf: existing), Components.Schemas.CreateIdentityProvider(settingsOf: next))
            // A secret is sealed afresh each time: compared as the values it seals.
            let before = try existing.sealedClientSecret.map { try domain.box.open($0, context: SealingContext.identityProviderSecret(id: existing.id)) }
            let after = document.clientSecret.map { Data($0.utf8) }
            let same =
                switch (before, after) {
                case (nil, nil): true
                case (let old?, let new?): Secrets.constantTimeEquals(old, new)
                default: false
                }
            if same {
                next.sealedClientSecret = existing.sealedClientSecret
            } else {
                fields.append("client_secret")
            }
            guard !fields.isEmpty else { continue }
            // Another issuer or client: its subjects name other people; the links go.
            if existing.discoveryURL != next.discoveryURL || existing.clientID != next.clientID {
                try await tx.deleteFederationLinks(providerID: existing.id)
            }
            try await tx.updateIdentityProvider(next)
            record(.update, .identityProvider, tenant: tenant.name, name: next.name, fields: fields)
        }
        guard prune else { return }
        let named = Set(documents.map(\.name))
        for provider in current where !named.contains(provider.name) {
            _ = try await tx.deleteIdentityProvider(id: provider.id)
            record(.delete, .identityProvider, tenant: tenant.name, name: provider.name)
        }
    }

    // MARK: Webhooks

    mutating func applyWebhooks(
        _ documents: [Components.Schemas.ConfigWebhook], existing current: [WebhookRecord], tenant: TenantRecord?, tx: StoreTransaction
    ) async throws {
        for document in documents {
            let events: [String]
            do {
                events = try Webhooks.checked(url: document.url, events: document.events, allowsPrivate: domain.settings.allowsPrivateOutbound)
            } catch let error as DomainError {
                throw error.prefixed("webhook \(document.url.prefix(200)): ")
            }
            if let secret = document.secret, !Webhooks.isSecret(secret) {
                throw DomainError.invalidRequest("webhook \(document.url.prefix(200)): secret is whsec_ and at least 16 bytes in base64")
            }
            let matching = current.filter { $0.url == document.url }
            guard matching.count < 2 else {
                throw DomainError.conflict("webhook \(document.url.prefix(200)): \(tenant?.name ?? "the global scope") has two hooks with this url; remove one first")
            }
            guard let existing = matching.first else {
                let id = "wh_" + Secrets.randomToken(byteCount: 12)
                let secret = document.secret ?? Webhooks.newSecret()
                try await tx.insertWebhook(
                    WebhookRecord(
                        id: id, tenantID: tenant?.id, url: document.url, events: events,
                        sealedSecret: try domain.box.seal(Data(secret.utf8), context: SealingContext.webhookSecret(id: id)), createdAt: now,
                        enabledAt: now))
                record(.create, .webhook, tenant: tenant?.name, name: document.url, secret: document.secret == nil ? secret : nil)
                continue
            }
            var fields: [String] = []
            if existing.events != events {
                try await tx.updateWebhook(id: existing.id, url: existing.url, events: events)
                fields.append("events")
            }
            if let secret = document.secret {
                let current = try domain.box.open(existing.sealedSecret, context: SealingContext.webhookSecret(id: existing.id))
                if !Secrets.constantTimeEquals(current, Data(secret.utf8)) {
                    try await tx.setWebhookSecret(
                        id: existing.id, sealed: try domain.box.seal(Data(secret.utf8), context: SealingContext.webhookSecret(id: existing.id)))
                    fields.append("secret")
                }
            }
            if !fields.isEmpty { record(.update, .webhook, tenant: tenant?.name, name: document.url, fields: fields) }
        }
        guard prune else { return }
        let named = Set(documents.map(\.url))
        for hook in current where !named.contains(hook.url) {
            _ = try await tx.deleteWebhook(id: hook.id)
            record(.delete, .webhook, tenant: tenant?.name, name: hook.url)
        }
    }

    // MARK: Operators

    /// The operators the document lists, and no others: a missing user is made in the
    /// operators' tenant (its device is invited apart, `tessera admin console-user`).
    mutating func applyOperators(_ documents: [Components.Schemas.ConfigOperator], tx: StoreTransaction) async throws {
        var operatorsTenant = try await tx.tenant(named: WebSessions.operatorsTenant)
        if operatorsTenant == nil, !documents.isEmpty {
            operatorsTenant = try await apply(Components.Schemas.ConfigTenant(name: WebSessions.operatorsTenant), tx: tx)
        }
        guard let operatorsTenant else { return }
        var current: [UserID: (ConsoleOperatorRecord, String)] = [:]
        for record in try await tx.consoleOperators() {
            if let user = try await tx.user(id: record.userID) { current[record.userID] = (record, user.username) }
        }
        for document in documents {
            guard Validation.isUsername(document.username) else {
                throw DomainError.invalidRequest("operator: a username is 1 to 128 characters, without control characters or outer spaces")
            }
            let role = try AdminRole.documented(document.role.rawValue)
            let scope = try await document.tenant.asyncMap { name in
                guard let found = try await tx.tenant(named: name) else { throw DomainError.notFound("operator \(document.username): tenant '\(name.prefix(63))'") }
                guard found.name != WebSessions.operatorsTenant else {
                    throw DomainError.invalidRequest("operator \(document.username): an operator cannot be limited to the operators' tenant")
                }
                return found
            }
            var user = try await tx.user(tenantID: operatorsTenant.id, username: document.username)
            if user == nil {
                let made = UserRecord(
                    id: UserID(Secrets.identifier(byteCount: 12)), tenantID: operatorsTenant.id, username: document.username, attributes: [:],
                    createdAt: now)
                try await tx.insertUser(made)
                user = made
            }
            guard let user else { continue }
            let existing = current[user.id]?.0
            let next = ConsoleOperatorRecord(userID: user.id, tenantID: operatorsTenant.id, role: role, scopeTenantID: scope?.id, createdAt: existing?.createdAt ?? now)
            guard let existing else {
                try await tx.saveConsoleOperator(next)
                record(.create, ._operator, tenant: nil, name: document.username)
                continue
            }
            var fields: [String] = []
            if existing.role != role { fields.append("role") }
            if existing.scopeTenantID != scope?.id { fields.append("tenant") }
            guard !fields.isEmpty else { continue }
            try await tx.saveConsoleOperator(next)
            record(.update, ._operator, tenant: nil, name: document.username, fields: fields)
        }
        guard prune else { return }
        let named = Set(documents.map(\.username))
        for (userID, (_, username)) in current.sorted(by: { $0.value.1 < $1.value.1 }) where !named.contains(username) {
            _ = try await tx.deleteConsoleOperator(userID: userID)
            record(.delete, ._operator, tenant: nil, name: username)
        }
    }
}

// MARK: Views

extension TenantChanges {
    /// A tenant's settings as a document writes them: every one, those that are unset left out.
    init(settingsOf tenant: TenantRecord) {
        self.init()
        lockout = .init(tenant.lockoutPolicy)
        processPolicy = tenant.processPolicy.description
        ssoLifetime = tenant.ssoLifetime
        ssoPolicy = Patch(tenant.ssoPolicy?.description)
        sessionLifetime = Int(tenant.sessionLifetime)
        sessionIdleLifetime = Int(tenant.sessionIdleLifetime)
        historyRetention = Int(tenant.historyRetention)
        auditRetention = Patch(tenant.auditRetention.map(Int.init))
        accessTokenLifetime = Int(tenant.accessTokenLifetime)
        appLinks = Patch(tenant.appLinks.map(Components.Schemas.AppLinks.init))
        webAuthnTrustAnchors = Patch(tenant.webAuthnTrustAnchors)
        webAuthnRPID = Patch(tenant.webAuthnRPID)
        dynamicRegistration = tenant.dynamicRegistration
        invitationsByEmailOnly = tenant.invitationsByEmailOnly
        inviteProvisionedUsers = tenant.inviteProvisionedUsers
        recoveryCodes = tenant.recoveryCodes
        notices = tenant.notices
        defaultLanguage = tenant.defaultLanguage
        // The logo is not in a document: it is uploaded on its own, and stays.
        if let branding = tenant.branding {
            let wire = Components.Schemas.Branding(
                displayName: branding.displayName, appName: branding.appName, primaryColor: branding.primaryColor,
                accentColor: branding.accentColor, supportUrl: branding.supportURL, privacyUrl: branding.privacyURL,
                termsUrl: branding.termsURL)
            self.branding = wire == Components.Schemas.Branding() ? .absent : .value(wire)
        }
        texts = tenant.texts.isEmpty ? .absent : .value(tenant.texts)
    }
}

extension Components.Schemas.ServiceFields {
    /// A service's settings as a document writes them: every one, those that are unset left out.
    init(settingsOf service: ServiceRecord) {
        var changes = ServiceChanges()
        changes.name = service.name
        changes.redirectUris = service.redirectURIs
        changes.policy = service.policy.description
        changes.attributes = service.attributes
        changes.backchannelTokenDeliveryMode = service.backchannelMode.flatMap { .init(rawValue: $0.rawValue) }
        changes.backchannelClientNotificationEndpoint = service.notificationEndpoint
        changes.sessionLifetime = service.sessionLifetime.map(Int.init)
        changes.sessionIdleLifetime = service.sessionIdleLifetime.map(Int.init)
        for toggle in ServiceSwitch.all { changes[keyPath: toggle.changed] = service[keyPath: toggle.record] }
        changes.roles = service.roles?.map { .init(name: $0.name, policy: $0.policy.description) }
        changes.subjectType = .init(rawValue: service.subjectType.rawValue)
        changes.idTokenSignedResponseAlg = .init(rawValue: service.idTokenAlgorithm.rawValue)
        changes.postLogoutRedirectUris = service.postLogoutRedirectURIs
        changes.backchannelLogoutUri = service.backchannelLogoutURI
        changes.grantTypes = service.allowedGrantTypes.compactMap(Components.Schemas.GrantType.init(rawValue:))
        changes.tokenEndpointAuthMethod = .init(rawValue: service.endpointAuthMethod)
        changes.scopes = service.scopes
        changes.audience = service.audience
        changes.accessTokenLifetime = service.accessTokenLifetime.map(Int.init)
        changes.jwks = service.jwks.flatMap { try? JSONDecoder().decode(JwksPayload.self, from: Data($0.utf8)) }
        changes.jwksUri = service.jwksURI
        changes.logoUri = service.logoURI
        changes.policyUri = service.policyURI
        changes.tosUri = service.tosURI
        self = changes.fields
    }
}

extension Components.Schemas.CreateIdentityProvider {
    /// A provider's settings as a document writes them, without its secret.
    init(settingsOf provider: IdentityProviderRecord) {
        self.init(
            name: provider.name, displayName: provider.displayName, logoUri: provider.logoURI, discoveryUrl: provider.discoveryURL,
            clientId: provider.clientID, scope: provider.scope, linkClaim: provider.linkClaim, linkField: provider.linkField,
            claimMapping: .init(additionalProperties: provider.claimMapping))
    }
}

extension DomainError {
    /// The same error, its message naming where in a document it arose.
    func prefixed(_ place: String) -> DomainError {
        DomainError(kind, code, place + message, lockout: lockout)
    }
}
