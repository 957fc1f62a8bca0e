import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// SCIM 2.0 provisioning of one tenant's groups (RFC 7643 §4.2). A group has a
/// `displayName`, unique in the tenant, an `externalId` kept as the directory sent it, and
/// `members`, each a user of the tenant (`value` is the user's id; groups do not nest).
/// Services see the names of a user's groups as the `groups` claim under the `groups` scope.
public struct SCIMGroups: SCIMResourceSet {
    public static let endpoint = "Groups"
    /// The most members a group has.
    public static let maximumMembers = 50_000

    let domain: Domain
    let caller: AdminCaller
    let tenant: TenantRecord

    /// `{issuer}/scim/v2`
    var base: String { "\(domain.issuer(forTenantNamed: tenant.name))/scim/v2" }

    // MARK: The resource

    /// The group as SCIM shows it, without `meta`.
    func content(_ group: GroupRecord) -> [String: SCIMValue] {
        var resource: [String: SCIMValue] = [
            "schemas": .array([.string(SCIMSchemas.group)]), "id": .string(group.id.rawValue), "displayName": .string(group.displayName),
        ]
        if let external = group.externalID { resource["externalId"] = .string(external) }
        return resource
    }

    /// The group with its members and `meta` (its `version` is the ETag).
    func resource(_ group: GroupRecord, members: [GroupMember]) -> [String: SCIMValue] {
        var resource = content(group)
        if !members.isEmpty {
            resource["members"] = .array(members.map { member in
                .object([
                    "value": .string(member.userID.rawValue), "$ref": .string("\(base)/Users/\(member.userID.rawValue)"),
                    "type": .string("User"),
                ])
            })
        }
        return SCIMResource.withMeta(
            resource, type: "Group", created: group.createdAt, modified: group.updatedAt, location: "\(base)/Groups/\(group.id.rawValue)")
    }

    func resource(_ group: GroupRecord, tx: StoreTransaction) async throws -> [String: SCIMValue] {
        resource(group, members: try await tx.members(of: [group.id]))
    }

    /// The tenant's group with this id, or `not_found`.
    func group(_ id: String, tx: StoreTransaction) async throws -> GroupRecord {
        guard let group = try await tx.group(id: GroupID(id)), group.tenantID == tenant.id else {
            throw DomainError.notFound("group '\(id.prefix(64))'")
        }
        return group
    }

    /// Reads a resource a directory sent (a creation, a replacement or the result of a
    /// PATCH) onto the group: its name, external id and the ids of its members.
    static func apply(_ resource: [String: SCIMValue], to group: inout GroupRecord) throws -> Set<UserID> {
        let value = SCIMValue.object(resource)
        guard let name = value.member("displayName")?.string, Validation.isUsername(name) else {
            throw SCIMResource.invalid("displayName is required: 1 to 128 characters without control characters or outer spaces")
        }
        group.displayName = name
        switch value.member("externalId") {
        case .string(let external)? where (1...256).contains(external.count): group.externalID = external
        case nil, .null?: group.externalID = nil
        default: throw SCIMResource.invalid("externalId is a string of 1 to 256 characters")
        }
        var members: Set<UserID> = []
        switch value.member("members") {
        case nil, .null?: break
        case .array(let items)? where items.count <= maximumMembers:
            for item in items {
                guard let id = item.member("value")?.string, !id.isEmpty, id.count <= 64 else {
                    throw SCIMResource.invalid("each member is an object whose value is a user's id")
                }
                if let type = item.member("type")?.string, type.lowercased() != "user" {
                    throw SCIMResource.invalid("a group's members are users (groups do not nest)")
                }
                members.insert(UserID(id))
            }
        default: throw SCIMResource.invalid("members is a list of at most \(maximumMembers) users")
        }
        return members
    }

    /// 400 unless every member is a user of the tenant.
    func checkMembers(_ members: Set<UserID>, tx: StoreTransaction) async throws {
        let found = try await tx.existingUsers(Array(members), tenantID: tenant.id)
        if let missing = members.subtracting(found).min(by: { $0.rawValue < $1.rawValue }) {
            throw SCIMResource.invalid("member '\(missing.rawValue.prefix(64))' is no user of the tenant")
        }
    }

    /// A tenant's group writes take turns (on PostgreSQL; SQLite has one writer): a
    /// change reads the members and names, then writes them, and two directories' PATCHes
    /// at once must not drop each other's members or both take one name.
    static func queue(_ tenant: TenantRecord) -> String { "scim-groups:\(tenant.id.rawValue)" }

    // MARK: Reading

    public func get(_ id: String) async throws -> [String: SCIMValue] {
        try caller.check(.provision, tenant: tenant)
        return try await domain.store.read { tx in try await resource(try await group(id, tx: tx), tx: tx) }
    }

    /// A list or search: filtered, sorted, a page of it. Filters read the groups without
    /// their members (`members` is not filterable).
    public func list(_ query: SCIMListQuery) async throws -> SCIMValue {
        try caller.check(.provision, tenant: tenant)
        let filter = try query.filter.map(SCIMFilter.parse)
        return try await domain.store.read { tx in
            let candidates: [GroupRecord] =
                switch filter {
                case .compare(let path, .eq, .string(let value))? where path.key == "displayname":
                    try await tx.group(tenantID: tenant.id, displayName: value).map { [$0] } ?? []
                case .compare(let path, .eq, .string(let value))? where path.key == "externalid":
                    try await tx.groups(tenantID: tenant.id, externalID: value)
                default:
                    try await tx.groups(tenantID: tenant.id, limit: SCIMListQuery.maximumScanned)
                }
            return try await query.page(
                candidates, filter: filter, caseExact: { $0.key == "displayname" }, content: { .object(content($0)) }
            ) { page in
                let members = Dictionary(grouping: try await tx.members(of: page.map(\.id)), by: \.groupID)
                return page.map { .object(resource($0, members: members[$0.id] ?? [])) }
            }
        }
    }

    // MARK: Writing

    /// `POST /Groups`: a new group (409 `uniqueness` for a name the tenant has).
    public func create(_ body: SCIMValue, logger: Logger) async throws -> [String: SCIMValue] {
        try caller.check(.provision, tenant: tenant)
        guard let members = body.object else { throw SCIMResource.invalid("the body is a Group object", SCIMError.invalidSyntax) }
        let now = domain.epochNow()
        var group = GroupRecord(id: GroupID(Secrets.identifier(byteCount: 12)), tenantID: tenant.id, displayName: "", externalID: nil, createdAt: now)
        let memberIDs = try Self.apply(members, to: &group)
        let record = group
        let created = try await domain.store.transaction(queue: Self.queue(tenant)) { tx in
            if try await tx.group(tenantID: tenant.id, displayName: record.displayName) != nil {
                throw DomainError(.conflict, SCIMError.uniqueness, "a group with this displayName exists in the tenant")
            }
            try await checkMembers(memberIDs, tx: tx)
            try await tx.insertGroup(record)
            try await tx.setMembers(of: record.id, to: memberIDs, now: now)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .groupCreate, target: record.id.rawValue,
                details: ["name": record.displayName, "source": "scim", "members": String(memberIDs.count)], at: now)
            return try await resource(record, tx: tx)
        }
        logger.info("group provisioned", metadata: ["tenant": "\(tenant.name)", "group_id": "\(record.id)"])
        return created
    }

    public func replace(_ id: String, _ body: SCIMValue, ifMatch: String?, logger: Logger) async throws -> [String: SCIMValue] {
        try caller.check(.provision, tenant: tenant)
        guard let members = body.object else { throw SCIMResource.invalid("the body is a Group object", SCIMError.invalidSyntax) }
        return try await change(id, ifMatch: ifMatch, logger: logger) { _ in members }
    }

    public func patch(_ id: String, _ request: SCIMPatch.Request, ifMatch: String?, logger: Logger) async throws -> [String: SCIMValue] {
        try caller.check(.provision, tenant: tenant)
        let patcher = SCIMPatch(multiValued: SCIMUsers.multiValued, canonical: SCIMSchemas.canonical)
        try SCIMResource.refuseImmutable(request.operations, ["id", "meta", "schemas"])
        return try await change(id, ifMatch: ifMatch, logger: logger) { current in try patcher.apply(request.operations, to: current) }
    }

    private func change(
        _ id: String, ifMatch: String?, logger: Logger, _ next: @Sendable ([String: SCIMValue]) throws -> [String: SCIMValue]
    ) async throws -> [String: SCIMValue] {
        let now = domain.epochNow()
        let updated = try await domain.store.transaction(queue: Self.queue(tenant)) { tx in
            var group = try await group(id, tx: tx)
            let current = try await resource(group, tx: tx)
            try SCIMResource.check(ifMatch: ifMatch, current, what: "group")
            let previous = group
            let before = Set(current["members"]?.array?.compactMap { $0.member("value")?.string }.map(UserID.init) ?? [])
            let after = try Self.apply(try next(current), to: &group)
            if group.displayName != previous.displayName, try await tx.group(tenantID: tenant.id, displayName: group.displayName) != nil {
                throw DomainError(.conflict, SCIMError.uniqueness, "a group with this displayName exists in the tenant")
            }
            try await checkMembers(after.subtracting(before), tx: tx)
            guard group != previous || after != before else { return current }
            group.updatedAt = now
            try await tx.updateGroup(group)
            try await tx.setMembers(of: group.id, to: after, now: now)
            var details = ["name": group.displayName, "source": "scim"]
            if after != before {
                details["added"] = String(after.subtracting(before).count)
                details["removed"] = String(before.subtracting(after).count)
            }
            try await Audit.record(tx, tenantID: tenant.id, actor: caller.actor, action: .groupUpdate, target: group.id.rawValue, details: details, at: now)
            return try await resource(group, tx: tx)
        }
        logger.info("group provisioned", metadata: ["tenant": "\(tenant.name)", "group_id": "\(id.prefix(64))"])
        return updated
    }

    /// `DELETE /Groups/{id}`: the group goes; its members stay.
    public func delete(_ id: String, logger: Logger) async throws {
        try caller.check(.provision, tenant: tenant)
        let now = domain.epochNow()
        try await domain.store.transaction(queue: Self.queue(tenant)) { tx in
            let group = try await group(id, tx: tx)
            try await tx.deleteGroup(id: group.id)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .groupDelete, target: group.id.rawValue,
                details: ["name": group.displayName, "source": "scim"], at: now)
        }
        logger.info("group deleted", metadata: ["tenant": "\(tenant.name)", "group_id": "\(id.prefix(64))"])
    }
}

extension Domain {
    /// SCIM provisioning of `tenant`'s groups by `caller`.
    public func scimGroups(tenant: TenantRecord, caller: AdminCaller) -> SCIMGroups { SCIMGroups(domain: self, caller: caller, tenant: tenant) }
}
