import Foundation
import Hummingbird
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraQRCode
import TesseraRecords

/// The operators' web console under `/console`: signed in by the server's own OpenID
/// Connect (a device login to the operators' tenant), and doing every change through the
/// same `Administration` use cases as the admin API, with the operator's role and scope
/// and the operator as the audited actor. Pages are server-rendered; each form carries
/// the session's CSRF token.
struct ConsoleRoutes {
    let state: ServerState
    let pages: WebPages
    var domain: Domain { state.domain }
    var cookies: WebSessionCookies { WebSessionCookies(kind: .console, path: "/console", secure: state.publicURL.hasPrefix("https:")) }

    func register(on router: Router<TesseraRequestContext>) {
        router.get("/") { _, _ in Response(status: .found, headers: [.location: "/console"]) }
        let console = router.group("console").add(middleware: PageErrors())
        console.get("sign-in", use: signInPage)
        console.get("login", use: login)
        console.get("callback", use: callback)
        // Everything else needs the operator's session (and a form its CSRF token).
        let session = console.group().add(middleware: ConsoleSession(domain: domain, signIn: signIn, signInPage: "/console/sign-in"))
        session.get(use: dashboard)
        session.post("logout", use: logout)
        session.get("tenants", use: tenantsPage)
        session.post("tenants", use: createTenant)
        session.get("audit", use: auditPage)
        session.get("keys", use: apiKeysPage)
        session.post("keys", use: createAPIKey)
        session.post("keys/:key/revoke", use: revokeAPIKey)
        session.get("webhooks", use: webhooksPage)
        session.post("webhooks", use: createWebhook)
        session.post("webhooks/:webhook/test", use: testWebhook)
        session.post("webhooks/:webhook/enable", use: enableWebhook)
        session.post("webhooks/:webhook/remove", use: removeWebhook)
        // A tenant's pages: the tenant as the operator may see it.
        let tenant = session.group("tenants/:tenant").add(middleware: ConsoleTenant(domain: domain))
        tenant.get(use: tenantPage)
        tenant.post(use: updateTenant)
        tenant.post("delete", use: deleteTenant)
        tenant.post("branding", use: updateBranding)
        tenant.post("branding/logo", use: uploadLogo)
        tenant.post("branding/logo/remove", use: removeLogo)
        tenant.get("services", use: servicesPage)
        tenant.post("services", use: createService)
        tenant.get("services/:client", use: servicePage)
        tenant.post("services/:client", use: updateService)
        tenant.post("services/:client/secret", use: rotateSecret)
        tenant.post("services/:client/delete", use: deleteService)
        tenant.get("users", use: usersPage)
        tenant.post("users", use: createUser)
        tenant.get("users/:user", use: userPage)
        tenant.post("users/:user", use: updateUser)
        tenant.post("users/:user/invite", use: invite)
        tenant.post("users/:user/disable", use: disableUser)
        tenant.post("users/:user/enable", use: enableUser)
        tenant.post("users/:user/delete", use: deleteUser)
        tenant.post("activations/:activation/unlock", use: unlock)
        tenant.post("activations/:activation/revoke", use: revoke)
        tenant.post("sessions/:session/end", use: endSession)
        tenant.post("users/:user/security-keys/:key/remove", use: removeSecurityKey)
        tenant.get("keys", use: signingKeysPage)
        tenant.get("groups", use: groupsPage)
        tenant.get("groups/:group", use: groupsPage)
        tenant.post("keys", use: rotateSigningKey)
        tenant.post("keys/:kid/activate", use: activateSigningKey)
        tenant.post("keys/:kid/retire", use: retireSigningKey)
    }

    // MARK: Sessions

    var signIn: WebSignIn { WebSignIn(domain: domain, pages: pages, kind: .console, cookies: cookies) }

    /// The frame of a page, its words given `values` (the tenant's, service's or user's
    /// `name`, …) for their placeholders.
    func layout(_ current: ConsoleVisit, notice: String? = nil, values: [String: String] = [:]) -> ConsoleLayout {
        let caller = current.caller
        return ConsoleLayout(
            who: current.user.username, role: caller?.role.rawValue ?? "", scope: current.consoleOperator?.scopeTenantID?.rawValue,
            csrf: current.session.csrf, manage: caller?.may(.manage) ?? false, support: caller?.may(.support) ?? false, notice: notice,
            look: current.look, t: values.isEmpty ? current.words : current.words.with(values))
    }

    /// The signed-in operator of this request, with the console's look in their language.
    func visit(_ request: Request, _ context: TesseraRequestContext) throws -> ConsoleVisit {
        let current = try context.requireWebSession()
        return ConsoleVisit(web: current, look: consoleLook(current.tenant, request))
    }

    /// The console wears the operators' tenant's branding, in the browser's language (or
    /// the operators' tenant's default).
    func consoleLook(_ operators: TenantRecord?, _ request: Request) -> Look {
        Look.of(operators, issuer: operators.map { domain.issuer(forTenantNamed: $0.name) }, request: request)
    }

    /// The operator's use cases for `need` (and the tenant of the path, when it has one):
    /// 404 for a tenant outside its scope, 403 beyond its role; the same checks as the API.
    func administration(_ current: ConsoleVisit, _ need: AdminCaller.Need, tenant: TenantRecord? = nil, global: Bool = false)
        throws -> Administration
    {
        guard let caller = current.caller else { throw DomainError(.forbidden, .accessDenied, "not an operator") }
        try caller.check(need, global: global, tenant: tenant)
        return domain.administration(as: caller)
    }

    // MARK: Sign-in

    @Sendable func signInPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        if try await domain.webSessions.current(.console, secret: cookies.session(request)) != nil {
            throw WebRedirect(location: "/console", status: .found)
        }
        let operators = try await domain.webSessions.operatorsTenant(creating: false, logger: context.logger)
        let exists = operators != nil
        let look = consoleLook(operators, request)
        let words = look.words
        return pages.render(
            "signin", title: words("console.signin_title"),
            page: ConsoleViews.SignIn(
                heading: words("console.signin_heading"),
                text: exists
                    ? words("console.signin_text")
                    : words("console.signin_none", ["command": "tessera admin console-user add USERNAME"]),
                start: "/console/login", button: words("account.signin_button"), hint: words("account.signin_hint")),
            layout: PlainLayout(look: look, t: look.words))
    }

    @Sendable func login(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        guard let tenant = try await domain.webSessions.operatorsTenant(creating: false, logger: context.logger) else {
            throw WebRedirect(location: "/console/sign-in", status: .found)
        }
        return try await signIn.start(tenant: tenant)
    }

    @Sendable func callback(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        guard let tenant = try await domain.webSessions.operatorsTenant(creating: false, logger: context.logger) else {
            throw WebRedirect(location: "/console/sign-in", status: .found)
        }
        return try await signIn.finish(
            request, tenant: tenant, home: "/console", retry: "/console/sign-in", look: consoleLook(tenant, request), logger: context.logger)
    }

    @Sendable func logout(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        return try await signIn.signOut(current.web, next: "/console/sign-in", logger: context.logger)
    }

    // MARK: Dashboard

    @Sendable func dashboard(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let administration = try administration(current, .read)
        let cards = try await administration.dashboard().map { tenant in
            ConsoleViews.Dashboard.Card(
                name: tenant.name, users: current.words.number(tenant.users), activations: current.words.number(tenant.activations),
                logins: current.words.number(tenant.loginsPerHour.reduce(0, +)),
                failures: current.words.number(tenant.failuresPerHour.reduce(0, +)), locked: current.words.number(tenant.lockedActivations),
                ciba: current.words.number(tenant.openBackchannelRequests),
                chart: WebPages.chart(logins: tenant.loginsPerHour, failures: tenant.failuresPerHour, label: tenant.name, words: current.words))
        }
        return pages.render("dashboard", title: current.words("console.nav.dashboard"), page: ConsoleViews.Dashboard(tenants: cards), layout: layout(current))
    }

    // MARK: Tenants

    func renderTenants(_ current: ConsoleVisit, problem: FormProblem? = nil, values input: [String: String] = [:], notice: String? = nil)
        async throws -> Response
    {
        let tenants = try await administration(current, .read).listTenants()
        let page = ConsoleViews.Tenants(
            tenants: tenants.map { .init(name: $0.name, issuer: $0.issuer) }, global: current.caller?.may(.manage, global: true) ?? false,
            values: input)
        return pages.render("tenants", title: current.words("console.nav.tenants"), page: page, layout: layout(current, notice: notice), problem: problem)
    }

    @Sendable func tenantsPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        return try await renderTenants(current, notice: current.notice(request))
    }

    @Sendable func createTenant(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let form = try context.requireForm()
        let name = form["name"] ?? ""
        do {
            _ = try await administration(current, .manage, global: true).createTenant(.init(name: name), logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: ["name"]) else { throw error }
            return try await renderTenants(current, problem: problem, values: ["name": name])
        }
        throw WebRedirect(location: "/console/tenants/\(name)?done=created")
    }

    /// The settings form's fields, each labelled by the catalog's `console.setting.NAME`.
    static let tenantSettings = [
        "free_attempts", "waits", "permanent_after", "process_policy", "sso_lifetime", "session_lifetime", "session_idle_lifetime",
        "access_token_lifetime", "history_retention", "notices", "default_language",
    ]

    /// The branding form's fields: the API's `Branding` fields, each replacing its value
    /// (empty: Tessera's), labelled by the catalog's `console.branding.NAME`.
    static let brandingFields: [(name: String, field: any WritableKeyPath<Components.Schemas.Branding, String?> & Sendable)] = [
        ("display_name", \.displayName), ("app_name", \.appName), ("primary_color", \.primaryColor), ("accent_color", \.accentColor),
        ("support_url", \.supportUrl), ("privacy_url", \.privacyUrl), ("terms_url", \.termsUrl),
    ]

    func renderTenant(
        _ current: ConsoleVisit, tenant: TenantRecord, problem: FormProblem? = nil, input: [String: String]? = nil,
        notice: String? = nil
    ) async throws -> Response {
        let administration = try administration(current, .read, tenant: tenant)
        let view = try await administration.getTenant(tenant)
        let stored: [String: String] = [
            "free_attempts": String(view.lockout.freeAttempts), "waits": view.lockout.waits.map(String.init).joined(separator: ","),
            "permanent_after": view.lockout.permanentAfter.map(String.init) ?? "", "process_policy": view.processPolicy,
            "sso_lifetime": String(view.ssoLifetime), "session_lifetime": String(view.sessionLifetime),
            "session_idle_lifetime": String(view.sessionIdleLifetime), "access_token_lifetime": String(view.accessTokenLifetime),
            "history_retention": String(view.historyRetention), "notices": view.notices.map(\.rawValue).joined(separator: ", "),
            "default_language": view.defaultLanguage.rawValue,
        ]
        let settings = Self.tenantSettings.map { name in
            ConsoleViews.Tenant.Setting(
                name: name, label: current.words("console.setting.\(name)"), value: input?[name] ?? stored[name] ?? "",
                message: problem?.field == name ? problem?.message : nil)
        }
        let branding = Self.brandingFields.map { setting in
            ConsoleViews.Tenant.Setting(
                name: setting.name, label: current.words("console.branding.\(setting.name)"),
                value: input?[setting.name] ?? view.branding[keyPath: setting.field] ?? "",
                message: problem?.field == setting.name ? problem?.message : nil)
        }
        let page = ConsoleViews.Tenant(
            name: view.name, issuer: view.issuer, settings: settings, branding: branding, logoURL: view.branding.logoUrl,
            global: current.caller?.may(.manage, global: true) ?? false,
            emailOnly: input.map { $0["invitations_by_email_only"] == "true" } ?? view.invitationsByEmailOnly,
            emailOnlyMessage: problem?.field == "invitations_by_email_only" ? problem?.message : nil,
            inviteProvisioned: input.map { $0["invite_provisioned_users"] == "true" } ?? view.inviteProvisionedUsers,
            inviteProvisionedMessage: problem?.field == "invite_provisioned_users" ? problem?.message : nil,
            recoveryCodes: input.map { $0["recovery_codes"] == "true" } ?? view.recoveryCodes)
        return pages.render(
            "tenant", title: current.words("console.tenant.title", ["name": view.name]), page: page,
            layout: layout(current, notice: notice, values: ["name": view.name]), problem: problem)
    }

    @Sendable func tenantPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        return try await renderTenant(current, tenant: try context.requireTenant(), notice: current.notice(request))
    }

    @Sendable func updateTenant(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let form = try context.requireForm()
        let tenant = try context.requireTenant()
        do {
            let administration = try administration(current, .manage, tenant: tenant)
            func number(_ name: String) throws -> Int? {
                guard let text = form[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
                guard let value = Int(text) else { throw FormProblem(current.words("console.problem.whole_number", ["field": name]), field: name) }
                return value
            }
            var update = TenantChanges()
            if let free = try number("free_attempts") {
                let waits = try (form["waits"] ?? "").split(separator: ",").map { part in
                    guard let value = Int(part.trimmingCharacters(in: .whitespaces)) else {
                        throw FormProblem(current.words("console.problem.waits"), field: "waits")
                    }
                    return value
                }
                let lockout = Components.Schemas.Lockout(freeAttempts: free, waits: waits, permanentAfter: try number("permanent_after"))
                do {
                    _ = try LockoutPolicy(freeAttempts: lockout.freeAttempts, waits: lockout.waits, permanentAfter: lockout.permanentAfter)
                } catch {
                    throw FormProblem(current.words("console.problem.lockout", ["reason": "\(error)"]), field: "free_attempts")
                }
                update.lockout = lockout
            }
            if let policy = form["process_policy"], !policy.isEmpty { update.processPolicy = policy }
            update.ssoLifetime = try number("sso_lifetime")
            update.sessionLifetime = try number("session_lifetime")
            update.sessionIdleLifetime = try number("session_idle_lifetime")
            update.accessTokenLifetime = try number("access_token_lifetime")
            update.historyRetention = try number("history_retention")
            // What the e-mail settings change (the form always sends them).
            let stored = try await administration.getTenant(tenant)
            let notices = (form["notices"] ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            if notices != stored.notices.map(\.rawValue) { update.notices = notices }
            if let language = form["default_language"]?.trimmingCharacters(in: .whitespaces), !language.isEmpty,
                language != stored.defaultLanguage.rawValue
            {
                update.defaultLanguage = language
            }
            let emailOnly = form["invitations_by_email_only"] == "true"
            if emailOnly != stored.invitationsByEmailOnly { update.invitationsByEmailOnly = emailOnly }
            let inviteProvisioned = form["invite_provisioned_users"] == "true"
            if inviteProvisioned != stored.inviteProvisionedUsers { update.inviteProvisionedUsers = inviteProvisioned }
            let recoveryCodes = form["recovery_codes"] == "true"
            if recoveryCodes != stored.recoveryCodes { update.recoveryCodes = recoveryCodes }
            _ = try await administration.updateTenant(update, tenant: tenant, logger: context.logger)
        } catch {
            let boxes = ["invitations_by_email_only", "invite_provisioned_users"]
            guard let problem = FormProblem(error, fields: Self.tenantSettings + ["lockout"] + boxes) else {
                throw error
            }
            let placed = problem.field == "lockout" ? FormProblem(problem.message, field: "free_attempts", status: problem.status) : problem
            return try await renderTenant(current, tenant: tenant, problem: placed, input: form)
        }
        throw WebRedirect(location: "/console/tenants/\(tenant.name)?done=saved")
    }

    /// The branding form: replaces the tenant's branding with the fields it sends (the logo stays).
    @Sendable func updateBranding(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let form = try context.requireForm()
        let tenant = try context.requireTenant()
        do {
            let administration = try administration(current, .manage, tenant: tenant)
            var branding = Components.Schemas.Branding()
            for setting in Self.brandingFields {
                let value = form[setting.name]?.trimmingCharacters(in: .whitespaces) ?? ""
                branding[keyPath: setting.field] = value.isEmpty ? nil : value
            }
            var update = TenantChanges()
            update.branding = .value(branding)
            _ = try await administration.updateTenant(update, tenant: tenant, logger: context.logger)
        } catch {
            // The API's messages name the field as `branding.NAME`.
            guard let problem = FormProblem(error, fields: Self.brandingFields.map { "branding." + $0.name }) else { throw error }
            let placed = FormProblem(problem.message, field: problem.field.map { String($0.dropFirst("branding.".count)) }, status: problem.status)
            return try await renderTenant(current, tenant: tenant, problem: placed, input: form)
        }
        throw WebRedirect(location: "/console/tenants/\(tenant.name)?done=saved")
    }

    /// The logo form: a PNG or SVG file in place of the tenant's logo.
    @Sendable func uploadLogo(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let tenant = try context.requireTenant()
        do {
            let administration = try administration(current, .manage, tenant: tenant)
            let refused = FormProblem(current.words("console.problem.logo"), field: "logo")
            guard let file = context.files["logo"], !file.bytes.isEmpty else { throw refused }
            // The browser names the type by the file's extension; else the first bytes tell.
            guard let type = [file.contentType, ServiceLogos.imageType(file.bytes)].compactMap({ $0 }).first(where: Administration.logoTypes.contains)
            else { throw refused }
            do {
                _ = try await administration.putLogo(file.bytes, contentType: type, tenant: tenant, logger: context.logger)
            } catch let error as DomainError where error.kind == .invalid || error.kind == .tooLarge {
                // Not an image of the kind it says, or too large: the form's own sentence.
                throw FormProblem(refused.message, field: "logo", status: error.kind.status)
            }
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            // Beside the file field, unless the operator may not change the logo (no form then).
            let placed = problem.status == .forbidden ? problem : FormProblem(problem.message, field: "logo", status: problem.status)
            return try await renderTenant(current, tenant: tenant, problem: placed)
        }
        throw WebRedirect(location: "/console/tenants/\(tenant.name)?done=logo")
    }

    @Sendable func removeLogo(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let tenant = try context.requireTenant()
        do {
            _ = try await administration(current, .manage, tenant: tenant).deleteLogo(tenant: tenant, logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await renderTenant(current, tenant: tenant, problem: problem)
        }
        throw WebRedirect(location: "/console/tenants/\(tenant.name)?done=logo-removed")
    }

    @Sendable func deleteTenant(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let form = try context.requireForm()
        let tenant = try context.requireTenant()
        do {
            try await administration(current, .manage, tenant: tenant, global: true).deleteTenant(
                tenant, force: form["force"] == "true", logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await renderTenant(current, tenant: tenant, problem: problem)
        }
        throw WebRedirect(location: "/console/tenants?done=deleted")
    }

    // MARK: Services

    /// The words a use case's message names a service field by, and the field (first match wins).
    static let serviceFields: [(words: String, field: String)] = [
        ("post_logout_redirect_uris", "post_logout_redirect_uris"), ("post-logout redirect URI", "post_logout_redirect_uris"),
        ("backchannel_logout_uri", "backchannel_logout_uri"), ("id_token_signed_response_alg", "id_token_signed_response_alg"),
        ("redirect_uris", "redirect_uris"), ("redirect URI", "redirect_uris"),
        ("backchannel_client_notification_endpoint", "backchannel_client_notification_endpoint"),
        ("notification endpoint", "backchannel_client_notification_endpoint"),
        ("backchannel", "backchannel_token_delivery_mode"), ("session_idle_lifetime", "session_idle_lifetime"),
        ("session_lifetime", "session_lifetime"), ("policy", "policy"), ("attribute", "attributes"), ("name", "name"),
    ]

    static func serviceProblem(_ error: any Error) -> FormProblem? {
        guard let problem = FormProblem(error, fields: serviceFields.map(\.words)) else { return nil }
        let field = problem.field.flatMap { words in serviceFields.first { $0.words == words }?.field }
        return FormProblem(problem.message, field: field, status: problem.status)
    }

    /// A service's on/off setting as the console's form shows it (`ServiceSwitch.all`, the
    /// one list): a checkbox named as the admin API's field, ticked by the form sent back,
    /// the service's value, or `standard` on a new one.
    static func switchValues(form: [String: String]?, service: Components.Schemas.Service?, words: Words) -> [ConsoleViews.Switch] {
        ServiceSwitch.all.compactMap { toggle in
            guard let id = toggle.console else { return nil }
            let checked = form.map { $0.isEmpty ? toggle.standard : $0[toggle.field] == "true" } ?? service?[keyPath: toggle.shown] ?? toggle.standard
            return ConsoleViews.Switch(field: toggle.field, id: id, label: words("console.switch.\(toggle.field)"), checked: checked)
        }
    }

    /// What a service form says, trimmed: empty optional fields are nil.
    struct ServiceForm {
        let name: String
        let redirectURIs: [String]
        let policy: String?
        let attributes: [String]
        let backchannelMode: String?
        let notificationEndpoint: String?
        let idTokenAlgorithm: String?
        let postLogoutRedirectURIs: [String]
        let backchannelLogoutURI: String?
        /// Every switch, ticked or not (a checkbox is present only when ticked).
        let switches: [String: Bool]

        init(_ form: [String: String]) {
            func text(_ name: String) -> String? {
                form[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            name = form["name"] ?? ""
            redirectURIs = (form["redirect_uris"] ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            attributes = (form["attributes"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            policy = text("policy")
            backchannelMode = text("backchannel_token_delivery_mode")
            notificationEndpoint = text("backchannel_client_notification_endpoint")
            idTokenAlgorithm = text("id_token_signed_response_alg")
            postLogoutRedirectURIs = (form["post_logout_redirect_uris"] ?? "").split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            backchannelLogoutURI = text("backchannel_logout_uri")
            switches = Dictionary(
                uniqueKeysWithValues: ServiceSwitch.all.filter { $0.console != nil }.map { ($0.field, form[$0.field] == "true") })
        }
    }

    /// A form's choice as the admin API's value: absent when not chosen (the form's text is
    /// never empty, so never the generator's empty case), refused when not one of the values.
    static func choice<Wire: RawRepresentable>(_ text: String?, _ words: Words) throws -> Wire? where Wire.RawValue == String {
        guard let text else { return nil }
        guard let value = Wire(rawValue: text) else {
            throw DomainError.invalidRequest(words("console.problem.choice", ["value": String(text.prefix(20))]))
        }
        return value
    }

    /// The ID-token algorithms, `chosen` selected (ES256 when none is).
    static func algorithms(_ chosen: String?) -> [Choice] {
        SigningAlgorithm.allCases.map { Choice(value: $0.rawValue, label: $0.rawValue, selected: $0.rawValue == (chosen ?? "ES256")) }
    }

    /// The choices of CIBA token delivery, `chosen` selected.
    static func modes(_ chosen: String?, _ words: Words) -> [Choice] {
        [("", words("console.service.ciba_none")), ("poll", "poll"), ("ping", "ping")].map {
            Choice(value: $0.0, label: $0.1, selected: $0.0 == (chosen ?? ""))
        }
    }

    func renderServices(
        _ current: ConsoleVisit, tenant: TenantRecord, problem: FormProblem? = nil, input: [String: String] = [:], notice: String? = nil
    ) async throws -> Response {
        let services = try await administration(current, .read, tenant: tenant).listServices(tenant: tenant)
        let page = ConsoleViews.Services(
            tenantName: tenant.name,
            services: services.map {
                .init(
                    name: $0.name, clientID: $0.clientId, kind: current.words($0._public ? "console.kind.public" : "console.kind.confidential"),
                    policy: $0.policy)
            },
            // A new service's switches stand as `standard` unless the operator changed them.
            values: input, switches: Self.switchValues(form: input, service: nil, words: current.words),
            modes: Self.modes(input["backchannel_token_delivery_mode"], current.words), algorithms: Self.algorithms(input["id_token_signed_response_alg"]))
        return pages.render(
            "services", title: current.words("console.tenant.services"), page: page,
            layout: layout(current, notice: notice, values: ["name": tenant.name]), problem: problem)
    }

    @Sendable func servicesPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        return try await renderServices(current, tenant: try context.requireTenant(), notice: current.notice(request))
    }

    @Sendable func createService(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let form = try context.requireForm()
        let tenant = try context.requireTenant()
        let input = ServiceForm(form)
        let created: Components.Schemas.Service
        do {
            var body = Components.Schemas.CreateService(
                name: input.name, redirectUris: input.redirectURIs, _public: form["public"] == "true", policy: input.policy,
                attributes: input.attributes, backchannelTokenDeliveryMode: try Self.choice(input.backchannelMode, current.words),
                backchannelClientNotificationEndpoint: input.notificationEndpoint,
                idTokenSignedResponseAlg: try Self.choice(input.idTokenAlgorithm, current.words),
                postLogoutRedirectUris: input.postLogoutRedirectURIs.isEmpty ? nil : input.postLogoutRedirectURIs,
                backchannelLogoutUri: input.backchannelLogoutURI)
            for toggle in ServiceSwitch.all where toggle.console != nil { body[keyPath: toggle.created] = input.switches[toggle.field] }
            created = try await administration(current, .manage, tenant: tenant).createService(body, tenant: tenant, logger: context.logger)
        } catch {
            guard let problem = Self.serviceProblem(error) else { throw error }
            return try await renderServices(current, tenant: tenant, problem: problem, input: form)
        }
        let back = "/console/tenants/\(tenant.name)/services/\(created.clientId)"
        guard let secret = created.clientSecret else { throw WebRedirect(location: back + "?done=created") }
        let words = current.words
        return pages.render(
            "once", title: words("console.service.created_title"),
            page: ConsoleViews.Once(
                heading: words("console.service.created_heading", ["name": created.name]), text: words("console.service.created_text"),
                label: words("console.service.secret"), value: secret, extraLabel: words("console.col.client_id"), extra: created.clientId, back: back,
                shownOnce: current.shownOnce("console.once.kept_digest")),
            layout: layout(current), status: .created)
    }

    func renderService(
        _ current: ConsoleVisit, tenant: TenantRecord, clientID: ClientID, problem: FormProblem? = nil, input: [String: String]? = nil,
        notice: String? = nil
    ) async throws -> Response {
        let service: Components.Schemas.Service
        do {
            service = try await administration(current, .read, tenant: tenant).getService(clientID: clientID, tenant: tenant)
        } catch let error as DomainError where error.kind == .notFound {
            throw BrowserError(status: .notFound, "not_found", detail: "There is no such service.")
        }
        let stored = [
            "name": service.name, "redirect_uris": service.redirectUris.joined(separator: "\n"), "policy": service.policy,
            "attributes": service.attributes.joined(separator: ", "),
            "backchannel_token_delivery_mode": service.backchannelTokenDeliveryMode?.rawValue ?? "",
            "backchannel_client_notification_endpoint": service.backchannelClientNotificationEndpoint ?? "",
            "session_lifetime": service.sessionLifetime.map(String.init) ?? "",
            "session_idle_lifetime": service.sessionIdleLifetime.map(String.init) ?? "",
            "id_token_signed_response_alg": service.idTokenSignedResponseAlg.rawValue,
            "post_logout_redirect_uris": service.postLogoutRedirectUris.joined(separator: "\n"),
            "backchannel_logout_uri": service.backchannelLogoutUri ?? "",
        ]
        // The server's own sign-in service: shown, never edited.
        let builtIn = WebSessions.isBuiltIn(ClientID(service.clientId))
        let page = ConsoleViews.Service(
            tenantName: tenant.name, name: service.name, clientID: service.clientId, public: service._public,
            kind: current.words(service._public ? "console.kind.public_client" : "console.kind.confidential_client"), values: input ?? stored,
            switches: Self.switchValues(form: input, service: service, words: current.words),
            modes: Self.modes((input ?? stored)["backchannel_token_delivery_mode"], current.words),
            algorithms: Self.algorithms((input ?? stored)["id_token_signed_response_alg"]), builtIn: builtIn, manage: builtIn ? false : nil)
        return pages.render(
            "service", title: current.words("console.service.title", ["name": service.name]), page: page,
            layout: layout(current, notice: notice, values: ["name": service.name]), problem: problem)
    }

    @Sendable func servicePage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        return try await renderService(
            current, tenant: try context.requireTenant(), clientID: context.parameters.id("client"), notice: current.notice(request))
    }

    @Sendable func updateService(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let form = try context.requireForm()
        let tenant = try context.requireTenant()
        let clientID: ClientID = context.parameters.id("client")
        do {
            let administration = try administration(current, .manage, tenant: tenant)
            let input = ServiceForm(form)
            func lifetime(_ name: String) throws -> Patch<Int> {
                guard let text = form[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return .null }
                guard let seconds = Int(text) else { throw FormProblem(current.words("console.problem.seconds", ["field": name]), field: name) }
                return .value(seconds)
            }
            var update = ServiceChanges()
            update.name = input.name
            update.redirectUris = input.redirectURIs
            update.policy = input.policy
            update.attributes = input.attributes
            update.set(
                \.backchannelTokenDeliveryMode, .backchannelTokenDeliveryMode,
                try Self.choice(input.backchannelMode, current.words).map { .value($0) } ?? .null)
            update.set(
                \.backchannelClientNotificationEndpoint, .backchannelClientNotificationEndpoint,
                input.notificationEndpoint.map { .value($0) } ?? .null)
            update.set(\.sessionLifetime, .sessionLifetime, try lifetime("session_lifetime"))
            update.set(\.sessionIdleLifetime, .sessionIdleLifetime, try lifetime("session_idle_lifetime"))
            update.idTokenSignedResponseAlg = try Self.choice(input.idTokenAlgorithm, current.words)
            update.set(
                \.postLogoutRedirectUris, .postLogoutRedirectUris,
                input.postLogoutRedirectURIs.isEmpty ? .null : .value(input.postLogoutRedirectURIs))
            update.set(\.backchannelLogoutUri, .backchannelLogoutUri, input.backchannelLogoutURI.map { .value($0) } ?? .null)
            for toggle in ServiceSwitch.all where toggle.console != nil { update[keyPath: toggle.changed] = input.switches[toggle.field] }
            _ = try await administration.updateService(clientID: clientID, update, tenant: tenant, logger: context.logger)
        } catch {
            guard let problem = Self.serviceProblem(error) else { throw error }
            return try await renderService(current, tenant: tenant, clientID: clientID, problem: problem, input: form)
        }
        throw WebRedirect(location: "/console/tenants/\(tenant.name)/services/\(clientID)?done=saved")
    }

    @Sendable func rotateSecret(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let tenant = try context.requireTenant()
        let clientID: ClientID = context.parameters.id("client")
        let rotated: Components.Schemas.Service
        do {
            rotated = try await administration(current, .manage, tenant: tenant).rotateSecret(clientID: clientID, tenant: tenant, logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await renderService(current, tenant: tenant, clientID: clientID, problem: problem)
        }
        let words = current.words
        return pages.render(
            "once", title: words("console.service.new_secret_title"),
            page: ConsoleViews.Once(
                heading: words("console.service.new_secret_heading", ["name": rotated.name]), text: words("console.service.new_secret_text"),
                label: words("console.service.secret"), value: rotated.clientSecret ?? "",
                back: "/console/tenants/\(tenant.name)/services/\(clientID)", shownOnce: current.shownOnce("console.once.kept_digest")),
            layout: layout(current))
    }

    @Sendable func deleteService(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let tenant = try context.requireTenant()
        let clientID: ClientID = context.parameters.id("client")
        do {
            try await administration(current, .manage, tenant: tenant).deleteService(clientID: clientID, tenant: tenant, logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await renderService(current, tenant: tenant, clientID: clientID, problem: problem)
        }
        throw WebRedirect(location: "/console/tenants/\(tenant.name)/services?done=deleted")
    }

    // MARK: Users

    static func attributes(_ text: String?, _ words: Words) throws -> [String: String] {
        var attributes: [String: String] = [:]
        for line in (text ?? "").split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw FormProblem(words("console.problem.attributes"), field: "attributes")
            }
            attributes[String(trimmed[..<equals]).trimmingCharacters(in: .whitespaces)] = String(trimmed[trimmed.index(after: equals)...])
                .trimmingCharacters(in: .whitespaces)
        }
        return attributes
    }

    static func attributeText(_ attributes: [String: String]) -> String {
        attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
    }

    func renderUsers(
        _ current: ConsoleVisit, tenant: TenantRecord, query: [String: String], problem: FormProblem? = nil, input: [String: String] = [:],
        notice: String? = nil
    ) async throws -> Response {
        let administration = try administration(current, .read, tenant: tenant)
        let search = query["q"].flatMap { $0.isEmpty ? nil : $0 }
        var users: [ConsoleViews.Users.Row] = []
        var next: String?
        var searchProblem: FormProblem?
        do {
            let page = try await administration.listUsers(
                .init(username: nil, search: search, attribute: nil, cursor: query["cursor"], limit: 25), tenant: tenant)
            users = page.users.map {
                .init(
                    id: $0.id, username: $0.username,
                    attributes: Self.attributeText($0.attributes.additionalProperties).replacingOccurrences(of: "\n", with: ", "),
                    status: current.words($0.disabled ? "console.user.disabled" : "console.user.active"), created: current.words.time(seconds: $0.createdAt))
            }
            next = page.nextCursor.map {
                "/console/tenants/\(tenant.name)/users?cursor=\($0)" + (search.map { "&q=\(FormEncoding.component($0))" } ?? "")
            }
        } catch let error as DomainError where error.kind == .invalid {
            searchProblem = FormProblem(error.message, field: "q")
        }
        let page = ConsoleViews.Users(tenantName: tenant.name, query: search ?? "", values: input, users: users, next: next)
        return pages.render(
            "users", title: current.words("console.tenant.users"), page: page, layout: layout(current, notice: notice, values: ["name": tenant.name]),
            problem: problem ?? searchProblem)
    }

    @Sendable func usersPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        return try await renderUsers(
            current, tenant: try context.requireTenant(), query: (try? RequestDecoding.query(request)) ?? [:], notice: current.notice(request))
    }

    @Sendable func createUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let form = try context.requireForm()
        let tenant = try context.requireTenant()
        let created: Components.Schemas.User
        do {
            let administration = try administration(current, .manage, tenant: tenant)
            created = try await administration.createUser(
                .init(username: form["username"] ?? "", attributes: .init(additionalProperties: try Self.attributes(form["attributes"], current.words))), tenant: tenant,
                logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: ["username", "user exists", "attribute"]) else { throw error }
            let placed = FormProblem(
                problem.message, field: problem.field.map { $0 == "attribute" ? "attributes" : "username" }, status: problem.status)
            return try await renderUsers(current, tenant: tenant, query: [:], problem: placed, input: form)
        }
        throw WebRedirect(location: "/console/tenants/\(tenant.name)/users/\(created.id)?done=created")
    }

    func renderUser(
        _ current: ConsoleVisit, tenant: TenantRecord, id: UserID, problem: FormProblem? = nil, notice: String? = nil,
        historyCursor: String? = nil
    ) async throws -> Response {
        let administration = try administration(current, .read, tenant: tenant)
        let detail: Components.Schemas.UserDetail
        do {
            detail = try await administration.getUser(id, tenant: tenant)
        } catch let error as DomainError where error.kind == .notFound {
            throw BrowserError(status: .notFound, "not_found", detail: "There is no such user.")
        }
        let history = try await administration.history(
            .init(
                username: detail.user.username, activationID: nil, service: nil, outcome: nil, since: nil, until: nil, cursor: historyCursor,
                limit: 20), tenant: tenant)
        let now = Double(domain.epochNow())
        let words = current.words
        let page = ConsoleViews.User(
            tenantName: tenant.name, id: detail.user.id, username: detail.user.username,
            status: words(detail.user.disabled ? "console.user.disabled" : "console.user.active"), disabled: detail.user.disabled,
            created: current.words.time(seconds: detail.user.createdAt), attributes: Self.attributeText(detail.user.attributes.additionalProperties),
            activations: detail.activations.map { activation in
                let locked = activation.permanentlyLocked || (activation.lockedUntil.map { $0 > now } ?? false)
                return .init(
                    id: activation.id, alias: activation.alias ?? "—", factors: activation.factors.joined(separator: ", "),
                    state: activation.permanentlyLocked
                        ? words("console.device.locked") : locked ? words("console.device.locked_until", ["time": words.time(seconds: activation.lockedUntil)])
                        : activation.failedAttempts > 0
                            ? words("console.device.failed_attempts", ["count": words.number(activation.failedAttempts)]) : words("console.active"),
                    locked: locked || activation.failedAttempts > 0, created: current.words.time(seconds: activation.createdAt),
                    lastUsed: current.words.time(seconds: activation.lastUsedAt))
            },
            securityKeys: detail.securityKeys.map { key in
                .init(
                    keyID: key.id, name: key.name, algorithm: key.algorithm.rawValue,
                    kind: words(key.backupEligible ? "console.key.synced" : "console.key.security_key"), attestation: key.attestation.rawValue,
                    state: words(key.suspicious ? "console.key.blocked" : "console.key.active"), created: current.words.time(seconds: key.createdAt),
                    lastUsed: current.words.time(seconds: key.lastUsedAt))
            },
            sessions: detail.sessions.map {
                .init(
                    id: $0.id, service: $0.service ?? "—", factors: $0.factors.joined(separator: ", "), created: current.words.time(seconds: $0.createdAt),
                    expires: current.words.time(seconds: $0.expiresAt))
            },
            history: history.entries.map {
                .init(
                    at: words.time(seconds: $0.at), service: $0.service ?? "—", purpose: words.named("account.purpose", $0.purpose),
                    outcome: words.named("account.outcome", $0.outcome), factors: $0.factors.joined(separator: ", "))
            },
            olderHistory: history.nextCursor.map { "/console/tenants/\(tenant.name)/users/\(detail.user.id)?history=\($0)#history" })
        let values = ["name": detail.user.username, "time": page.created]
        return pages.render(
            "user", title: words("console.user.title", values), page: page, layout: layout(current, notice: notice, values: values), problem: problem)
    }

    @Sendable func userPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        return try await renderUser(
            current, tenant: try context.requireTenant(), id: context.parameters.id("user"), notice: current.notice(request),
            historyCursor: (try? RequestDecoding.query(request))?["history"])
    }

    /// A change to a user (or its devices and sessions) that needs `need`. On success the
    /// browser goes to the page of the user `change` returns (the users' list for nil) with
    /// `done`; on failure the page the form came from shows the problem.
    func userChange(
        _ request: Request, context: TesseraRequestContext, _ need: AdminCaller.Need, done: String,
        _ change: (Administration, TenantRecord, [String: String]) async throws -> UserID?
    ) async throws -> Response {
        let current = try visit(request, context)
        let form = try context.requireForm()
        let tenant = try context.requireTenant()
        let target: UserID?
        do {
            target = try await change(try administration(current, need, tenant: tenant), tenant, form)
        } catch {
            guard let problem = FormProblem(error, fields: ["attribute"]) else { throw error }
            let placed = problem.field == nil ? problem : FormProblem(problem.message, field: "attributes", status: problem.status)
            guard let pageUser = context.parameters.get("user").map(UserID.init) else {
                return try await renderUsers(current, tenant: tenant, query: [:], problem: placed)
            }
            return try await renderUser(current, tenant: tenant, id: pageUser, problem: placed)
        }
        let users = "/console/tenants/\(tenant.name)/users"
        throw WebRedirect(location: target.map { "\(users)/\($0)?done=\(done)" } ?? "\(users)?done=\(done)")
    }

    @Sendable func updateUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let words = try visit(request, context).words
        return try await userChange(request, context: context, .manage, done: "saved") { administration, tenant, form in
            _ = try await administration.updateUser(
                context.parameters.id("user"), .init(attributes: .init(additionalProperties: try Self.attributes(form["attributes"], words))), tenant: tenant,
                logger: context.logger)
            return context.parameters.id("user")
        }
    }

    @Sendable func disableUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await userChange(request, context: context, .manage, done: "disabled") { administration, tenant, _ in
            return UserID(try await administration.setDisabled(true, user: context.parameters.id("user"), tenant: tenant, logger: context.logger).id)
        }
    }

    @Sendable func enableUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await userChange(request, context: context, .manage, done: "enabled") { administration, tenant, _ in
            return UserID(try await administration.setDisabled(false, user: context.parameters.id("user"), tenant: tenant, logger: context.logger).id)
        }
    }

    @Sendable func deleteUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await userChange(request, context: context, .manage, done: "deleted") { administration, tenant, _ in
            try await administration.deleteUser(context.parameters.id("user"), tenant: tenant, logger: context.logger)
            return nil
        }
    }

    @Sendable func invite(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let tenant = try context.requireTenant()
        let id: UserID = context.parameters.id("user")
        let invitation: Components.Schemas.Invitation
        do {
            let administration = try administration(current, .support, tenant: tenant)
            let user = try await administration.getUser(id, tenant: tenant).user
            invitation = try await administration.invite(.init(username: user.username, ttlSeconds: nil), tenant: tenant, logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await renderUser(current, tenant: tenant, id: id, problem: problem)
        }
        // A tenant that invites by e-mail only: the link went to the user, and shows nowhere.
        guard let url = invitation.url else { throw WebRedirect(location: "/console/tenants/\(tenant.name)/users/\(id)?done=emailed") }
        return pages.render(
            "invitation", title: current.words("console.invitation.title"),
            page: ConsoleViews.Invitation(
                url: url, qr: (try? QRCode(url).svg(moduleSize: 5)) ?? "", back: "/console/tenants/\(tenant.name)/users/\(id)",
                shownOnce: current.shownOnce("console.once.kept_digest")),
            // The app the user's tenant calls it, not the operators'.
            layout: layout(
                current,
                values: [
                    "username": invitation.username, "time": current.words.time(seconds: invitation.expiresAt),
                    "app": tenant.branding?.appName ?? current.words("app.name"),
                ]),
            status: .created)
    }

    @Sendable func unlock(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await userChange(request, context: context, .support, done: "unlocked") { administration, tenant, _ in
            let id: ActivationID = context.parameters.id("activation")
            let owner = try await administration.owner(ofActivation: id, tenant: tenant)
            _ = try await administration.unlock(activationID: id, logger: context.logger)
            return owner
        }
    }

    @Sendable func revoke(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await userChange(request, context: context, .support, done: "revoked") { administration, tenant, _ in
            let id: ActivationID = context.parameters.id("activation")
            let owner = try await administration.owner(ofActivation: id, tenant: tenant)
            _ = try await administration.revoke(activationID: id, logger: context.logger)
            return owner
        }
    }

    @Sendable func endSession(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await userChange(request, context: context, .support, done: "ended") { administration, tenant, _ in
            let id: SessionID = context.parameters.id("session")
            let owner = try await administration.owner(ofSession: id, tenant: tenant)
            try await administration.endSession(id, tenant: tenant, logger: context.logger)
            return owner
        }
    }

    @Sendable func removeSecurityKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await userChange(request, context: context, .support, done: "key-removed") { administration, tenant, _ in
            let user: UserID = context.parameters.id("user")
            try await administration.removeSecurityKey(context.parameters.id("key"), user: user, tenant: tenant, logger: context.logger)
            return user
        }
    }

    // MARK: Signing keys

    func renderSigningKeys(_ current: ConsoleVisit, tenant: TenantRecord, problem: FormProblem? = nil, notice: String? = nil) async throws
        -> Response
    {
        let keys = try await administration(current, .read, tenant: tenant).listSigningKeys(tenant: tenant)
        let page = ConsoleViews.SigningKeys(
            tenantName: tenant.name,
            keys: keys.map {
                .init(
                    kid: $0.kid, active: $0.active, state: current.words($0.active ? "console.keys.signs" : "console.keys.published"),
                    created: current.words.time(seconds: $0.createdAt))
            })
        return pages.render(
            "signingkeys", title: current.words("console.tenant.signing_keys"), page: page,
            layout: layout(current, notice: notice, values: ["name": tenant.name]), problem: problem)
    }

    /// The tenant's groups, or one group with its members.
    @Sendable func groupsPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let tenant = try context.requireTenant()
        let administration = try administration(current, .read, tenant: tenant)
        func row(_ id: String, _ name: String, _ members: Int, _ external: String?) -> ConsoleViews.Groups.Group {
            .init(id: id, name: name, memberCount: members, externalID: external ?? "")
        }
        let page: ConsoleViews.Groups
        var values = ["name": tenant.name]
        if let name = context.parameters.get("group") {
            let group = try await administration.group(name, tenant: tenant)
            values["group"] = group.name
            page = ConsoleViews.Groups(
                tenantName: tenant.name, groups: [], group: row(group.id, group.name, group.memberCount, group.externalId),
                members: group.members.map { .init(id: $0.id, username: $0.username) })
        } else {
            let groups = try await administration.groups(tenant: tenant)
            page = ConsoleViews.Groups(
                tenantName: tenant.name, groups: groups.map { row($0.id, $0.name, $0.memberCount, $0.externalId) }, group: nil, members: [])
        }
        return pages.render(
            "groups", title: current.words(page.group == nil ? "console.groups.title" : "console.groups.group", values), page: page,
            layout: layout(current, values: values), problem: nil)
    }

    @Sendable func signingKeysPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        return try await renderSigningKeys(current, tenant: try context.requireTenant(), notice: current.notice(request))
    }

    func signingKeyChange(
        _ request: Request, context: TesseraRequestContext, done: String,
        _ change: (Administration, TenantRecord, [String: String]) async throws -> Void
    ) async throws -> Response {
        let current = try visit(request, context)
        let form = try context.requireForm()
        let tenant = try context.requireTenant()
        do {
            try await change(try administration(current, .manage, tenant: tenant), tenant, form)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await renderSigningKeys(current, tenant: tenant, problem: problem)
        }
        throw WebRedirect(location: "/console/tenants/\(tenant.name)/keys?done=\(done)")
    }

    @Sendable func rotateSigningKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await signingKeyChange(request, context: context, done: "rotated") { administration, tenant, form in
            _ = try await administration.rotateSigningKey(activate: form["activate"] == "true", tenant: tenant, logger: context.logger)
        }
    }

    @Sendable func activateSigningKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await signingKeyChange(request, context: context, done: "activated") { administration, tenant, _ in
            _ = try await administration.activateSigningKey(kid: context.parameters.get("kid") ?? "", tenant: tenant, logger: context.logger)
        }
    }

    @Sendable func retireSigningKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await signingKeyChange(request, context: context, done: "retired") { administration, tenant, _ in
            _ = try await administration.retireSigningKey(kid: context.parameters.get("kid") ?? "", tenant: tenant, logger: context.logger)
        }
    }

    // MARK: Audit log

    @Sendable func auditPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let administration = try administration(current, .read)
        let query = (try? RequestDecoding.query(request)) ?? [:]
        var problem: FormProblem?
        let tenants = try await administration.listTenants()
        let chosen = query["tenant"].flatMap { $0.isEmpty ? nil : $0 }
        var tenant: TenantRecord?
        if let chosen {
            tenant = try? await domain.tenant(named: chosen)
            if let found = tenant, (try? current.caller?.check(tenant: found)) == nil { tenant = nil }
            if tenant == nil { throw BrowserError(status: .notFound, "not_found", detail: "There is no tenant '\(chosen.prefix(64))' you can see.") }
        }
        var since: Int64?
        if let hours = query["hours"], !hours.isEmpty {
            if let value = Int64(hours), value > 0, value <= 24 * 3650 {
                since = domain.epochNow() - value * 3600
            } else {
                problem = FormProblem(current.words("console.problem.hours"), field: "hours")
            }
        }
        let action = query["action"] ?? ""
        let actor = query["actor"] ?? ""
        let entries = try await administration.audit(
            tenant: tenant, since: since, action: action.isEmpty ? nil : action, actor: actor.isEmpty ? nil : actor, limit: 200)
        let page = ConsoleViews.Audit(
            tenants: tenants.map { .init(name: $0.name, selected: $0.name == chosen) }, all: current.caller?.tenantID == nil, action: action,
            actor: actor, hours: query["hours"] ?? "",
            entries: entries.map {
                .init(
                    at: current.words.time(seconds: $0.at), tenant: $0.tenant ?? "—", actor: $0.actor, action: $0.action, target: $0.target ?? "",
                    details: $0.details.additionalProperties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "),
                    address: $0.sourceAddress ?? "—", userAgent: $0.userAgent, requestID: $0.httpRequestId)
            })
        return pages.render("audit", title: current.words("console.nav.audit"), page: page, layout: layout(current), problem: problem)
    }

    // MARK: Webhooks

    /// The webhooks as the operator may manage them (admins only, as in the API).
    func webhooks(_ current: ConsoleVisit) throws -> Webhooks {
        guard let caller = current.caller else { throw DomainError(.forbidden, .accessDenied, "not an operator") }
        do {
            try caller.check(.manage)
        } catch let error as DomainError {
            throw BrowserError(status: .forbidden, "not_allowed", detail: error.message)
        }
        return domain.webhooks(as: caller)
    }

    func renderWebhooks(_ current: ConsoleVisit, problem: FormProblem? = nil, input: [String: String] = [:], notice: String? = nil)
        async throws -> Response
    {
        let hooks = try await webhooks(current).list().webhooks
        let tenants = try await administration(current, .read).listTenants()
        let page = ConsoleViews.Webhooks(
            hooks: hooks.map {
                .init(
                    id: $0.id, url: $0.url, events: $0.events.joined(separator: ", "), tenant: $0.tenant ?? current.words("console.every_tenant"),
                    state: $0.disabledAt.map { current.words("console.webhooks.disabled", ["time": current.words.time(seconds: $0)]) }
                        ?? current.words("console.webhooks.enabled"), reason: $0.disabledReason,
                    disabled: $0.disabledAt != nil, waiting: $0.waiting, created: current.words.time(seconds: $0.createdAt))
            },
            tenants: tenants.map { .init(name: $0.name) }, all: current.caller?.tenantID == nil, values: input)
        return pages.render("webhooks", title: current.words("console.nav.webhooks"), page: page, layout: layout(current, notice: notice), problem: problem)
    }

    @Sendable func webhooksPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        return try await renderWebhooks(current, notice: current.notice(request))
    }

    /// Shows the secret once, as the API does.
    @Sendable func createWebhook(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let form = try context.requireForm()
        let hooks = try webhooks(current)
        let created: Components.Schemas.Webhook
        do {
            let events = (form["events"] ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            let tenant = form["tenant"].flatMap { $0.isEmpty ? nil : $0 }
            created = try await hooks.create(.init(url: form["url"] ?? "", events: events, tenant: tenant), logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: ["url", "events", "tenant"]) else { throw error }
            return try await renderWebhooks(current, problem: problem, input: form)
        }
        let words = current.words
        return pages.render(
            "once", title: words("console.nav.webhooks"),
            page: ConsoleViews.Once(
                heading: words("console.webhooks.created_heading", ["id": created.id]), text: words("console.webhooks.created_text"),
                label: words("console.webhooks.secret"), value: created.secret ?? "", back: "/console/webhooks",
                shownOnce: current.shownOnce("console.once.kept_sealed")),
            layout: layout(current), status: .created)
    }

    @Sendable func testWebhook(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await webhookAction(request, context: context, done: "webhook-tested") { hooks, id in _ = try await hooks.test(id) }
    }

    @Sendable func enableWebhook(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await webhookAction(request, context: context, done: "webhook-enabled") { hooks, id in _ = try await hooks.enable(id, logger: context.logger) }
    }

    @Sendable func removeWebhook(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await webhookAction(request, context: context, done: "webhook-removed") { hooks, id in try await hooks.remove(id, logger: context.logger) }
    }

    /// Does `action` on the hook the path names, then shows the list again.
    func webhookAction(
        _ request: Request, context: TesseraRequestContext, done: String, _ action: (Webhooks, String) async throws -> Void
    ) async throws -> Response {
        let current = try visit(request, context)
        let hooks = try webhooks(current)
        do {
            try await action(hooks, context.parameters.get("webhook") ?? "")
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await renderWebhooks(current, problem: problem)
        }
        throw WebRedirect(location: "/console/webhooks?done=\(done)")
    }

    // MARK: Admin API keys

    func renderAPIKeys(_ current: ConsoleVisit, problem: FormProblem? = nil, input: [String: String] = [:], notice: String? = nil)
        async throws -> Response
    {
        guard let caller = current.caller else { throw DomainError(.forbidden, .accessDenied, "not an operator") }
        let keys: [Components.Schemas.AdminKey]
        do {
            keys = try await domain.adminKeys.list(by: caller)
        } catch let error as DomainError where error.kind == .forbidden {
            throw BrowserError(status: .forbidden, "not_allowed", detail: error.message)
        }
        let tenants = try await administration(current, .read).listTenants()
        let page = ConsoleViews.APIKeys(
            keys: keys.map {
                .init(
                    id: $0.id, name: $0.name, role: $0.role.rawValue, tenant: $0.tenant ?? current.words("console.every_tenant"),
                    created: current.words.time(seconds: $0.createdAt))
            },
            tenants: tenants.map { .init(name: $0.name) }, all: caller.tenantID == nil, values: input)
        return pages.render("apikeys", title: current.words("console.apikeys.title"), page: page, layout: layout(current, notice: notice), problem: problem)
    }

    @Sendable func apiKeysPage(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        return try await renderAPIKeys(current, notice: current.notice(request))
    }

    @Sendable func createAPIKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        let form = try context.requireForm()
        guard let caller = current.caller else { throw DomainError(.forbidden, .accessDenied, "not an operator") }
        let created: Components.Schemas.AdminKey
        do {
            guard let role = Components.Schemas.CreateAdminKey.RolePayload(rawValue: form["role"] ?? "") else {
                throw FormProblem(current.words("console.problem.role"), field: "role")
            }
            let tenant = form["tenant"].flatMap { $0.isEmpty ? nil : $0 }
            created = try await domain.adminKeys.create(.init(name: form["name"] ?? "", role: role, tenant: tenant), by: caller, logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: ["name", "tenant"]) else { throw error }
            return try await renderAPIKeys(current, problem: problem, input: form)
        }
        let words = current.words
        return pages.render(
            "once", title: words("console.apikeys.title"),
            page: ConsoleViews.Once(
                heading: words("console.apikeys.created_heading", ["name": created.name]), text: words("console.apikeys.created_text"),
                label: words("console.apikeys.key"), value: created.key ?? "", back: "/console/keys", shownOnce: current.shownOnce("console.once.kept_digest")),
            layout: layout(current), status: .created)
    }

    @Sendable func revokeAPIKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let current = try visit(request, context)
        guard let caller = current.caller else { throw DomainError(.forbidden, .accessDenied, "not an operator") }
        do {
            try await domain.adminKeys.revoke(context.parameters.get("key") ?? "", by: caller, logger: context.logger)
        } catch {
            guard let problem = FormProblem(error, fields: []) else { throw error }
            return try await renderAPIKeys(current, problem: problem)
        }
        throw WebRedirect(location: "/console/keys?done=key-revoked")
    }
}

/// A signed-in operator's request: the session (its fields read through, as
/// `current.caller`, `current.user`) and the console's look in the operator's language.
@dynamicMemberLookup
struct ConsoleVisit: Sendable {
    let web: WebSessions.Current
    let look: Look

    var words: Words { look.words }

    subscript<Value>(dynamicMember path: KeyPath<WebSessions.Current, Value>) -> Value { web[keyPath: path] }

    /// What a finished form says (the catalog's `console.done.*`).
    func notice(_ request: Request) -> String? { words.notice(request, prefix: "console.done") }

    /// "It is shown this once", with what the server keeps (`kept`, a catalog key).
    func shownOnce(_ kept: String) -> String { words("console.once.shown_once", ["kept": words(kept)]) }
}
