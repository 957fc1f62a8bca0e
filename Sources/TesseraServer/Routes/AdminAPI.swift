import Foundation
import Hummingbird
import OpenAPIHummingbird
import OpenAPIRuntime
import TesseraAdminAPI
import TesseraCore
import TesseraDomain
import TesseraRecords

/// The admin API under `/admin`: the handlers of the server protocol generated from
/// `openapi.yaml`, which also registers the routes, decodes the requests and encodes the
/// answers. Each handler calls one use case as the caller `AdminAccess` checked, on the
/// tenant it resolved; docs/OPERATIONS.md lists the calls.
struct AdminAPI: APIProtocol {
    let state: ServerState

    private var domain: Domain { state.domain }

    /// Registers every admin operation of the document behind the admin bearer token.
    static func register(on router: Router<TesseraRequestContext>, state: ServerState) throws {
        let admin = router.group().add(middleware: AdminAuthentication(state: state))
        try AdminAPI(state: state).registerHandlers(
            on: admin,
            configuration: .init(jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes]),
            middlewares: [AdminAccess(domain: state.domain, requirements: ServedDocument.adminRequirements)])
    }

    /// The use cases as the caller, and the call (tenant and logger).
    private func call() throws -> (Administration, AdminCall) {
        let call = try AdminCall.required()
        return (domain.administration(as: call.caller), call)
    }

    // MARK: Tenants

    func createTenant(_ input: Operations.CreateTenant.Input) async throws -> Operations.CreateTenant.Output {
        let (administration, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .created(.init(body: .json(try await administration.createTenant(body, logger: call.logger))))
    }

    func listTenants(_ input: Operations.ListTenants.Input) async throws -> Operations.ListTenants.Output {
        let (administration, _) = try call()
        return .ok(.init(body: .json(.init(tenants: try await administration.listTenants()))))
    }

    func getTenant(_ input: Operations.GetTenant.Input) async throws -> Operations.GetTenant.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(try await administration.getTenant(try call.requireTenant()))))
    }

    /// Changes the settings the body names.
    func updateTenant(_ input: Operations.UpdateTenant.Input) async throws -> Operations.UpdateTenant.Output {
        let (administration, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .ok(.init(body: .json(try await administration.updateTenant(body, tenant: try call.requireTenant(), logger: call.logger))))
    }

    /// The logo's bytes, as the request's media type says (PNG or SVG).
    func putTenantLogo(_ input: Operations.PutTenantLogo.Input) async throws -> Operations.PutTenantLogo.Output {
        let (administration, call) = try call()
        let (type, body): (String, HTTPBody) =
            switch input.body {
            case .png(let body): ("image/png", body)
            case .imageSvgXml(let body): ("image/svg+xml", body)
            }
        let bytes = try await Data(collecting: body, upTo: TenantLogoRecord.maximumSize)
        return .ok(.init(body: .json(try await administration.putLogo(bytes, contentType: type, tenant: try call.requireTenant(), logger: call.logger))))
    }

    func deleteTenantLogo(_ input: Operations.DeleteTenantLogo.Input) async throws -> Operations.DeleteTenantLogo.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(try await administration.deleteLogo(tenant: try call.requireTenant(), logger: call.logger))))
    }

    /// Refused while the tenant has users, unless forced.
    func deleteTenant(_ input: Operations.DeleteTenant.Input) async throws -> Operations.DeleteTenant.Output {
        let (administration, call) = try call()
        let tenant = try call.requireTenant()
        try await administration.deleteTenant(tenant, force: input.query.force ?? false, logger: call.logger)
        return .ok(.init(body: .json(.init(deleted: tenant.name))))
    }

    // MARK: Signing keys

    /// A new key (body optional; `{"activate": false}` publishes it only).
    func rotateSigningKey(_ input: Operations.RotateSigningKey.Input) async throws -> Operations.RotateSigningKey.Output {
        let (administration, call) = try call()
        let body: Components.Schemas.SigningKeyRotation? = if case .json(let body) = input.body { body } else { nil }
        let rotation = try await administration.rotateSigningKey(
            activate: body?.activate ?? true, algorithm: try SigningAlgorithm(body), tenant: try call.requireTenant(), logger: call.logger)
        return .created(.init(body: .json(rotation)))
    }

    func activateSigningKey(_ input: Operations.ActivateSigningKey.Input) async throws -> Operations.ActivateSigningKey.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(
            try await administration.activateSigningKey(kid: input.path.kid, tenant: try call.requireTenant(), logger: call.logger))))
    }

    /// Every key the JWKS publishes, oldest first.
    func listSigningKeys(_ input: Operations.ListSigningKeys.Input) async throws -> Operations.ListSigningKeys.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(.init(keys: try await administration.listSigningKeys(tenant: try call.requireTenant())))))
    }

    func retireSigningKey(_ input: Operations.RetireSigningKey.Input) async throws -> Operations.RetireSigningKey.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(
            try await administration.retireSigningKey(kid: input.path.kid, tenant: try call.requireTenant(), logger: call.logger))))
    }

    // MARK: Services

    func createService(_ input: Operations.CreateService.Input) async throws -> Operations.CreateService.Output {
        let (administration, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .created(.init(body: .json(try await administration.createService(body, tenant: try call.requireTenant(), logger: call.logger))))
    }

    func listServices(_ input: Operations.ListServices.Input) async throws -> Operations.ListServices.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(.init(services: try await administration.listServices(tenant: try call.requireTenant())))))
    }

    func getService(_ input: Operations.GetService.Input) async throws -> Operations.GetService.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(
            try await administration.getService(clientID: ClientID(rawValue: input.path.client), tenant: try call.requireTenant()))))
    }

    func updateService(_ input: Operations.UpdateService.Input) async throws -> Operations.UpdateService.Output {
        let (administration, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .ok(.init(body: .json(
            try await administration.updateService(
                clientID: ClientID(rawValue: input.path.client), body, tenant: try call.requireTenant(), logger: call.logger))))
    }

    /// A new secret, shown once; the old one stops at once (on the other nodes when they hear of it).
    func rotateServiceSecret(_ input: Operations.RotateServiceSecret.Input) async throws -> Operations.RotateServiceSecret.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(
            try await administration.rotateSecret(
                clientID: ClientID(rawValue: input.path.client), tenant: try call.requireTenant(), logger: call.logger))))
    }

    func deleteService(_ input: Operations.DeleteService.Input) async throws -> Operations.DeleteService.Output {
        let (administration, call) = try call()
        try await administration.deleteService(clientID: ClientID(rawValue: input.path.client), tenant: try call.requireTenant(), logger: call.logger)
        return .ok(.init(body: .json(.init(deleted: input.path.client))))
    }

    // MARK: Users

    func createUser(_ input: Operations.CreateUser.Input) async throws -> Operations.CreateUser.Output {
        let (administration, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .created(.init(body: .json(try await administration.createUser(body, tenant: try call.requireTenant(), logger: call.logger))))
    }

    /// A page in username order.
    func listUsers(_ input: Operations.ListUsers.Input) async throws -> Operations.ListUsers.Output {
        let (administration, call) = try call()
        let query = input.query
        let page = try await administration.listUsers(
            .init(
                username: query.username, search: query.search, attribute: query.attribute, cursor: query.cursor,
                limit: try RequestDecoding.limit(query.limit, maximum: 1000)),
            tenant: try call.requireTenant())
        return .ok(.init(body: .json(page)))
    }

    /// The user with their activations and live sessions.
    func getUser(_ input: Operations.GetUser.Input) async throws -> Operations.GetUser.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(try await administration.getUser(UserID(rawValue: input.path.user), tenant: try call.requireTenant()))))
    }

    /// Replaces the attributes.
    func updateUser(_ input: Operations.UpdateUser.Input) async throws -> Operations.UpdateUser.Output {
        let (administration, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .ok(.init(body: .json(
            try await administration.updateUser(UserID(rawValue: input.path.user), body, tenant: try call.requireTenant(), logger: call.logger))))
    }

    func disableUser(_ input: Operations.DisableUser.Input) async throws -> Operations.DisableUser.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(
            try await administration.setDisabled(true, user: UserID(rawValue: input.path.user), tenant: try call.requireTenant(), logger: call.logger))))
    }

    func enableUser(_ input: Operations.EnableUser.Input) async throws -> Operations.EnableUser.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(
            try await administration.setDisabled(false, user: UserID(rawValue: input.path.user), tenant: try call.requireTenant(), logger: call.logger))))
    }

    func deleteUser(_ input: Operations.DeleteUser.Input) async throws -> Operations.DeleteUser.Output {
        let (administration, call) = try call()
        try await administration.deleteUser(UserID(rawValue: input.path.user), tenant: try call.requireTenant(), logger: call.logger)
        return .ok(.init(body: .json(.init(deleted: input.path.user))))
    }

    // MARK: Sessions and security keys

    func listUserSessions(_ input: Operations.ListUserSessions.Input) async throws -> Operations.ListUserSessions.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(.init(
            sessions: try await administration.listSessions(user: UserID(rawValue: input.path.user), tenant: try call.requireTenant())))))
    }

    /// Ends every session of the user.
    func endUserSessions(_ input: Operations.EndUserSessions.Input) async throws -> Operations.EndUserSessions.Output {
        let (administration, call) = try call()
        let ended = try await administration.endSessions(user: UserID(rawValue: input.path.user), tenant: try call.requireTenant(), logger: call.logger)
        return .ok(.init(body: .json(.init(ended: ended))))
    }

    func endSession(_ input: Operations.EndSession.Input) async throws -> Operations.EndSession.Output {
        let (administration, call) = try call()
        try await administration.endSession(SessionID(rawValue: input.path.session), tenant: try call.requireTenant(), logger: call.logger)
        return .ok(.init(body: .json(.init(ended: 1))))
    }

    /// The user's security keys and passkeys.
    func listSecurityKeys(_ input: Operations.ListSecurityKeys.Input) async throws -> Operations.ListSecurityKeys.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(.init(
            securityKeys: try await administration.listSecurityKeys(user: UserID(rawValue: input.path.user), tenant: try call.requireTenant())))))
    }

    /// Removes one; its sessions end.
    func removeSecurityKey(_ input: Operations.RemoveSecurityKey.Input) async throws -> Operations.RemoveSecurityKey.Output {
        let (administration, call) = try call()
        try await administration.removeSecurityKey(
            SecurityKeyID(rawValue: input.path.key), user: UserID(rawValue: input.path.user), tenant: try call.requireTenant(), logger: call.logger)
        return .ok(.init(body: .json(.init(removed: input.path.key))))
    }

    // MARK: Registration tokens (RFC 7591 initial access tokens)

    func createRegistrationToken(_ input: Operations.CreateRegistrationToken.Input) async throws -> Operations.CreateRegistrationToken.Output {
        let (administration, call) = try call()
        let body: Components.Schemas.CreateRegistrationToken? = if case .json(let body) = input.body { body } else { nil }
        return .created(.init(body: .json(
            try await administration.createRegistrationToken(body ?? .init(), tenant: try call.requireTenant(), logger: call.logger))))
    }

    func listRegistrationTokens(_ input: Operations.ListRegistrationTokens.Input) async throws -> Operations.ListRegistrationTokens.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(.init(tokens: try await administration.listRegistrationTokens(tenant: try call.requireTenant())))))
    }

    func revokeRegistrationToken(_ input: Operations.RevokeRegistrationToken.Input) async throws -> Operations.RevokeRegistrationToken.Output {
        let (administration, call) = try call()
        try await administration.revokeRegistrationToken(id: input.path.token, tenant: try call.requireTenant(), logger: call.logger)
        return .ok(.init(body: .json(.init(revoked: input.path.token))))
    }

    func listRecoveries(_ input: Operations.ListRecoveries.Input) async throws -> Operations.ListRecoveries.Output {
        let (_, call) = try call()
        let recoveries = try await state.domain.recovery.list(userID: UserID(input.path.user), tenant: try call.requireTenant())
        return .ok(.init(body: .json(.init(recoveries: recoveries.map(Components.Schemas.Recovery.init)))))
    }

    func approveRecovery(_ input: Operations.ApproveRecovery.Input) async throws -> Operations.ApproveRecovery.Output {
        let (_, call) = try call()
        let recovery = try await state.domain.recovery.approve(
            input.path.recovery, userID: UserID(input.path.user), tenant: try call.requireTenant(), caller: call.caller, logger: call.logger)
        return .ok(.init(body: .json(.init(recovery))))
    }

    func importUsers(_ input: Operations.ImportUsers.Input) async throws -> Operations.ImportUsers.Output {
        let (administration, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .ok(.init(body: .json(try await administration.importUsers(body.users, tenant: try call.requireTenant(), logger: call.logger))))
    }

    // MARK: Configuration as code

    func exportConfiguration(_ input: Operations.ExportConfiguration.Input) async throws -> Operations.ExportConfiguration.Output {
        let (administration, _) = try call()
        return .ok(.init(body: .json(try await administration.exportConfiguration(tenant: input.query.tenant))))
    }

    func applyConfiguration(_ input: Operations.ApplyConfiguration.Input) async throws -> Operations.ApplyConfiguration.Output {
        let (administration, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .ok(.init(body: .json(
            try await administration.applyConfiguration(
                body, dryRun: input.query.dryRun ?? false, prune: input.query.prune ?? false, http: Outbound(state.domain), logger: call.logger))))
    }

    // MARK: Groups (provisioned over SCIM)

    func listGroups(_ input: Operations.ListGroups.Input) async throws -> Operations.ListGroups.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(.init(groups: try await administration.groups(tenant: try call.requireTenant())))))
    }

    func getGroup(_ input: Operations.GetGroup.Input) async throws -> Operations.GetGroup.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(try await administration.group(input.path.group, tenant: try call.requireTenant()))))
    }

    // MARK: Identity providers (federation)

    /// An external OpenID provider the tenant's users may sign in with; its discovery document is read first.
    func addIdentityProvider(_ input: Operations.AddIdentityProvider.Input) async throws -> Operations.AddIdentityProvider.Output {
        let (administration, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .created(.init(body: .json(
            try await administration.addIdentityProvider(
                body, tenant: try call.requireTenant(), http: Outbound(state.domain), logger: call.logger))))
    }

    func listIdentityProviders(_ input: Operations.ListIdentityProviders.Input) async throws -> Operations.ListIdentityProviders.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(.init(providers: try await administration.identityProviders(tenant: try call.requireTenant())))))
    }

    func removeIdentityProvider(_ input: Operations.RemoveIdentityProvider.Input) async throws -> Operations.RemoveIdentityProvider.Output {
        let (administration, call) = try call()
        try await administration.removeIdentityProvider(name: input.path.provider, tenant: try call.requireTenant(), logger: call.logger)
        return .ok(.init(body: .json(.init(removed: input.path.provider))))
    }

    // MARK: Invitations, activations, history and audit

    func invite(_ input: Operations.Invite.Input) async throws -> Operations.Invite.Output {
        let (administration, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .created(.init(body: .json(try await administration.invite(body, tenant: try call.requireTenant(), logger: call.logger))))
    }

    func listInvitations(_ input: Operations.ListInvitations.Input) async throws -> Operations.ListInvitations.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(.init(invitations: try await administration.listInvitations(tenant: try call.requireTenant())))))
    }

    func revokeInvitation(_ input: Operations.RevokeInvitation.Input) async throws -> Operations.RevokeInvitation.Output {
        let (administration, call) = try call()
        try await administration.revokeInvitation(input.path.invitation, tenant: try call.requireTenant(), logger: call.logger)
        return .ok(.init(body: .json(.init(revoked: input.path.invitation))))
    }

    func listActivations(_ input: Operations.ListActivations.Input) async throws -> Operations.ListActivations.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(.init(
            activations: try await administration.listActivations(username: input.query.username, tenant: try call.requireTenant())))))
    }

    /// Newest first.
    func listHistory(_ input: Operations.ListHistory.Input) async throws -> Operations.ListHistory.Output {
        let (administration, call) = try call()
        let query = input.query
        let page = try await administration.history(
            .init(
                username: query.username, activationID: query.activation.map(ActivationID.init), service: query.service,
                outcome: query.outcome?.rawValue, since: try RequestDecoding.epoch("since", query.since), until: try RequestDecoding.epoch("until", query.until),
                cursor: query.cursor, limit: try RequestDecoding.limit(query.limit, maximum: 1000)),
            tenant: try call.requireTenant())
        return .ok(.init(body: .json(page)))
    }

    func unlockActivation(_ input: Operations.UnlockActivation.Input) async throws -> Operations.UnlockActivation.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(try await administration.unlock(activationID: ActivationID(rawValue: input.path.activation), logger: call.logger))))
    }

    /// Removes an activation and its keys: its proofs and tokens are refused from now on.
    func revokeActivation(_ input: Operations.RevokeActivation.Input) async throws -> Operations.RevokeActivation.Output {
        let (administration, call) = try call()
        return .ok(.init(body: .json(try await administration.revoke(activationID: ActivationID(rawValue: input.path.activation), logger: call.logger))))
    }

    /// Newest first.
    func listAudit(_ input: Operations.ListAudit.Input) async throws -> Operations.ListAudit.Output {
        let (administration, _) = try call()
        let query = input.query
        let tenant = try await namedTenant(query.tenant)
        let entries = try await administration.audit(
            tenant: tenant, since: try RequestDecoding.epoch("since", query.since), action: query.action, actor: query.actor, limit: try RequestDecoding.limit(query.limit, maximum: 1000))
        return .ok(.init(body: .json(.init(entries: entries))))
    }

    /// Oldest first, in commit order, from the cursor on.
    func auditFeed(_ input: Operations.AuditFeed.Input) async throws -> Operations.AuditFeed.Output {
        let (administration, _) = try call()
        let query = input.query
        let tenant = try await namedTenant(query.tenant)
        return .ok(.init(body: .json(try await administration.auditFeed(
            tenant: tenant, cursor: query.cursor, limit: try RequestDecoding.limit(query.limit, maximum: 1000)))))
    }

    /// Oldest first, in commit order, from the cursor on.
    func historyFeed(_ input: Operations.HistoryFeed.Input) async throws -> Operations.HistoryFeed.Output {
        let (administration, _) = try call()
        let query = input.query
        let tenant = try await namedTenant(query.tenant)
        return .ok(.init(body: .json(try await administration.historyFeed(
            tenant: tenant, cursor: query.cursor, limit: try RequestDecoding.limit(query.limit, maximum: 1000)))))
    }

    /// The tenant a `tenant` query parameter names, if any.
    private func namedTenant(_ name: String?) async throws -> TenantRecord? {
        guard let name else { return nil }
        return try await domain.tenant(named: name)
    }

    // MARK: Webhooks

    /// The secret is in this answer only.
    func createWebhook(_ input: Operations.CreateWebhook.Input) async throws -> Operations.CreateWebhook.Output {
        let (_, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .created(.init(body: .json(try await domain.webhooks(as: call.caller).create(body, logger: call.logger))))
    }

    func listWebhooks(_ input: Operations.ListWebhooks.Input) async throws -> Operations.ListWebhooks.Output {
        let (_, call) = try call()
        return .ok(.init(body: .json(try await domain.webhooks(as: call.caller).list())))
    }

    func getWebhook(_ input: Operations.GetWebhook.Input) async throws -> Operations.GetWebhook.Output {
        let (_, call) = try call()
        return .ok(.init(body: .json(try await domain.webhooks(as: call.caller).get(input.path.webhook))))
    }

    func deleteWebhook(_ input: Operations.DeleteWebhook.Input) async throws -> Operations.DeleteWebhook.Output {
        let (_, call) = try call()
        try await domain.webhooks(as: call.caller).remove(input.path.webhook, logger: call.logger)
        return .ok(.init(body: .json(.init(removed: input.path.webhook))))
    }

    /// The new secret is in this answer only.
    func rotateWebhookSecret(_ input: Operations.RotateWebhookSecret.Input) async throws -> Operations.RotateWebhookSecret.Output {
        let (_, call) = try call()
        return .ok(.init(body: .json(try await domain.webhooks(as: call.caller).rotate(input.path.webhook, logger: call.logger))))
    }

    func testWebhook(_ input: Operations.TestWebhook.Input) async throws -> Operations.TestWebhook.Output {
        let (_, call) = try call()
        return .ok(.init(body: .json(try await domain.webhooks(as: call.caller).test(input.path.webhook))))
    }

    func enableWebhook(_ input: Operations.EnableWebhook.Input) async throws -> Operations.EnableWebhook.Output {
        let (_, call) = try call()
        return .ok(.init(body: .json(try await domain.webhooks(as: call.caller).enable(input.path.webhook, logger: call.logger))))
    }

    /// Newest first.
    func listWebhookDeliveries(_ input: Operations.ListWebhookDeliveries.Input) async throws -> Operations.ListWebhookDeliveries.Output {
        let (_, call) = try call()
        return .ok(.init(body: .json(try await domain.webhooks(as: call.caller).deliveries(
            input.path.webhook, limit: try RequestDecoding.limit(input.query.limit, maximum: 1000)))))
    }

    // MARK: Maintenance

    /// Row counts per table and the last purge.
    func getStats(_ input: Operations.GetStats.Input) async throws -> Operations.GetStats.Output {
        .ok(.init(body: .json(try await domain.maintenance.stats())))
    }

    /// Purges now, as the background task does every interval.
    func purge(_ input: Operations.Purge.Input) async throws -> Operations.Purge.Output {
        let (_, call) = try call()
        return .ok(.init(body: .json(try await domain.maintenance.purge(logger: call.logger))))
    }

    // MARK: Admin API keys and console operators

    /// The key is in this answer only.
    func createAdminKey(_ input: Operations.CreateAdminKey.Input) async throws -> Operations.CreateAdminKey.Output {
        let (_, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .created(.init(body: .json(try await domain.adminKeys.create(body, by: call.caller, logger: call.logger))))
    }

    func listAdminKeys(_ input: Operations.ListAdminKeys.Input) async throws -> Operations.ListAdminKeys.Output {
        let (_, call) = try call()
        return .ok(.init(body: .json(.init(keys: try await domain.adminKeys.list(by: call.caller)))))
    }

    func revokeAdminKey(_ input: Operations.RevokeAdminKey.Input) async throws -> Operations.RevokeAdminKey.Output {
        let (_, call) = try call()
        try await domain.adminKeys.revoke(input.path.key, by: call.caller, logger: call.logger)
        return .ok(.init(body: .json(.init(revoked: input.path.key))))
    }

    /// An operator of the web console, and its device's invitation.
    func addConsoleUser(_ input: Operations.AddConsoleUser.Input) async throws -> Operations.AddConsoleUser.Output {
        let (_, call) = try call()
        let body = switch input.body { case .json(let body): body }
        return .created(.init(body: .json(try await domain.webSessions.addOperator(body, by: call.caller, logger: call.logger))))
    }
}

extension Components.Schemas.Recovery {
    /// A recovery as the admin API shows it: never its handle.
    init(_ recovery: RecoveryRecord) {
        self.init(
            id: recovery.id, userId: recovery.userID.rawValue, status: .init(rawValue: recovery.status) ?? .used,
            createdAt: Double(recovery.createdAt), expiresAt: Double(recovery.expiresAt), approvedAt: recovery.approvedAt.map(Double.init),
            approvedBy: recovery.approvedBy)
    }
}
