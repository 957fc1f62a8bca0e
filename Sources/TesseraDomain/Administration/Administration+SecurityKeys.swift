import Foundation
import Logging
import TesseraCore
import TesseraStore

extension Administration {
    // MARK: Security keys and passkeys

    /// A user's registered security keys and passkeys.
    public func listSecurityKeys(user id: UserID, tenant: TenantRecord) async throws -> [SecurityKeyView] {
        try await domain.passkeys.list(user: id, tenant: tenant)
    }

    /// Removes one of a user's security keys; the sessions of its logins end with it.
    public func removeSecurityKey(_ id: SecurityKeyID, user: UserID, tenant: TenantRecord, logger: Logger) async throws {
        try await domain.passkeys.remove(id, user: user, tenant: tenant, actor: caller.actor, via: "admin", logger: logger)
    }
}
