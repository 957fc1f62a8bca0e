import Foundation
import SQLKit
import TesseraCore

/// What a set of sessions to end stands on.
public enum SessionScope: Sendable {
    case session(SessionID)
    case activation(ActivationID)
    case user(UserID)
    case service(ServiceID)
    case securityKey(SecurityKeyID)

    var column: String {
        switch self {
        case .session: "id"
        case .activation: "activation_id"
        case .user: "user_id"
        case .service: "service_id"
        case .securityKey: "security_key_id"
        }
    }

    var key: String {
        switch self {
        case .session(let id): id.rawValue
        case .activation(let id): id.rawValue
        case .user(let id): id.rawValue
        case .service(let id): id.rawValue
        case .securityKey(let id): id.rawValue
        }
    }
}

extension StoreTransaction {
    // MARK: Sessions

    public func insertSession(_ session: SessionRecord) async throws { try await insert("sessions", session) }

    public func session(id: SessionID) async throws -> SessionRecord? {
        try await first("SELECT * FROM sessions WHERE id = \(bind: id)", as: SessionRecord.self)
    }

    /// Records a refresh: the idle lifetime counts from now.
    public func touchSession(id: SessionID, at now: Int64) async throws {
        try await db.raw("UPDATE sessions SET last_refreshed_at = \(bind: now) WHERE id = \(bind: id)").run()
    }

    /// Ends the live sessions in `scope`; returns how many ended. One statement over an
    /// index, whatever the number of refreshes each had.
    @discardableResult
    public func endSessions(_ scope: SessionScope, reason: SessionEndReason, at now: Int64) async throws -> Int {
        try await db.raw(
            """
            UPDATE sessions SET ended_at = \(bind: now), end_reason = \(bind: reason.rawValue)
            WHERE \(ident: scope.column) = \(bind: scope.key) AND ended_at IS NULL RETURNING id
            """
        ).all().count
    }
}
