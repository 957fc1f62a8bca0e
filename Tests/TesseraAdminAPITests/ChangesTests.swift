import Foundation
import TesseraAdminAPI
import TesseraCore
import Testing

@Suite("The admin API's hand-written PATCH bodies over the generated types")
struct ChangesTests {
    private func json(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test("a tenant's changes: absent fields are left out, null is sent as null, values as values; and read back alike")
    func tenantChanges() throws {
        var changes = TenantChanges()
        changes.ssoPolicy = .null
        changes.auditRetention = .value(2_592_000)
        changes.lockout = .init(freeAttempts: 1, waits: [60], permanentAfter: 5)
        let written = try json(changes)
        #expect(Set(written.keys) == ["sso_policy", "audit_retention", "lockout"])
        #expect(written["sso_policy"] is NSNull)
        #expect(written["audit_retention"] as? Int == 2_592_000)
        let read = try JSONDecoder().decode(TenantChanges.self, from: Data(#"{"sso_policy":null,"audit_retention":2592000,"lockout":{"free_attempts":1,"waits":[60],"permanent_after":5}}"#.utf8))
        #expect(read == changes)
        #expect(try JSONDecoder().decode(TenantChanges.self, from: Data("{}".utf8)) == TenantChanges())
    }

    @Test("a service's changes over the generated fields: values, null and absent are told apart, written and read back alike")
    func serviceChanges() throws {
        var changes = ServiceChanges()
        #expect(changes.isEmpty)
        changes.roles = [.init(name: "clerk", policy: "device+pin")]
        changes.set(\.postLogoutRedirectUris, .postLogoutRedirectUris, .null)
        changes.requirePushedAuthorizationRequests = true
        let written = try json(changes)
        #expect(Set(written.keys) == ["roles", "post_logout_redirect_uris", "require_pushed_authorization_requests"])
        #expect(written["post_logout_redirect_uris"] is NSNull)
        let read = try JSONDecoder().decode(ServiceChanges.self, from: try JSONEncoder().encode(changes))
        #expect(read == changes)
        #expect(read.patch(\.postLogoutRedirectUris, .postLogoutRedirectUris) == .null)
        #expect(read.patch(\.backchannelLogoutUri, .backchannelLogoutUri) == .absent)
        #expect(read.patch(\.roles, .roles) == .value([.init(name: "clerk", policy: "device+pin")]))
        // Setting a value takes back the null, and null takes back a value.
        changes.set(\.postLogoutRedirectUris, .postLogoutRedirectUris, .value(["https://shop.example/bye"]))
        #expect(changes.patch(\.postLogoutRedirectUris, .postLogoutRedirectUris) == .value(["https://shop.example/bye"]))
        #expect(try json(changes)["post_logout_redirect_uris"] as? [String] == ["https://shop.example/bye"])
        changes.set(\.roles, .roles, .null)
        #expect(try json(changes)["roles"] is NSNull)
        // A null for a name the fields do not have is not a change.
        let stray = try JSONDecoder().decode(ServiceChanges.self, from: Data(#"{"no_such_field":null}"#.utf8))
        #expect(stray.isEmpty)
    }

    @Test("a new tenant keeps its lockout, which the generator would drop as a nullable reference")
    func tenantCreation() throws {
        let creation = TenantCreation(name: "acme", lockout: .init(freeAttempts: 0, waits: [5, 60], permanentAfter: 3))
        let written = try json(creation)
        #expect((written["lockout"] as? [String: Any])?["permanent_after"] as? Int == 3)
        #expect(try JSONDecoder().decode(TenantCreation.self, from: Data(#"{"name":"acme","lockout":null}"#.utf8)).lockout == nil)
    }
}
