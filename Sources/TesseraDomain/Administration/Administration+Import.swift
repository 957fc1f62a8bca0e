import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

extension Administration {
    /// The most users one import request creates.
    public static let maximumImportBatch = 500

    /// Creates a batch of users in one transaction: each is created, skipped (its username
    /// exists in the tenant or came earlier in the batch) or refused (not valid). Every
    /// user created is audited as `user.create` with `source` `import`.
    package func importUsers(_ users: [Components.Schemas.ImportUser], tenant: TenantRecord, logger: Logger) async throws
        -> Components.Schemas.ImportSummary
    {
        guard users.count <= Self.maximumImportBatch else {
            throw DomainError.invalidRequest("an import creates at most \(Self.maximumImportBatch) users a request")
        }
        let now = domain.epochNow()
        var summary = Components.Schemas.ImportSummary(created: [], skipped: [], refused: [])
        var records: [(index: Int, record: UserRecord)] = []
        var seen: Set<String> = []
        for (index, user) in users.enumerated() {
            do {
                let attributes = try Self.checkNewUser(user.username, attributes: user.attributes?.additionalProperties ?? [:])
                if let external = user.externalId, !(1...256).contains(external.count) {
                    throw DomainError.invalidRequest("external_id is 1 to 256 characters")
                }
                guard seen.insert(user.username).inserted else {
                    summary.skipped.append(.init(index: index, username: user.username))
                    continue
                }
                var record = UserRecord(
                    id: UserID(Secrets.identifier(byteCount: 12)), tenantID: tenant.id, username: user.username, attributes: attributes,
                    createdAt: now, disabledAt: user.disabled == true ? now : nil)
                record.externalID = user.externalId
                records.append((index, record))
            } catch let error as DomainError {
                summary.refused.append(.init(index: index, username: String(user.username.prefix(128)), reason: error.message))
            }
        }
        let batch = records
        let (created, skipped) = try await domain.store.transaction { tx in
            var created: [Components.Schemas.ImportSummary.CreatedPayloadPayload] = []
            var skipped: [Components.Schemas.ImportSummary.SkippedPayloadPayload] = []
            for (index, record) in batch {
                // One statement, so a user another import or a directory made meanwhile is skipped, not a failure.
                guard try await tx.insertUserUnlessPresent(record) else {
                    skipped.append(.init(index: index, username: record.username))
                    continue
                }
                var details = ["username": record.username, "source": "import", "attributes": record.attributes.keys.sorted().joined(separator: ",")]
                if record.disabledAt != nil { details["disabled"] = "true" }
                try await Audit.record(
                    tx, tenantID: tenant.id, actor: caller.actor, action: .userCreate, target: record.id.rawValue, details: details, at: now)
                created.append(.init(index: index, username: record.username, id: record.id.rawValue))
            }
            return (created, skipped)
        }
        summary.created = created
        summary.skipped = (summary.skipped + skipped).sorted { $0.index < $1.index }
        logger.info(
            "users imported",
            metadata: [
                "tenant": "\(tenant.name)", "created": "\(created.count)", "skipped": "\(summary.skipped.count)",
                "refused": "\(summary.refused.count)",
            ])
        return summary
    }
}
