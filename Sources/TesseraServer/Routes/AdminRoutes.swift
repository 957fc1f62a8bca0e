import Foundation
import Hummingbird
import TesseraAdminAPI
import TesseraCore
import TesseraDomain
import TesseraStore

/// The admin API under `/admin`, behind the admin bearer token. Each handler decodes,
/// calls one `Administration` method, and encodes; docs/OPERATIONS.md lists the calls.
struct AdminRoutes {
    let state: ServerState

    /// Registers an admin operation with what it needs (`x-tessera-need` and
    /// `x-tessera-global` in the OpenAPI document say the same): before the handler reads
    /// anything, a tenant outside the caller's scope is a 404 (so another tenant's objects
    /// are as unknown as missing ones), the operators' tenant is a 403 to all but a global
    /// admin, and a role that does not allow `need` is a 403. The handler gets the use
    /// cases as that caller.
    func route(
        _ group: RouterGroup<TesseraRequestContext>, _ method: HTTPRequest.Method, _ path: RouterPath, _ need: AdminCaller.Need,
        global: Bool = false, _ handler: @escaping @Sendable (Request, TesseraRequestContext, Administration) async throws -> Response
    ) {
        let domain = state.domain
        group.on(path, method: method) { request, context in
            let caller = try context.requireAdmin()
            try caller.check(need, global: global, tenant: context.tenant)
            return try await handler(request, context, domain.administration(as: caller))
        }
    }

    func register(on router: Router<TesseraRequestContext>) {
        let admin = router.group("admin").add(middleware: AdminAuthentication(state: state))
        route(admin, .post, "tenants", .manage, global: true, createTenant)
        route(admin, .get, "tenants", .read, listTenants)
        let tenant = admin.group("tenants/:tenant").add(middleware: TenantResolution(domain: state.domain))
        route(tenant, .post, "signing-keys", .manage, rotateSigningKey)
        route(tenant, .get, "signing-keys", .read, listSigningKeys)
        route(tenant, .post, "signing-keys/:kid/activate", .manage, activateSigningKey)
        route(tenant, .delete, "signing-keys/:kid", .manage, retireSigningKey)
        route(tenant, .get, "", .read, getTenant)
        route(tenant, .patch, "", .manage, updateTenant)
        route(tenant, .delete, "", .manage, global: true, deleteTenant)
        route(tenant, .post, "services", .manage, createService)
        route(tenant, .get, "services", .read, listServices)
        route(tenant, .get, "services/:client", .read, getService)
        route(tenant, .patch, "services/:client", .manage, updateService)
        route(tenant, .delete, "services/:client", .manage, deleteService)
        route(tenant, .post, "services/:client/secret", .manage, rotateSecret)
        route(tenant, .post, "users", .manage, createUser)
        route(tenant, .get, "users", .read, listUsers)
        route(tenant, .get, "users/:user", .read, getUser)
        route(tenant, .patch, "users/:user", .manage, updateUser)
        route(tenant, .delete, "users/:user", .manage, deleteUser)
        route(tenant, .post, "users/:user/disable", .manage, disableUser)
        route(tenant, .post, "users/:user/enable", .manage, enableUser)
        route(tenant, .get, "users/:user/sessions", .read, listSessions)
        route(tenant, .delete, "users/:user/sessions", .support, endUserSessions)
        route(tenant, .delete, "sessions/:session", .support, endSession)
        route(tenant, .get, "users/:user/security-keys", .read, listSecurityKeys)
        route(tenant, .delete, "users/:user/security-keys/:key", .support, removeSecurityKey)
        route(tenant, .post, "registration-tokens", .manage, createRegistrationToken)
        route(tenant, .get, "registration-tokens", .read, listRegistrationTokens)
        route(tenant, .delete, "registration-tokens/:token", .manage, revokeRegistrationToken)
        route(tenant, .post, "identity-providers", .manage, addIdentityProvider)
        route(tenant, .get, "identity-providers", .read, listIdentityProviders)
        route(tenant, .delete, "identity-providers/:provider", .manage, removeIdentityProvider)
        route(tenant, .post, "invitations", .support, invite)
        route(tenant, .get, "invitations", .read, listInvitations)
        route(tenant, .delete, "invitations/:invitation", .support, revokeInvitation)
        route(tenant, .get, "activations", .read, listActivations)
        route(tenant, .get, "history", .read, history)
        route(admin, .post, "activations/:activation/unlock", .support, unlock)
        route(admin, .post, "activations/:activation/revoke", .support, revoke)
        route(admin, .get, "audit", .read, audit)
        route(admin, .get, "stats", .read, global: true, stats)
        route(admin, .post, "purge", .manage, global: true, purge)
        route(admin, .post, "keys", .manage, createKey)
        route(admin, .get, "keys", .manage, listKeys)
        route(admin, .delete, "keys/:key", .manage, revokeKey)
        route(admin, .post, "console-users", .manage, global: true, addConsoleUser)
    }

    // MARK: Registration tokens (RFC 7591 initial access tokens)

    @Sendable func createRegistrationToken(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.optionalJSON(Components.Schemas.CreateRegistrationToken.self, from: request)
        let view = try await administration.createRegistrationToken(
            input ?? .init(), tenant: try context.requireTenant(), logger: context.logger)
        var response = JSONResponse.make(view, status: .created)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    @Sendable func listRegistrationTokens(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(["tokens": try await administration.listRegistrationTokens(tenant: try context.requireTenant())])
    }

    @Sendable func revokeRegistrationToken(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let id = context.parameters.get("token") ?? ""
        try await administration.revokeRegistrationToken(id: id, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["revoked": id])
    }

    // MARK: Identity providers (federation)

    /// `POST /admin/tenants/{tenant}/identity-providers`: an external OpenID provider the
    /// tenant's users may sign in with; its discovery document is read first.
    @Sendable func addIdentityProvider(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.json(Components.Schemas.CreateIdentityProvider.self, from: request)
        let view = try await administration.addIdentityProvider(
            input, tenant: try context.requireTenant(), http: Outbound(state.domain), logger: context.logger)
        return JSONResponse.make(view, status: .created)
    }

    @Sendable func listIdentityProviders(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(["providers": try await administration.identityProviders(tenant: try context.requireTenant())])
    }

    @Sendable func removeIdentityProvider(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let name = context.parameters.get("provider") ?? ""
        try await administration.removeIdentityProvider(name: name, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["removed": name])
    }

    // MARK: Console operators

    /// `POST /admin/console-users`: an operator of the web console, and its device's invitation.
    @Sendable func addConsoleUser(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.json(WebSessions.AddOperator.self, from: request)
        let invitation = try await state.domain.webSessions.addOperator(
            username: input.username, role: input.role ?? .admin, scope: input.tenant, by: administration.caller, logger: context.logger)
        return JSONResponse.make(invitation, status: .created)
    }

    // MARK: Tenants

    @Sendable func createTenant(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.json(TenantCreation.self, from: request)
        return JSONResponse.make(try await administration.createTenant(input, logger: context.logger), status: .created)
    }

    @Sendable func listTenants(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(["tenants": try await administration.listTenants()])
    }

    /// `GET /admin/tenants/{tenant}`: its settings.
    @Sendable func getTenant(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(try await administration.getTenant(try context.requireTenant()))
    }

    /// `PATCH /admin/tenants/{tenant}`: changes the settings the body names.
    @Sendable func updateTenant(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.json(TenantChanges.self, from: request)
        return JSONResponse.make(try await administration.updateTenant(input, tenant: try context.requireTenant(), logger: context.logger))
    }

    /// `DELETE /admin/tenants/{tenant}[?force=true]`: refused while it has users unless forced.
    @Sendable func deleteTenant(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let force = try RequestDecoding.flag("force", in: RequestDecoding.query(request))
        let tenant = try context.requireTenant()
        try await administration.deleteTenant(tenant, force: force, logger: context.logger)
        return JSONResponse.make(["deleted": tenant.name])
    }

    // MARK: Signing keys

    /// `POST /admin/tenants/{tenant}/signing-keys` (body optional, `{"activate": false}` to publish only).
    @Sendable func rotateSigningKey(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.optionalJSON(Components.Schemas.SigningKeyRotation.self, from: request)
        let rotation = try await administration.rotateSigningKey(
            activate: input?.activate ?? true, algorithm: try SigningAlgorithm(input), tenant: try context.requireTenant(),
            logger: context.logger)
        return JSONResponse.make(rotation, status: .created)
    }

    /// `POST /admin/tenants/{tenant}/signing-keys/{kid}/activate`.
    @Sendable func activateSigningKey(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(
            try await administration.activateSigningKey(
                kid: context.parameters.get("kid") ?? "", tenant: try context.requireTenant(), logger: context.logger))
    }

    /// `GET /admin/tenants/{tenant}/signing-keys`: every key the JWKS publishes, oldest first.
    @Sendable func listSigningKeys(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(["keys": try await administration.listSigningKeys(tenant: try context.requireTenant())])
    }

    /// `DELETE /admin/tenants/{tenant}/signing-keys/{kid}`.
    @Sendable func retireSigningKey(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(
            try await administration.retireSigningKey(
                kid: context.parameters.get("kid") ?? "", tenant: try context.requireTenant(), logger: context.logger))
    }

    // MARK: Services, users, invitations

    @Sendable func createService(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.json(Components.Schemas.CreateService.self, from: request)
        let service = try await administration.createService(input, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(service, status: .created)
    }

    @Sendable func listServices(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(["services": try await administration.listServices(tenant: try context.requireTenant())])
    }

    @Sendable func getService(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(try await administration.getService(clientID: context.parameters.id("client"), tenant: try context.requireTenant()))
    }

    @Sendable func updateService(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.json(ServiceChanges.self, from: request)
        return JSONResponse.make(
            try await administration.updateService(
                clientID: context.parameters.id("client"), input, tenant: try context.requireTenant(), logger: context.logger))
    }

    /// `POST …/services/{client_id}/secret`: a new secret, shown once; the old one stops at once
    /// (on the other nodes when they hear of it).
    @Sendable func rotateSecret(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(
            try await administration.rotateSecret(
                clientID: context.parameters.id("client"), tenant: try context.requireTenant(), logger: context.logger))
    }

    @Sendable func deleteService(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let clientID: ClientID = context.parameters.id("client")
        try await administration.deleteService(clientID: clientID, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["deleted": clientID.rawValue])
    }

    @Sendable func createUser(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.json(Components.Schemas.CreateUser.self, from: request)
        let user = try await administration.createUser(input, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(user, status: .created)
    }

    /// `GET …/users?username=U&search=S&attribute=name=value&cursor=C&limit=N`: a page in username order.
    @Sendable func listUsers(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let query = try RequestDecoding.query(request)
        let page = try await administration.listUsers(
            .init(
                username: query["username"], search: query["search"], attribute: query["attribute"], cursor: query["cursor"],
                limit: try RequestDecoding.limit(query, maximum: 1000)),
            tenant: try context.requireTenant())
        return JSONResponse.make(page)
    }

    /// `GET …/users/{id}`: the user with their activations and live sessions.
    @Sendable func getUser(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(try await administration.getUser(context.parameters.id("user"), tenant: try context.requireTenant()))
    }

    /// `PATCH …/users/{id}` `{"attributes": {…}}`: replaces the attributes.
    @Sendable func updateUser(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.json(Components.Schemas.UpdateUser.self, from: request)
        return JSONResponse.make(
            try await administration.updateUser(context.parameters.id("user"), input, tenant: try context.requireTenant(), logger: context.logger))
    }

    @Sendable func disableUser(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(
            try await administration.setDisabled(
                true, user: context.parameters.id("user"), tenant: try context.requireTenant(), logger: context.logger))
    }

    @Sendable func enableUser(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(
            try await administration.setDisabled(
                false, user: context.parameters.id("user"), tenant: try context.requireTenant(), logger: context.logger))
    }

    @Sendable func deleteUser(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let id: UserID = context.parameters.id("user")
        try await administration.deleteUser(id, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["deleted": id.rawValue])
    }

    // MARK: Sessions

    @Sendable func listSessions(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(
            ["sessions": try await administration.listSessions(user: context.parameters.id("user"), tenant: try context.requireTenant())])
    }

    /// `DELETE …/users/{id}/sessions`: ends every session of the user.
    @Sendable func endUserSessions(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let ended = try await administration.endSessions(
            user: context.parameters.id("user"), tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["ended": ended])
    }

    /// `DELETE …/sessions/{sid}`: ends one session.
    @Sendable func endSession(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        try await administration.endSession(context.parameters.id("session"), tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["ended": 1])
    }

    // MARK: Security keys

    /// `GET …/users/{id}/security-keys`: the user's security keys and passkeys.
    @Sendable func listSecurityKeys(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(
            ["security_keys": try await administration.listSecurityKeys(
                user: context.parameters.id("user"), tenant: try context.requireTenant())])
    }

    /// `DELETE …/users/{id}/security-keys/{key}`: removes one; its sessions end.
    @Sendable func removeSecurityKey(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let id: SecurityKeyID = context.parameters.id("key")
        try await administration.removeSecurityKey(
            id, user: context.parameters.id("user"), tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["removed": id.rawValue])
    }

    @Sendable func invite(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.json(Components.Schemas.CreateInvitation.self, from: request)
        let invitation = try await administration.invite(input, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(invitation, status: .created)
    }

    @Sendable func listInvitations(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(["invitations": try await administration.listInvitations(tenant: try context.requireTenant())])
    }

    @Sendable func revokeInvitation(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let id = context.parameters.get("invitation") ?? ""
        try await administration.revokeInvitation(id, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(["revoked": id])
    }

    // MARK: Activations, history and audit

    /// `GET …/history?username=U&activation=A&service=S&outcome=O&since=T&until=T&cursor=C&limit=N`: newest first.
    @Sendable func history(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let query = try RequestDecoding.query(request)
        let page = try await administration.history(
            .init(
                username: query["username"], activationID: query["activation"].map(ActivationID.init), service: query["service"],
                outcome: query["outcome"], since: try RequestDecoding.epoch("since", in: query), until: try RequestDecoding.epoch("until", in: query),
                cursor: query["cursor"], limit: try RequestDecoding.limit(query, maximum: 1000)),
            tenant: try context.requireTenant())
        return JSONResponse.make(page)
    }

    /// `GET /admin/tenants/{tenant}/activations[?username=U]`.
    @Sendable func listActivations(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let query = try RequestDecoding.query(request)
        let views = try await administration.listActivations(username: query["username"], tenant: try context.requireTenant())
        return JSONResponse.make(["activations": views])
    }

    @Sendable func unlock(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(try await administration.unlock(activationID: context.parameters.id("activation"), logger: context.logger))
    }

    /// Removes an activation and its keys: its proofs and tokens are refused from now on.
    @Sendable func revoke(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(try await administration.revoke(activationID: context.parameters.id("activation"), logger: context.logger))
    }

    /// `GET /admin/audit?tenant=T&since=EPOCH&limit=N`: newest first.
    @Sendable func audit(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let query = try RequestDecoding.query(request)
        var tenant: TenantRecord?
        if let name = query["tenant"] { tenant = try await state.domain.tenant(named: name) }
        let limit = try RequestDecoding.limit(query, maximum: 1000)
        let since = try RequestDecoding.epoch("since", in: query)
        let entries = try await administration.audit(
            tenant: tenant, since: since, action: query["action"], actor: query["actor"], limit: limit)
        return JSONResponse.make(["entries": entries])
    }

    // MARK: Maintenance

    /// `GET /admin/stats`: row counts per table and the last purge.
    @Sendable func stats(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        return JSONResponse.make(try await state.domain.maintenance.stats())
    }

    /// `POST /admin/purge`: purges now, as the background task does every interval.
    @Sendable func purge(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        return JSONResponse.make(try await state.domain.maintenance.purge(logger: context.logger))
    }

    // MARK: Admin API keys

    /// `POST /admin/keys` `{"name", "role", "tenant"?}`: the key is in this answer only.
    @Sendable func createKey(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let input = try await RequestDecoding.json(Components.Schemas.CreateAdminKey.self, from: request)
        return JSONResponse.make(
            try await state.domain.adminKeys.create(input, by: administration.caller, logger: context.logger), status: .created)
    }

    @Sendable func listKeys(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        JSONResponse.make(["keys": try await state.domain.adminKeys.list(by: administration.caller)])
    }

    @Sendable func revokeKey(_ request: Request, context: TesseraRequestContext, administration: Administration) async throws -> Response {
        let id = context.parameters.get("key") ?? ""
        try await state.domain.adminKeys.revoke(id, by: administration.caller, logger: context.logger)
        return JSONResponse.make(["revoked": id])
    }
}
