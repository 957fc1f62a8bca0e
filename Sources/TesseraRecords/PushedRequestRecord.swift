import Foundation
import TesseraCore

/// The parameters of an authorization request a service pushed, until its browser comes.
public struct PushedRequestRecord: Codable, Sendable {
    public var digest: String
    public var tenantID: TenantID
    public var clientID: ClientID
    @JSONText public var parameters: [String: String]
    public var expiresAt: Int64

    public init(digest: String, tenantID: TenantID, clientID: ClientID, parameters: [String: String], expiresAt: Int64) {
        self.digest = digest
        self.tenantID = tenantID
        self.clientID = clientID
        self.parameters = parameters
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case digest, parameters
        case tenantID = "tenant_id"
        case clientID = "client_id"
        case expiresAt = "expires_at"
    }
}
