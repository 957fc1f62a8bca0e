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
        guard domain.settings.sendsEmail else { return }
        guard let tenant = try await tx.tenant(id: tenantID), tenant.notices.contains(kind.rawValue),
            let user = try await tx.user(id: userID), let email = user.attributes["email"].flatMap(Validation.emailAddress)
        else { return }
        var values = details
        values["username"] = user.username
        values["tenant"] = tenant.name
        values["at"] = String(now)
        if let origin = RequestOrigin.current {
            values["address"] = origin.address
            values["user_agent"] = origin.userAgent ?? ""
        }
        try await Messages.enqueue(
            tx, domain: domain, tenantID: tenantID, channel: .email, recipient: email,
            content: MessageContent(template: "notice.\(kind.rawValue)", language: tenant.defaultLanguage, values: values), at: now)
    }
}
