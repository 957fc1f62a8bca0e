import Foundation
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

extension Domain {
    /// Authenticates an OAuth client of the tenant: a confidential client by its secret
    /// (compared in constant time), a public client by its id alone, and a secret sent for
    /// a public client is refused. Every failure is the same `invalid_client`.
    public func authenticateClient(clientID: String?, secret: String?, tenant: TenantRecord) async throws -> ServiceRecord {
        let refused = DomainError(.unauthenticated, .invalidClient, "client authentication failed")
        guard let clientID, let service = try await service(clientID: ClientID(clientID)),
            service.tenantID == tenant.id
        else { throw refused }
        if let digest = service.secretDigest {
            guard let secret, Secrets.constantTimeEquals(Secrets.digest(secret), digest) else { throw refused }
        } else if secret != nil {
            throw refused
        }
        return service
    }
}
