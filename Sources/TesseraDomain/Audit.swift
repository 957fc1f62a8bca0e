import Foundation
import TesseraCrypto
import TesseraCore
import TesseraStore

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
        _ tx: StoreTransaction, tenantID: TenantID?, actor: Actor, action: String, target: String?, details: [String: String],
        at: Int64
    ) async throws {
        try await tx.insertAudit(
            AuditRecord(
                id: orderedID(), tenantID: tenantID, actor: actor.text, action: action, target: target,
                details: details, at: at))
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
