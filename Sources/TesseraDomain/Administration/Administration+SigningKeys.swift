import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

// Tenant signing-key rotation. A new key signs every token from the moment it is made,
// or, made with `"activate": false`, is only published until it is activated (so that
// services holding a cached JWKS, up to its max-age of 300 s, have it before any token
// it signed reaches them). The older keys stay in the tenant's JWKS, so tokens they
// signed still verify, until an administrator retires them. The active key cannot be
// retired: a tenant always signs. Each algorithm (ES256, RS256, EdDSA) has its own active
// key and rotates on its own; the default is ES256.
extension Administration {
    /// Changes to one tenant's keys take turns (on PostgreSQL an advisory lock), so two
    /// rotations at once cannot leave two active keys.
    static func signingKeyQueue(tenantID: TenantID) -> String { "signing-keys:\(tenantID)" }

    /// A new key, the only active one from now on unless `activate` is false (published only).
    package func rotateSigningKey(activate: Bool, algorithm: SigningAlgorithm = .es256, tenant: TenantRecord, logger: Logger) async throws
        -> Components.Schemas.Rotation
    {
        let key = try ServerSigningKey.generate(algorithm)
        let sealed = try domain.box.seal(key.privateBytes, context: SealingContext.signingKey(kid: key.kid))
        let now = domain.epochNow()
        let keys: [SigningKeyRecord] = try await domain.store.transaction(queue: Self.signingKeyQueue(tenantID: tenant.id)) { tx in
            let previous = try await tx.signingKeys(tenantID: tenant.id).filter { $0.active && $0.algorithm == algorithm }.map(\.kid)
            if activate { try await tx.deactivateSigningKeys(tenantID: tenant.id, algorithm: algorithm) }
            try await tx.insertSigningKey(
                SigningKeyRecord(
                    kid: key.kid, tenantID: tenant.id, sealedKey: sealed, active: activate, algorithm: algorithm, createdAt: now))
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: activate ? .signingKeyRotate : .signingKeyPublish,
                target: key.kid, details: ["previous_kid": previous.joined(separator: ","), "algorithm": algorithm.rawValue], at: now)
            return try await tx.signingKeys(tenantID: tenant.id)
        }
        // Only after the commit: a node that reloads now reads the new keys.
        await signingKeysChanged(tenantID: tenant.id, logger: logger)
        logger.notice(
            activate ? "signing key rotated" : "signing key published", metadata: ["tenant": "\(tenant.name)", "kid": "\(key.kid)"])
        return .init(kid: key.kid, algorithm: .init(algorithm), active: activate, keys: keys.map(Components.Schemas.SigningKey.init))
    }

    /// A published key becomes the one that signs with its algorithm; the one before stays published.
    package func activateSigningKey(kid: String, tenant: TenantRecord, logger: Logger) async throws -> Components.Schemas.KeyActivation {
        let now = domain.epochNow()
        let keys: [SigningKeyRecord] = try await domain.store.transaction(queue: Self.signingKeyQueue(tenantID: tenant.id)) { tx in
            let keys = try await tx.signingKeys(tenantID: tenant.id)
            guard let key = keys.first(where: { $0.kid == kid }) else {
                throw DomainError.notFound("signing key '\(kid.prefix(64))'")
            }
            if key.active { return keys }
            try await tx.deactivateSigningKeys(tenantID: tenant.id, algorithm: key.algorithm)
            try await tx.activateSigningKey(kid: kid, tenantID: tenant.id)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .signingKeyActivate, target: kid,
                details: ["previous_kid": keys.filter { $0.active && $0.algorithm == key.algorithm }.map(\.kid).joined(separator: ",")], at: now)
            return try await tx.signingKeys(tenantID: tenant.id)
        }
        await signingKeysChanged(tenantID: tenant.id, logger: logger)
        logger.notice("signing key activated", metadata: ["tenant": "\(tenant.name)", "kid": "\(kid)"])
        return .init(activated: kid, keys: keys.map(Components.Schemas.SigningKey.init))
    }

    /// Every key the JWKS publishes, oldest first.
    package func listSigningKeys(tenant: TenantRecord) async throws -> [Components.Schemas.SigningKey] {
        try await domain.store.read { try await $0.signingKeys(tenantID: tenant.id) }.map(Components.Schemas.SigningKey.init)
    }

    /// Retires a key that no longer signs. Tokens it signed stop verifying, at this server and for services that fetch
    /// the JWKS again.
    package func retireSigningKey(kid: String, tenant: TenantRecord, logger: Logger) async throws -> Components.Schemas.KeyRetirement {
        let now = domain.epochNow()
        let keys: [SigningKeyRecord] = try await domain.store.transaction(queue: Self.signingKeyQueue(tenantID: tenant.id)) { tx in
            guard let key = try await tx.signingKeys(tenantID: tenant.id).first(where: { $0.kid == kid }) else {
                throw DomainError.notFound("signing key '\(kid.prefix(64))'")
            }
            guard !key.active, try await tx.deleteInactiveSigningKey(kid: kid, tenantID: tenant.id) else {
                throw DomainError(.conflict, .conflict, "the active signing key cannot be retired: rotate to a new key first")
            }
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .signingKeyRetire, target: kid, details: [:], at: now)
            return try await tx.signingKeys(tenantID: tenant.id)
        }
        await signingKeysChanged(tenantID: tenant.id, logger: logger)
        logger.notice("signing key retired", metadata: ["tenant": "\(tenant.name)", "kid": "\(kid)"])
        return .init(retired: kid, keys: keys.map(Components.Schemas.SigningKey.init))
    }


    /// After a change to a tenant's signing keys has committed: this node and (by NOTIFY)
    /// every other drop the tenant's cached issuer, so its JWKS and its new tokens follow
    /// the keys as they are now.
    func signingKeysChanged(tenantID: TenantID, logger: Logger) async {
        await domain.announce(RequestNotice(keys: [EventKey.signingKeys(tenantID: tenantID)]), logger: logger)
    }
}

extension Components.Schemas.SigningKey {
    /// A signing key as the admin API shows it: never the private half.
    init(_ record: SigningKeyRecord) {
        self.init(kid: record.kid, algorithm: .init(rawValue: record.algorithm.rawValue) ?? .es256, active: record.active, createdAt: Double(record.createdAt))
    }
}

extension Components.Schemas.Rotation.AlgorithmPayload {
    init(_ algorithm: SigningAlgorithm) {
        self = Self(rawValue: algorithm.rawValue) ?? .es256
    }
}

extension SigningAlgorithm {
    /// The algorithm a rotation names: ES256 when it names none.
    package init(_ rotation: Components.Schemas.SigningKeyRotation?) throws {
        guard let named = rotation?.algorithm else {
            self = .es256
            return
        }
        guard let algorithm = SigningAlgorithm(rawValue: named.rawValue) else {
            throw DomainError.invalidRequest("algorithm is ES256, RS256 or EdDSA")
        }
        self = algorithm
    }
}
