import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Tenants and keys

    public func insertTenant(_ tenant: TenantRecord) async throws { try await insert("tenants", tenant) }

    public func tenant(named name: String) async throws -> TenantRecord? {
        try await first("SELECT * FROM tenants WHERE name = \(bind: name)", as: TenantRecord.self)
    }

    public func tenant(id: TenantID) async throws -> TenantRecord? {
        try await first("SELECT * FROM tenants WHERE id = \(bind: id)", as: TenantRecord.self)
    }

    public func tenants() async throws -> [TenantRecord] {
        try await all("SELECT * FROM tenants ORDER BY name", as: TenantRecord.self)
    }

    /// Puts `logo` in place of the tenant's logo, if it had one.
    public func replaceTenantLogo(_ logo: TenantLogoRecord) async throws {
        try await db.raw("DELETE FROM tenant_logos WHERE tenant_id = \(bind: logo.tenantID)").run()
        try await insert("tenant_logos", logo)
    }

    public func deleteTenantLogo(tenantID: TenantID) async throws {
        try await db.raw("DELETE FROM tenant_logos WHERE tenant_id = \(bind: tenantID)").run()
    }

    public func tenantLogo(tenantID: TenantID) async throws -> TenantLogoRecord? {
        try await first("SELECT * FROM tenant_logos WHERE tenant_id = \(bind: tenantID)", as: TenantLogoRecord.self)
    }

    public func insertSigningKey(_ key: SigningKeyRecord) async throws { try await insert("signing_keys", key) }

    public func signingKeys(tenantID: TenantID) async throws -> [SigningKeyRecord] {
        try await all(
            "SELECT * FROM signing_keys WHERE tenant_id = \(bind: tenantID) ORDER BY created_at",
            as: SigningKeyRecord.self)
    }
}
