import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraRecords
import TesseraStore

extension Administration {
    // MARK: Security keys and passkeys

    /// A user's registered security keys and passkeys.
    package func listSecurityKeys(user id: UserID, tenant: TenantRecord) async throws -> [Components.Schemas.SecurityKey] {
        try await domain.passkeys.list(user: id, tenant: tenant).map(Components.Schemas.SecurityKey.init)
    }

    /// Removes one of a user's security keys; the sessions of its logins end with it.
    public func removeSecurityKey(_ id: SecurityKeyID, user: UserID, tenant: TenantRecord, logger: Logger) async throws {
        try await domain.passkeys.remove(id, user: user, tenant: tenant, actor: caller.actor, via: "admin", logger: logger)
    }
}

// A user's detail and the admin API's list hold the document's SecurityKey; the domain's SecurityKeyView (the
// passkey use cases' answer, which the account page shows) is mapped to it there.
extension Components.Schemas.SecurityKey {
    init(_ view: SecurityKeyView) throws {
        guard let algorithm = AlgorithmPayload(rawValue: view.algorithm), let attestation = AttestationPayload(rawValue: view.attestation)
        else { throw DomainError(.internal, .serverError, "security key \(view.id.rawValue) has an algorithm or attestation the document does not name") }
        self.init(
            id: view.id.rawValue, userId: view.userID.rawValue, name: view.name, credentialId: view.credentialID, algorithm: algorithm,
            aaguid: view.aaguid, transports: view.transports, backupEligible: view.backupEligible, backedUp: view.backedUp,
            attestation: attestation, signCount: Int(view.signCount), suspicious: view.suspicious,
            createdAt: view.createdAt.timeIntervalSince1970, lastUsedAt: view.lastUsedAt?.timeIntervalSince1970)
    }
}
