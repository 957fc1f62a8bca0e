import TesseraCore

/// A group of a tenant's users (SCIM `Group`): its name is unique in the tenant and is
/// what services see in the `groups` claim.
public struct GroupRecord: Codable, Sendable, Equatable {
    public var id: GroupID
    public var tenantID: TenantID
    public var displayName: String
    /// The directory's id for the group (SCIM `externalId`).
    public var externalID: String?
    public var createdAt: Int64
    /// When the group or its members last changed; nil: not since it was made.
    public var updatedAt: Int64?

    public init(id: GroupID, tenantID: TenantID, displayName: String, externalID: String?, createdAt: Int64, updatedAt: Int64? = nil) {
        self.id = id
        self.tenantID = tenantID
        self.displayName = displayName
        self.externalID = externalID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id
        case tenantID = "tenant_id"
        case displayName = "display_name"
        case externalID = "external_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// A member of a group, with the username it is shown by.
public struct GroupMember: Codable, Sendable, Equatable {
    public var groupID: GroupID
    public var userID: UserID
    public var username: String

    enum CodingKeys: String, CodingKey {
        case groupID = "group_id"
        case userID = "user_id"
        case username
    }
}

/// One of a user's groups, as the user's side shows it.
public struct Membership: Codable, Sendable, Equatable {
    public var userID: UserID
    public var groupID: GroupID
    public var displayName: String

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case groupID = "group_id"
        case displayName = "display_name"
    }
}

/// A recovery a user started with a recovery code: the activation link went by e-mail, or
/// waits for an operator's approval.
public struct RecoveryRecord: Codable, Sendable {
    public var id: String
    public var tenantID: TenantID
    public var userID: UserID
    /// The digest of the secret the device asks for the outcome with (approval only).
    public var handleDigest: String?
    /// `emailed`, `awaiting_approval`, `approved`, `used`.
    public var status: String
    public var createdAt: Int64
    public var expiresAt: Int64
    public var approvedAt: Int64?
    /// The operator or key that approved it (the audit's actor).
    public var approvedBy: String?

    public init(id: String, tenantID: TenantID, userID: UserID, handleDigest: String?, status: String, createdAt: Int64, expiresAt: Int64) {
        self.id = id
        self.tenantID = tenantID
        self.userID = userID
        self.handleDigest = handleDigest
        self.status = status
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case id, status
        case tenantID = "tenant_id"
        case userID = "user_id"
        case handleDigest = "handle_digest"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case approvedAt = "approved_at"
        case approvedBy = "approved_by"
    }
}
