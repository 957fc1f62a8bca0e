import Foundation
import Testing
@testable import TesseraDomain

/// SCIM's filter and PATCH grammar (RFC 7644 §3.4.2.2, §3.5.2), and the forms Microsoft
/// Entra ID sends.
@Suite("SCIM: filters and PATCH")
struct SCIMTests {
    static func resource(_ json: String) throws -> SCIMValue {
        try JSONDecoder().decode(SCIMValue.self, from: Data(json.utf8))
    }

    static let alice = """
        {"userName": "Alice", "externalId": "e-1", "active": true, "name": {"givenName": "Alice", "familyName": "Smith"},
         "emails": [{"value": "alice@work.example", "type": "work", "primary": true}, {"value": "a@home.example", "type": "home"}],
         "meta": {"created": "2026-01-02T03:04:05Z"}}
        """

    @Test("comparisons, presence, and/or/not, grouping, value paths, URN-qualified paths; case per attribute")
    func filters() throws {
        let user = try Self.resource(Self.alice)
        let caseExactUserName: (SCIMAttributePath) -> Bool = { $0.key == "username" }
        let cases: [(String, Bool)] = [
            (#"userName eq "Alice""#, true),
            (#"userName eq "alice""#, false),  // userName is case-exact here
            (#"USERNAME Eq "Alice""#, true),  // names and operators are not
            (#"name.familyName co "mit""#, true),
            (#"name.familyName co "MIT""#, true),  // other strings compare without case
            (#"userName sw "Al" and name.givenName ew "ce""#, true),
            (#"externalId eq "e-2" or active eq true"#, true),
            (#"not (active eq true)"#, false),
            (#"active eq false"#, false),
            (#"title pr"#, false),
            (#"emails pr"#, true),
            (#"emails[type eq "work" and value co "@work"]"#, true),
            (#"emails[type eq "other"]"#, false),
            (#"emails.value eq "a@home.example""#, true),
            (#"emails eq "alice@work.example""#, true),
            (#"meta.created gt "2025-12-31T00:00:00Z""#, true),
            (#"(userName eq "Bob" or userName eq "Alice") and active eq true"#, true),
            (#"urn:ietf:params:scim:schemas:core:2.0:User:userName eq "Alice""#, true),
        ]
        for (text, expected) in cases {
            let filter = try SCIMFilter.parse(text)
            #expect(filter.matches(user, caseExact: caseExactUserName) == expected, "\(text)")
        }
        for bad in [#"userName eq"#, #"userName xx "a""#, #"(userName eq "a""#, #"userName eq "a" and"#, #"emails[type eq "work""#, "", #"userName eq "unclosed"#] {
            #expect(throws: DomainError.self, "\(bad)") { try SCIMFilter.parse(bad) }
        }
    }

    static let patcher = SCIMPatch(multiValued: ["emails", "phonenumbers", "members"]) { name in
        ["givenname": "givenName", "familyname": "familyName", "emails": "emails", "active": "active", "value": "value", "type": "type"][
            name.lowercased()] ?? name
    }

    static func operations(_ json: String) throws -> [SCIMPatch.Operation] {
        try JSONDecoder().decode(SCIMPatch.Request.self, from: Data(json.utf8)).operations
    }

    @Test("add, replace and remove by attribute, sub-attribute, value path and without path; Entra ID's forms")
    func patches() throws {
        let user = try #require(try Self.resource(Self.alice).object)
        // Entra ID: capitalised ops, "False" as a string, a path-less replace with dotted names.
        let entra = try Self.patcher.apply(
            try Self.operations(
                """
                {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [
                 {"op": "Replace", "path": "active", "value": "False"},
                 {"op": "replace", "value": {"name.givenName": "Alicia", "externalId": "e-9"}},
                 {"op": "Add", "path": "emails[type eq \\"other\\"].value", "value": "alt@example.org"},
                 {"op": "replace", "path": "emails[type eq \\"work\\"].value", "value": "alicia@work.example"}]}
                """), to: user)
        #expect(entra["active"]?.bool == false)
        #expect(entra["name"]?.member("givenName")?.string == "Alicia")
        #expect(entra["name"]?.member("familyName")?.string == "Smith")
        #expect(entra["externalId"]?.string == "e-9")
        let emails = try #require(entra["emails"]?.array)
        #expect(emails.count == 3)
        #expect(emails.contains { $0.member("type")?.string == "other" && $0.member("value")?.string == "alt@example.org" })
        #expect(emails.contains { $0.member("type")?.string == "work" && $0.member("value")?.string == "alicia@work.example" })

        let removed = try Self.patcher.apply(
            try Self.operations(
                """
                {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [
                 {"op": "remove", "path": "emails[type eq \\"home\\"]"},
                 {"op": "remove", "path": "name.familyName"},
                 {"op": "remove", "path": "externalId"}]}
                """), to: user)
        #expect(removed["emails"]?.array?.count == 1)
        #expect(removed["name"]?.member("familyName") == nil && removed["name"]?.member("givenName") != nil)
        #expect(removed["externalId"] == nil)

        // Members: added as a list (no duplicates), removed Entra's way (by value) and the RFC's way (by filter).
        let group: [String: SCIMValue] = ["displayName": .string("Staff")]
        let added = try Self.patcher.apply(
            try Self.operations(
                """
                {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [
                 {"op": "add", "path": "members", "value": [{"value": "u1"}, {"value": "u2"}, {"value": "u3"}]},
                 {"op": "add", "path": "members", "value": [{"value": "u1"}]},
                 {"op": "Remove", "path": "members", "value": [{"$ref": null, "value": "u2"}]},
                 {"op": "remove", "path": "members[value eq \\"u3\\"]"}]}
                """), to: group)
        #expect(added["members"]?.array?.compactMap { $0.member("value")?.string } == ["u1"])

        for bad in [
            #"{"schemas": [], "Operations": []}"#,
            #"{"schemas": [], "Operations": [{"op": "move", "path": "active", "value": true}]}"#,
            #"{"schemas": [], "Operations": [{"op": "replace", "path": "emails[type eq", "value": "x"}]}"#,
            #"{"schemas": [], "Operations": [{"op": "replace", "path": "active"}]}"#,
            #"{"schemas": [], "Operations": [{"op": "remove"}]}"#,
        ] {
            #expect(throws: DomainError.self, "\(bad)") { try Self.patcher.apply(try Self.operations(bad), to: user) }
        }
    }

    @Test("the schemas the endpoint serves: every attribute and sub-attribute known by its spelling, userName case-exact and unique")
    func schemas() throws {
        #expect(SCIMSchemas.canonical("USERNAME") == "userName")
        #expect(SCIMSchemas.canonical("givenname") == "givenName")
        #expect(SCIMSchemas.canonical("PHONENUMBERS") == "phoneNumbers")
        let documents = SCIMSchemas.schemas(base: "https://id.example/t/acme/scim/v2")
        let user = try #require(documents.first)
        let attributes = try #require(user.member("attributes")?.array)
        let userName = try #require(attributes.first { $0.member("name")?.string == "userName" })
        #expect(userName.member("caseExact") == .bool(true) && userName.member("uniqueness") == .string("server"))
        let encoded = try JSONEncoder().encode(documents)
        #expect(try JSONDecoder().decode([SCIMValue].self, from: encoded) == documents)
        let types = SCIMSchemas.resourceTypes(base: "b").compactMap { $0.member("endpoint")?.string }
        #expect(types == ["/Users", "/Groups"])
        let group = try #require(documents.last?.member("attributes")?.array)
        let members = try #require(group.first { $0.member("name")?.string == "members" })
        let reference = members.member("subAttributes")?.array?.first { $0.member("name")?.string == "$ref" }
        #expect(reference?.member("referenceTypes") == .array([.string("User")]), "groups do not nest")
    }
}
