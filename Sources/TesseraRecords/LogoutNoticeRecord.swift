import Foundation
import TesseraCore

/// A session's end that its service is to hear of by back-channel logout.
public struct LogoutNoticeRecord: Codable, Sendable {
    /// The session's id (a session ends once).
    public var id: String
    public var tenantID: TenantID
    public var serviceID: ServiceID
    public var sessionID: SessionID
    public var userID: UserID
    public var attempts: Int
    public var nextAttemptAt: Int64
    public var createdAt: Int64
    /// The `traceparent` of the request that ended the session: the notice is sent in its trace.
    public var traceParent: String?

    enum CodingKeys: String, CodingKey {
        case id, attempts
        case traceParent = "trace_parent"
        case tenantID = "tenant_id"
        case serviceID = "service_id"
        case sessionID = "session_id"
        case userID = "user_id"
        case nextAttemptAt = "next_attempt_at"
        case createdAt = "created_at"
    }
}
