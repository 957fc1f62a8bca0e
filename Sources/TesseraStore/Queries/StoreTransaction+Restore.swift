import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

/// What a restored database holds that an operator may have revoked since the backup:
/// printed by `tessera restore` so that it can be revoked again.
public struct RestoredInventory: Sendable, Encodable {
    public struct Activation: Sendable, Codable {
        public let tenant: String
        public let username: String
        public let id: String
        public let alias: String?
        public let status: String
        public let createdAt: Int64

        enum CodingKeys: String, CodingKey {
            case tenant, username, id, alias, status
            case createdAt = "created_at"
        }
    }

    public struct Key: Sendable, Codable {
        public let id: String
        public let name: String
        public let role: String
        /// The tenant the key is limited to, or nil for every tenant.
        public let tenant: String?
        public let createdAt: Int64

        enum CodingKeys: String, CodingKey {
            case id, name, role, tenant
            case createdAt = "created_at"
        }
    }

    public struct Operator: Sendable, Codable {
        public let username: String
        public let role: String
        /// The tenant the operator is limited to, or nil for every tenant.
        public let tenant: String?
        public let createdAt: Int64

        enum CodingKeys: String, CodingKey {
            case username, role, tenant
            case createdAt = "created_at"
        }
    }

    public let activations: [Activation]
    public let keys: [Key]
    public let operators: [Operator]
}

/// What `endEverythingLive` ended.
public struct RestoreEnded: Sendable, Encodable {
    public let sessions: Int
    public let singleSignOnSessions: Int
    public let webSessions: Int
    public let codes: Int

    enum CodingKeys: String, CodingKey {
        case sessions
        case singleSignOnSessions = "single_sign_on_sessions"
        case webSessions = "web_sessions"
        case codes
    }
}

extension StoreTransaction {
    /// Ends what a restored database holds from before the backup: every live session (its
    /// refresh tokens stop working: users sign in again), the single sign-on sessions, the
    /// console's and account page's sign-ins, and the authorization codes (spent ones come
    /// back with an old copy).
    public func endEverythingLive(at now: Int64) async throws -> RestoreEnded {
        let sessions = try await db.raw(
            """
            UPDATE sessions SET ended_at = \(bind: now), end_reason = \(bind: SessionEndReason.restored.rawValue)
            WHERE ended_at IS NULL RETURNING id
            """
        ).all().count
        let singleSignOn = try await db.raw("DELETE FROM sso_sessions RETURNING activation_id").all().count
        let web = try await db.raw("DELETE FROM web_sessions RETURNING digest").all().count
        let codes = try await db.raw("DELETE FROM grants WHERE kind = \(bind: GrantKind.code.rawValue) RETURNING digest").all().count
        return RestoreEnded(sessions: sessions, singleSignOnSessions: singleSignOn, webSessions: web, codes: codes)
    }

    /// The live activations, admin keys and console operators, oldest first.
    public func restoredInventory() async throws -> RestoredInventory {
        let activations = try await db.raw(
            """
            SELECT t.name AS tenant, u.username AS username, a.id AS id, a.alias AS alias, a.status AS status, a.created_at AS created_at
            FROM activations a JOIN tenants t ON t.id = a.tenant_id JOIN users u ON u.id = a.user_id
            WHERE a.status = \(bind: ActivationStatus.active.rawValue) ORDER BY a.created_at, a.id
            """
        ).all(decoding: RestoredInventory.Activation.self)
        let keys = try await db.raw(
            """
            SELECT k.id AS id, k.name AS name, k.role AS role, t.name AS tenant, k.created_at AS created_at
            FROM admin_keys k LEFT JOIN tenants t ON t.id = k.tenant_id
            WHERE k.revoked_at IS NULL ORDER BY k.created_at, k.id
            """
        ).all(decoding: RestoredInventory.Key.self)
        let operators = try await db.raw(
            """
            SELECT u.username AS username, o.role AS role, t.name AS tenant, o.created_at AS created_at
            FROM console_operators o JOIN users u ON u.id = o.user_id LEFT JOIN tenants t ON t.id = o.scope_tenant_id
            ORDER BY o.created_at, u.username
            """
        ).all(decoding: RestoredInventory.Operator.self)
        return RestoredInventory(activations: activations, keys: keys, operators: operators)
    }
}
