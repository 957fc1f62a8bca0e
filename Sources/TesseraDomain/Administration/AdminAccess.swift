import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Who calls the admin API: the bootstrap token (every tenant, every call), or an API
/// key with a role and, perhaps, one tenant.
public struct AdminCaller: Sendable, Equatable {
    public let role: AdminRole
    /// The one tenant the caller reaches; nil: every tenant.
    public let tenantID: TenantID?
    /// The key's id; nil for the bootstrap token and operators.
    public let keyID: String?
    /// The console operator's username; nil for the API's callers.
    public let operatorName: String?

    public init(role: AdminRole, tenantID: TenantID?, keyID: String?, operatorName: String? = nil) {
        self.role = role
        self.tenantID = tenantID
        self.keyID = keyID
        self.operatorName = operatorName
    }

    public static let bootstrap = AdminCaller(role: .admin, tenantID: nil, keyID: nil)

    /// What a call needs: reading; the help desk's changes (unlock and revoke
    /// activations, end sessions, invite); managing (everything else of the admin API); or
    /// provisioning (SCIM: a tenant's users and groups), which only admins and provisioners do.
    public enum Need: Sendable {
        case read
        case support
        case manage
        case provision
    }

    public var actor: Audit.Actor {
        if let operatorName { return .operator(operatorName) }
        return keyID.map { .key($0) } ?? .admin
    }

    /// Whether the role allows `need` (and, with `global`, every tenant is in scope).
    public func may(_ need: Need, global: Bool = false) -> Bool { (try? check(need, global: global)) != nil }

    /// 403 unless the role allows `need`; with `global`, also unless every tenant is in scope.
    public func check(_ need: Need, global: Bool = false) throws {
        let allowed =
            switch (role, need) {
            case (.admin, _), (.helpdesk, .read), (.helpdesk, .support), (.auditor, .read), (.provisioner, .provision): true
            default: false
            }
        let who = operatorName == nil ? "this admin key" : "this operator"
        guard allowed else { throw DomainError(.forbidden, .accessDenied, "\(who)'s role (\(role.rawValue)) may not do this") }
        if global, tenantID != nil { throw DomainError(.forbidden, .accessDenied, "\(who) is limited to one tenant") }
    }

    /// An admin of every tenant: the only caller that may administer the console's operators.
    public var isGlobalAdmin: Bool { role == .admin && tenantID == nil }

    /// Whether the caller may act on `tenant` at all (for a list that leaves out what it may not open).
    public func reaches(_ tenant: TenantRecord) -> Bool {
        (tenantID == nil || tenantID == tenant.id) && (tenant.name != WebSessions.operatorsTenant || isGlobalAdmin)
    }

    /// 404, as for an unknown tenant, when the tenant is outside the caller's scope; 403 for
    /// the operators' tenant unless the caller is a global admin.
    ///
    /// The console's operators are ordinary users of the tenant `operators`: whoever may
    /// invite a device for one of them, add a passkey or identity provider, or end their
    /// sessions can sign in to the console as that operator, with its role. So every
    /// operation on that tenant, reads included, needs the highest role there is.
    public func check(tenant: TenantRecord) throws {
        try check(scope: tenant)
        guard reaches(tenant) else {
            throw DomainError(.forbidden, .accessDenied, "only an admin of every tenant administers the console's operators")
        }
    }

    /// What an admin call or console form checks before it does anything, in this order:
    /// the tenant it acts on (404 outside the scope, 403 for the operators' tenant), then
    /// the role (and, with `global`, every tenant in scope).
    public func check(_ need: Need, global: Bool = false, tenant: TenantRecord?) throws {
        if let tenant { try check(tenant: tenant) }
        try check(need, global: global)
    }

    /// 404, as for an unknown tenant, when the tenant is outside the caller's scope (the
    /// audit log's filter: a global auditor reads what the operators did too).
    public func check(scope tenant: TenantRecord) throws {
        if let tenantID, tenantID != tenant.id { throw DomainError.notFound("tenant '\(tenant.name)'") }
    }
}

/// Admin API keys: made by an admin (a tenant's admin only for its own tenant), shown
/// once, kept as digests, listed and revoked.
public struct AdminKeys: Sendable {
    let domain: Domain

    /// Every key begins so, to tell it from the bootstrap token in logs and forms.
    static let prefix = "tsk_"

    /// The caller a bearer token stands for, or nil when it is no live key.
    public func caller(bearer token: String) async throws -> AdminCaller? {
        guard token.hasPrefix(Self.prefix) else { return nil }
        let found = try await domain.store.read { tx -> (AdminKeyRecord, TenantRecord?)? in
            guard let key = try await tx.adminKey(digest: Secrets.digest(token)) else { return nil }
            return (key, try await key.tenantID.asyncMap { try await tx.tenant(id: $0) } ?? nil)
        }
        guard let (key, tenant) = found else { return nil }
        // Made before such keys were refused: a key limited to the operators' tenant is no
        // global admin, and that tenant is all it could reach.
        if tenant?.name == WebSessions.operatorsTenant {
            throw DomainError(.forbidden, .accessDenied, "a key limited to the operators' tenant may do nothing: only an admin of every tenant administers it")
        }
        return AdminCaller(role: key.role, tenantID: key.tenantID, keyID: key.id)
    }

    /// A new key; its secret is in this answer only.
    package func create(_ input: Components.Schemas.CreateAdminKey, by caller: AdminCaller, logger: Logger) async throws
        -> Components.Schemas.AdminKey
    {
        try caller.check(.manage)
        let role = try AdminRole.documented(input.role)
        let name = input.name.trimmingCharacters(in: .whitespaces)
        guard (1...128).contains(name.count) else { throw DomainError.invalidRequest("a key needs a name of 1 to 128 characters") }
        var tenant: TenantRecord?
        if let tenantName = input.tenant { tenant = try await domain.tenant(named: tenantName) }
        if tenant?.name == WebSessions.operatorsTenant {
            throw DomainError.invalidRequest("a key cannot be limited to the operators' tenant: only an admin of every tenant administers it")
        }
        // A directory provisions one tenant: a provisioner key is never for every tenant.
        if role == .provisioner, tenant == nil {
            throw DomainError.invalidRequest("a provisioner key is for one tenant: name it")
        }
        if let scope = caller.tenantID {
            guard let tenant, tenant.id == scope else {
                throw DomainError(.forbidden, .accessDenied, "a tenant's admin key makes keys for its own tenant only")
            }
        }
        let secret = Self.prefix + Secrets.randomToken()
        let now = domain.epochNow()
        let record = AdminKeyRecord(
            id: Secrets.identifier(byteCount: 12), name: name, digest: Secrets.digest(secret), role: role, tenantID: tenant?.id,
            createdAt: now)
        try await domain.store.transaction { tx in
            try await tx.insertAdminKey(record)
            try await Audit.record(
                tx, tenantID: tenant?.id, actor: caller.actor, action: .adminKeyCreate, target: record.id,
                details: ["name": name, "role": role.rawValue, "tenant": tenant?.name ?? "*"], at: now)
        }
        logger.info("admin key created", metadata: ["key_id": "\(record.id)", "role": "\(role.rawValue)"])
        return Components.Schemas.AdminKey(record, tenant: tenant?.name, key: secret)
    }

    package func list(by caller: AdminCaller) async throws -> [Components.Schemas.AdminKey] {
        try caller.check(.manage)
        let (keys, tenants) = try await domain.store.read { tx in
            (try await tx.adminKeys(tenantID: caller.tenantID), try await tx.tenants())
        }
        let names = Dictionary(uniqueKeysWithValues: tenants.map { ($0.id, $0.name) })
        return keys.map { Components.Schemas.AdminKey($0, tenant: $0.tenantID.flatMap { names[$0] }, key: nil) }
    }

    /// Revokes a key at once; another tenant's key is 404 to a tenant's admin.
    public func revoke(_ id: String, by caller: AdminCaller, logger: Logger) async throws {
        try caller.check(.manage)
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            guard let key = try await tx.adminKey(id: id), caller.tenantID == nil || key.tenantID == caller.tenantID else {
                throw DomainError.notFound("admin key '\(id.prefix(64))'")
            }
            guard try await tx.revokeAdminKey(id: id, at: now) else { throw DomainError.conflict("the key was revoked already") }
            try await Audit.record(
                tx, tenantID: key.tenantID, actor: caller.actor, action: .adminKeyRevoke, target: id, details: ["name": key.name], at: now)
        }
        logger.info("admin key revoked", metadata: ["key_id": "\(id)"])
    }
}

extension Components.Schemas.AdminKey {
    /// A key as the admin API shows it: its tenant's name (absent: every tenant), and its
    /// secret only in the answer that created it.
    init(_ record: AdminKeyRecord, tenant: String?, key: String?) {
        self.init(id: record.id, name: record.name, role: .init(record.role), tenant: tenant, createdAt: Double(record.createdAt), key: key)
    }
}

extension Components.Schemas.AdminKey.RolePayload {
    init(_ role: AdminRole) {
        switch role {
        case .admin: self = .admin
        case .helpdesk: self = .helpdesk
        case .auditor: self = .auditor
        case .provisioner: self = .provisioner
        }
    }
}

extension Domain {
    public var adminKeys: AdminKeys { AdminKeys(domain: self) }
}
