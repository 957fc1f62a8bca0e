import ArgumentParser
import Foundation
import OpenAPIRuntime
import TesseraAdminAPI
import TesseraCore
import TesseraQRCode

/// A user named on the command line by username or by id.
struct UserSelection: ParsableArguments {
    @Option(help: "Tenant name.") var tenant: String
    @Option(help: "The user's username.") var username: String?
    @Option(help: "The user's id.") var id: String?

    func validate() throws {
        guard (username == nil) != (id == nil) else { throw ValidationError("name the user with --username or --id") }
    }

    /// The user's id, looked up by username if need be.
    func userID(_ api: Client) async throws -> String {
        if let id { return id }
        let page = try await api.listUsers(path: .init(tenant: tenant), query: .init(username: username ?? "")).ok.body.json
        guard let user = page.users.first else { throw CLIError("no user '\(username ?? "")' in tenant \(tenant)") }
        return user.id
    }
}

/// `--role NAME=COMBINATIONS` options as roles.
func roles(_ options: [String]) throws -> [Components.Schemas.Role] {
    try options.map { text in
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else { throw ValidationError("--role is NAME=COMBINATIONS, e.g. strong=device+pin+biometric") }
        return Components.Schemas.Role(name: String(parts[0]), policy: String(parts[1]))
    }
}

extension SubjectType: ExpressibleByArgument {}

enum Show {
    /// A time the API gives as seconds since 1970.
    static func date(_ seconds: Double) -> String { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds)) }

    static func tenant(_ tenant: Components.Schemas.Tenant) {
        print("name: \(tenant.name)")
        print("issuer: \(tenant.issuer)")
        print("process_policy: \(tenant.processPolicy)")
        print("sso_lifetime: \(tenant.ssoLifetime)  sso_policy: \(tenant.ssoPolicy ?? "-")")
        print("session_lifetime: \(tenant.sessionLifetime)  session_idle_lifetime: \(tenant.sessionIdleLifetime)")
        print("access_token_lifetime: \(tenant.accessTokenLifetime)")
        if let links = tenant.appLinks {
            let apple = links.appleAppIds ?? []
            let android = links.androidApps ?? []
            print(
                "app_links: link_domain=\(links.linkDomain ?? "-") custom_scheme=\(links.customScheme ?? "-")"
                    + " apple_app_ids=\(apple.isEmpty ? "-" : apple.joined(separator: ","))"
                    + " android_apps=\(android.isEmpty ? "-" : android.map(\.packageName).joined(separator: ","))")
        }
        print("history_retention: \(tenant.historyRetention)  audit_retention: \(tenant.auditRetention.map(String.init) ?? "forever")")
        let anchors = tenant.webauthnTrustAnchors.map { $0.components(separatedBy: "-----BEGIN CERTIFICATE-----").count - 1 }
        print("webauthn_trust_anchors: \(anchors.map { "\($0) certificate\($0 == 1 ? "" : "s")" } ?? "none (any authenticator)")")
        print("webauthn_rp_id: \(tenant.webauthnRpId)")
        print("dynamic_registration: \(tenant.dynamicRegistration)")
        print("invitations_by_email_only: \(tenant.invitationsByEmailOnly)")
        print("invite_provisioned_users: \(tenant.inviteProvisionedUsers)")
        print("recovery_codes: \(tenant.recoveryCodes)")
        print("notices: \(tenant.notices.isEmpty ? "none" : tenant.notices.map(\.rawValue).joined(separator: ","))")
        print("default_language: \(tenant.defaultLanguage.rawValue)")
        let branding = tenant.branding
        let shown = [
            ("display_name", branding.displayName), ("app_name", branding.appName), ("primary_color", branding.primaryColor),
            ("accent_color", branding.accentColor), ("logo", branding.logoUrl), ("support_url", branding.supportUrl),
            ("privacy_url", branding.privacyUrl), ("terms_url", branding.termsUrl),
        ].compactMap { name, value in value.map { "\(name)=\($0)" } }
        print("branding: \(shown.isEmpty ? "none" : shown.joined(separator: " "))")
        let own = tenant.texts.additionalProperties.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.additionalProperties.count)" }
        print("texts: \(own.isEmpty ? "the catalog's" : own.joined(separator: ", "))")
        print(
            "lockout: free_attempts=\(tenant.lockout.freeAttempts) waits=\(tenant.lockout.waits.map(String.init).joined(separator: ","))"
                + " permanent_after=\(tenant.lockout.permanentAfter.map(String.init) ?? "never")")
    }

    static func service(_ service: Components.Schemas.Service) {
        print("client_id: \(service.clientId)")
        if let secret = service.clientSecret { print("client_secret: \(secret)") }
        print("name: \(service.name)")
        print("public: \(service._public)")
        print("redirect_uris: \(service.redirectUris.joined(separator: ","))")
        print("policy: \(service.policy)")
        print("attributes: \(service.attributes.joined(separator: ","))")
        print("number_matching: \(service.numberMatching)")
        if !service.roles.isEmpty { print("roles: \(service.roles.map { "\($0.name)=\($0.policy)" }.joined(separator: " "))") }
        print("subject_type: \(service.subjectType.rawValue)")
        if service.appIdentityToken { print("app_identity_token: true") }
        if let mode = service.backchannelTokenDeliveryMode { print("backchannel_token_delivery_mode: \(mode.rawValue)") }
        if let endpoint = service.backchannelClientNotificationEndpoint { print("backchannel_client_notification_endpoint: \(endpoint)") }
        if let lifetime = service.sessionLifetime { print("session_lifetime: \(lifetime)") }
        if let idle = service.sessionIdleLifetime { print("session_idle_lifetime: \(idle)") }
        print("id_token_signed_response_alg: \(service.idTokenSignedResponseAlg.rawValue)")
        if !service.postLogoutRedirectUris.isEmpty { print("post_logout_redirect_uris: \(service.postLogoutRedirectUris.joined(separator: ","))") }
        if let uri = service.backchannelLogoutUri { print("backchannel_logout_uri: \(uri)") }
        if service.requirePushedAuthorizationRequests { print("require_pushed_authorization_requests: true") }
        if service.dpopBoundAccessTokens { print("dpop_bound_access_tokens: true") }
        if service.gematikProfile { print("gematik_profile: true") }
        print("grant_types: \(service.grantTypes.map(\.rawValue).joined(separator: ","))")
        print("token_endpoint_auth_method: \(service.tokenEndpointAuthMethod.rawValue)")
        if !service.scopes.isEmpty { print("scopes: \(service.scopes.joined(separator: " "))") }
        if let audience = service.audience { print("audience: \(audience)") }
        if let lifetime = service.accessTokenLifetime { print("access_token_lifetime: \(lifetime)") }
        if let keys = service.jwks { print("jwks: \(keys.keys.count) key(s)") }
        if let uri = service.jwksUri { print("jwks_uri: \(uri)") }
    }

    static func user(_ user: Components.Schemas.User) {
        let attributes = user.attributes.additionalProperties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print("\(user.id)\t\(user.username)\t\(user.disabled ? "disabled" : "enabled")\t\(attributes)")
    }

    static func session(_ session: Components.Schemas.Session) {
        print(
            "\(session.id)\t\(session.service ?? "-")\t\(session.factors.joined(separator: "+"))\t"
                + "device \(session.activationId ?? "-")\tcreated \(date(session.createdAt))\t"
                + "refreshed \(date(session.lastRefreshedAt))\tuntil \(date(session.expiresAt))")
    }
}

/// A tenant's lockout policy from the CLI's options, checked here against the floors the
/// server holds it to; nil when none is given.
func lockoutPolicy(freeAttempts: Int?, waits: String?, permanentAfter: Int?) throws -> Components.Schemas.Lockout? {
    guard freeAttempts != nil || waits != nil || permanentAfter != nil else { return nil }
    let seconds = try (waits ?? "30,60,300,900,3600").split(separator: ",").map { part -> Int in
        guard let value = Int(part.trimmingCharacters(in: .whitespaces)) else {
            throw ValidationError("--lockout-waits takes whole seconds separated by commas")
        }
        return value
    }
    do {
        let policy = try LockoutPolicy(freeAttempts: freeAttempts ?? 3, waits: seconds, permanentAfter: permanentAfter ?? 10)
        try policy.checkFloors()
        return Components.Schemas.Lockout(freeAttempts: policy.freeAttempts, waits: policy.waits, permanentAfter: policy.permanentAfter)
    } catch {
        throw ValidationError("lockout: \(error)")
    }
}

/// Seconds, or `word` (null) where a setting may be cleared.
func secondsOr(_ word: String, _ text: String, option: String) throws -> Patch<Int> {
    if text == word { return .null }
    guard let seconds = Int(text), seconds >= 0 else { throw ValidationError("\(option) takes seconds or '\(word)'") }
    return .value(seconds)
}

extension Admin.Tenant {
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a tenant's settings.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "Tenant name.") var name: String

        func run() async throws {
            let tenant = try await options.calling { api in try await api.getTenant(path: .init(tenant: name)).ok.body.json }
            if options.json { return Output.encodable(tenant) }
            Show.tenant(tenant)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a tenant's settings; only the options given change.",
            discussion: "Lifetimes and retentions are seconds. Sessions: 300 to 31536000, the idle lifetime at most the lifetime.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "Tenant name.") var name: String
        @Option(help: "Failed attempts before the first wait (0-5); with --lockout-waits and --lockout-permanent-after.")
        var lockoutFreeAttempts: Int?
        @Option(help: "Waits in seconds, comma separated; the last repeats.") var lockoutWaits: String?
        @Option(help: "Failures that lock an activation for good: 1 to 20.") var lockoutPermanentAfter: Int?
        @Option(help: "Factor combinations account processes need.") var processPolicy: String?
        @Option(help: "Single sign-on lifetime in seconds (0 = off).") var ssoLifetime: Int?
        @Option(help: "Single sign-on: the factor combinations enough within the session.") var ssoPolicy: String?
        @Option(help: "A session's lifetime from its login.") var sessionLifetime: Int?
        @Option(help: "A session's lifetime without a refresh.") var sessionIdleLifetime: Int?
        @Option(help: "How long authentication history is kept.") var historyRetention: Int?
        @Option(help: "How long audit entries are kept, or 'forever'.") var auditRetention: String?
        @Option(help: "How long access and ID tokens live (60-3600).") var accessTokenLifetime: Int?
        @Option(help: "App links: the host of the app's universal and app links (the login page's same-device link uses it).")
        var appLinkDomain: String?
        @Option(help: "App links: the app's custom URL scheme (used when there is no link domain).") var appScheme: String?
        @Option(help: "App links: an iOS app as TEAMID.bundle.id (repeatable).") var appleAppId: [String] = []
        @Option(help: "App links: an Android app as package=SHA256:FINGERPRINT[,…] (repeatable).") var androidApp: [String] = []
        @Flag(help: "Remove the tenant's app links.") var noAppLinks = false
        @Option(help: "A PEM file of certificates security keys' attestations must chain to (only such keys register).")
        var webauthnTrustAnchors: String?
        @Flag(help: "Remove the WebAuthn trust anchors: any authenticator registers.") var noWebauthnTrustAnchors = false
        @Option(help: "The tenant's WebAuthn RP ID: the public URL's host or a parent domain of it (registered passkeys keep the old one).")
        var webauthnRpId: String?
        @Flag(help: "Use the server's RP ID again.") var noWebauthnRpId = false
        @Flag(inversion: .prefixedNo, help: "Services may register themselves with an initial access token (RFC 7591).")
        var dynamicRegistration: Bool?
        @Flag(inversion: .prefixedNo, help: "Every invitation goes to the user's email attribute; no answer holds the link (needs the server's --smtp-url).")
        var invitationsByEmailOnly: Bool?
        @Flag(inversion: .prefixedNo, help: "A user a directory creates over SCIM (active, with an email) is sent an invitation by e-mail (needs the server's --smtp-url).")
        var inviteProvisionedUsers: Bool?
        @Flag(inversion: .prefixedNo, help: "Users may make recovery codes with a device and start a new activation with one after losing every device.")
        var recoveryCodes: Bool?
        @Option(help: "Security notices users get by e-mail, comma separated: device_added, device_removed, passkey_added, locked, or none.")
        var notices: String?
        @Option(help: "The language of the tenant's pages when neither the service nor the browser names one, and of its e-mails: en, de or fr.")
        var defaultLanguage: String?
        @Option(help: "Branding: the tenant's name as its users know it (\"\" removes it).") var displayName: String?
        @Option(help: "Branding: the app's name, wherever pages name the app (\"\" removes it).") var appName: String?
        @Option(help: "Branding: a PNG or SVG logo file (at most 256 KiB; \"\" removes the logo).") var logo: String?
        @Option(help: "Branding: #rrggbb behind every page's main action, under white text (WCAG AA: 4.5:1; \"\" removes it).")
        var primaryColor: String?
        @Option(help: "Branding: #rrggbb of links and focus marks on white (WCAG AA: 4.5:1; \"\" removes it).") var accentColor: String?
        @Option(help: "Branding: https address of the tenant's help (\"\" removes it).") var supportUrl: String?
        @Option(help: "Branding: https address of the tenant's privacy notice (\"\" removes it).") var privacyUrl: String?
        @Option(help: "Branding: https address of the tenant's terms (\"\" removes it).") var termsUrl: String?
        @Option(help: "A JSON file of the tenant's own sentences, {\"de\": {\"login.scan\": \"…\"}}, in place of the catalog's (\"\" removes them).")
        var texts: String?

        /// The branding options, each replacing its field of the tenant's branding.
        private var brandingOptions: [WritableKeyPath<Components.Schemas.Branding, String?>: String] {
            var options: [WritableKeyPath<Components.Schemas.Branding, String?>: String] = [:]
            options[\.displayName] = displayName
            options[\.appName] = appName
            options[\.primaryColor] = primaryColor
            options[\.accentColor] = accentColor
            options[\.supportUrl] = supportUrl
            options[\.privacyUrl] = privacyUrl
            options[\.termsUrl] = termsUrl
            return options
        }

        func run() async throws {
            let logoBytes: (type: String, bytes: Data)? = try logo.flatMap { path in
                guard !path.isEmpty else { return nil }
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                let lower = path.lowercased()
                guard lower.hasSuffix(".png") || lower.hasSuffix(".svg") else { throw ValidationError("--logo is a .png or .svg file") }
                return (lower.hasSuffix(".png") ? "image/png" : "image/svg+xml", bytes)
            }
            var body = TenantChanges()
            body.dynamicRegistration = dynamicRegistration
            body.invitationsByEmailOnly = invitationsByEmailOnly
            body.inviteProvisionedUsers = inviteProvisionedUsers
            body.recoveryCodes = recoveryCodes
            body.notices = notices.map { $0 == "none" ? [] : $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            body.defaultLanguage = defaultLanguage
            body.lockout = try lockoutPolicy(freeAttempts: lockoutFreeAttempts, waits: lockoutWaits, permanentAfter: lockoutPermanentAfter)
            body.processPolicy = processPolicy
            body.ssoLifetime = ssoLifetime
            if let ssoPolicy { body.ssoPolicy = .value(ssoPolicy) }
            body.sessionLifetime = sessionLifetime
            body.sessionIdleLifetime = sessionIdleLifetime
            body.historyRetention = historyRetention
            if let auditRetention { body.auditRetention = try secondsOr("forever", auditRetention, option: "--audit-retention") }
            body.accessTokenLifetime = accessTokenLifetime
            let givesAppLinks = appLinkDomain != nil || appScheme != nil || !appleAppId.isEmpty || !androidApp.isEmpty
            if noAppLinks {
                guard !givesAppLinks else { throw ValidationError("--no-app-links cannot be combined with other app-link options") }
                body.appLinks = .null
            } else if givesAppLinks {
                // The options describe the app links whole: what they leave out is removed.
                let apps = try androidApp.map { text in
                    let parts = text.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { throw ValidationError("--android-app is package=FINGERPRINT[,FINGERPRINT…]") }
                    return Components.Schemas.AppLinks.AndroidAppsPayloadPayload(
                        packageName: String(parts[0]), sha256CertFingerprints: parts[1].split(separator: ",").map(String.init))
                }
                body.appLinks = .value(
                    Components.Schemas.AppLinks(linkDomain: appLinkDomain, customScheme: appScheme, appleAppIds: appleAppId, androidApps: apps))
            }
            if let webauthnTrustAnchors {
                guard !noWebauthnTrustAnchors else { throw ValidationError("--webauthn-trust-anchors and --no-webauthn-trust-anchors exclude each other") }
                body.webAuthnTrustAnchors = .value(try String(contentsOfFile: webauthnTrustAnchors, encoding: .utf8))
            } else if noWebauthnTrustAnchors {
                body.webAuthnTrustAnchors = .null
            }
            if let webauthnRpId {
                guard !noWebauthnRpId else { throw ValidationError("--webauthn-rp-id and --no-webauthn-rp-id exclude each other") }
                body.webAuthnRPID = .value(webauthnRpId)
            } else if noWebauthnRpId {
                body.webAuthnRPID = .null
            }
            if let texts {
                body.texts = texts.isEmpty
                    ? .null : .value(try JSONDecoder().decode([String: [String: String]].self, from: Data(contentsOf: URL(fileURLWithPath: texts))))
            }
            let branding = brandingOptions
            guard !body.isEmpty || !branding.isEmpty || logo != nil else { throw ValidationError("give at least one setting to change") }
            let tenant = try await options.calling { api in
                if !branding.isEmpty {
                    // The branding is replaced whole: the options change their fields of the current one.
                    var current = try await api.getTenant(path: .init(tenant: name)).ok.body.json.branding
                    current.logoUrl = nil
                    for (field, value) in branding { current[keyPath: field] = value.isEmpty ? nil : value }
                    body.branding = .value(current)
                }
                // The settings first: a refused one leaves the logo as it was.
                var tenant = body.isEmpty ? nil : try await api.updateTenant(path: .init(tenant: name), body: .json(body)).ok.body.json
                if let logoBytes {
                    let upload: Operations.PutTenantLogo.Input.Body =
                        logoBytes.type == "image/png" ? .png(HTTPBody(logoBytes.bytes)) : .imageSvgXml(HTTPBody(logoBytes.bytes))
                    _ = try await api.putTenantLogo(path: .init(tenant: name), body: upload).ok.body.json
                    tenant = nil
                } else if logo == "" {
                    _ = try await api.deleteTenantLogo(path: .init(tenant: name)).ok.body.json
                    tenant = nil
                }
                if let tenant { return tenant }
                return try await api.getTenant(path: .init(tenant: name)).ok.body.json
            }
            if options.json { return Output.encodable(tenant) }
            Show.tenant(tenant)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a tenant and everything in it (its audit entries stay); refused while it has users unless --force.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "Tenant name.") var name: String
        @Flag(help: "Delete it with its users, devices and sessions.") var force = false

        func run() async throws {
            let answer = try await options.calling { api in
                try await api.deleteTenant(path: .init(tenant: name), query: .init(force: force ? true : nil)).ok.body.json
            }
            if options.json { return Output.encodable(answer) }
            print("deleted: \(name)")
        }
    }
}

extension Admin.Service {
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a service.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        @Argument(help: "The service's client_id.") var clientID: String

        func run() async throws {
            let service = try await options.calling { api in
                try await api.getService(path: .init(tenant: tenant, client: clientID)).ok.body.json
            }
            if options.json { return Output.encodable(service) }
            Show.service(service)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a service; only the options given change (--redirect-uri replaces the list).")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        @Argument(help: "The service's client_id.") var clientID: String
        @Option(help: "Service name shown to users.") var name: String?
        @Option(help: "Exact redirect URI (repeat for several); replaces the registered ones.") var redirectUri: [String] = []
        @Option(help: "Factor policy: alternatives separated by ',', factors joined by '+'.") var policy: String?
        @Option(help: "User attributes the service asks for, comma separated (empty: none).") var attributes: String?
        @Option(help: "Backchannel (CIBA) token delivery mode: poll, ping or none.") var backchannelMode: String?
        @Option(help: "Ping mode: the service's notification URL.") var notificationEndpoint: String?
        @Option(help: "The service's own session lifetime in seconds, or 'tenant' for the tenant's.") var sessionLifetime: String?
        @Option(help: "The service's own idle lifetime in seconds, or 'tenant' for the tenant's.") var sessionIdleLifetime: String?
        @Flag(inversion: .prefixedNo, help: "Number matching on browser logins.") var numberMatching: Bool?
        @Option(help: "A role as NAME=COMBINATIONS (repeatable; the roles given replace the service's).") var role: [String] = []
        @Flag(help: "Remove the service's roles.") var noRoles = false
        @Option(help: "What the service sees as sub: public or pairwise.") var subjectType: SubjectType?
        @Flag(inversion: .prefixedNo, help: "A step-up answered on the phone also gives the app an identity token.")
        var appIdentityToken: Bool?
        @Option(help: "The algorithm of its ID tokens: ES256, RS256 or EdDSA.") var idTokenAlg: String?
        @Option(help: "Exact post-logout redirect URI (repeat for several); replaces the registered ones.")
        var postLogoutRedirectUri: [String] = []
        @Flag(help: "Remove the post-logout redirect URIs.") var noPostLogoutRedirectUris = false
        @Option(help: "Where a logout_token is posted when one of the service's sessions ends.") var backchannelLogoutUri: String?
        @Flag(help: "Stop back-channel logout for the service.") var noBackchannelLogoutUri = false
        @Flag(inversion: .prefixedNo, help: "Its authorization requests must be pushed to {issuer}/par first (RFC 9126).")
        var requirePushedAuthorizationRequests: Bool?
        @Flag(inversion: .prefixedNo, help: "Its access tokens are always DPoP-bound (RFC 9449).")
        var dpopBoundAccessTokens: Bool?
        @Flag(inversion: .prefixedNo, help: "The gematik IDP profile: key_verifier on token requests, encrypted tokens.")
        var gematikProfile: Bool?
        @OptionGroup var machine: MachineClientOptions

        func run() async throws {
            var body = ServiceChanges()
            try machine.apply(to: &body)
            body.idTokenSignedResponseAlg = try idTokenAlg.map { try documented($0, option: "--id-token-alg") }
            body.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
            body.dpopBoundAccessTokens = dpopBoundAccessTokens
            body.gematikProfile = gematikProfile
            if noPostLogoutRedirectUris {
                guard postLogoutRedirectUri.isEmpty else {
                    throw ValidationError("--no-post-logout-redirect-uris cannot be combined with --post-logout-redirect-uri")
                }
                body.set(\.postLogoutRedirectUris, .postLogoutRedirectUris, .null)
            } else if !postLogoutRedirectUri.isEmpty {
                body.postLogoutRedirectUris = postLogoutRedirectUri
            }
            if noBackchannelLogoutUri {
                guard backchannelLogoutUri == nil else {
                    throw ValidationError("--no-backchannel-logout-uri cannot be combined with --backchannel-logout-uri")
                }
                body.set(\.backchannelLogoutUri, .backchannelLogoutUri, .null)
            } else if let backchannelLogoutUri {
                body.backchannelLogoutUri = backchannelLogoutUri
            }
            body.numberMatching = numberMatching
            if noRoles {
                guard role.isEmpty else { throw ValidationError("--no-roles cannot be combined with --role") }
                body.set(\.roles, .roles, .null)
            } else if !role.isEmpty {
                body.roles = try roles(role)
            }
            body.subjectType = try subjectType.map { try documented($0.rawValue, option: "--subject-type") }
            body.appIdentityToken = appIdentityToken
            body.name = name
            if !redirectUri.isEmpty { body.redirectUris = redirectUri }
            body.policy = policy
            body.attributes = attributes.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            if let backchannelMode {
                // `none` clears the mode; any other word is one the document names.
                let mode: Patch<Components.Schemas.ServiceFields.BackchannelTokenDeliveryModePayload>
                if backchannelMode == "none" {
                    mode = .null
                } else {
                    do {
                        mode = .value(try documented(backchannelMode, option: "--backchannel-mode"))
                    } catch {
                        throw ValidationError("--backchannel-mode is poll, ping or none")
                    }
                }
                body.set(\.backchannelTokenDeliveryMode, .backchannelTokenDeliveryMode, mode)
            }
            if let notificationEndpoint { body.backchannelClientNotificationEndpoint = notificationEndpoint }
            if let sessionLifetime {
                body.set(\.sessionLifetime, .sessionLifetime, try secondsOr("tenant", sessionLifetime, option: "--session-lifetime"))
            }
            if let sessionIdleLifetime {
                body.set(
                    \.sessionIdleLifetime, .sessionIdleLifetime, try secondsOr("tenant", sessionIdleLifetime, option: "--session-idle-lifetime"))
            }
            guard !body.isEmpty else { throw ValidationError("give at least one field to change") }
            let service = try await options.calling { api in
                try await api.updateService(path: .init(tenant: tenant, client: clientID), body: .json(body)).ok.body.json
            }
            if options.json { return Output.encodable(service) }
            Show.service(service)
        }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a confidential service a new client secret (printed once); the old one stops working at once (other nodes of a cluster follow within a minute at most).")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        @Argument(help: "The service's client_id.") var clientID: String

        func run() async throws {
            let service = try await options.calling { api in
                try await api.rotateServiceSecret(path: .init(tenant: tenant, client: clientID)).ok.body.json
            }
            if options.json { return Output.encodable(service) }
            print("client_id: \(service.clientId)")
            print("client_secret: \(service.clientSecret ?? "")")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a service: its sessions end and its tokens stop working.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        @Argument(help: "The service's client_id.") var clientID: String

        func run() async throws {
            let answer = try await options.calling { api in
                try await api.deleteService(path: .init(tenant: tenant, client: clientID)).ok.body.json
            }
            if options.json { return Output.encodable(answer) }
            print("deleted: \(clientID)")
        }
    }
}

extension Admin.User {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a tenant's users in username order, a page at a time (--cursor takes the last page's next_cursor).")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        @Option(help: "Only usernames containing this (case-insensitive).") var search: String?
        @Option(help: "Only users with this attribute value: name=value.") var attribute: String?
        @Option(help: "Where the previous page ended.") var cursor: String?
        @Option(help: "At most this many users (1–1000).") var limit = 100

        func run() async throws {
            let page = try await options.calling { api in
                try await api.listUsers(
                    path: .init(tenant: tenant), query: .init(search: search, attribute: attribute, cursor: cursor, limit: limit)
                ).ok.body.json
            }
            if options.json { return Output.encodable(page) }
            page.users.forEach(Show.user)
            if let next = page.nextCursor { print("next_cursor: \(next)") }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a user with their activations and live sessions.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var user: UserSelection

        func run() async throws {
            let detail = try await options.calling { api in
                let id = try await user.userID(api)
                return try await api.getUser(path: .init(tenant: user.tenant, user: id)).ok.body.json
            }
            if options.json { return Output.encodable(detail) }
            Show.user(detail.user)
            print("activations: \(detail.activations.count)")
            print("sessions: \(detail.sessions.count)")
            detail.sessions.forEach(Show.session)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace a user's attributes.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var user: UserSelection
        @Option(help: "An attribute as key=value (repeat for several; none: no attributes).") var attribute: [String] = []

        func run() async throws {
            var attributes: [String: String] = [:]
            for pair in attribute {
                guard let equals = pair.firstIndex(of: "=") else { throw ValidationError("--attribute takes key=value") }
                attributes[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            let body = Components.Schemas.UpdateUser(attributes: .init(additionalProperties: attributes))
            let view = try await options.calling { api in
                let id = try await user.userID(api)
                return try await api.updateUser(path: .init(tenant: user.tenant, user: id), body: .json(body)).ok.body.json
            }
            if options.json { return Output.encodable(view) }
            Show.user(view)
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable a user: their sessions end and no device logs them in until they are enabled again.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var user: UserSelection

        func run() async throws { try await change(options, user, enable: false) }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled user again.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var user: UserSelection

        func run() async throws { try await change(options, user, enable: true) }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a user with their devices, sessions, invitations and history (the audit log records it).")
        @OptionGroup var options: AdminOptions
        @OptionGroup var user: UserSelection

        func run() async throws {
            let (id, answer) = try await options.calling { api in
                let id = try await user.userID(api)
                return (id, try await api.deleteUser(path: .init(tenant: user.tenant, user: id)).ok.body.json)
            }
            if options.json { return Output.encodable(answer) }
            print("deleted: \(id)")
        }
    }

    static func change(_ options: AdminOptions, _ user: UserSelection, enable: Bool) async throws {
        let view = try await options.calling { api in
            let id = try await user.userID(api)
            if enable { return try await api.enableUser(path: .init(tenant: user.tenant, user: id)).ok.body.json }
            return try await api.disableUser(path: .init(tenant: user.tenant, user: id)).ok.body.json
        }
        if options.json { return Output.encodable(view) }
        Show.user(view)
    }
}

extension Admin.User {
    /// `tessera admin user recoveries`: the recoveries a user started with recovery codes.
    struct Recoveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the recoveries a user started with recovery codes, newest first (id, status, expiry, approval).")
        @OptionGroup var options: AdminOptions
        @OptionGroup var user: UserSelection

        func run() async throws {
            let recoveries = try await options.calling { api in
                try await api.listRecoveries(path: .init(tenant: user.tenant, user: try await user.userID(api))).ok.body.json.recoveries
            }
            if options.json { return Output.encodable(recoveries) }
            if recoveries.isEmpty { print("no recoveries") }
            for recovery in recoveries {
                let approval = recovery.approvedBy.map { "  approved by \($0)" } ?? ""
                print("\(recovery.id)  \(recovery.status.rawValue)  created \(Show.date(recovery.createdAt))  expires \(Show.date(recovery.expiresAt))\(approval)")
            }
        }
    }

    /// `tessera admin user approve-recovery`: the help desk's confirmation of a recovery.
    struct ApproveRecovery: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Approve a recovery awaiting it, once you checked who asks: the user's app then gets its activation link.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var user: UserSelection
        @Argument(help: "The recovery's id (tessera admin user recoveries lists them; the user's app shows it).") var recovery: String

        func run() async throws {
            let approved = try await options.calling { api in
                try await api.approveRecovery(path: .init(tenant: user.tenant, user: try await user.userID(api), recovery: recovery)).ok.body.json
            }
            if options.json { return Output.encodable(approved) }
            print("\(approved.id)  \(approved.status.rawValue)  expires \(Show.date(approved.expiresAt))")
        }
    }
}

extension Admin {
    struct Invitation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List and revoke open invitations (activation links).", subcommands: [List.self, Revoke.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a tenant's invitations that can still be used.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String

            func run() async throws {
                let answer = try await options.calling { api in try await api.listInvitations(path: .init(tenant: tenant)).ok.body.json }
                if options.json { return Output.encodable(answer) }
                for invitation in answer.invitations {
                    print("\(invitation.id)\t\(invitation.username)\t\(invitation.kind.rawValue)\tuntil \(Show.date(invitation.expiresAt))")
                }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "End an open invitation now: its link no longer activates.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String
            @Argument(help: "Invitation id.") var id: String

            func run() async throws {
                let answer = try await options.calling { api in
                    try await api.revokeInvitation(path: .init(tenant: tenant, invitation: id)).ok.body.json
                }
                if options.json { return Output.encodable(answer) }
                print("revoked: \(id)")
            }
        }
    }

    struct Session: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List and end a user's sessions (what their logins gave services).", subcommands: [List.self, End.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a user's live sessions: service, factors, device, times.")
            @OptionGroup var options: AdminOptions
            @OptionGroup var user: UserSelection

            func run() async throws {
                let answer = try await options.calling { api in
                    let id = try await user.userID(api)
                    return try await api.listUserSessions(path: .init(tenant: user.tenant, user: id)).ok.body.json
                }
                if options.json { return Output.encodable(answer) }
                answer.sessions.forEach(Show.session)
            }
        }

        struct End: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "End one session (by id), or with --all every session of a user: refresh tokens are refused at once.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String
            @Argument(help: "Session id (the tokens' sid; one from before sessions had ids of their own may begin with '-': put it after --).")
            var session: String?
            @Flag(help: "End every session of the user named by --username or --id.") var all = false
            @Option(help: "With --all: the user's username.") var username: String?
            @Option(help: "With --all: the user's id.") var id: String?

            func validate() throws {
                guard (session != nil) != all else { throw ValidationError("give a session id, or --all with --username or --id") }
                if all, (username == nil) == (id == nil) { throw ValidationError("--all needs --username or --id") }
            }

            func run() async throws {
                let (ended, answer): (Int, any Encodable) = try await options.calling { api in
                    if let session {
                        let answer = try await api.endSession(path: .init(tenant: tenant, session: session)).ok.body.json
                        return (answer.ended, answer)
                    }
                    let selection = try UserSelection.parse(
                        ["--tenant", tenant] + (username.map { ["--username", $0] } ?? ["--id", id ?? ""]))
                    let userID = try await selection.userID(api)
                    let answer = try await api.endUserSessions(path: .init(tenant: tenant, user: userID)).ok.body.json
                    return (answer.ended, answer)
                }
                if options.json { return Output.encodable(answer) }
                print("ended: \(ended)")
            }
        }
    }

    struct SecurityKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "securitykey", abstract: "List and remove a user's security keys and passkeys (WebAuthn credentials).",
            subcommands: [List.self, Remove.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List a user's security keys and passkeys: id, name, algorithm, kind, attestation, last use.")
            @OptionGroup var options: AdminOptions
            @OptionGroup var user: UserSelection

            func run() async throws {
                let answer = try await options.calling { api in
                    let id = try await user.userID(api)
                    return try await api.listSecurityKeys(path: .init(tenant: user.tenant, user: id)).ok.body.json
                }
                if options.json { return Output.encodable(answer) }
                for key in answer.securityKeys {
                    let kind = key.backupEligible ? "passkey (synced)" : "security key"
                    let used = key.lastUsedAt.map { "last used \(Show.date($0))" } ?? "never used"
                    print(
                        "\(key.id)\t\(key.name)\t\(key.algorithm.rawValue)\t\(kind)\tattestation \(key.attestation.rawValue)\t\(used)"
                            + (key.suspicious ? "\tBLOCKED (its counter went backwards)" : ""))
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Remove one of a user's security keys or passkeys: it signs in no more, and the sessions of its logins end.")
            @OptionGroup var options: AdminOptions
            @OptionGroup var user: UserSelection
            @Argument(help: "The security key's id (as `securitykey list` shows it).") var key: String

            func run() async throws {
                let answer = try await options.calling { api in
                    let id = try await user.userID(api)
                    return try await api.removeSecurityKey(path: .init(tenant: user.tenant, user: id, key: key)).ok.body.json
                }
                if options.json { return Output.encodable(answer) }
                print("removed: \(answer.removed)")
            }
        }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Authentication history of a tenant, newest first, a page at a time: who, which device, which service, outcome.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        @Option(help: "Only this user's entries.") var username: String?
        @Option(help: "Only this activation's entries.") var activation: String?
        @Option(help: "Only entries for this service (its name).") var service: String?
        @Option(help: "Only this outcome: approved, failed, locked, denied or completed.") var outcome: String?
        @Option(help: "Only entries at or after this time (seconds since 1970).") var since: Int?
        @Option(help: "Only entries before this time (seconds since 1970).") var until: Int?
        @Option(help: "Where the previous page ended.") var cursor: String?
        @Option(help: "At most this many entries (1–1000).") var limit = 100

        func validate() throws {
            if let outcome { _ = try documented(outcome, option: "--outcome") as Operations.ListHistory.Input.Query.OutcomePayload }
        }

        func run() async throws {
            let query = Operations.ListHistory.Input.Query(
                username: username, activation: activation, service: service,
                outcome: try outcome.map { try documented($0, option: "--outcome") }, since: since, until: until, cursor: cursor, limit: limit)
            let page = try await options.calling { api in try await api.listHistory(path: .init(tenant: tenant), query: query).ok.body.json }
            if options.json { return Output.encodable(page) }
            for entry in page.entries {
                print(
                    "\(Show.date(entry.at))\t\(entry.username ?? "-")\t\(entry.activationId)\t\(entry.service ?? "-")\t"
                        + "\(entry.purpose)\t\(entry.outcome)\t\(entry.factors.joined(separator: "+"))")
            }
            if let next = page.nextCursor { print("next_cursor: \(next)") }
        }
    }
}

extension Admin {
    struct ConsoleUser: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "console-user", abstract: "Operators of the web console (/console), who sign in with their activated device.",
            subcommands: [Add.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Make USERNAME an operator: makes the operators' tenant and the user if missing, gives the role, and prints an activation link and its QR code.",
                discussion: """
                    Activate a device with the link (tessera device activate URL, or the app scanning the code), then sign in                     at {public URL}/console by scanning the login page's code with that device. Running it again for an                     operator changes its role and scope and invites another device.
                    """)
            @OptionGroup var options: AdminOptions
            @Argument(help: "The operator's username.") var username: String
            @Option(help: "admin, helpdesk or auditor (the roles of admin API keys).") var role: String = "admin"
            @Option(help: "Limit the operator to this tenant (default: every tenant).") var tenant: String?

            func validate() throws {
                _ = try documented(role, option: "--role") as Components.Schemas.AddConsoleUser.RolePayload
            }

            func run() async throws {
                let body = Components.Schemas.AddConsoleUser(username: username, role: try documented(role, option: "--role"), tenant: tenant)
                let invitation = try await options.calling { api in try await api.addConsoleUser(body: .json(body)).created.body.json }
                if options.json { return Output.encodable(invitation) }
                print("operator: \(invitation.username) (\(invitation.role), \(invitation.tenant ?? "every tenant"))")
                print("url: \(invitation.url)")
                print("expires_at: \(Show.date(invitation.expiresAt))")
                if let code = try? QRCode(invitation.url) { print(code.terminalText()) }
            }
        }
    }

    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Admin API keys: each limited to one tenant or all, with a role (admin, helpdesk, auditor, provisioner).",
            discussion: """
                admin: everything in its scope; helpdesk: read, unlock and revoke activations, end sessions, invite; \
                auditor: read only; provisioner: only its tenant's SCIM endpoint ({issuer}/scim/v2), and it needs --tenant. \
                A key for one tenant gets 404 for other tenants' objects. Keys are stored as digests \
                and shown once; use one as --token or TESSERA_ADMIN_TOKEN.
                """,
            subcommands: [Create.self, List.self, Revoke.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Make an admin API key; prints it (shown only this once).")
            @OptionGroup var options: AdminOptions
            @Option(help: "What the key is for (shown in lists).") var name: String
            @Option(help: "admin, helpdesk, auditor or provisioner (SCIM for one tenant: needs --tenant).") var role: String
            @Option(help: "Limit the key to this tenant (default: every tenant).") var tenant: String?

            func validate() throws {
                _ = try documented(role, option: "--role") as Components.Schemas.CreateAdminKey.RolePayload
            }

            func run() async throws {
                let body = Components.Schemas.CreateAdminKey(name: name, role: try documented(role, option: "--role"), tenant: tenant)
                let key = try await options.calling { api in try await api.createAdminKey(body: .json(body)).created.body.json }
                if options.json { return Output.encodable(key) }
                print("id: \(key.id)")
                print("key: \(key.key ?? "")")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the live admin API keys (never the keys themselves).")
            @OptionGroup var options: AdminOptions

            func run() async throws {
                let answer = try await options.calling { api in try await api.listAdminKeys().ok.body.json }
                if options.json { return Output.encodable(answer) }
                for key in answer.keys {
                    print("\(key.id)\t\(key.name)\t\(key.role.rawValue)\t\(key.tenant ?? "*")\t\(Show.date(key.createdAt))")
                }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke an admin API key: it stops working at once.")
            @OptionGroup var options: AdminOptions
            @Argument(help: "Key id.") var id: String

            func run() async throws {
                let answer = try await options.calling { api in try await api.revokeAdminKey(path: .init(key: id)).ok.body.json }
                if options.json { return Output.encodable(answer) }
                print("revoked: \(id)")
            }
        }
    }
}

extension Admin {
    /// Initial access tokens for dynamic client registration (RFC 7591).
    struct RegistrationToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "registration-token",
            abstract: "Issue, list and revoke the initial access tokens with which services register themselves (RFC 7591).",
            discussion: """
                The tenant must take dynamic registration (tessera admin tenant update NAME --dynamic-registration). A service \
                POSTs its metadata to {issuer}/register with `Authorization: Bearer TOKEN`.
                """,
            subcommands: [Create.self, List.self, Revoke.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Issue a token; prints it (shown only this once), its id and expiry.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String
            @Option(help: "How many registrations it allows (1-1000).") var uses: Int?
            @Option(help: "How long it is good for, in seconds (60-2592000; default a day).") var ttl: Int?

            func run() async throws {
                let body = Components.Schemas.CreateRegistrationToken(uses: uses, ttlSeconds: ttl)
                let view = try await options.calling { api in
                    try await api.createRegistrationToken(path: .init(tenant: tenant), body: .json(body)).created.body.json
                }
                if options.json { return Output.encodable(view) }
                print("token: \(view.token ?? "")")
                print("id: \(view.id)")
                print("uses_left: \(view.usesLeft)")
                print("expires_at: \(Show.date(view.expiresAt))")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a tenant's tokens: id, uses left, expiry.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String

            func run() async throws {
                let answer = try await options.calling { api in try await api.listRegistrationTokens(path: .init(tenant: tenant)).ok.body.json }
                if options.json { return Output.encodable(answer) }
                for token in answer.tokens {
                    print("\(token.id)\t\(token.usesLeft)\t\(Show.date(token.expiresAt))")
                }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke a token: it registers nothing more.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String
            @Option(parsing: .unconditional, help: "The token's id.") var id: String

            func run() async throws {
                let answer = try await options.calling { api in
                    try await api.revokeRegistrationToken(path: .init(tenant: tenant, token: id)).ok.body.json
                }
                if options.json { return Output.encodable(answer) }
                print("revoked: \(answer.revoked)")
            }
        }
    }
}

extension Admin {
    /// External OpenID providers a tenant's users may sign in with (federation).
    struct IdentityProvider: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "identity-provider",
            abstract: "Add, list and remove the external OpenID providers a tenant's users may sign in with (federation).",
            discussion: """
                Register Tessera with the provider as a client whose redirect URI is \
                {issuer}/authorize/federation/callback (add prints it). A service takes such sign-ins when its policy \
                lists the alternative `federation` (e.g. --policy device+pin,federation). A user is linked on a first \
                sign-in through their invitation's page, or by --link-claim/--link-field.
                """,
            subcommands: [Add.self, List.self, Remove.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add a provider; its discovery document is read first.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String
            @Option(help: "Short name, in URLs and the directory (kk_app_id).") var name: String
            @Option(help: "The name users see (kk_app_name).") var displayName: String
            @Option(help: "The provider's discovery URL (…/.well-known/openid-configuration).") var discoveryURL: String
            @Option(help: "Tessera's client id at the provider.") var clientID: String
            @Option(help: "Tessera's client secret at the provider (none: a public client with PKCE).") var clientSecret: String?
            @Option(help: "Scopes to ask for (default: openid email profile).") var scope: String?
            @Option(help: "HTTPS URL of a logo for the directory.") var logoURI: String?
            @Option(help: "ID-token claim that finds the user on a first sign-in (email counts only when email_verified).") var linkClaim: String?
            @Option(help: "What the claim is compared with: username, or a user attribute's name.") var linkField: String?
            @Option(help: "claim=attribute: copy a claim into a user attribute at each sign-in (repeatable).") var map: [String] = []

            func run() async throws {
                var mapping: [String: String] = [:]
                for pair in map {
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw ValidationError("--map takes claim=attribute") }
                    mapping[parts[0]] = parts[1]
                }
                let body = Components.Schemas.CreateIdentityProvider(
                    name: name, displayName: displayName, logoUri: logoURI, discoveryUrl: discoveryURL, clientId: clientID,
                    clientSecret: clientSecret, scope: scope, linkClaim: linkClaim, linkField: linkField,
                    claimMapping: .init(additionalProperties: mapping))
                let view = try await options.calling { api in
                    try await api.addIdentityProvider(path: .init(tenant: tenant), body: .json(body)).created.body.json
                }
                if options.json { return Output.encodable(view) }
                print("name: \(view.name)")
                print("issuer: \(view.issuer ?? "")")
                print("redirect_uri: \(view.redirectUri)")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a tenant's providers: name, display name, discovery URL.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String

            func run() async throws {
                let answer = try await options.calling { api in try await api.listIdentityProviders(path: .init(tenant: tenant)).ok.body.json }
                if options.json { return Output.encodable(answer) }
                for provider in answer.providers { print("\(provider.name)\t\(provider.displayName)\t\(provider.discoveryUrl)") }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a provider and the users' links to it.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String
            @Option(help: "The provider's name.") var name: String

            func run() async throws {
                let answer = try await options.calling { api in
                    try await api.removeIdentityProvider(path: .init(tenant: tenant, provider: name)).ok.body.json
                }
                if options.json { return Output.encodable(answer) }
                print("removed: \(answer.removed)")
            }
        }
    }
}

extension Admin {
    /// Webhooks: HTTPS endpoints that get events, signed (Standard Webhooks).
    struct Webhook: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Webhooks: HTTPS endpoints that get the events of one tenant or of all, signed as Standard Webhooks says.",
            discussion: """
                Events: audit.ACTION for every audit action (audit.* for all of them), login.succeeded, login.failed, \
                login.locked (login.* for the three), ciba.answered, session.ended, or * for all. Each delivery carries \
                webhook-id, webhook-timestamp and webhook-signature; a hook's deliveries arrive in order, at least once, \
                and one that keeps failing past --delivery-max-age is disabled until `enable`.
                """,
            subcommands: [Add.self, List.self, Remove.self, Rotate.self, Test.self, Enable.self, Deliveries.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Subscribe an endpoint; prints its id and signing secret (shown only this once).")
            @OptionGroup var options: AdminOptions
            @Option(help: "The endpoint's https URL.") var url: String
            @Option(help: "Events, comma separated (e.g. audit.*,login.failed, or *).") var events: String
            @Option(help: "Only this tenant's events (default: a tenant's key's own tenant; a global key: every tenant's).") var tenant: String?

            func run() async throws {
                let body = Components.Schemas.CreateWebhook(
                    url: url, events: events.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }, tenant: tenant)
                let hook = try await options.calling { api in try await api.createWebhook(body: .json(body)).created.body.json }
                if options.json { return Output.encodable(hook) }
                print("id: \(hook.id)")
                print("secret: \(hook.secret ?? "")")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the webhooks: id, tenant, url, events, state and deliveries waiting.")
            @OptionGroup var options: AdminOptions

            func run() async throws {
                let answer = try await options.calling { api in try await api.listWebhooks().ok.body.json }
                if options.json { return Output.encodable(answer) }
                for hook in answer.webhooks {
                    let state = hook.disabledAt.map { "disabled \(Show.date($0))" } ?? "enabled"
                    print("\(hook.id)\t\(hook.tenant ?? "*")\t\(hook.url)\t\(hook.events.joined(separator: ","))\t\(state)\t\(hook.waiting) waiting")
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a webhook with what waits for it and its delivery log.")
            @OptionGroup var options: AdminOptions
            @Argument(help: "Webhook id (wh_…).") var id: String

            func run() async throws {
                let answer = try await options.calling { api in try await api.deleteWebhook(path: .init(webhook: id)).ok.body.json }
                if options.json { return Output.encodable(answer) }
                print("removed: \(answer.removed)")
            }
        }

        struct Rotate: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "A new signing secret (shown only this once); the old one stops at once.")
            @OptionGroup var options: AdminOptions
            @Argument(help: "Webhook id (wh_…).") var id: String

            func run() async throws {
                let hook = try await options.calling { api in try await api.rotateWebhookSecret(path: .init(webhook: id)).ok.body.json }
                if options.json { return Output.encodable(hook) }
                print("secret: \(hook.secret ?? "")")
            }
        }

        struct Test: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Queue a webhook.test event for this hook alone; prints its delivery id.")
            @OptionGroup var options: AdminOptions
            @Argument(help: "Webhook id (wh_…).") var id: String

            func run() async throws {
                let delivery = try await options.calling { api in try await api.testWebhook(path: .init(webhook: id)).ok.body.json }
                if options.json { return Output.encodable(delivery) }
                print("delivery: \(delivery.id)")
            }
        }

        struct Enable: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Send to a disabled webhook again: what it missed goes first, in order.")
            @OptionGroup var options: AdminOptions
            @Argument(help: "Webhook id (wh_…).") var id: String

            func run() async throws {
                let hook = try await options.calling { api in try await api.enableWebhook(path: .init(webhook: id)).ok.body.json }
                if options.json { return Output.encodable(hook) }
                print("enabled: \(hook.id) (\(hook.waiting) waiting)")
            }
        }

        struct Deliveries: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "A webhook's deliveries, newest first: delivered, failing and waiting.")
            @OptionGroup var options: AdminOptions
            @Argument(help: "Webhook id (wh_…).") var id: String
            @Option(help: "At most this many (1–1000).") var limit = 20

            func run() async throws {
                let answer = try await options.calling { api in
                    try await api.listWebhookDeliveries(path: .init(webhook: id), query: .init(limit: limit)).ok.body.json
                }
                if options.json { return Output.encodable(answer) }
                for delivery in answer.deliveries {
                    let state =
                        delivery.deliveredAt.map { "delivered \(Show.date($0))" }
                        ?? "waiting (\(delivery.attempts) attempts\(delivery.lastError.map { ", last: \($0)" } ?? ""))"
                    print("\(delivery.id)\t\(delivery.event)\t\(Show.date(delivery.createdAt))\t\(state)")
                }
            }
        }
    }
}

extension Admin {
    /// A tenant's groups, which a directory provisions over SCIM.
    struct Group: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List and read a tenant's groups (a directory provisions them at {issuer}/scim/v2).",
            discussion: """
                A service that asks for the scope groups gets the names of the user's groups as the groups claim \
                (ID token, userinfo, introspection).
                """,
            subcommands: [List.self, Show.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a tenant's groups: id, name, members, external id.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String

            func run() async throws {
                let answer = try await options.calling { api in try await api.listGroups(path: .init(tenant: tenant)).ok.body.json }
                if options.json { return Output.encodable(answer) }
                for group in answer.groups {
                    print("\(group.id)\t\(group.name)\t\(group.memberCount) member\(group.memberCount == 1 ? "" : "s")\t\(group.externalId ?? "-")")
                }
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Show a group and its members by username.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String
            @Option(help: "The group's id or name.") var group: String

            func run() async throws {
                let answer = try await options.calling { api in
                    try await api.getGroup(path: .init(tenant: tenant, group: group)).ok.body.json
                }
                if options.json { return Output.encodable(answer) }
                print("id: \(answer.id)")
                print("name: \(answer.name)")
                print("external_id: \(answer.externalId ?? "-")")
                print("members: \(answer.memberCount)")
                for member in answer.members { print("  \(member.username)\t\(member.id)") }
            }
        }
    }
}
