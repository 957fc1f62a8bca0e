import Foundation
import Hummingbird
import TesseraCore
import TesseraDomain
import TesseraStore

/// The admin API under `/admin`, behind the admin bearer token. Each handler decodes,
/// calls one `Administration` method, and encodes; docs/OPERATIONS.md lists the calls.
struct AdminRoutes {
    let state: ServerState
    var administration: Administration { state.domain.administration }

    func register(on router: Router<TesseraRequestContext>) {
        let admin = router.group("admin").add(middleware: AdminAuthentication(state: state))
        admin.post("tenants", use: createTenant)
        admin.get("tenants", use: listTenants)
        let tenant = admin.group("tenants/:tenant").add(middleware: TenantResolution(domain: state.domain))
        tenant.post("signing-keys", use: rotateSigningKey)
        tenant.get("signing-keys", use: listSigningKeys)
        tenant.post("signing-keys/:kid/activate", use: activateSigningKey)
        tenant.delete("signing-keys/:kid", use: retireSigningKey)
        tenant.post("services", use: createService)
        tenant.get("services", use: listServices)
        tenant.post("users", use: createUser)
        tenant.post("invitations", use: invite)
        tenant.get("activations", use: listActivations)
        admin.post("activations/:activation/unlock", use: unlock)
        admin.post("activations/:activation/revoke", use: revoke)
        admin.get("audit", use: audit)
        admin.get("stats", use: stats)
        admin.post("purge", use: purge)
    }

    // MARK: Tenants

    @Sendable func createTenant(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.CreateTenant.self, from: request)
        return JSONResponse.make(try await administration.createTenant(input, logger: context.logger), status: .created)
    }

    @Sendable func listTenants(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(["tenants": try await administration.listTenants()])
    }

    // MARK: Signing keys

    /// `POST /admin/tenants/{tenant}/signing-keys` (body optional, `{"activate": false}` to publish only).
    @Sendable func rotateSigningKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let activate = try await RequestDecoding.optionalJSON(Administration.RotationRequest.self, from: request)?.activate ?? true
        let rotation = try await administration.rotateSigningKey(activate: activate, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(rotation, status: .created)
    }

    /// `POST /admin/tenants/{tenant}/signing-keys/{kid}/activate`.
    @Sendable func activateSigningKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(
            try await administration.activateSigningKey(
                kid: context.parameters.get("kid") ?? "", tenant: try context.requireTenant(), logger: context.logger))
    }

    /// `GET /admin/tenants/{tenant}/signing-keys`: every key the JWKS publishes, oldest first.
    @Sendable func listSigningKeys(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(["keys": try await administration.listSigningKeys(tenant: try context.requireTenant())])
    }

    /// `DELETE /admin/tenants/{tenant}/signing-keys/{kid}`.
    @Sendable func retireSigningKey(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(
            try await administration.retireSigningKey(
                kid: context.parameters.get("kid") ?? "", tenant: try context.requireTenant(), logger: context.logger))
    }

    // MARK: Services, users, invitations

    @Sendable func createService(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.CreateService.self, from: request)
        let service = try await administration.createService(input, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(service, status: .created)
    }

    @Sendable func listServices(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(["services": try await administration.listServices(tenant: try context.requireTenant())])
    }

    @Sendable func createUser(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.CreateUser.self, from: request)
        let user = try await administration.createUser(input, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(user, status: .created)
    }

    @Sendable func invite(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let input = try await RequestDecoding.json(Administration.CreateInvitation.self, from: request)
        let invitation = try await administration.invite(input, tenant: try context.requireTenant(), logger: context.logger)
        return JSONResponse.make(invitation, status: .created)
    }

    // MARK: Activations and audit

    /// `GET /admin/tenants/{tenant}/activations[?username=U]`.
    @Sendable func listActivations(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let query = try RequestDecoding.query(request)
        let views = try await administration.listActivations(username: query["username"], tenant: try context.requireTenant())
        return JSONResponse.make(["activations": views])
    }

    @Sendable func unlock(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(try await administration.unlock(activationID: context.parameters.id("activation"), logger: context.logger))
    }

    /// Removes an activation and its keys: its proofs and tokens are refused from now on.
    @Sendable func revoke(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(try await administration.revoke(activationID: context.parameters.id("activation"), logger: context.logger))
    }

    /// `GET /admin/audit?tenant=T&since=EPOCH&limit=N`: newest first.
    @Sendable func audit(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        let query = try RequestDecoding.query(request)
        var tenant: TenantRecord?
        if let name = query["tenant"] { tenant = try await state.domain.tenant(named: name) }
        let limit = try RequestDecoding.limit(query, maximum: 1000)
        let since = try query["since"].map { text -> Int64 in
            guard let value = Int64(text), value >= 0 else { throw DomainError.invalidRequest("since must be seconds since 1970") }
            return value
        }
        return JSONResponse.make(["entries": try await administration.audit(tenant: tenant, since: since, limit: limit)])
    }

    // MARK: Maintenance

    /// `GET /admin/stats`: row counts per table and the last purge.
    @Sendable func stats(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(try await state.domain.maintenance.stats())
    }

    /// `POST /admin/purge`: purges now, as the background task does every interval.
    @Sendable func purge(_ request: Request, context: TesseraRequestContext) async throws -> Response {
        JSONResponse.make(try await state.domain.maintenance.purge(logger: context.logger))
    }
}
