import Foundation
import SQLKit
import TesseraCore

extension StoreTransaction {
    // MARK: Services

    public func insertService(_ service: ServiceRecord) async throws { try await insert("services", service) }

    public func service(clientID: ClientID) async throws -> ServiceRecord? {
        try await first("SELECT * FROM services WHERE client_id = \(bind: clientID)", as: ServiceRecord.self)
    }

    public func service(id: ServiceID) async throws -> ServiceRecord? {
        try await first("SELECT * FROM services WHERE id = \(bind: id)", as: ServiceRecord.self)
    }

    public func services(tenantID: TenantID) async throws -> [ServiceRecord] {
        try await all("SELECT * FROM services WHERE tenant_id = \(bind: tenantID) ORDER BY name", as: ServiceRecord.self)
    }
}
