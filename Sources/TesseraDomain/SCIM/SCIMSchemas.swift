import Foundation

/// What the SCIM endpoint says about itself (RFC 7643 §5–§7): the attributes of its User
/// and Group resources as the server keeps them, and what it supports. `userName` is
/// case-exact, because Tessera's usernames are: `Alice` and `alice` are two users, and a
/// filter on `userName` compares exactly.
public enum SCIMSchemas {
    public static let user = "urn:ietf:params:scim:schemas:core:2.0:User"
    public static let group = "urn:ietf:params:scim:schemas:core:2.0:Group"
    public static let listResponse = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
    public static let error = "urn:ietf:params:scim:api:messages:2.0:Error"
    public static let searchRequest = "urn:ietf:params:scim:api:messages:2.0:SearchRequest"
    static let serviceProviderConfig = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
    static let resourceType = "urn:ietf:params:scim:schemas:core:2.0:ResourceType"
    static let schema = "urn:ietf:params:scim:schemas:core:2.0:Schema"

    /// One attribute's definition (RFC 7643 §7).
    struct Attribute: Sendable {
        var name: String
        var type = "string"
        var multiValued = false
        var description: String
        var required = false
        var caseExact = false
        var mutability = "readWrite"
        var uniqueness = "none"
        var subAttributes: [Attribute] = []
        var canonicalValues: [String]? = nil
        var referenceTypes: [String]? = nil

        var value: SCIMValue {
            var members: [String: SCIMValue] = [
                "name": .string(name), "type": .string(type), "multiValued": .bool(multiValued), "description": .string(description),
                "required": .bool(required), "caseExact": .bool(caseExact), "mutability": .string(mutability), "returned": .string("default"),
                "uniqueness": .string(uniqueness),
            ]
            if !subAttributes.isEmpty { members["subAttributes"] = .array(subAttributes.map(\.value)) }
            if let canonicalValues { members["canonicalValues"] = .array(canonicalValues.map(SCIMValue.string)) }
            if let referenceTypes { members["referenceTypes"] = .array(referenceTypes.map(SCIMValue.string)) }
            return .object(members)
        }
    }

    static func typed(_ what: String, types: [String]) -> [Attribute] {
        [
            Attribute(name: "value", description: "The \(what)"),
            Attribute(name: "type", description: "What kind of \(what) it is", canonicalValues: types),
            Attribute(name: "primary", type: "boolean", description: "The user's \(what) for Tessera's attribute"),
        ]
    }

    static let userAttributes: [Attribute] = [
        Attribute(
            name: "userName", description: "The username the user signs in with (Tessera's username; case-exact)", required: true,
            caseExact: true, uniqueness: "server"),
        Attribute(
            name: "name", type: "complex", description: "The user's name (given_name and family_name)",
            subAttributes: [
                Attribute(name: "givenName", description: "Given name (given_name)"),
                Attribute(name: "familyName", description: "Family name (family_name)"),
            ]),
        Attribute(name: "displayName", description: "The name shown for the user (name)"),
        Attribute(
            name: "emails", type: "complex", multiValued: true, description: "E-mail addresses; the primary one is the email attribute",
            subAttributes: typed("e-mail address", types: ["work", "home", "other"])),
        Attribute(
            name: "phoneNumbers", type: "complex", multiValued: true, description: "Phone numbers; the primary one is phone_number",
            subAttributes: typed("phone number", types: ["work", "home", "mobile", "fax", "pager", "other"])),
        Attribute(name: "active", type: "boolean", description: "false disables the user: every session ends at once"),
        Attribute(
            name: "groups", type: "complex", multiValued: true, description: "The groups the user is a member of", mutability: "readOnly",
            subAttributes: [
                Attribute(name: "value", description: "The group's id", mutability: "readOnly"),
                Attribute(name: "$ref", type: "reference", description: "The group's URI", mutability: "readOnly", referenceTypes: ["Group"]),
                Attribute(name: "display", description: "The group's name", mutability: "readOnly"),
                Attribute(name: "type", description: "direct", mutability: "readOnly", canonicalValues: ["direct", "indirect"]),
            ]),
    ]

    static let groupAttributes: [Attribute] = [
        Attribute(name: "displayName", description: "The group's name, unique in the tenant", required: true, uniqueness: "server"),
        Attribute(
            name: "members", type: "complex", multiValued: true, description: "The users in the group (groups do not nest)",
            subAttributes: [
                Attribute(name: "value", description: "The member's id", mutability: "immutable"),
                Attribute(name: "$ref", type: "reference", description: "The member's URI", mutability: "immutable", referenceTypes: ["User"]),
                Attribute(name: "type", description: "User", mutability: "immutable", canonicalValues: ["User"]),
            ]),
    ]

    /// Every attribute and sub-attribute name, by its lower-case form.
    static let canonicalNames: [String: String] = {
        var names: [String: String] = ["externalid": "externalId", "id": "id", "meta": "meta", "schemas": "schemas"]
        for attribute in userAttributes + groupAttributes {
            names[attribute.name.lowercased()] = attribute.name
            for sub in attribute.subAttributes { names[sub.name.lowercased()] = sub.name }
        }
        return names
    }()

    public static func canonical(_ name: String) -> String { canonicalNames[name.lowercased()] ?? name }

    static func schemaDocument(id: String, name: String, description: String, attributes: [Attribute], base: String) -> SCIMValue {
        .object([
            "schemas": .array([.string(schema)]), "id": .string(id), "name": .string(name), "description": .string(description),
            "attributes": .array(attributes.map(\.value)),
            "meta": .object(["resourceType": .string("Schema"), "location": .string("\(base)/Schemas/\(id)")]),
        ])
    }

    /// `GET /Schemas`' resources.
    public static func schemas(base: String) -> [SCIMValue] {
        [
            schemaDocument(id: user, name: "User", description: "A user of the tenant", attributes: userAttributes, base: base),
            schemaDocument(id: group, name: "Group", description: "A group of the tenant's users", attributes: groupAttributes, base: base),
        ]
    }

    /// `GET /ResourceTypes`' resources.
    public static func resourceTypes(base: String) -> [SCIMValue] {
        [("User", "/Users", user, "Users"), ("Group", "/Groups", group, "Groups")].map { name, endpoint, schemaID, description in
            .object([
                "schemas": .array([.string(resourceType)]), "id": .string(name), "name": .string(name), "endpoint": .string(endpoint),
                "description": .string(description), "schema": .string(schemaID),
                "meta": .object(["resourceType": .string("ResourceType"), "location": .string("\(base)/ResourceTypes/\(name)")]),
            ])
        }
    }

    /// The most a list answers at once.
    public static let maximumResults = 1000

    /// `GET /ServiceProviderConfig`.
    public static func serviceProviderConfig(base: String, documentation: String) -> SCIMValue {
        .object([
            "schemas": .array([.string(serviceProviderConfig)]), "documentationUri": .string(documentation),
            "patch": .object(["supported": .bool(true)]),
            "bulk": .object(["supported": .bool(false), "maxOperations": .number(0), "maxPayloadSize": .number(0)]),
            "filter": .object(["supported": .bool(true), "maxResults": .number(Double(maximumResults))]),
            "changePassword": .object(["supported": .bool(false)]),
            "sort": .object(["supported": .bool(true)]),
            "etag": .object(["supported": .bool(true)]),
            "authenticationSchemes": .array([
                .object([
                    "type": .string("oauthbearertoken"), "name": .string("Admin API key"), "primary": .bool(true),
                    "description": .string("An admin API key of the role provisioner for this tenant, as a bearer token"),
                ])
            ]),
            "meta": .object(["resourceType": .string("ServiceProviderConfig"), "location": .string("\(base)/ServiceProviderConfig")]),
        ])
    }
}
