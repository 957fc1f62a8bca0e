import Foundation
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

extension Domain {
    /// Authenticates an OAuth client of the tenant by what it sent besides an assertion: a
    /// client with a secret by its secret (compared in constant time), a public client by
    /// its id alone (a secret sent for it is refused), and a `private_key_jwt` client never
    /// (it signs assertions, `ClientAssertions`). Every failure is the same `invalid_client`.
    public func authenticateClient(clientID: String?, secret: String?, tenant: TenantRecord) async throws -> ServiceRecord {
        let refused = DomainError(.unauthenticated, .invalidClient, "client authentication failed")
        guard let clientID, let service = try await service(clientID: ClientID(clientID)),
            service.tenantID == tenant.id
        else { throw refused }
        switch service.endpointAuthMethod {
        case ClientAuthMethod.none:
            guard secret == nil else { throw refused }
        case ClientAuthMethod.privateKeyJWT:
            throw refused
        default:
            guard let digest = service.secretDigest, let secret, Secrets.constantTimeEquals(Secrets.digest(secret), digest) else {
                throw refused
            }
        }
        return service
    }
}
