import Foundation
import Hummingbird
import TesseraCore
import TesseraDomain
import TesseraStore

/// The admin API under `/admin`, behind the admin bearer token. Each handler decodes,
/// calls one `Administration` method, and encodes; docs/OPERATIONS.md lists the calls.
struct AdminRoutes {
    let state: ServerState

    /// The use cases as the caller may do them: 404 for a tenant outside its scope (so
    /// another tenant's objects are as unknown as missing ones), then 403 unless its role
    /// allows `need`.
    func administration(_ context: TesseraRequestContext, _ need: AdminCaller.Need, global: Bool = false) throws -> Administration {
        let caller = try context.requireAdmin()
        if let tenant = context.tenant { try caller.check(tenant: tenant) }
        try caller.check(need, global: global)
        return state.domain.administration(as: caller)
    }

    func register(on router: Router<TesseraRequestContext>) {
        let admin = router.group("admin").add(middleware: AdminAuthentication(state: state))
        admin.post("tenants", use: createTenant)
        admin.get("tenants", use: listTenants)
        let tenant = admin.group("tenants/:tenant").add(middleware: TenantResolution(domain: state.domain))
        tenant.post("signing-keys", use: rotateSigningKey)
        tenant.get("signing-keys", use: listSigningKeys)
        tenant.post("signing-keys/:kid/activate", use: activateSigningKey)
        tenant.delete("signing-keys/:kid", use: retireSigningKey)
        tenant.get(use: getTenant)
        tenant.patch(use: updateTenant)
        tenant.delete(use: deleteTenant)
        tenant.post("services", use: createService)
        tenant.get("services", use: listServices)
        tenant.get("services/:client", use: getService)
        tenant.patch("services/:client", use: updateService)
        tenant.delete("services/:client", use: deleteService)
        tenant.post("services/:client/secret", use: rotateSecret)
        tenant.post("users", use: createUser)
        tenant.get("users", use: listUsers)
        tenant.get("users/:user", use: getUser)
        tenant.patch("users/:user", use: updateUser)
        tenant.delete("users/:user", use: deleteUser)
        tenant.post("users/:user/disable", use: disableUser)
        tenant.post("users/:user/enable", use: enableUser)
        tenant.get("users/:user/sessions", use: listSessions)
        tenant.delete("users/:user/sessions", use: endUserSessions)
        tenant.delete("sessions/:session", use: endSession)
        tenant.get("users/:user/security-keys", use: listSecurityKeys)
        tenant.delete("users/:user/security-keys/:key", use: removeSecurityKey)
        tenant.post("registration-tokens", use: createRegistrationToken)
        tenant.get("registration-tokens", use: listRegistrationTokens)
        tenant.delete("registration-tokens/:token", use: revokeRegistrationToken)
        tenant.post("identity-providers", use: addIdentityProvider)
        tenant.get("identity-providers", use: listIdentityProviders)
        tenant.delete("identity-providers/:provider", use: removeIdentityProvider)
        tenant.post("invitations", use: invite)
        tenant.get("invitations", use: listInvitations)
        tenant.delete("invitations/:invitation", use: revokeInvitation)
        tenant.get("activations", use: listActivations)
        tenant.get("history", use: history)
        admin.post("activations/:activation/unlock", use: unlock)
        admin.post("activations/:activation/revoke", use: revoke)
        admin.get("audit", use: audit)
        admin.get("stats", use: stats)
        admin.post("purge", use: purge)
        admin.post("keys", use: createKey)
        admin.get("keys", use: listKeys)
        admin.delete("keys/:key", use: revokeKey)
        admin.post("console-users", use: addConsoleUser)
    }

    // MARK: Registration tokens (RFC 7591 initial access tokens)

    @Sendable func createRegistrationToken(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.optionalJSON(Administration.CreateRegistrationToken.self, from: request)
        let view = try await administration(context, .manage).createRegistrationToken(
            input ?? .init(uses: nil, ttlSeconds: nil), tenant: try context.requireTenant(), logger: context.logger)
        var response = JSONResponse.make(view, status: .created)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    @Sendable func listRegistrationTokens(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(["tokens": try await administration(context, .read).listRegistrationTokens(tenant: try context.requireTenant())])
    }

    @Sendable func revokeRegistrationToken(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let id = context.parameters.get("token") ?? ""
        try await administration(context, .manage).revokeRegistrationToken(id: id, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["revoked": id])
    }

    // MARK: Identity providers (federation)

    /// `POST /admin/tenants/{tenant}/identity-providers`: an external OpenID provider the
    /// tenant's users may sign in with; its discovery document is read first.
    @Sendable func addIdentityProvider(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.CreateIdentityProvider.self, from: request)
        let view = try await administration(context, .manage).addIdentityProvider(
            input, tenant: try context.requireTenant(), http: Outbound(), logger: context.logger)
        return JSONResponse.make(view, status: .created)
    }

    @Sendable func listIdentityProviders(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(["providers": try await administration(context, .read).identityProviders(tenant: try context.requireTenant())])
    }

    @Sendable func removeIdentityProvider(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let name = context.parameters.get("provider") ?? ""
        try await administration(context, .manage).removeIdentityProvider(name: name, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["removed": name])
    }

    // MARK: Console operators

    /// `POST /admin/console-users`: an operator of the web console, and its device's invitation.
    @Sendable func addConsoleUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(WebSessions.AddOperator.self, from: request)
        let invitation = try await state.domain.webSessions.addOperator(
            username: input.username, role: input.role ?? .admin, scope: input.tenant, by: try context.requireAdmin(), logger: context.logger)
        return JSONResponse.make(invitation, status: .created)
    }

    // MARK: Tenants

    @Sendable func createTenant(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.CreateTenant.self, from: request)
        return JSONResponse.make(try await administration(context, .manage, global: true).createTenant(input, logger: context.logger), status: .created)
    }

    @Sendable func listTenants(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(["tenants": try await administration(context, .read).listTenants()])
    }

    /// `GET /admin/tenants/{tenant}`: its settings.
    @Sendable func getTenant(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(try await administration(context, .read).getTenant(try context.requireTenant()))
    }

    /// `PATCH /admin/tenants/{tenant}`: changes the settings the body names.
    @Sendable func updateTenant(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.UpdateTenant.self, from: request)
        return JSONResponse.make(try await administration(context, .manage).updateTenant(input, tenant: try context.requireTenant(), logger: context.logger))
    }

    /// `DELETE /admin/tenants/{tenant}[?force=true]`: refused while it has users unless forced.
    @Sendable func deleteTenant(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let force = try RequestDecoding.flag("force", in: RequestDecoding.query(request))
        let tenant = try context.requireTenant()
        try await administration(context, .manage, global: true).deleteTenant(tenant, force: force, logger: context.logger)
        return JSONResponse.make(["deleted": tenant.name])
    }

    // MARK: Signing keys

    /// `POST /admin/tenants/{tenant}/signing-keys` (body optional, `{"activate": false}` to publish only).
    @Sendable func rotateSigningKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.optionalJSON(Administration.RotationRequest.self, from: request)
        let rotation = try await administration(context, .manage).rotateSigningKey(
            activate: input?.activate ?? true, algorithm: try input?.signingAlgorithm() ?? .es256, tenant: try context.requireTenant(),
            logger: context.logger)
        return JSONResponse.make(rotation, status: .created)
    }

    /// `POST /admin/tenants/{tenant}/signing-keys/{kid}/activate`.
    @Sendable func activateSigningKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(
            try await administration(context, .manage).activateSigningKey(
                kid: context.parameters.get("kid") ?? "", tenant: try context.requireTenant(), logger: context.logger))
    }

    /// `GET /admin/tenants/{tenant}/signing-keys`: every key the JWKS publishes, oldest first.
    @Sendable func listSigningKeys(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(["keys": try await administration(context, .read).listSigningKeys(tenant: try context.requireTenant())])
    }

    /// `DELETE /admin/tenants/{tenant}/signing-keys/{kid}`.
    @Sendable func retireSigningKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(
            try await administration(context, .manage).retireSigningKey(
                kid: context.parameters.get("kid") ?? "", tenant: try context.requireTenant(), logger: context.logger))
    }

    // MARK: Services, users, invitations

    @Sendable func createService(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.CreateService.self, from: request)
        let service = try await administration(context, .manage).createService(input, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(service, status: .created)
    }

    @Sendable func listServices(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(["services": try await administration(context, .read).listServices(tenant: try context.requireTenant())])
    }

    @Sendable func getService(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(try await administration(context, .read).getService(clientID: context.parameters.id("client"), tenant: try context.requireTenant()))
    }

    @Sendable func updateService(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.UpdateService.self, from: request)
        return JSONResponse.make(
            try await administration(context, .manage).updateService(
                clientID: context.parameters.id("client"), input, tenant: try context.requireTenant(), logger: context.logger))
    }

    /// `POST …/services/{client_id}/secret`: a new secret, shown once; the old one stops at once
    /// (on the other nodes when they hear of it).
    @Sendable func rotateSecret(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(
            try await administration(context, .manage).rotateSecret(
                clientID: context.parameters.id("client"), tenant: try context.requireTenant(), logger: context.logger))
    }

    @Sendable func deleteService(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let clientID: ClientID = context.parameters.id("client")
        try await administration(context, .manage).deleteService(clientID: clientID, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["deleted": clientID.rawValue])
    }

    @Sendable func createUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.CreateUser.self, from: request)
        let user = try await administration(context, .manage).createUser(input, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(user, status: .created)
    }

    /// `GET …/users?username=U&search=S&attribute=name=value&cursor=C&limit=N`: a page in username order.
    @Sendable func listUsers(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let query = try RequestDecoding.query(request)
        let page = try await administration(context, .read).listUsers(
            .init(
                username: query["username"], search: query["search"], attribute: query["attribute"], cursor: query["cursor"],
                limit: try RequestDecoding.limit(query, maximum: 1000)),
            tenant: try context.requireTenant())
        return JSONResponse.make(page)
    }

    /// `GET …/users/{id}`: the user with their activations and live sessions.
    @Sendable func getUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(try await administration(context, .read).getUser(context.parameters.id("user"), tenant: try context.requireTenant()))
    }

    /// `PATCH …/users/{id}` `{"attributes": {…}}`: replaces the attributes.
    @Sendable func updateUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.UpdateUser.self, from: request)
        return JSONResponse.make(
            try await administration(context, .manage).updateUser(context.parameters.id("user"), input, tenant: try context.requireTenant(), logger: context.logger))
    }

    @Sendable func disableUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(
            try await administration(context, .manage).setDisabled(
                true, user: context.parameters.id("user"), tenant: try context.requireTenant(), logger: context.logger))
    }

    @Sendable func enableUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(
            try await administration(context, .manage).setDisabled(
                false, user: context.parameters.id("user"), tenant: try context.requireTenant(), logger: context.logger))
    }

    @Sendable func deleteUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let id: UserID = context.parameters.id("user")
        try await administration(context, .manage).deleteUser(id, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["deleted": id.rawValue])
    }

    // MARK: Sessions

    @Sendable func listSessions(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(
            ["sessions": try await administration(context, .read).listSessions(user: context.parameters.id("user"), tenant: try context.requireTenant())])
    }

    /// `DELETE …/users/{id}/sessions`: ends every session of the user.
    @Sendable func endUserSessions(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let ended = try await administration(context, .support).endSessions(
            user: context.parameters.id("user"), tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["ended": ended])
    }

    /// `DELETE …/sessions/{sid}`: ends one session.
    @Sendable func endSession(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try await administration(context, .support).endSession(context.parameters.id("session"), tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["ended": 1])
    }

    // MARK: Security keys

    /// `GET …/users/{id}/security-keys`: the user's security keys and passkeys.
    @Sendable func listSecurityKeys(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(
            ["security_keys": try await administration(context, .read).listSecurityKeys(
                user: context.parameters.id("user"), tenant: try context.requireTenant())])
    }

    /// `DELETE …/users/{id}/security-keys/{key}`: removes one; its sessions end.
    @Sendable func removeSecurityKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let id: SecurityKeyID = context.parameters.id("key")
        try await administration(context, .support).removeSecurityKey(
            id, user: context.parameters.id("user"), tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["removed": id.rawValue])
    }

    @Sendable func invite(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.CreateInvitation.self, from: request)
        let invitation = try await administration(context, .support).invite(input, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(invitation, status: .created)
    }

    @Sendable func listInvitations(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(["invitations": try await administration(context, .read).listInvitations(tenant: try context.requireTenant())])
    }

    @Sendable func revokeInvitation(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let id = context.parameters.get("invitation") ?? ""
        try await administration(context, .support).revokeInvitation(id, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["revoked": id])
    }

    // MARK: Activations, history and audit

    /// `GET …/history?username=U&activation=A&service=S&outcome=O&since=T&until=T&cursor=C&limit=N`: newest first.
    @Sendable func history(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let query = try RequestDecoding.query(request)
        let page = try await administration(context, .read).history(
            .init(
                username: query["username"], activationID: query["activation"].map(ActivationID.init), service: query["service"],
                outcome: query["outcome"], since: try RequestDecoding.epoch("since", in: query), until: try RequestDecoding.epoch("until", in: query),
                cursor: query["cursor"], limit: try RequestDecoding.limit(query, maximum: 1000)),
            tenant: try context.requireTenant())
        return JSONResponse.make(page)
    }

    /// `GET /admin/tenants/{tenant}/activations[?username=U]`.
    @Sendable func listActivations(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let query = try RequestDecoding.query(request)
        let views = try await administration(context, .read).listActivations(username: query["username"], tenant: try context.requireTenant())
        return JSONResponse.make(["activations": views])
    }

    @Sendable func unlock(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(try await administration(context, .support).unlock(activationID: context.parameters.id("activation"), logger: context.logger))
    }

    /// Removes an activation and its keys: its proofs and tokens are refused from now on.
    @Sendable func revoke(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(try await administration(context, .support).revoke(activationID: context.parameters.id("activation"), logger: context.logger))
    }

    /// `GET /admin/audit?tenant=T&since=EPOCH&limit=N`: newest first.
    @Sendable func audit(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let query = try RequestDecoding.query(request)
        var tenant: TenantRecord?
        if let name = query["tenant"] { tenant = try await state.domain.tenant(named: name) }
        let limit = try RequestDecoding.limit(query, maximum: 1000)
        let since = try RequestDecoding.epoch("since", in: query)
        let entries = try await administration(context, .read).audit(
            tenant: tenant, since: since, action: query["action"], actor: query["actor"], limit: limit)
        return JSONResponse.make(["entries": entries])
    }

    // MARK: Maintenance

    /// `GET /admin/stats`: row counts per table and the last purge.
    @Sendable func stats(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try context.requireAdmin().check(.read, global: true)
        return JSONResponse.make(try await state.domain.maintenance.stats())
    }

    /// `POST /admin/purge`: purges now, as the background task does every interval.
    @Sendable func purge(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        try context.requireAdmin().check(.manage, global: true)
        return JSONResponse.make(try await state.domain.maintenance.purge(logger: context.logger))
    }

    // MARK: Admin API keys

    /// `POST /admin/keys` `{"name", "role", "tenant"?}`: the key is in this answer only.
    @Sendable func createKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(AdminKeys.CreateKey.self, from: request)
        return JSONResponse.make(
            try await state.domain.adminKeys.create(input, by: try context.requireAdmin(), logger: context.logger), status: .created)
    }

    @Sendable func listKeys(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(["keys": try await state.domain.adminKeys.list(by: try context.requireAdmin())])
    }

    @Sendable func revokeKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let id = context.parameters.get("key") ?? ""
        try await state.domain.adminKeys.revoke(id, by: try context.requireAdmin(), logger: context.logger)
        return JSONResponse.make(["revoked": id])
    }
}
