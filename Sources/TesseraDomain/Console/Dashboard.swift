import Foundation
import TesseraCore
import TesseraRecords
import TesseraStore

/// A tenant on the console's dashboard: its counts now, and its logins and failed
/// attempts per hour over the last day, oldest hour first.
public struct TenantActivity: Sendable, Equatable {
    public let name: String
    public let users: Int
    public let activations: Int
    public let lockedActivations: Int
    public let openBackchannelRequests: Int
    public let loginsPerHour: [Int]
    public let failuresPerHour: [Int]
}

extension Administration {
    /// How many hours of logins the dashboard shows.
    public static let dashboardHours = 24

    /// The dashboard: every tenant the caller reaches, with its activity, in one grouped
    /// read whatever the number of tenants.
    public func dashboard() async throws -> [TenantActivity] {
        try caller.check(.read)
        let now = domain.epochNow()
        let hours = Self.dashboardHours
        let (tenants, figures) = try await domain.store.read { tx in
            (try await tx.tenants(), try await tx.tenantFigures(now: now, hours: hours))
        }
        return tenants.filter(caller.reaches).map { tenant in
            let counted = figures[tenant.id] ?? TenantFigures(hours: hours)
            return TenantActivity(
                name: tenant.name, users: counted.users, activations: counted.activations, lockedActivations: counted.lockedActivations,
                openBackchannelRequests: counted.openBackchannelRequests, loginsPerHour: counted.loginsPerHour,
                failuresPerHour: counted.failuresPerHour)
        }
    }

    /// The user an activation of `tenant` belongs to (the console returns to their page);
    /// another tenant's activation is as unknown as a missing one.
    public func owner(ofActivation id: ActivationID, tenant: TenantRecord) async throws -> UserID {
        try caller.check(tenant: tenant)
        guard let activation = try await domain.store.read({ try await $0.activation(id: id) }), activation.tenantID == tenant.id else {
            throw DomainError.notFound("activation")
        }
        return activation.userID
    }

    /// The user a session of `tenant` belongs to, nil when there is no such session.
    public func owner(ofSession id: SessionID, tenant: TenantRecord) async throws -> UserID? {
        try caller.check(tenant: tenant)
        guard let session = try await domain.store.read({ try await $0.session(id: id) }), session.tenantID == tenant.id else { return nil }
        return session.userID
    }
}
