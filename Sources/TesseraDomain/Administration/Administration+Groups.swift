import TesseraAdminAPI
import TesseraCore
import TesseraRecords
import TesseraStore

extension Administration {
    /// A tenant's groups, by name, with how many members each has.
    package func groups(tenant: TenantRecord) async throws -> [Components.Schemas.Group] {
        try await domain.store.read { tx in
            let groups = try await tx.groups(tenantID: tenant.id, limit: SCIMListQuery.maximumScanned)
            let counts = try await tx.memberCounts(of: groups.map(\.id))
            return groups.map { Components.Schemas.Group($0, members: counts[$0.id] ?? 0) }
        }
    }

    /// A group of the tenant, named by id or by name, with its members by username.
    package func group(_ name: String, tenant: TenantRecord) async throws -> Components.Schemas.GroupDetail {
        try await domain.store.read { tx in
            var found = try await tx.group(id: GroupID(name))
            if found?.tenantID != tenant.id { found = try await tx.group(tenantID: tenant.id, displayName: name) }
            guard let group = found else { throw DomainError.notFound("group '\(name.prefix(64))'") }
            let members = try await tx.members(of: [group.id])
            return Components.Schemas.GroupDetail(
                id: group.id.rawValue, name: group.displayName, externalId: group.externalID, memberCount: members.count,
                createdAt: Double(group.createdAt), updatedAt: group.updatedAt.map(Double.init),
                members: members.map { .init(id: $0.userID.rawValue, username: $0.username) })
        }
    }
}

extension Components.Schemas.Group {
    init(_ group: GroupRecord, members: Int) {
        self.init(
            id: group.id.rawValue, name: group.displayName, externalId: group.externalID, memberCount: members,
            createdAt: Double(group.createdAt), updatedAt: group.updatedAt.map(Double.init))
    }
}
