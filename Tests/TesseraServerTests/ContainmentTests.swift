import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraRecords
import TesseraTesting
import TesseraTestSupport
import Testing

@testable import TesseraServer
@testable import TesseraStore

/// Who may do what, checked from outside: every admin operation the served document lists,
/// and every console form, for every kind of caller, on an ordinary tenant and on the
/// operators' tenant. The expectation comes from the document (`x-tessera-need`,
/// `x-tessera-global`), so an operation added without them fails here.
@Suite("Containment: every role and tenant reaches only its scope (router mode)")
struct ContainmentTests {
    /// A caller of the admin API: its bearer, and what it is.
    struct Caller: CustomStringConvertible {
        let name: String
        let token: String
        /// nil: the bootstrap token.
        let role: String?
        /// The tenant the key is limited to; nil: every tenant.
        let scope: String?

        var description: String { name }
        var isGlobalAdmin: Bool { (role == nil || role == "admin") && scope == nil }

        func allows(_ need: String) -> Bool {
            switch role {
            case nil, "admin": true
            case "helpdesk": need == "read" || need == "support"
            default: need == "read"
            }
        }

        /// What the server must answer: 404 for a tenant outside the scope, 403 for a key
        /// limited to the operators' tenant, for that tenant unless a global admin, beyond
        /// the role, or for a global operation with a scope; nil: allowed.
        /// `roleFirst`: an operation on an object that names no tenant in its path (an
        /// activation) checks the role before it looks the object up.
        func expected(need: String, global: Bool, tenant: String?, roleFirst: Bool = false) -> HTTPResponse.Status? {
            if scope == "operators" { return .forbidden }
            if roleFirst, !allows(need) { return .forbidden }
            if let tenant, let scope, tenant != scope { return .notFound }
            // An activation's id names no tenant: one the caller does not reach is not found.
            if tenant == "operators", !isGlobalAdmin { return roleFirst ? .notFound : .forbidden }
            if !allows(need) || (global && scope != nil) { return .forbidden }
            return nil
        }
    }

    /// What the harness made: the objects each path parameter names, per tenant.
    struct World {
        var parameters: [String: [String: String]] = [:]
        var activations: [String: String] = [:]
    }

    @Test("every admin operation of /openapi.json, for the bootstrap token and each role global, scoped and of another tenant: refusals write nothing")
    func adminMatrix() async throws {
        let harness = try await RouterHarness.make()
        let store = harness.store
        let routes = harness.routes
        try await harness.run { client in
            let world = try await Self.makeWorld(client, clock: harness.clock)
            var callers = [Caller(name: "bootstrap", token: RouterHarness.adminToken, role: nil, scope: nil)]
            for role in ["admin", "helpdesk", "auditor"] {
                for scope in [nil, "demo"] as [String?] {
                    let (status, key) = try await client.admin(
                        .post, "/admin/keys", Self.json(["name": "\(role)-\(scope ?? "all")", "role": role, "tenant": scope]))
                    #expect(status == .created)
                    callers.append(Caller(name: "\(role)-\(scope ?? "all")", token: try #require(key["key"] as? String), role: role, scope: scope))
                }
            }
            let (otherStatus, other) = try await client.admin(.post, "/admin/keys", #"{"name":"other","role":"admin","tenant":"other"}"#)
            #expect(otherStatus == .created)
            callers.append(Caller(name: "admin-other", token: try #require(other["key"] as? String), role: "admin", scope: "other"))

            // A key cannot be limited to the operators' tenant; one stored before that rule is refused everything.
            let (refusedKey, _) = try await client.admin(.post, "/admin/keys", #"{"name":"ops","role":"admin","tenant":"operators"}"#)
            #expect(refusedKey == .badRequest)
            let operatorsID = try #require(try await store.read { try await $0.tenant(named: "operators") }?.id)
            let legacy = "tsk_" + Secrets.randomToken()
            try await store.transaction { tx in
                try await tx.insertAdminKey(
                    AdminKeyRecord(id: "legacy-ops", name: "legacy", digest: Secrets.digest(legacy), role: .admin, tenantID: operatorsID, createdAt: 0))
            }
            callers.append(Caller(name: "admin-operators", token: legacy, role: "admin", scope: "operators"))

            // The document: every admin route the router has is described with what it needs.
            let document = try await client.executeRequest(uri: "/openapi.json", method: .get, headers: [:], body: nil)
            let paths = try #require((try JSONSerialization.jsonObject(with: Data(buffer: document.body)) as? [String: Any])?["paths"] as? [String: Any])
            struct Operation {
                let method: HTTPRequest.Method
                let path: String
                let need: String
                let global: Bool
            }
            var operations: [Operation] = []
            for (path, item) in paths where path.hasPrefix("/admin") {
                for (method, value) in try #require(item as? [String: Any]) where method != "parameters" {
                    let operation = try #require(value as? [String: Any])
                    let need = operation["x-tessera-need"] as? String
                    #expect(["read", "support", "manage"].contains(need), "\(method) \(path) says what it needs")
                    operations.append(
                        Operation(
                            method: try #require(HTTPRequest.Method(method.uppercased())), path: path, need: need ?? "",
                            global: operation["x-tessera-global"] as? Bool ?? false))
                }
            }
            let described = Set(operations.map { "\($0.method) \($0.path)" })
            let served = Set(routes.filter { $0.contains(" /admin") })
            #expect(served == described, "admin routes without a description: \(served.subtracting(described)); described, not served: \(described.subtracting(served))")


            // Refusals first (they must change nothing), then what is allowed.
            var allowed: [(Caller, Operation, String, String?)] = []
            for operation in operations {
                let targets: [String?] =
                    operation.path.contains("{tenant}") || operation.path.contains("{activation}") ? ["demo", "operators"] : [nil]
                for target in targets {
                    let uri = try Self.fill(operation.path, tenant: target, world: world)
                    let tenantOfCall = operation.path.contains("{activation}") || operation.path.contains("{tenant}") ? target : nil
                    for caller in callers {
                        guard
                            let status = caller.expected(
                                need: operation.need, global: operation.global, tenant: tenantOfCall,
                                roleFirst: operation.path.contains("{activation}"))
                        else {
                            allowed.append((caller, operation, uri, tenantOfCall))
                            continue
                        }
                        let before = try await Self.rows(client)
                        let response = try await Self.call(client, operation.method, uri, token: caller.token)
                        #expect(response.status == status, "\(caller) \(operation.method) \(uri): \(response.text)")
                        #expect(try await Self.rows(client) == before, "\(caller) \(operation.method) \(uri) wrote something")
                    }
                }
            }
            #expect(allowed.count > 50)
            for (caller, operation, uri, _) in allowed {
                let response = try await Self.call(client, operation.method, uri, token: caller.token)
                #expect(
                    response.status != .unauthorized && response.status != .forbidden,
                    "\(caller) \(operation.method) \(uri) is allowed: \(response.status) \(response.text)")
            }
        }
    }

    @Test("a helpdesk key cannot invite a device for a console operator, nor unlock or revoke one; a global admin can")
    func helpdeskCannotBecomeAdmin() async throws {
        let harness = try await RouterHarness.make()
        try await harness.run { client in
            let world = try await Self.makeWorld(client, clock: harness.clock)
            let (_, key) = try await client.admin(.post, "/admin/keys", #"{"name":"desk","role":"helpdesk"}"#)
            let helpdesk = try #require(key["key"] as? String)
            let before = try await Self.rows(client)
            let invite = try await Self.call(client, .post, "/admin/tenants/operators/invitations", token: helpdesk, body: #"{"username":"olga"}"#)
            #expect(invite.status == .forbidden)
            #expect(invite.json["error"] as? String == "access_denied")
            #expect(try await Self.rows(client) == before, "nothing was made")
            let activation = try #require(world.activations["operators"])
            for action in ["unlock", "revoke"] {
                let response = try await Self.call(client, .post, "/admin/activations/\(activation)/\(action)", token: helpdesk)
                #expect(response.status == .notFound, "an operator's activation is not found by who does not reach it")
            }
            // The same helpdesk key still does its job in an ordinary tenant.
            let ordinary = try await Self.call(client, .post, "/admin/tenants/demo/invitations", token: helpdesk, body: #"{"username":"alice"}"#)
            #expect(ordinary.status == .created)
            let (globalStatus, _) = try await client.admin(.post, "/admin/tenants/operators/invitations", #"{"username":"olga"}"#)
            #expect(globalStatus == .created)
            // Neither the operators' tenant nor its operators show in a helpdesk's list of tenants.
            let tenants = try await Self.call(client, .get, "/admin/tenants", token: helpdesk)
            let names = (tenants.json["tenants"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
            #expect(names.contains("demo") && !names.contains("operators"), "\(names)")
            // An operator cannot be limited to the operators' tenant.
            let (scoped, _) = try await client.admin(.post, "/admin/console-users", #"{"username":"odd","role":"admin","tenant":"operators"}"#)
            #expect(scoped == .badRequest)
        }
    }

    @Test("console forms: a helpdesk operator and a tenant's admin operator are refused the operators' tenant and what their role lacks, and nothing is written")
    func consoleForms() async throws {
        let harness = try await RouterHarness.make()
        let routes = harness.routes
        try await harness.run { client in
            let world = try await Self.makeWorld(client, clock: harness.clock)
            // What each console form needs, as the admin operation it does.
            let needs: [String: (String, Bool)] = [
                "/console/tenants": ("manage", true), "/console/tenants/{tenant}": ("manage", false),
                "/console/tenants/{tenant}/delete": ("manage", true), "/console/tenants/{tenant}/branding": ("manage", false),
                "/console/tenants/{tenant}/branding/logo": ("manage", false), "/console/tenants/{tenant}/branding/logo/remove": ("manage", false),
                "/console/tenants/{tenant}/services": ("manage", false),
                "/console/tenants/{tenant}/services/{client}": ("manage", false),
                "/console/tenants/{tenant}/services/{client}/secret": ("manage", false),
                "/console/tenants/{tenant}/services/{client}/delete": ("manage", false), "/console/tenants/{tenant}/users": ("manage", false),
                "/console/tenants/{tenant}/users/{user}": ("manage", false), "/console/tenants/{tenant}/users/{user}/invite": ("support", false),
                "/console/tenants/{tenant}/users/{user}/disable": ("manage", false),
                "/console/tenants/{tenant}/users/{user}/enable": ("manage", false),
                "/console/tenants/{tenant}/users/{user}/delete": ("manage", false),
                "/console/tenants/{tenant}/activations/{activation}/unlock": ("support", false),
                "/console/tenants/{tenant}/activations/{activation}/revoke": ("support", false),
                "/console/tenants/{tenant}/sessions/{session}/end": ("support", false),
                "/console/tenants/{tenant}/users/{user}/security-keys/{key}/remove": ("support", false),
                "/console/tenants/{tenant}/keys": ("manage", false), "/console/tenants/{tenant}/keys/{kid}/activate": ("manage", false),
                "/console/tenants/{tenant}/keys/{kid}/retire": ("manage", false), "/console/keys": ("manage", false),
                "/console/keys/{key}/revoke": ("manage", false), "/console/webhooks": ("manage", false),
                "/console/webhooks/{webhook}/test": ("manage", false), "/console/webhooks/{webhook}/enable": ("manage", false),
                "/console/webhooks/{webhook}/remove": ("manage", false),
            ]
            let forms = routes.filter { $0.hasPrefix("POST /console") }.map { String($0.dropFirst(5)) }
                .filter { $0 != "/console/logout" }
            #expect(Set(forms) == Set(needs.keys), "console forms without an expectation: \(Set(forms).subtracting(needs.keys))")

            var operators: [(Caller, RouterBrowser)] = []
            for (name, role, scope) in [("hank", "helpdesk", nil), ("dora", "admin", "demo"), ("abe", "auditor", nil)] as [(String, String, String?)] {
                var browser = RouterBrowser(client: client)
                try await browser.signInToConsole(as: name, role: role, scope: scope, clock: harness.clock)
                operators.append((Caller(name: name, token: "", role: role, scope: scope), browser))
            }
            var refused = 0
            for form in forms.sorted() {
                let (need, global) = try #require(needs[form])
                let targets: [String?] = form.contains("{tenant}") ? ["demo", "operators"] : [nil]
                for target in targets {
                    let path = try Self.fill(form, tenant: target, world: world)
                    for (caller, browser) in operators {
                        guard let status = caller.expected(need: need, global: global, tenant: target) else { continue }
                        let before = try await Self.rows(client)
                        let response = try await browser.post(path, form: ["name": "x"])
                        #expect(response.status == status, "\(caller) POST \(path): \(response.status)")
                        #expect(try await Self.rows(client) == before, "\(caller) POST \(path) wrote something")
                        refused += 1
                    }
                }
            }
            #expect(refused > 40)
        }
    }

    @Test("the account page takes fresh factors under the tenant's process policy: no single sign-on even when the URL drops prompt=login, and a forged sign-in cookie opens nothing")
    func accountPageSignIn() async throws {
        let harness = try await RouterHarness.make()
        try await harness.run { client in
            try await client.admin(
                .post, "/admin/tenants", #"{"name":"demo","process_policy":"device+pin","sso_lifetime":3600,"sso_policy":"device"}"#)
            let (_, service) = try await client.admin(
                .post, "/admin/tenants/demo/services",
                #"{"name":"Shop","redirect_uris":["https://shop.example/cb"],"number_matching":false,"policy":"device+pin,device"}"#)
            let (device, _) = try await RouterDevice.activated("alice", tenant: "demo", client: client, clock: harness.clock)

            // A full login to a service opens the device's single sign-on session.
            var shop = RouterBrowser(client: client)
            let clientID = try #require(service["client_id"] as? String)
            let authorizeShop = "/t/demo/authorize?client_id=\(clientID)&redirect_uri=https%3A%2F%2Fshop.example%2Fcb&response_type=code&scope=openid"
            let login = try await device.start(try await shop.get(authorizeShop))
            #expect(try await device.approve(login), "the full login")
            // A second service login within the session asks for the device alone.
            let sso = try await device.start(try await shop.get(authorizeShop))
            #expect(sso.requestedAuthenticators.first == [.device])

            // The account page's sign-in asks for a fresh login; without prompt=login it still gets one.
            var browser = RouterBrowser(client: client)
            let start = try await browser.get("/t/demo/account/login")
            let authorize = try #require(start.headers[.location])
            #expect(authorize.contains("prompt=login"))
            let stripped = authorize.replacing("&prompt=login", with: "").replacing("prompt=login&", with: "")
            #expect(!stripped.contains("prompt"))
            let accountPage = try await browser.get(stripped)
            let requestID = try RouterDevice.requestID(on: accountPage)
            let information = try await device.start(accountPage)
            #expect(information.requestedAuthenticators == [[.device, .pin]], "the process policy, not single sign-on")
            #expect(try await device.approve(information), "the account page's login")
            let complete = try await browser.get("/t/demo/authorize/complete?request=\(requestID)")
            let callback = try #require(complete.headers[.location])

            // The sign-in cookie is sealed: one written by the browser (the old plain form) opens nothing.
            var forged = browser
            forged.cookies["tessera_account_signin"] = "state.nonce.verifier"
            let refused = try await forged.get(callback)
            #expect(refused.status == .forbidden)
            #expect(forged.cookies["tessera_account"] == nil)

            let opened = try await browser.get(callback)
            #expect(opened.status == .seeOther, "\(opened.text)")
            #expect(browser.cookies["tessera_account"] != nil)

            // The built-in service follows the process policy.
            let tenantID = try #require(try await harness.store.read { try await $0.tenant(named: "demo") }?.id)
            let (_, builtIn) = try await client.admin(.get, "/admin/tenants/demo/services/tessera-account-\(tenantID)")
            #expect(builtIn["policy"] as? String == "device+pin")
        }
    }

    // MARK: The world the matrix acts on

    /// Every table's row count: audit entries included, so a refusal that wrote anything shows.
    static func rows(_ client: any TestClientProtocol) async throws -> String {
        let (_, stats) = try await client.admin(.get, "/admin/stats")
        let tables = stats["tables"] as? [String: Any] ?? [:]
        #expect(!tables.isEmpty)
        return "\(tables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })"
    }

    static func json(_ object: [String: String?]) -> String {
        let data = try! JSONSerialization.data(withJSONObject: object.compactMapValues { $0 })
        return String(decoding: data, as: UTF8.self)
    }

    /// Tenants demo, other and operators; in demo and operators a user with an activated
    /// device, a service (demo), an open invitation, a registration token, a signing key.
    static func makeWorld(_ client: any TestClientProtocol, clock: TestClock) async throws -> World {
        var world = World()
        for name in ["demo", "other"] {
            let (status, _) = try await client.admin(.post, "/admin/tenants", #"{"name":"\#(name)"}"#)
            #expect(status == .created)
        }
        let (_, service) = try await client.admin(
            .post, "/admin/tenants/demo/services", #"{"name":"Shop","redirect_uris":["https://shop.example/cb"]}"#)
        let (_, alice) = try await client.admin(.post, "/admin/tenants/demo/users", #"{"username":"alice"}"#)
        // Keeps the tenant from being deleted (409) when the matrix deletes alice.
        try await client.admin(.post, "/admin/tenants/demo/users", #"{"username":"bob"}"#)
        let (_, invitation) = try await client.admin(.post, "/admin/tenants/demo/invitations", #"{"username":"alice"}"#)
        let (_, operatorInvitation) = try await client.admin(.post, "/admin/console-users", #"{"username":"olga","role":"admin"}"#)
        for (tenant, link) in [("demo", invitation["url"]), ("operators", operatorInvitation["url"])] {
            let device = RouterDevice(client: client, clock: clock)
            let text = try #require(link as? String)
            let receipt = try await device.personalizer.activate(url: try #require(URL(string: text)), pin: "246810")
            world.activations[tenant] = receipt.activation.id.rawValue
        }
        let (_, olga) = try await client.admin(.get, "/admin/tenants/operators/users?username=olga")
        let olgaID = try #require(((olga["users"] as? [[String: Any]])?.first)?["id"] as? String)
        for tenant in ["demo", "operators"] {
            let (_, keys) = try await client.admin(.get, "/admin/tenants/\(tenant)/signing-keys")
            let kid = try #require(((keys["keys"] as? [[String: Any]])?.first)?["kid"] as? String)
            let (_, token) = try await client.admin(.post, "/admin/tenants/\(tenant)/registration-tokens")
            let (_, open) = try await client.admin(.post, "/admin/tenants/\(tenant)/invitations", #"{"username":"\#(tenant == "demo" ? "alice" : "olga")"}"#)
            _ = open
            let (_, invitations) = try await client.admin(.get, "/admin/tenants/\(tenant)/invitations")
            world.parameters[tenant] = [
                "tenant": tenant, "kid": kid, "token": try #require(token["id"] as? String),
                "invitation": try #require(((invitations["invitations"] as? [[String: Any]])?.first)?["id"] as? String),
                "user": tenant == "demo" ? try #require(alice["id"] as? String) : olgaID,
                "client": tenant == "demo" ? try #require(service["client_id"] as? String) : "tessera-console",
                "activation": try #require(world.activations[tenant]),
                "session": "no-such-session", "key": "no-such-key", "provider": "no-such-provider", "group": "no-such-group",
                "recovery": "no-such-recovery",
            ]
        }
        let (_, keys) = try await client.admin(.post, "/admin/keys", #"{"name":"target","role":"auditor","tenant":"demo"}"#)
        world.parameters["demo"]?["key"] = keys["id"] as? String
        let (_, hook) = try await client.admin(.post, "/admin/webhooks", #"{"url":"https://hooks.example/in","events":["*"],"tenant":"demo"}"#)
        world.parameters["demo"]?["webhook"] = try #require(hook["id"] as? String)
        return world
    }

    /// The path with its `{name}` parameters filled in.
    static func fill(_ path: String, tenant: String?, world: World) throws -> String {
        let values = world.parameters[tenant ?? "demo"] ?? [:]
        var filled = path
        for (name, value) in values {
            filled = filled.replacing("{\(name)}", with: value)
        }
        #expect(!filled.contains("{"), "\(filled) has a parameter the world lacks")
        return filled
    }

    static func call(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, token: String, body: String? = nil
    ) async throws -> TestResponse {
        let hasBody = method == .post || method == .patch
        return try await client.executeRequest(
            uri: uri, method: method, headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
            body: (body ?? (hasBody ? "{}" : nil)).map { ByteBuffer(string: $0) })
    }
}

/// A browser over the router: keeps cookies, follows nothing by itself.
struct RouterBrowser {
    let client: any TestClientProtocol
    var cookies: [String: String] = [:]
    /// The console session's CSRF token, once signed in.
    var csrf = ""

    var cookieHeader: String { cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }

    mutating func keep(_ response: TestResponse) {
        for field in response.headers where field.name == .setCookie {
            guard let pair = field.value.split(separator: ";").first, let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals]).trimmingCharacters(in: .whitespaces)
            let value = String(pair[pair.index(after: equals)...])
            if value.isEmpty { cookies[name] = nil } else { cookies[name] = value }
        }
    }

    /// A path of this server from an absolute URL or a path.
    static func path(_ location: String) -> String {
        guard let url = URL(string: location), url.host != nil else { return location }
        return url.path + (url.query.map { "?\($0)" } ?? "")
    }

    mutating func get(_ location: String) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if !cookies.isEmpty { headers[.cookie] = cookieHeader }
        let response = try await client.executeRequest(uri: Self.path(location), method: .get, headers: headers, body: nil)
        keep(response)
        return response
    }

    /// A console form with the session's CSRF token.
    func post(_ path: String, form: [String: String]) async throws -> TestResponse {
        var fields = form
        fields["csrf"] = csrf
        let body = fields.map { "\($0.key)=\(FormEncoding.component($0.value))" }.joined(separator: "&")
        return try await client.executeRequest(
            uri: path, method: .post, headers: [.cookie: cookieHeader, .contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: body))
    }

    /// Makes the operator (bootstrap token), activates its device, and signs in to the
    /// console with it: the login page's number, device and PIN, the callback. Keeps the
    /// session's CSRF token for `post`.
    mutating func signInToConsole(as username: String, role: String, scope: String?, clock: TestClock) async throws {
        let body = ContainmentTests.json(["username": username, "role": role, "tenant": scope])
        let (status, invitation) = try await client.admin(.post, "/admin/console-users", body)
        #expect(status == .created, "\(invitation)")
        let device = RouterDevice(client: client, clock: clock)
        let link = try #require(invitation["url"] as? String)
        _ = try await device.personalizer.activate(url: try #require(URL(string: link)), pin: "246810")
        let start = try await get("/console/login")
        let authorize = try #require(start.headers[.location])
        let page = try await get(authorize)
        let requestID = try RouterDevice.requestID(on: page)
        #expect(try await device.approve(try await device.start(page)), "the operator's device login")
        let complete = try await get("/t/operators/authorize/complete?request=\(requestID)")
        let callback = try #require(complete.headers[.location])
        let opened = try await get(callback)
        #expect(opened.status == .found || opened.status == .seeOther, "\(opened.status) \(opened.text)")
        let console = try await get("/console")
        let csrf = try #require(console.text.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
        self.csrf = String(csrf)
    }
}
