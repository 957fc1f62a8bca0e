import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraStore

// Tenant signing-key rotation. A new key signs every token from the moment it is made,
// or, made with `"activate": false`, is only published until it is activated (so that
// services holding a cached JWKS, up to its max-age of 300 s, have it before any token
// it signed reaches them). The older keys stay in the tenant's JWKS, so tokens they
// signed still verify, until an administrator retires them. The active key cannot be
// retired: a tenant always signs. Each algorithm (ES256, RS256, EdDSA) has its own active
// key and rotates on its own; the default is ES256.
extension Administration {
    /// A signing key as the admin API shows it: never the private half.
    public struct SigningKeyView: Codable, Sendable {
        public let kid: String
        public let algorithm: String
        public let active: Bool
        public let createdAt: Date

        enum CodingKeys: String, CodingKey {
            case kid, active, algorithm
            case createdAt = "created_at"
        }

        init(_ record: SigningKeyRecord) {
            kid = record.kid
            algorithm = record.algorithm
            active = record.active
            createdAt = Date(timeIntervalSince1970: TimeInterval(record.createdAt))
        }
    }

    public struct RotationView: Codable, Sendable {
        public let kid: String
        public let algorithm: String
        public let active: Bool
        public let keys: [SigningKeyView]
    }

    /// The optional body of a rotation.
    public struct RotationRequest: Codable, Sendable {
        /// false: publish the new key now, sign with it once it is activated. Default true.
        public let activate: Bool?
        /// ES256 (the default), RS256 or EdDSA: the algorithm whose key rotates.
        public let algorithm: String?

        public init(activate: Bool?, algorithm: String? = nil) {
            self.activate = activate
            self.algorithm = algorithm
        }

        public func signingAlgorithm() throws -> SigningAlgorithm {
            guard let text = algorithm else { return .es256 }
            guard let algorithm = SigningAlgorithm(rawValue: text) else {
                throw DomainError.invalidRequest("algorithm is ES256, RS256 or EdDSA")
            }
            return algorithm
        }
    }

    public struct KeyActivationView: Codable, Sendable {
        public let activated: String
        public let keys: [SigningKeyView]
    }

    public struct RetirementView: Codable, Sendable {
        public let retired: String
        public let keys: [SigningKeyView]
    }

    /// Changes to one tenant's keys take turns (on PostgreSQL an advisory lock), so two
    /// rotations at once cannot leave two active keys.
    static func signingKeyQueue(tenantID: TenantID) -> String { "signing-keys:\(tenantID)" }

    /// A new key, the only active one from now on unless `activate` is false (published only).
    public func rotateSigningKey(activate: Bool, algorithm: SigningAlgorithm = .es256, tenant: TenantRecord, logger: Logger) async throws
        -> RotationView
    {
        let key = try ServerSigningKey.generate(algorithm)
        let sealed = try domain.box.seal(key.privateBytes, context: SealingContext.signingKey(kid: key.kid))
        let now = domain.epochNow()
        let keys: [SigningKeyRecord] = try await domain.store.transaction(queue: Self.signingKeyQueue(tenantID: tenant.id)) { tx in
            let previous = try await tx.signingKeys(tenantID: tenant.id).filter { $0.active && $0.algorithm == algorithm.rawValue }.map(\.kid)
            if activate { try await tx.deactivateSigningKeys(tenantID: tenant.id, algorithm: algorithm.rawValue) }
            try await tx.insertSigningKey(
                SigningKeyRecord(
                    kid: key.kid, tenantID: tenant.id, sealedKey: sealed, active: activate, algorithm: algorithm.rawValue, createdAt: now))
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: activate ? "signing_key.rotate" : "signing_key.publish",
                target: key.kid, details: ["previous_kid": previous.joined(separator: ","), "algorithm": algorithm.rawValue], at: now)
            return try await tx.signingKeys(tenantID: tenant.id)
        }
        // Only after the commit: a node that reloads now reads the new keys.
        await signingKeysChanged(tenantID: tenant.id, logger: logger)
        logger.notice(
            activate ? "signing key rotated" : "signing key published", metadata: ["tenant": "\(tenant.name)", "kid": "\(key.kid)"])
        return RotationView(kid: key.kid, algorithm: algorithm.rawValue, active: activate, keys: keys.map { SigningKeyView($0) })
    }

    /// A published key becomes the one that signs with its algorithm; the one before stays published.
    public func activateSigningKey(kid: String, tenant: TenantRecord, logger: Logger) async throws -> KeyActivationView {
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
                tx, tenantID: tenant.id, actor: caller.actor, action: "signing_key.activate", target: kid,
                details: ["previous_kid": keys.filter { $0.active && $0.algorithm == key.algorithm }.map(\.kid).joined(separator: ",")], at: now)
            return try await tx.signingKeys(tenantID: tenant.id)
        }
        await signingKeysChanged(tenantID: tenant.id, logger: logger)
        logger.notice("signing key activated", metadata: ["tenant": "\(tenant.name)", "kid": "\(kid)"])
        return KeyActivationView(activated: kid, keys: keys.map { SigningKeyView($0) })
    }

    /// Every key the JWKS publishes, oldest first.
    public func listSigningKeys(tenant: TenantRecord) async throws -> [SigningKeyView] {
        try await domain.store.read { try await $0.signingKeys(tenantID: tenant.id) }.map { SigningKeyView($0) }
    }

    /// Retires a key that no longer signs. Tokens it signed stop verifying, at this server and for services that fetch
    /// the JWKS again.
    public func retireSigningKey(kid: String, tenant: TenantRecord, logger: Logger) async throws -> RetirementView {
        let now = domain.epochNow()
        let keys: [SigningKeyRecord] = try await domain.store.transaction(queue: Self.signingKeyQueue(tenantID: tenant.id)) { tx in
            guard let key = try await tx.signingKeys(tenantID: tenant.id).first(where: { $0.kid == kid }) else {
                throw DomainError.notFound("signing key '\(kid.prefix(64))'")
            }
            guard !key.active, try await tx.deleteInactiveSigningKey(kid: kid, tenantID: tenant.id) else {
                throw DomainError(.conflict, .conflict, "the active signing key cannot be retired: rotate to a new key first")
            }
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: "signing_key.retire", target: kid, details: [:], at: now)
            return try await tx.signingKeys(tenantID: tenant.id)
        }
        await signingKeysChanged(tenantID: tenant.id, logger: logger)
        logger.notice("signing key retired", metadata: ["tenant": "\(tenant.name)", "kid": "\(kid)"])
        return RetirementView(retired: kid, keys: keys.map { SigningKeyView($0) })
    }


    /// After a change to a tenant's signing keys has committed: this node and (by NOTIFY)
    /// every other drop the tenant's cached issuer, so its JWKS and its new tokens follow
    /// the keys as they are now.
    func signingKeysChanged(tenantID: TenantID, logger: Logger) async {
        await domain.announce(RequestNotice(keys: [EventKey.signingKeys(tenantID: tenantID)]), logger: logger)
    }
}
