import Foundation
import TesseraCore

/// An initial access token for dynamic client registration, by its digest.
public struct RegistrationTokenRecord: Codable, Sendable {
    public var id: String
    public var tenantID: TenantID
    public var digest: String
    public var usesLeft: Int
    public var expiresAt: Int64
    public var createdAt: Int64

    public init(id: String, tenantID: TenantID, digest: String, usesLeft: Int, expiresAt: Int64, createdAt: Int64) {
        self.id = id
        self.tenantID = tenantID
        self.digest = digest
        self.usesLeft = usesLeft
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, digest
        case tenantID = "tenant_id"
        case usesLeft = "uses_left"
        case expiresAt = "expires_at"
        case createdAt = "created_at"
    }
}
