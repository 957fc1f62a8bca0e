import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Groups

    public func insertGroup(_ group: GroupRecord) async throws { try await insert("user_groups", group) }

    /// Writes the group's name, external id and time of change (its tenant and creation stay).
    public func updateGroup(_ group: GroupRecord) async throws {
        try await update("user_groups", group, key: "id", keeping: ["tenant_id", "created_at"])
    }

    /// Removes the group and its memberships.
    public func deleteGroup(id: GroupID) async throws {
        try await db.raw("DELETE FROM group_members WHERE group_id = \(bind: id)").run()
        try await db.raw("DELETE FROM user_groups WHERE id = \(bind: id)").run()
    }

    public func group(id: GroupID) async throws -> GroupRecord? {
        try await first("SELECT * FROM user_groups WHERE id = \(bind: id)", as: GroupRecord.self)
    }

    public func group(tenantID: TenantID, displayName: String) async throws -> GroupRecord? {
        try await first(
            "SELECT * FROM user_groups WHERE tenant_id = \(bind: tenantID) AND display_name = \(bind: displayName)", as: GroupRecord.self)
    }

    /// A tenant's groups a directory knows by this `externalId`.
    public func groups(tenantID: TenantID, externalID: String) async throws -> [GroupRecord] {
        try await all(
            "SELECT * FROM user_groups WHERE tenant_id = \(bind: tenantID) AND external_id = \(bind: externalID) ORDER BY display_name",
            as: GroupRecord.self)
    }

    /// Up to `limit` of a tenant's groups in name order.
    public func groups(tenantID: TenantID, limit: Int) async throws -> [GroupRecord] {
        try await all(
            "SELECT * FROM user_groups WHERE tenant_id = \(bind: tenantID) ORDER BY display_name LIMIT \(bind: limit)", as: GroupRecord.self)
    }

    /// The members of these groups, by username.
    public func members(of groupIDs: [GroupID]) async throws -> [GroupMember] {
        guard !groupIDs.isEmpty else { return [] }
        return try await all(
            """
            SELECT m.group_id, m.user_id, u.username FROM group_members m JOIN users u ON u.id = m.user_id
            WHERE m.group_id IN (\(SQLList(groupIDs.map { SQLBind($0.rawValue) }))) ORDER BY u.username
            """, as: GroupMember.self)
    }

    /// Makes the group's members exactly `userIDs`.
    public func setMembers(of groupID: GroupID, to userIDs: Set<UserID>, now: Int64) async throws {
        let current = Set(try await members(of: [groupID]).map(\.userID))
        for gone in current.subtracting(userIDs) {
            try await db.raw("DELETE FROM group_members WHERE group_id = \(bind: groupID) AND user_id = \(bind: gone)").run()
        }
        for added in userIDs.subtracting(current).sorted(by: { $0.rawValue < $1.rawValue }) {
            try await db.raw(
                "INSERT INTO group_members (group_id, user_id, created_at) VALUES (\(bind: groupID), \(bind: added), \(bind: now))"
            ).run()
        }
    }

    /// The groups these users are members of, by name.
    public func memberships(of userIDs: [UserID]) async throws -> [Membership] {
        guard !userIDs.isEmpty else { return [] }
        return try await all(
            """
            SELECT m.user_id, m.group_id, g.display_name FROM group_members m JOIN user_groups g ON g.id = m.group_id
            WHERE m.user_id IN (\(SQLList(userIDs.map { SQLBind($0.rawValue) }))) ORDER BY g.display_name
            """, as: Membership.self)
    }

    /// Which of these ids are users of the tenant.
    public func existingUsers(_ userIDs: [UserID], tenantID: TenantID) async throws -> Set<UserID> {
        struct Row: Decodable { let id: UserID }
        var found: Set<UserID> = []
        for slice in Self.slices(userIDs) {
            let rows = try await all(
                "SELECT id FROM users WHERE tenant_id = \(bind: tenantID) AND id IN (\(SQLList(slice.map { SQLBind($0.rawValue) })))",
                as: Row.self)
            found.formUnion(rows.map(\.id))
        }
        return found
    }
}

extension StoreTransaction {
    /// How many members each of these groups has.
    public func memberCounts(of groupIDs: [GroupID]) async throws -> [GroupID: Int] {
        struct Row: Decodable {
            let groupID: GroupID
            let members: Int

            enum CodingKeys: String, CodingKey {
                case groupID = "group_id"
                case members
            }
        }
        var counts: [GroupID: Int] = [:]
        for slice in Self.slices(groupIDs) {
            let rows = try await all(
                """
                SELECT group_id, COUNT(*) AS members FROM group_members
                WHERE group_id IN (\(SQLList(slice.map { SQLBind($0.rawValue) }))) GROUP BY group_id
                """, as: Row.self)
            for row in rows { counts[row.groupID] = row.members }
        }
        return counts
    }

    /// Ids in slices of 500, within both backends' limits on bound values.
    static func slices<ID>(_ ids: [ID]) -> [ArraySlice<ID>] {
        stride(from: 0, to: ids.count, by: 500).map { ids[$0..<min($0 + 500, ids.count)] }
    }
}
