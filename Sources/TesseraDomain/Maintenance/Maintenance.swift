import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraRecords
import TesseraStore

/// Keeps the database bounded: the purge deletes what no flow can use any more, in
/// small batches (each its own transaction, so no lock is held long), and every
/// deletion is idempotent, so each node may run it on its own schedule.
public struct Maintenance: Sendable {
    let domain: Domain

    /// Spent codes and rotated refresh tokens are kept this long after their use (and
    /// ended sessions after their end), so that a replayed copy is recognised as a
    /// reuse and ends its session rather than being merely unknown.
    public static let reuseDetectionWindow: Int64 = 7 * 86_400
    /// Rows deleted per transaction.
    public static let batchSize = 500

    /// Purges now and answers what went.
    package func purge(logger: Logger) async throws -> Components.Schemas.PurgeReport {
        let now = domain.epochNow()
        let spentBefore = now - Self.reuseDetectionWindow
        var deleted: [String: Int] = [:]
        for target in PurgeTarget.allCases {
            deleted[target.rawValue] = try await batches {
                try await $0.purge(target, now: now, spentBefore: spentBefore, limit: Self.batchSize)
            }
        }
        var history = 0
        var audit = 0
        for tenant in try await domain.store.read({ try await $0.tenants() }) {
            history += try await batches {
                try await $0.purgeHistory(tenantID: tenant.id, before: now - tenant.historyRetention, limit: Self.batchSize)
            }
            if let retention = tenant.auditRetention {
                audit += try await batches { try await $0.purgeAudit(tenantID: tenant.id, before: now - retention, limit: Self.batchSize) }
            }
        }
        deleted["history"] = history
        deleted["audit"] = audit
        try await domain.store.transaction { try await $0.recordMaintenance("purge", at: now, details: deleted) }
        let total = deleted.values.reduce(0, +)
        logger.info(
            "purge done", metadata: ["deleted": .stringConvertible(total), "by_kind": .dictionary(deleted.mapValues { .stringConvertible($0) })])
        return Components.Schemas.PurgeReport(at: now, deleted: deleted)
    }

    /// Runs `batch` in its own transaction until it deletes less than a full batch.
    private func batches(_ batch: @escaping @Sendable (StoreTransaction) async throws -> Int) async throws -> Int {
        var total = 0
        while true {
            let count = try await domain.store.transaction { try await batch($0) }
            total += count
            if count < Self.batchSize { return total }
        }
    }

    /// Row counts per table and the last purge (of any node).
    package func stats() async throws -> Components.Schemas.Stats {
        try await domain.store.read { tx in
            let last = try await tx.lastMaintenance("purge")
            return Components.Schemas.Stats(
                tables: .init(additionalProperties: try await tx.rowCounts()),
                lastPurge: last.map { Components.Schemas.PurgeReport(at: $0.at, deleted: $0.details) },
                outbound: .init(additionalProperties: try await tx.outboxes().mapValues { .init(waiting: $0.waiting, failing: $0.failing) }))
        }
    }
}

extension Components.Schemas.PurgeReport {
    /// What one purge deleted, by target; `history` and `audit` summed over tenants.
    init(at: Int64, deleted: [String: Int]) {
        self.init(at: Int(at), deleted: .init(additionalProperties: deleted))
    }
}

extension Domain {
    public var maintenance: Maintenance { Maintenance(domain: self) }
}
