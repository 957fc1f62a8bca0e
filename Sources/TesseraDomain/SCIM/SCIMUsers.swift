import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// SCIM 2.0 provisioning of one tenant's users (RFC 7643, RFC 7644) by a directory (Entra
/// ID, Okta) with an admin key of the role `provisioner`. A SCIM user is a Tessera user:
///
/// - `userName` is the username (case-exact, unique in the tenant);
/// - `name.givenName`/`familyName`, `displayName`, the primary (else first) of `emails`
///   and of `phoneNumbers` are the attributes `given_name`, `family_name`, `name`,
///   `email` and `phone_number` (other attributes stay as they are);
/// - `externalId` and the multi-valued attributes are kept as the directory sent them;
/// - `active: false` is the admin API's disable (sessions end at once), and `DELETE`
///   removes the user with their devices.
public struct SCIMUsers: SCIMResourceSet {
    public static let endpoint = "Users"
    let domain: Domain
    let caller: AdminCaller
    let tenant: TenantRecord

    /// `{issuer}/scim/v2`
    public var base: String { "\(domain.issuer(forTenantNamed: tenant.name))/scim/v2" }

    /// The profile members a directory writes besides `userName` and `externalId`.
    static let profileMembers = ["name", "displayName", "emails", "phoneNumbers", "active"]
    static let multiValued: Set<String> = ["emails", "phonenumbers", "groups", "members"]

    static func invalid(_ message: String, _ code: DomainError.Code = SCIMError.invalidValue) -> DomainError {
        SCIMResource.invalid(message, code)
    }

    // MARK: The resource

    /// The user as SCIM shows them, with their groups and `meta` (its `version` is the ETag).
    func resource(_ user: UserRecord, groups: [Membership]) -> [String: SCIMValue] {
        var resource = content(user)
        if !groups.isEmpty {
            resource["groups"] = .array(groups.map { membership in
                .object([
                    "value": .string(membership.groupID.rawValue), "$ref": .string("\(base)/Groups/\(membership.groupID.rawValue)"),
                    "display": .string(membership.displayName), "type": .string("direct"),
                ])
            })
        }
        return SCIMResource.withMeta(
            resource, type: "User", created: user.createdAt, modified: user.updatedAt, location: "\(base)/Users/\(user.id.rawValue)")
    }

    /// The user's own attributes as SCIM names them, without groups or `meta`.
    func content(_ user: UserRecord) -> [String: SCIMValue] {
        var resource: [String: SCIMValue] = [
            "schemas": .array([.string(SCIMSchemas.user)]), "id": .string(user.id.rawValue), "userName": .string(user.username),
        ]
        if let external = user.externalID { resource["externalId"] = .string(external) }
        if let profile = Self.profile(of: user) {
            for name in Self.profileMembers { resource[name] = profile[name] }
        } else {
            // Made by the admin API: its attributes as SCIM names them.
            let attributes = user.attributes
            var name: [String: SCIMValue] = [:]
            if let given = attributes["given_name"] { name["givenName"] = .string(given) }
            if let family = attributes["family_name"] { name["familyName"] = .string(family) }
            if !name.isEmpty { resource["name"] = .object(name) }
            if let display = attributes["name"] { resource["displayName"] = .string(display) }
            if let email = attributes["email"] {
                resource["emails"] = .array([.object(["value": .string(email), "primary": .bool(true)])])
            }
            if let phone = attributes["phone_number"] {
                resource["phoneNumbers"] = .array([.object(["value": .string(phone), "primary": .bool(true)])])
            }
            resource["active"] = .bool(true)
        }
        // A disabled user is inactive whatever the directory sent last.
        if user.disabledAt != nil { resource["active"] = .bool(false) }
        return resource
    }

    static func profile(of user: UserRecord) -> [String: SCIMValue]? {
        guard let text = user.scimProfile else { return nil }
        return try? JSONDecoder().decode([String: SCIMValue].self, from: Data(text.utf8))
    }

    /// Writes a resource a directory sent (a creation, a replacement or the result of a
    /// PATCH) onto the user: username, external id, profile, the mapped attributes.
    /// Returns whether the user should be active.
    static func apply(_ resource: [String: SCIMValue], to user: inout UserRecord) throws -> Bool {
        let value = SCIMValue.object(resource)
        guard let userName = value.member("userName")?.string, Validation.isUsername(userName) else {
            throw invalid("userName is required: 1 to 128 characters without control characters or outer spaces")
        }
        user.username = userName
        switch value.member("externalId") {
        case .string(let external)? where (1...256).contains(external.count): user.externalID = external
        case nil, .null?: user.externalID = nil
        default: throw invalid("externalId is a string of 1 to 256 characters")
        }
        var profile: [String: SCIMValue] = [:]
        for name in profileMembers {
            guard let member = value.member(name), member != .null else { continue }
            profile[name] = member
        }
        if let active = profile["active"] {
            guard let flag = active.bool else { throw invalid("active is true or false") }
            profile["active"] = .bool(flag)
        }
        if let name = profile["name"], name.object == nil { throw invalid("name is an object") }
        if let display = profile["displayName"], display.string == nil { throw invalid("displayName is a string") }
        for list in ["emails", "phoneNumbers"] {
            guard let entries = profile[list] else { continue }
            guard let items = entries.array, items.count <= 20, items.allSatisfy({ $0.member("value")?.string != nil }) else {
                throw invalid("\(list) is a list of at most 20 objects with a value")
            }
            // A primary given as a string ("True") is kept as the boolean it means.
            profile[list] = .array(items.map { item in
                guard var members = item.object, let key = members.keys.first(where: { $0.lowercased() == "primary" }),
                    let flag = members[key]?.bool
                else { return item }
                members[key] = .bool(flag)
                return .object(members)
            })
        }
        let text = try JSONCoding.string(profile)
        guard text.utf8.count <= 16384 else { throw invalid("the user's profile is larger than 16 KiB") }
        user.scimProfile = text
        // The attributes the profile maps to; the user's other attributes stay.
        var attributes = user.attributes
        func set(_ key: String, _ text: String?) {
            attributes[key] = text.flatMap { $0.isEmpty ? nil : String($0.prefix(1024)) }
        }
        set("given_name", profile["name"]?.member("givenName")?.string)
        set("family_name", profile["name"]?.member("familyName")?.string)
        set("name", profile["displayName"]?.string)
        set("email", primary(profile["emails"]))
        set("phone_number", primary(profile["phoneNumbers"]))
        user.attributes = attributes
        return profile["active"]?.bool ?? true
    }

    /// The primary value of a multi-valued attribute, else its first.
    static func primary(_ list: SCIMValue?) -> String? {
        let items = list?.array ?? []
        let chosen = items.first { $0.member("primary")?.bool == true } ?? items.first
        return chosen?.member("value")?.string
    }

    // MARK: Reading

    /// The tenant's user with this id, or `not_found`.
    func user(_ id: String, tx: StoreTransaction) async throws -> UserRecord {
        guard let user = try await tx.user(id: UserID(id)), user.tenantID == tenant.id else {
            throw DomainError.notFound("user '\(id.prefix(64))'")
        }
        return user
    }

    /// The user with their groups.
    func resource(_ user: UserRecord, tx: StoreTransaction) async throws -> [String: SCIMValue] {
        resource(user, groups: try await tx.memberships(of: [user.id]))
    }

    public func get(_ id: String) async throws -> [String: SCIMValue] {
        try caller.check(.provision, tenant: tenant)
        return try await domain.store.read { tx in try await resource(try await user(id, tx: tx), tx: tx) }
    }

    /// A list or search (RFC 7644 §3.4.2): filtered, sorted, a page of it.
    public func list(_ query: SCIMListQuery) async throws -> SCIMValue {
        try caller.check(.provision, tenant: tenant)
        let filter = try query.filter.map(SCIMFilter.parse)
        // The lookups a directory makes before each change go to an index.
        return try await domain.store.read { tx in
            let candidates: [UserRecord] =
                switch filter {
                case .compare(let path, .eq, .string(let value))? where path.key == "username":
                    try await tx.user(tenantID: tenant.id, username: value).map { [$0] } ?? []
                case .compare(let path, .eq, .string(let value))? where path.key == "externalid":
                    try await tx.users(tenantID: tenant.id, externalID: value)
                default:
                    try await tx.users(tenantID: tenant.id, limit: SCIMListQuery.maximumScanned)
                }
            // Filters and sorting read the users' own attributes; only the page gets its groups and versions.
            return try await query.page(
                candidates, filter: filter, caseExact: { $0.key == "username" }, content: { .object(content($0)) }
            ) { page in
                let groups = Dictionary(grouping: try await tx.memberships(of: page.map(\.id)), by: \.userID)
                return page.map { .object(resource($0, groups: groups[$0.id] ?? [])) }
            }
        }
    }

    // MARK: Writing

    /// `POST /Users`: a new user (409 `uniqueness` for a username the tenant has).
    public func create(_ body: SCIMValue, logger: Logger) async throws -> [String: SCIMValue] {
        try caller.check(.provision, tenant: tenant)
        guard let members = body.object else { throw Self.invalid("the body is a User object", SCIMError.invalidSyntax) }
        let now = domain.epochNow()
        var user = UserRecord(id: UserID(Secrets.identifier(byteCount: 12)), tenantID: tenant.id, username: "", attributes: [:], createdAt: now)
        let active = try Self.apply(members, to: &user)
        user.disabledAt = active ? nil : now
        let record = user
        // The tenant's rule: an active new user with an e-mail address gets an activation
        // link by e-mail, written with the user (the outbox sends it after the commit).
        let invitee = active && tenant.inviteProvisionedUsers && domain.settings.sendsEmail ? record.attributes["email"].flatMap(Validation.emailAddress) : nil
        try await domain.store.transaction { tx in
            if try await tx.user(tenantID: tenant.id, username: record.username) != nil {
                throw DomainError(.conflict, SCIMError.uniqueness, "a user with this userName exists in the tenant")
            }
            try await tx.insertUser(record)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .userCreate, target: record.id.rawValue,
                details: ["username": record.username, "source": "scim", "active": String(active)], at: now)
            if let invitee {
                _ = try await Administration.writeInvitation(
                    tx, domain: domain, user: record, tenant: tenant, email: invitee, phone: nil,
                    expiresAt: now + Int64(domain.settings.invitationLifetime), actor: caller.actor, now: now)
            }
        }
        logger.info("user provisioned", metadata: ["tenant": "\(tenant.name)", "user_id": "\(record.id)", "invited": "\(invitee != nil)"])
        return resource(record, groups: [])
    }

    /// `PUT /Users/{id}`: the resource replaced (`If-Match` must name its version when given).
    public func replace(_ id: String, _ body: SCIMValue, ifMatch: String?, logger: Logger) async throws -> [String: SCIMValue] {
        try caller.check(.provision, tenant: tenant)
        guard let members = body.object else { throw Self.invalid("the body is a User object", SCIMError.invalidSyntax) }
        return try await change(id, ifMatch: ifMatch, logger: logger) { _ in members }
    }

    /// `PATCH /Users/{id}`: the operations applied to the resource, which is then written as a replacement.
    public func patch(_ id: String, _ request: SCIMPatch.Request, ifMatch: String?, logger: Logger) async throws -> [String: SCIMValue] {
        try caller.check(.provision, tenant: tenant)
        let patcher = SCIMPatch(multiValued: Self.multiValued, canonical: SCIMSchemas.canonical)
        try SCIMResource.refuseImmutable(request.operations, ["id", "meta", "groups", "schemas"])
        return try await change(id, ifMatch: ifMatch, logger: logger) { current in try patcher.apply(request.operations, to: current) }
    }

    private func change(
        _ id: String, ifMatch: String?, logger: Logger, _ next: @Sendable ([String: SCIMValue]) throws -> [String: SCIMValue]
    ) async throws -> [String: SCIMValue] {
        let now = domain.epochNow()
        let updated = try await domain.store.transaction { tx in
            var user = try await user(id, tx: tx)
            let current = try await resource(user, tx: tx)
            try SCIMResource.check(ifMatch: ifMatch, current, what: "user")
            let previousName = user.username
            let wasActive = user.disabledAt == nil
            let active = try Self.apply(try next(current), to: &user)
            if user.username != previousName, try await tx.user(tenantID: tenant.id, username: user.username) != nil {
                throw DomainError(.conflict, SCIMError.uniqueness, "a user with this userName exists in the tenant")
            }
            var details: [String: String] = ["source": "scim"]
            if active != wasActive {
                details.merge(try await Administration.setDisabled(!active, user: &user, tx: tx, now: now)) { $1 }
            }
            user.updatedAt = now
            try await tx.updateProvisionedUser(user)
            let action: AuditAction = active == wasActive ? .userUpdate : (active ? .userEnable : .userDisable)
            try await Audit.record(tx, tenantID: tenant.id, actor: caller.actor, action: action, target: user.id.rawValue, details: details, at: now)
            return try await resource(user, tx: tx)
        }
        logger.info("user provisioned", metadata: ["tenant": "\(tenant.name)", "user_id": "\(id.prefix(64))"])
        return updated
    }

    /// `DELETE /Users/{id}`: the user goes with their devices, sessions and history.
    public func delete(_ id: String, logger: Logger) async throws {
        try caller.check(.provision, tenant: tenant)
        try await domain.administration(as: caller).deleteUser(UserID(id), tenant: tenant, logger: logger)
    }
}

extension Domain {
    /// SCIM provisioning of `tenant`'s users by `caller`.
    public func scimUsers(tenant: TenantRecord, caller: AdminCaller) -> SCIMUsers { SCIMUsers(domain: self, caller: caller, tenant: tenant) }
}
