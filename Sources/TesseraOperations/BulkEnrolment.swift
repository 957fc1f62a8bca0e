import Crypto
import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraRecords
import TesseraStore

/// `tessera seed`: fills a tenant with users and activated devices straight in the
/// database, fast, so that `tessera bench` can be run against a large database.
///
/// The rows are complete activations (a P-256 device key, a PIN key sealed under the
/// master key like any other), so indexes and tables grow exactly as enrolment would
/// grow them; no one holds their private keys, so they never log in.
public enum BulkEnrolment {
    public struct Report: Codable, Sendable {
        public let tenant: String
        public let created: Int
        public let activations: Int
        public let seconds: Double
    }

    /// Rows per transaction.
    public static let batch = 20_000

    public static func run(
        dataDirectory: String, databaseURL: String?, tenant name: String, count: Int, logger: Logger,
        progress: @Sendable (Int) -> Void
    ) async throws -> Report {
        let directory = DataDirectory(path: dataDirectory)
        try directory.refuseUnfinishedRekey()
        return try await directory.withExistingStore(databaseURL: databaseURL, logger: logger) { masterKey, store in
            // Like a server, it seals under the master key: no rekey meanwhile, and none
            // may be running (the data directory's lock file; on PostgreSQL the serving lock).
            // The master key must be this database's (`checkMasterKey`): values sealed under
            // another would make the next rekey fail.
            let lock = try DataDirectoryLock.take(.serving, in: directory)
            defer { lock.release() }
            let box = try SecretBox(masterKey: masterKey)
            let (report, end) = try await store.withServing(listeningOn: EventKey.channel, check: { try await checkMasterKey(box, opens: store) }) {
                try await fill(store: store, box: box, tenant: name, count: count, progress: progress)
            }
            if end == .rekeyed {
                throw ServerStartupError("a tessera rekey ran while seed's connection was lost: the rows it wrote since need the old master key")
            }
            return report
        }
    }

    /// Adds `count` activations to the tenant named `name`, `batch` rows per transaction.
    public static func fill(
        store: SQLStore, box: SecretBox, tenant name: String, count: Int, batch: Int = batch, progress: @Sendable (Int) -> Void
    ) async throws -> Report {
        let started = ContinuousClock.now
        guard let tenant = try await store.read({ try await $0.tenant(named: name) }) else {
            throw ServerStartupError("no tenant named \(name): create it first (tessera admin tenant create \(name))")
        }
        // One device key for every row: only its size and shape matter here.
        let deviceKey = PublicJWK(P256.Signing.PrivateKey().publicKey)
        let rows = Rows(tenantID: tenant.id, deviceKey: deviceKey, run: Secrets.identifier(byteCount: 4), box: box)
        // Two batches at a time, each made (random ids, sealed PIN keys: CPU) and then
        // written in a transaction of its own: one is made while the other is written,
        // and on PostgreSQL the two write at once.
        var created = 0
        var next = 0
        try await withThrowingTaskGroup(of: Int.self) { group in
            func startBatch() {
                let first = next
                let size = min(batch, count - first)
                next += size
                group.addTask {
                    let made = try rows.make(from: first, count: size)
                    try await store.transaction { tx in try await tx.insertInBulk(users: made.users, activations: made.activations) }
                    return size
                }
            }
            while next < count && next < 2 * batch { startBatch() }
            while let written = try await group.next() {
                created += written
                progress(created)
                if next < count { startBatch() }
            }
        }
        try await store.transaction { try await $0.analyzeBulkTables() }
        let total = try await store.read { try await $0.activationCount(tenantID: tenant.id) }
        let elapsed = ContinuousClock.now - started
        return Report(
            tenant: name, created: created, activations: total,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Seed rows, made in batches: complete activations of users named `seed-RUN-INDEX`.
    struct Rows: Sendable {
        struct Batch: Sendable {
            var users: [UserRecord] = []
            var activations: [ActivationRecord] = []
        }

        let tenantID: TenantID
        let deviceKey: PublicJWK
        let run: String
        let box: SecretBox
        let now = Int64(Date().timeIntervalSince1970)

        func make(from first: Int, count: Int) throws -> Batch {
            var batch = Batch()
            batch.users.reserveCapacity(count)
            batch.activations.reserveCapacity(count)
            for index in first..<(first + count) {
                let user = UserRecord(
                    id: UserID(Secrets.identifier(byteCount: 12)), tenantID: tenantID, username: "seed-\(run)-\(index)", attributes: [:],
                    createdAt: now)
                let activationID = ActivationID(Secrets.identifier(byteCount: 16))
                batch.users.append(user)
                batch.activations.append(
                    ActivationRecord(
                        id: activationID, tenantID: tenantID, userID: user.id, alias: nil, deviceKey: deviceKey, biometricKey: nil,
                        sealedPinKey: try box.seal(Secrets.randomBytes(32), context: SealingContext.pinKey(activationID: activationID)),
                        sealedTOTPSecret: nil, totpLastStep: nil, failedAttempts: 0, lockedUntil: nil, permanentlyLocked: false,
                        status: .active, createdAt: now, lastUsedAt: nil))
            }
            return batch
        }
    }
}
