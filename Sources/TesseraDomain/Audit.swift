import Foundation
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// What an entry of the audit log records: the one list of the names the log, the admin
/// API's `action` filter and the console show.
public enum AuditAction: String, Sendable, CaseIterable {
    case activationCreate = "activation.create"
    case activationDelete = "activation.delete"
    case activationMerge = "activation.merge"
    case activationRetire = "activation.retire"
    case activationRevoke = "activation.revoke"
    case activationUnlock = "activation.unlock"
    case activationUnregister = "activation.unregister"
    case activationDataCreate = "activation_data.create"
    case adminKeyCreate = "admin_key.create"
    case adminKeyRevoke = "admin_key.revoke"
    /// A configuration document applied (`POST /admin/apply`): one entry for all it changed.
    case apply
    case backgroundKeySet = "background_key.set"
    case devicesList = "devices.list"
    case factorAdd = "factor.add"
    case federationLink = "federation.link"
    case groupCreate = "group.create"
    case groupDelete = "group.delete"
    case groupUpdate = "group.update"
    case identityProviderCreate = "identity_provider.create"
    case identityProviderRemove = "identity_provider.remove"
    case invitationCreate = "invitation.create"
    case invitationRevoke = "invitation.revoke"
    case login
    case operatorSave = "operator.save"
    case pinChange = "pin.change"
    case recoveryApprove = "recovery.approve"
    case recoveryRefused = "recovery.refused"
    case recoveryUse = "recovery.use"
    case recoveryCodesCreate = "recovery_codes.create"
    case registrationTokenCreate = "registration_token.create"
    case registrationTokenRevoke = "registration_token.revoke"
    case securityKeyEnrol = "securitykey.enrol"
    case securityKeyRemove = "securitykey.remove"
    case serviceCreate = "service.create"
    case serviceDelete = "service.delete"
    case serviceRegister = "service.register"
    case serviceRotateSecret = "service.rotate_secret"
    case serviceUpdate = "service.update"
    case sessionEnd = "session.end"
    case sessionEndAll = "session.end_all"
    case signingKeyActivate = "signing_key.activate"
    case signingKeyProvision = "signing_key.provision"
    case signingKeyPublish = "signing_key.publish"
    case signingKeyRetire = "signing_key.retire"
    case signingKeyRotate = "signing_key.rotate"
    case tenantCreate = "tenant.create"
    case tenantDelete = "tenant.delete"
    case tenantUpdate = "tenant.update"
    case userCreate = "user.create"
    case userDelete = "user.delete"
    case userDisable = "user.disable"
    case userEnable = "user.enable"
    case userUpdate = "user.update"
    case webhookCreate = "webhook.create"
    case webhookDisable = "webhook.disable"
    case webhookEnable = "webhook.enable"
    case webhookRemove = "webhook.remove"
    case webhookRotateSecret = "webhook.rotate_secret"
}

/// Writes the audit log: every administrative and account change, in the transaction
/// that makes the change, so the log never claims what did not happen. Details name
/// what changed, never a secret.
public enum Audit {
    public enum Actor: Sendable {
        case admin
        case activation(ActivationID)
        /// An admin API key, by its id.
        case key(String)
        /// An operator signed in to the web console, by username.
        case `operator`(String)
        /// The server itself (the console's and account page's own services).
        case system
        /// A user acting for themselves without a device (a passkey from an invitation).
        case user(UserID)
        /// A service registering or managing itself (RFC 7591/7592), by the initial access token's id or its client id.
        case registration(String)

        public var text: String {
            switch self {
            case .admin: "admin"
            case .activation(let id): "activation:\(id)"
            case .key(let id): "key:\(id)"
            case .operator(let name): "operator:\(name)"
            case .system: "system"
            case .user(let id): "user:\(id)"
            case .registration(let id): "registration:\(id)"
            }
        }
    }

    public static func record(
        _ tx: StoreTransaction, tenantID: TenantID?, actor: Actor, action: AuditAction, target: String?, details: [String: String],
        at: Int64, origin: RequestOrigin? = RequestOrigin.current
    ) async throws {
        try await tx.insertAudit(
            AuditRecord(
                id: orderedID(), tenantID: tenantID, actor: actor.text, action: action.rawValue, target: target,
                details: details, at: at, origin: origin))
    }
}

/// An id that sorts by creation time (microseconds first), so log entries of one
/// second keep their order.
public func orderedID() -> String {
    let micros = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
    // Fourteen hex digits, zero-padded (String(format:) was slow on this hot path).
    let hex = String(micros, radix: 16)
    return String(repeating: "0", count: max(0, 14 - hex.count)) + hex + Secrets.randomToken(byteCount: 8)
}
