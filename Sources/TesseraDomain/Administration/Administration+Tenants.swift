import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraRecords
import TesseraStore
import TesseraWebAuthn

extension Administration {
    /// Session lifetimes: five minutes to a year; the idle lifetime no longer than the whole.
    public static let sessionLifetimes: ClosedRange<Int64> = 300...(365 * 86_400)
    /// History is kept a day to ten years; audit entries at least 30 days when not for good.
    public static let historyRetentions: ClosedRange<Int64> = 86_400...(10 * 365 * 86_400)
    public static let minimumAuditRetention: Int64 = 30 * 86_400
    /// Access and ID tokens live a minute to an hour.
    public static let accessTokenLifetimes: ClosedRange<Int64> = 60...3600

    /// Checks a tenant's settings and writes its policies in their normal form; creation
    /// and every update go through here, so no tenant holds settings outside these bounds.
    /// A lockout policy an administrator sets keeps the floors: lockout cannot be switched off.
    static func checkFloors(_ policy: LockoutPolicy?) throws {
        do {
            try policy?.checkFloors()
        } catch {
            throw DomainError.invalidRequest("lockout: \(error)")
        }
    }

    static func checkedSettings(_ tenant: TenantRecord) throws -> TenantRecord {
        var tenant = tenant
        guard (0...maximumSSOLifetime).contains(tenant.ssoLifetime) else {
            throw DomainError.invalidRequest("sso_lifetime is 0 (off) to \(maximumSSOLifetime) seconds")
        }
        if tenant.ssoLifetime > 0 {
            tenant.ssoPolicy = tenant.ssoPolicy ?? .device
        } else if tenant.ssoPolicy != nil {
            throw DomainError.invalidRequest("sso_policy needs an sso_lifetime")
        }
        guard sessionLifetimes.contains(tenant.sessionLifetime),
            sessionLifetimes.contains(tenant.sessionIdleLifetime), tenant.sessionIdleLifetime <= tenant.sessionLifetime
        else {
            throw DomainError.invalidRequest(
                "session_lifetime and session_idle_lifetime are 300 to 31536000 seconds, the idle lifetime at most the lifetime")
        }
        guard historyRetentions.contains(tenant.historyRetention) else {
            throw DomainError.invalidRequest("history_retention is 86400 to 315360000 seconds")
        }
        guard accessTokenLifetimes.contains(tenant.accessTokenLifetime) else {
            throw DomainError.invalidRequest("access_token_lifetime is 60 to 3600 seconds")
        }
        if let audit = tenant.auditRetention, audit < minimumAuditRetention {
            throw DomainError.invalidRequest("audit_retention is at least 2592000 seconds (or null: kept for good)")
        }
        do {
            tenant.appLinks = try tenant.appLinks?.checked()
        } catch {
            throw DomainError.invalidRequest("app_links: \(error)")
        }
        if let anchors = tenant.webAuthnTrustAnchors {
            guard anchors.utf8.count <= 65_536, let certificates = try? TrustAnchors.certificates(pem: anchors), !certificates.isEmpty else {
                throw DomainError.invalidRequest("webauthn_trust_anchors: one or more PEM certificates, at most 64 KiB")
            }
        }
        return tenant
    }

    package func getTenant(_ tenant: TenantRecord) async throws -> Components.Schemas.Tenant {
        // Read afresh: the resolved record may be a node's cached copy.
        guard let current = try await domain.store.read({ try await $0.tenant(id: tenant.id) }) else {
            throw DomainError.notFound("tenant '\(tenant.name)'")
        }
        return tenantView(current)
    }

    /// Where a tenant's app links are published. Android does not scope app links by path,
    /// so an Android app listed for a host opens every tenant's links there: a tenant's
    /// Android apps are listed on its own `link_domain` (unique across tenants, not the
    /// issuer's host), and on the issuer's host only when an admin for every tenant puts
    /// them there. A caller limited to the tenant that adds an Android app without a link
    /// domain is refused (403); one that keeps or removes apps already there may.
    func placedAppLinks(_ tenant: TenantRecord, before: TenantRecord, tx: StoreTransaction) async throws -> TenantRecord {
        var tenant = tenant
        if let linkDomain = tenant.appLinks?.linkDomain {
            guard linkDomain != domain.settings.publicHost else {
                throw DomainError.invalidRequest("app_links: link_domain must not be the issuer's own host (\(linkDomain)): give the links a host of their own")
            }
            if try await tx.tenants().contains(where: { $0.id != tenant.id && $0.appLinks?.linkDomain == linkDomain }) {
                throw DomainError(.conflict, .conflict, "app_links: link_domain \(linkDomain) is another tenant's")
            }
        }
        let apps = Set(tenant.appLinks?.androidApps ?? [])
        guard !apps.isEmpty, tenant.appLinks?.linkDomain == nil else {
            tenant.androidAppsHostWide = false
            return tenant
        }
        if caller.isGlobalAdmin {
            tenant.androidAppsHostWide = true
            return tenant
        }
        let listed = before.androidAppsHostWide && before.appLinks?.linkDomain == nil ? Set(before.appLinks?.androidApps ?? []) : []
        guard apps.isSubset(of: listed) else {
            throw DomainError(
                .forbidden, .accessDenied,
                "app_links: an Android app without a link_domain is listed for the issuer's whole host, which only an admin for every tenant may do; give the tenant a link_domain")
        }
        return tenant
    }

    /// A change of settings: only what the body names changes (`null` clears the SSO
    /// policy, the audit retention, the app links, the trust anchors or the RP ID).
    package func updateTenant(_ input: TenantChanges, tenant: TenantRecord, logger: Logger) async throws -> Components.Schemas.Tenant {
        // A tenant's own key may not shorten the record of what it did.
        if case .absent = input.auditRetention {} else if caller.tenantID != nil {
            throw DomainError(.forbidden, .accessDenied, "audit_retention is set with a key for every tenant")
        }
        let now = domain.epochNow()
        let updated: TenantRecord = try await domain.store.transaction { tx in
            guard var next = try await tx.tenant(id: tenant.id) else { throw DomainError.notFound("tenant '\(tenant.name)'") }
            let before = next
            var changed: [String] = []
            try settle(input, on: &next, changed: &changed)
            guard !changed.isEmpty else { throw DomainError.invalidRequest("the body changes nothing") }
            next = try Self.checkedSettings(next)
            if input.appLinks.isAbsent == false { next = try await placedAppLinks(next, before: before, tx: tx) }
            if let id = next.webAuthnRPID, !domain.passkeys.isValidRelyingPartyID(id) {
                throw DomainError.invalidRequest("webauthn_rp_id must be the public URL's host or a parent domain of it, in lower case")
            }
            try await tx.updateTenantSettings(next)
            try await Audit.record(
                tx, tenantID: next.id, actor: caller.actor, action: .tenantUpdate, target: next.name,
                details: ["changed": changed.joined(separator: ",")], at: now)
            return next
        }
        await domain.announce(RequestNotice(keys: [EventKey.tenant(named: tenant.name)]), logger: logger)
        logger.info("tenant updated", metadata: ["tenant": "\(tenant.name)"])
        return tenantView(updated)
    }

    /// Sets the settings `input` names on `next` and lists them in `changed`, refusing a
    /// value out of its bounds: a tenant's update and a configuration document's tenant
    /// go through here (`checkedSettings` then checks them together).
    func settle(_ input: TenantChanges, on next: inout TenantRecord, changed: inout [String]) throws {
        if let lockout = input.lockout {
            let policy = try LockoutPolicy.documented(lockout)
            try Self.checkFloors(policy)
            next.lockoutPolicy = policy
            changed.append("lockout")
        }
        if let policy = input.processPolicy { next.processPolicy = try .documented(policy, field: "process_policy"); changed.append("process_policy") }
        if let lifetime = input.ssoLifetime {
            next.ssoLifetime = lifetime
            changed.append("sso_lifetime")
            // Switching single sign-on off clears its policy unless the body sets one.
            if lifetime == 0, case .absent = input.ssoPolicy { next.ssoPolicy = nil }
        }
        if case .value(let policy) = input.ssoPolicy { next.ssoPolicy = try .documented(policy, field: "sso_policy"); changed.append("sso_policy") }
        if case .null = input.ssoPolicy {
            guard next.ssoLifetime == 0 else {
                throw DomainError.invalidRequest("sso_policy cannot be cleared while single sign-on is on: set sso_lifetime 0")
            }
            next.ssoPolicy = nil
            changed.append("sso_policy")
        }
        if let lifetime = input.sessionLifetime { next.sessionLifetime = Int64(lifetime); changed.append("session_lifetime") }
        if let idle = input.sessionIdleLifetime { next.sessionIdleLifetime = Int64(idle); changed.append("session_idle_lifetime") }
        if let retention = input.historyRetention { next.historyRetention = Int64(retention); changed.append("history_retention") }
        if case .value(let retention) = input.auditRetention { next.auditRetention = Int64(retention); changed.append("audit_retention") }
        if case .null = input.auditRetention { next.auditRetention = nil; changed.append("audit_retention") }
        if let lifetime = input.accessTokenLifetime { next.accessTokenLifetime = Int64(lifetime); changed.append("access_token_lifetime") }
        if case .value(let links) = input.appLinks { next.appLinks = AppLinks(links); changed.append("app_links") }
        if case .null = input.appLinks { next.appLinks = nil; changed.append("app_links") }
        if case .value(let anchors) = input.webAuthnTrustAnchors {
            next.webAuthnTrustAnchors = anchors
            changed.append("webauthn_trust_anchors")
        }
        if case .null = input.webAuthnTrustAnchors { next.webAuthnTrustAnchors = nil; changed.append("webauthn_trust_anchors") }
        if case .value(let id) = input.webAuthnRPID { next.webAuthnRPID = id; changed.append("webauthn_rp_id") }
        if case .null = input.webAuthnRPID { next.webAuthnRPID = nil; changed.append("webauthn_rp_id") }
        if let enabled = input.dynamicRegistration { next.dynamicRegistration = enabled; changed.append("dynamic_registration") }
        if let only = input.invitationsByEmailOnly {
            guard !only || domain.settings.sendsEmail else {
                throw DomainError.invalidRequest("invitations_by_email_only: this server sends no e-mail (it has no --smtp-url)")
            }
            next.invitationsByEmailOnly = only
            changed.append("invitations_by_email_only")
        }
        if let offered = input.recoveryCodes { next.recoveryCodes = offered; changed.append("recovery_codes") }
        if let invite = input.inviteProvisionedUsers {
            guard !invite || domain.settings.sendsEmail else {
                throw DomainError.invalidRequest("invite_provisioned_users: this server sends no e-mail (it has no --smtp-url)")
            }
            next.inviteProvisionedUsers = invite
            changed.append("invite_provisioned_users")
        }
        if let notices = input.notices {
            if let unknown = notices.first(where: { !TenantRecord.allNotices.contains($0) }) {
                throw DomainError.invalidRequest("notices: '\(unknown.prefix(40))' is none of \(TenantRecord.allNotices.joined(separator: ", "))")
            }
            next.notices = TenantRecord.allNotices.filter(notices.contains)
            changed.append("notices")
        }
        if let language = input.defaultLanguage {
            guard TenantRecord.languages.contains(language) else {
                throw DomainError.invalidRequest("default_language is one of \(TenantRecord.languages.joined(separator: ", "))")
            }
            next.defaultLanguage = language
            changed.append("default_language")
        }
        try settleLooks(input, on: &next, changed: &changed)
    }

    /// Removes a tenant with everything in it (its audit entries stay). Refused while it
    /// has users, unless `force`.
    public func deleteTenant(_ tenant: TenantRecord, force: Bool, logger: Logger) async throws {
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            guard try await tx.tenant(id: tenant.id) != nil else { throw DomainError.notFound("tenant '\(tenant.name)'") }
            let users = try await tx.userCount(tenantID: tenant.id)
            guard users == 0 || force else {
                throw DomainError.conflict("the tenant has \(users) users: delete them first, or force the deletion")
            }
            try await tx.deleteTenant(id: tenant.id)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .tenantDelete, target: tenant.name,
                details: ["users": String(users)], at: now)
        }
        await domain.announce(
            RequestNotice(keys: [EventKey.tenant(named: tenant.name), EventKey.signingKeys(tenantID: tenant.id)]), logger: logger)
        logger.notice("tenant deleted", metadata: ["tenant": "\(tenant.name)"])
    }
}

extension Components.Schemas.Lockout {
    init(_ policy: LockoutPolicy) {
        self.init(freeAttempts: policy.freeAttempts, waits: policy.waits, permanentAfter: policy.permanentAfter)
    }
}

extension LockoutPolicy {
    /// The policy a request names, refused (400) when it does not hold together.
    static func documented(_ lockout: Components.Schemas.Lockout) throws -> LockoutPolicy {
        do {
            return try LockoutPolicy(freeAttempts: lockout.freeAttempts, waits: lockout.waits, permanentAfter: lockout.permanentAfter)
        } catch {
            throw DomainError.invalidRequest("lockout: \(error)")
        }
    }
}

extension Components.Schemas.AppLinks {
    init(_ links: AppLinks) {
        self.init(
            linkDomain: links.linkDomain, customScheme: links.customScheme, appleAppIds: links.appleAppIDs,
            androidApps: links.androidApps.map { .init(packageName: $0.packageName, sha256CertFingerprints: $0.sha256CertFingerprints) })
    }
}

extension AppLinks {
    init(_ links: Components.Schemas.AppLinks) {
        self.init(
            linkDomain: links.linkDomain, customScheme: links.customScheme, appleAppIDs: links.appleAppIds ?? [],
            androidApps: (links.androidApps ?? []).map { AndroidApp(packageName: $0.packageName, sha256CertFingerprints: $0.sha256CertFingerprints) })
    }
}
