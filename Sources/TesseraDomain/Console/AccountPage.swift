import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraRecords
import TesseraStore

/// What a user does on their account page, signed in with a device: see their devices,
/// sessions and recent sign-ins; remove another device; end a session. Audited with the
/// device that signed in as the actor.
public struct AccountPage: Sendable {
    let domain: Domain

    public struct Overview: Sendable {
        package let devices: [Components.Schemas.Activation]
        public let securityKeys: [SecurityKeyView]
        package let sessions: [Components.Schemas.Session]
        package let signIns: [Components.Schemas.HistoryEntry]
        /// Where the tenant offers recovery codes: how many of the user's are unused.
        public let recoveryCodesLeft: Int?
    }

    /// Reads as an auditor limited to the user's tenant would: the same views as the admin API.
    private func reader(_ current: WebSessions.Current) -> Administration {
        domain.administration(as: AdminCaller(role: .auditor, tenantID: current.tenant.id, keyID: nil))
    }

    public func overview(_ current: WebSessions.Current, signIns limit: Int = 20) async throws -> Overview {
        let reader = reader(current)
        let devices = try await reader.listActivations(username: current.user.username, tenant: current.tenant)
        let sessions = try await reader.listSessions(user: current.user.id, tenant: current.tenant)
        let history = try await reader.history(
            .init(
                username: current.user.username, activationID: nil, service: nil, outcome: nil, since: nil, until: nil, cursor: nil,
                limit: limit), tenant: current.tenant)
        let left = current.tenant.recoveryCodes ? try await domain.store.read { try await $0.recoveryCodesLeft(userID: current.user.id) } : nil
        return Overview(
            devices: devices, securityKeys: try await domain.passkeys.list(user: current.user.id, tenant: current.tenant), sessions: sessions,
            signIns: history.entries, recoveryCodesLeft: left)
    }

    /// Ten new recovery codes for the user (the old ones stop working), where the tenant offers them.
    public func makeRecoveryCodes(current: WebSessions.Current, logger: Logger) async throws -> [String] {
        guard current.tenant.recoveryCodes else { throw Recovery.notOffered(current.tenant) }
        let now = domain.epochNow()
        let codes = try await domain.store.transaction { tx in
            let codes = try await Recovery.makeCodes(tx: tx, userID: current.user.id, now: now)
            try await Audit.record(
                tx, tenantID: current.tenant.id, actor: actor(current), action: .recoveryCodesCreate, target: current.user.id.rawValue,
                details: ["codes": String(codes.count), "via": "account_page"], at: now)
            return codes
        }
        logger.notice("recovery codes made on the account page", metadata: ["user_id": "\(current.user.id)"])
        return codes
    }

    private func actor(_ current: WebSessions.Current) -> Audit.Actor {
        current.session.activationID.map { .activation($0) } ?? .user(current.user.id)
    }

    /// Removes another of the user's devices: its keys, sessions and codes go with it.
    public func removeDevice(_ id: ActivationID, current: WebSessions.Current, logger: Logger) async throws {
        guard id != current.session.activationID else {
            throw DomainError.invalidRequest("this is the device you signed in with: remove it on the device itself")
        }
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            guard let activation = try await tx.activation(id: id), activation.userID == current.user.id,
                try await tx.deleteActivation(id: id, at: now)
            else { throw DomainError.notFound("device") }
            try await Audit.record(
                tx, tenantID: current.tenant.id, actor: actor(current), action: .activationUnregister, target: id.rawValue,
                details: ["user_id": current.user.id.rawValue, "alias": activation.alias ?? "", "via": "account_page"], at: now)
            try await Notices.send(
                .deviceRemoved, tx: tx, domain: domain, tenantID: current.tenant.id, userID: current.user.id,
                details: ["device": activation.alias ?? ""], at: now)
        }
        logger.notice("device removed on the account page", metadata: ["activation_id": "\(id)"])
    }

    /// Removes one of the user's passkeys or security keys; its sessions end with it.
    public func removeSecurityKey(_ id: SecurityKeyID, current: WebSessions.Current, logger: Logger) async throws {
        try await domain.passkeys.remove(
            id, user: current.user.id, tenant: current.tenant, actor: actor(current), via: "account_page", logger: logger)
    }

    /// Options for registering a passkey from the page.
    public func passkeyOptions(_ current: WebSessions.Current) async throws -> WebAuthnJSON.CreationOptions {
        try await domain.passkeys.registrationOptions(
            for: .accountPage(user: current.user, webSession: current.session), tenant: current.tenant)
    }

    /// Registers a passkey for the signed-in user, from the page's own challenge.
    public func registerPasskey(
        _ credential: WebAuthnJSON.RegistrationCredential, name: String?, current: WebSessions.Current, logger: Logger
    ) async throws -> SecurityKeyView {
        try await domain.passkeys.register(
            credential, name: name, registrant: .accountPage(user: current.user, webSession: current.session),
            tenant: current.tenant, actor: actor(current), logger: logger)
    }

    /// Ends one of the user's sessions at a service.
    public func endSession(_ id: SessionID, current: WebSessions.Current, logger: Logger) async throws {
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            guard let session = try await tx.session(id: id), session.userID == current.user.id else {
                throw DomainError.notFound("session")
            }
            guard try await tx.endSessions(.session(id), reason: .revoked, at: now) == 1 else {
                throw DomainError.conflict("the session has ended already")
            }
            try await Audit.record(
                tx, tenantID: current.tenant.id, actor: actor(current), action: .sessionEnd, target: id.rawValue,
                details: ["user_id": current.user.id.rawValue, "via": "account_page"], at: now)
        }
        logger.info("session ended on the account page")
    }
}

extension Domain {
    public var accountPage: AccountPage { AccountPage(domain: self) }
}
