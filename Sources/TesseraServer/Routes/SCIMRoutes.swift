import Foundation
import Hummingbird
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraRecords

/// SCIM 2.0 at `{issuer}/scim/v2` (RFC 7644): the discovery documents, and the tenant's
/// `Users` and `Groups`, for a bearer that is an admin key of the role `provisioner` for this tenant
/// (or an admin's). Answers are `application/scim+json`; every refusal is a SCIM error
/// (`urn:ietf:params:scim:api:messages:2.0:Error`, the status as a string, a `scimType`).
struct SCIMRoutes {
    let state: ServerState

    static let contentType = "application/scim+json; charset=utf-8"

    func register(on tenant: RouterGroup<TesseraRequestContext>) {
        let scim = tenant.group("scim/v2")
        scim.get("ServiceProviderConfig") { request, context in
            try await call(request, context) { scope in
                (.ok, SCIMSchemas.serviceProviderConfig(base: scope.base, documentation: "\(scope.base)/Schemas"))
            }
        }
        // The two lists of discovery documents, and each document by its id.
        let documents: [(String, @Sendable (String) -> [SCIMValue])] = [
            ("ResourceTypes", SCIMSchemas.resourceTypes(base:)), ("Schemas", SCIMSchemas.schemas(base:)),
        ]
        for (path, make) in documents {
            scim.get(RouterPath(path)) { request, context in
                try await call(request, context) { scope in
                    let documents = make(scope.base)
                    return (.ok, SCIMResource.listResponse(documents, total: documents.count, startIndex: 1))
                }
            }
            scim.get(RouterPath("\(path)/:id")) { request, context in
                try await call(request, context) { scope in
                    let id = try context.parameters.require("id")
                    guard let found = make(scope.base).first(where: { $0.member("id")?.string == id }) else {
                        throw DomainError.notFound("\(path) '\(id.prefix(128))'")
                    }
                    return (.ok, found)
                }
            }
        }
        // The discovery documents are read-only (405, as a SCIM error).
        for path in ["ServiceProviderConfig", "ResourceTypes", "ResourceTypes/:id", "Schemas", "Schemas/:id"] {
            for method in [HTTPRequest.Method.post, .put, .patch, .delete] {
                scim.on(RouterPath(path), method: method) { request, context in
                    try await call(request, context) { _ in
                        throw SCIMFailure(status: .methodNotAllowed, scimType: nil, detail: "the discovery documents are read-only")
                    }
                }
            }
        }
        resources(on: scim) { domain, tenant, caller in domain.scimUsers(tenant: tenant, caller: caller) }
        resources(on: scim) { domain, tenant, caller in domain.scimGroups(tenant: tenant, caller: caller) }
        // A search at the root looks through users and groups.
        scim.post(".search") { request, context in
            try await call(request, context) { scope in
                let domain = state.domain
                return try await Self.search(request) { query in
                    try await query.search([domain.scimUsers(tenant: scope.tenant, caller: scope.caller), domain.scimGroups(tenant: scope.tenant, caller: scope.caller)])
                }
            }
        }
        // Anything else under the base is an unknown resource, answered as SCIM answers.
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
            scim.on("**", method: method) { request, context in
                try await call(request, context) { _ in throw DomainError.notFound("this SCIM resource") }
            }
        }
    }

    /// The routes of one kind of resource: list, search, create, read, replace, change, delete.
    func resources<Resources: SCIMResourceSet>(
        on scim: RouterGroup<TesseraRequestContext>, _ make: @escaping @Sendable (Domain, TenantRecord, AdminCaller) -> Resources
    ) {
        let endpoint = Resources.endpoint
        let domain = state.domain
        let resources: @Sendable (Scope) -> Resources = { make(domain, $0.tenant, $0.caller) }
        scim.get(RouterPath(endpoint)) { request, context in
            try await call(request, context) { scope in
                let query = try RequestDecoding.query(request)
                return (.ok, Self.projected(try await resources(scope).list(try Self.listQuery(query)), try Self.projection(query)))
            }
        }
        scim.post(RouterPath("\(endpoint)/.search")) { request, context in
            try await call(request, context) { scope in try await Self.search(request) { try await resources(scope).list($0) } }
        }
        scim.post(RouterPath(endpoint)) { request, context in
            try await call(request, context) { scope in
                (.created, .object(try await resources(scope).create(try await Self.body(request), logger: context.logger)))
            }
        }
        scim.get(RouterPath("\(endpoint)/:id")) { request, context in
            try await call(request, context) { scope in
                let projection = try Self.projection(try RequestDecoding.query(request))
                return (.ok, Self.projected(.object(try await resources(scope).get(try context.parameters.require("id"))), projection))
            }
        }
        scim.put(RouterPath("\(endpoint)/:id")) { request, context in
            try await call(request, context) { scope in
                let body = try await Self.body(request)
                let id = try context.parameters.require("id")
                return (.ok, .object(try await resources(scope).replace(id, body, ifMatch: request.headers[.ifMatch], logger: context.logger)))
            }
        }
        scim.patch(RouterPath("\(endpoint)/:id")) { request, context in
            try await call(request, context) { scope in
                let patch = try await RequestDecoding.json(SCIMPatch.Request.self, from: request)
                guard patch.schemas.contains(SCIMPatch.messageSchema) else {
                    throw DomainError(.invalid, SCIMError.invalidSyntax, "a PATCH names the schema \(SCIMPatch.messageSchema)")
                }
                let id = try context.parameters.require("id")
                return (.ok, .object(try await resources(scope).patch(id, patch, ifMatch: request.headers[.ifMatch], logger: context.logger)))
            }
        }
        scim.delete(RouterPath("\(endpoint)/:id")) { request, context in
            try await call(request, context) { scope in
                try await resources(scope).delete(try context.parameters.require("id"), logger: context.logger)
                return (.noContent, nil)
            }
        }
    }

    /// `POST …/.search`: a list query in the body (RFC 7644 §3.4.3).
    static func search(_ request: Request, _ list: (SCIMListQuery) async throws -> SCIMValue) async throws -> (HTTPResponse.Status, SCIMValue?) {
        let body = try await Self.body(request)
        func names(_ key: String) -> [String] { body.member(key)?.array?.compactMap(\.string) ?? [] }
        let projection = try SCIMProjection(attributes: names("attributes"), excludedAttributes: names("excludedAttributes"))
        return (.ok, Self.projected(try await list(try Self.searchQuery(body)), projection))
    }

    /// The `attributes` and `excludedAttributes` query parameters.
    static func projection(_ query: [String: String]) throws -> SCIMProjection {
        try SCIMProjection(attributes: query["attributes"].map { [$0] } ?? [], excludedAttributes: query["excludedAttributes"].map { [$0] } ?? [])
    }

    /// A resource, or each resource of a ListResponse, with only the attributes asked for.
    static func projected(_ value: SCIMValue, _ projection: SCIMProjection) -> SCIMValue {
        guard !projection.isEmpty, var members = value.object else { return value }
        if let resources = members["Resources"]?.array {
            members["Resources"] = .array(resources.map { $0.object.map { .object(projection.apply($0)) } ?? $0 })
            return .object(members)
        }
        return .object(projection.apply(members))
    }

    static func body(_ request: Request) async throws -> SCIMValue {
        do {
            return try await RequestDecoding.json(SCIMValue.self, from: request)
        } catch let error as DomainError {
            throw DomainError(error.kind, SCIMError.invalidSyntax, error.message)
        }
    }

    static func listQuery(_ query: [String: String]) throws -> SCIMListQuery {
        func number(_ name: String) throws -> Int? {
            guard let text = query[name] else { return nil }
            guard let value = Int(text) else { throw DomainError(.invalid, SCIMError.invalidValue, "\(name) is a number") }
            return value
        }
        return SCIMListQuery(
            filter: query["filter"], startIndex: try number("startIndex"), count: try number("count"), sortBy: query["sortBy"],
            sortOrder: query["sortOrder"])
    }

    static func searchQuery(_ body: SCIMValue) throws -> SCIMListQuery {
        func number(_ name: String) -> Int? {
            if case .number(let value)? = body.member(name) { return Int(value) }
            return nil
        }
        return SCIMListQuery(
            filter: body.member("filter")?.string, startIndex: number("startIndex"), count: number("count"),
            sortBy: body.member("sortBy")?.string, sortOrder: body.member("sortOrder")?.string)
    }

    /// Who calls, on which tenant, under which base URL.
    struct Scope: Sendable {
        let tenant: TenantRecord
        let caller: AdminCaller
        let base: String
    }

    /// Runs one call as the bearer's caller on the path's tenant and answers it, or its
    /// refusal, as SCIM does.
    func call(
        _ request: Request, _ context: TesseraRequestContext, _ body: (Scope) async throws -> (HTTPResponse.Status, SCIMValue?)
    ) async throws -> Response {
        do {
            let tenant = try context.requireTenant()
            guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
                throw SCIMFailure(status: .unauthorized, scimType: nil, detail: "SCIM needs a provisioner key as the bearer token")
            }
            let token = String(header.dropFirst(7))
            let caller: AdminCaller? =
                Secrets.constantTimeEquals(Secrets.digest(token), state.adminTokenDigest)
                ? .bootstrap : try await state.domain.adminKeys.caller(bearer: token)
            guard let caller else {
                throw SCIMFailure(status: .unauthorized, scimType: nil, detail: "the bearer token is no live admin key")
            }
            // The discovery documents too: outside its tenant a key finds nothing (404), as
            // the admin API answers. (The resources' calls check the same again.)
            try caller.check(.provision, tenant: tenant)
            let base = "\(state.domain.issuer(forTenantNamed: tenant.name))/scim/v2"
            let (status, answer) = try await body(Scope(tenant: tenant, caller: caller, base: base))
            return Self.response(status, answer)
        } catch let failure as SCIMFailure {
            return Self.error(failure.status, scimType: failure.scimType, detail: failure.detail)
        } catch let error as StoreError where error.code == .conflict {
            // A concurrent write took the name first (the unique index saw it).
            return Self.error(.conflict, scimType: "uniqueness", detail: "a resource with this name exists in the tenant")
        } catch let error as DomainError {
            var status = error.kind.status
            if error.code == SCIMError.invalidVersion { status = .preconditionFailed }
            let scimType = error.code.rawValue.first?.isLowercase == true && !error.code.rawValue.contains("_") ? error.code.rawValue : nil
            return Self.error(status, scimType: error.kind == .invalid ? (scimType ?? "invalidValue") : scimType, detail: error.message)
        }
    }

    static func response(_ status: HTTPResponse.Status, _ value: SCIMValue?) -> Response {
        guard let value else { return Response(status: status, headers: [.cacheControl: "no-store"]) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data()
        var headers: HTTPFields = [.contentType: contentType, .cacheControl: "no-store"]
        if let version = value.member("meta")?.member("version")?.string { headers[.eTag] = version }
        if status == .created, let location = value.member("meta")?.member("location")?.string { headers[.location] = location }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func error(_ status: HTTPResponse.Status, scimType: String?, detail: String) -> Response {
        var members: [String: SCIMValue] = [
            "schemas": .array([.string(SCIMSchemas.error)]), "status": .string(String(status.code)), "detail": .string(detail),
        ]
        if let scimType { members["scimType"] = .string(scimType) }
        var response = response(status, .object(members))
        if status == .unauthorized { response.headers[.wwwAuthenticate] = #"Bearer realm="tessera-scim""# }
        return response
    }
}

/// A refusal SCIM names by status alone.
struct SCIMFailure: Error {
    let status: HTTPResponse.Status
    let scimType: String?
    let detail: String
}
