import Foundation
import SQLKit
import TesseraCore
import TesseraRecords

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

// MARK: Dynamic client registration (RFC 7591)

extension StoreTransaction {
    public func insertRegistrationToken(_ token: RegistrationTokenRecord) async throws { try await insert("registration_tokens", token) }

    public func registrationTokens(tenantID: TenantID) async throws -> [RegistrationTokenRecord] {
        try await all("SELECT * FROM registration_tokens WHERE tenant_id = \(bind: tenantID) ORDER BY created_at", as: RegistrationTokenRecord.self)
    }

    public func deleteRegistrationToken(id: String, tenantID: TenantID) async throws -> Bool {
        try await db.raw("DELETE FROM registration_tokens WHERE id = \(bind: id) AND tenant_id = \(bind: tenantID) RETURNING id").all().count == 1
    }

    /// Spends one use of an initial access token: the token, or nil when it is unknown,
    /// used up or expired (a condition on the row, so that two registrations cannot both
    /// take the last use).
    public func spendRegistrationToken(digest: String, now: Int64) async throws -> RegistrationTokenRecord? {
        try await first(
            """
            UPDATE registration_tokens SET uses_left = uses_left - 1
            WHERE digest = \(bind: digest) AND uses_left > 0 AND expires_at > \(bind: now) RETURNING *
            """, as: RegistrationTokenRecord.self)
    }
}
