import Foundation
import TesseraCore
import TesseraRecords
import TesseraStore

/// The security notices a user gets by e-mail (a tenant's `notices`).
public enum NoticeKind: String, Sendable, CaseIterable {
    case deviceAdded = "device_added"
    case deviceRemoved = "device_removed"
    case passkeyAdded = "passkey_added"
    case locked
    /// A recovery code was used: always sent (a tenant cannot switch it off).
    case recoveryUsed = "recovery_used"

    /// The kinds a tenant chooses among (`notices`).
    public static let chosen: [NoticeKind] = [.deviceAdded, .deviceRemoved, .passkeyAdded, .locked]
}

/// Security notices to the user whom a change concerns: written into the message outbox in
/// the change's transaction, when the server sends e-mail, the tenant sends this kind and
/// the user has an `email` attribute. Each says what happened, when, and from where (the
/// address and user agent of the request that did it), in the tenant's language; none
/// holds a secret.
enum Notices {
    static func send(
        _ kind: NoticeKind, tx: StoreTransaction, domain: Domain, tenantID: TenantID, userID: UserID, details: [String: String] = [:],
        at now: Int64
    ) async throws {
        guard domain.settings.sendsEmail || domain.settings.sendsMessages else { return }
        guard let tenant = try await tx.tenant(id: tenantID), !NoticeKind.chosen.contains(kind) || tenant.notices.contains(kind.rawValue),
            let user = try await tx.user(id: userID)
        else { return }
        let email = domain.settings.sendsEmail ? user.attributes["email"].flatMap(Validation.emailAddress) : nil
        let phone = domain.settings.sendsMessages ? user.attributes["phone_number"].flatMap { $0.isEmpty ? nil : $0 } : nil
        var values = details
        values["username"] = user.username
        values["at"] = String(now)
        if let origin = RequestOrigin.current {
            values["address"] = origin.address
            values["user_agent"] = origin.userAgent ?? ""
        }
        let content = MessageContent(template: "notice.\(kind.rawValue)", tenant: tenant, values: values)
        if let email {
            try await Messages.enqueue(tx, domain: domain, tenantID: tenantID, channel: .email, recipient: email, content: content, at: now)
        }
        // To the gateway too, for a user it can reach (its phone number).
        if let phone {
            try await Messages.enqueue(tx, domain: domain, tenantID: tenantID, channel: .message, recipient: phone, content: content, at: now)
        }
    }
}
