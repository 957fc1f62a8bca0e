import Foundation

/// SCIM PATCH (RFC 7644 §3.5.2) over a resource as JSON: `add`, `replace` and `remove`
/// with an attribute path, a value path (`emails[type eq "work"].value`), or no path (the
/// value's members, dotted names too). Operation names are taken in any case, and the
/// forms Microsoft Entra ID sends are understood: `"value":"False"` for a boolean (the
/// resource's own mapping reads it), a `remove` of `members` that names the values to
/// remove, and a value path that matches nothing creating the value it describes.
public struct SCIMPatch: Sendable {
    public struct Operation: Decodable, Sendable {
        public var op: String
        public var path: String?
        public var value: SCIMValue?
    }

    public struct Request: Decodable, Sendable {
        public var schemas: [String]
        public var operations: [Operation]

        enum CodingKeys: String, CodingKey {
            case schemas
            case operations = "Operations"
        }
    }

    public static let messageSchema = "urn:ietf:params:scim:api:messages:2.0:PatchOp"

    /// The attributes (lower case) whose values are lists.
    let multiValued: Set<String>
    /// The spelling the resource uses for an attribute or sub-attribute name.
    let canonical: @Sendable (String) -> String

    public init(multiValued: Set<String>, canonical: @escaping @Sendable (String) -> String) {
        self.multiValued = multiValued
        self.canonical = canonical
    }

    static func invalid(_ message: String, _ code: DomainError.Code = SCIMError.invalidValue) -> DomainError {
        DomainError(.invalid, code, message)
    }

    /// The resource after the operations, in order.
    public func apply(_ operations: [Operation], to resource: [String: SCIMValue]) throws -> [String: SCIMValue] {
        guard !operations.isEmpty, operations.count <= 100 else { throw Self.invalid("a PATCH has 1 to 100 operations", SCIMError.invalidSyntax) }
        var resource = resource
        for operation in operations {
            let op = operation.op.lowercased()
            guard ["add", "replace", "remove"].contains(op) else { throw Self.invalid("op is add, replace or remove", SCIMError.invalidSyntax) }
            guard let pathText = operation.path, !pathText.isEmpty else {
                // No path: the value's members, each as if it were the path (RFC 7644 §3.5.2.1, .3).
                guard op != "remove" else { throw Self.invalid("remove needs a path", SCIMError.noTarget) }
                guard let members = operation.value?.object else { throw Self.invalid("an operation without path needs an object value") }
                for (name, value) in members.sorted(by: { $0.key < $1.key }) {
                    let path = try SCIMPatchPath.parse(name)
                    try apply(op, path: path, value: value, to: &resource)
                }
                continue
            }
            let path: SCIMPatchPath
            do {
                path = try SCIMPatchPath.parse(pathText)
            } catch {
                throw Self.invalid("the path '\(pathText.prefix(128))' is not valid", SCIMError.invalidPath)
            }
            if op != "remove", operation.value == nil { throw Self.invalid("\(op) needs a value") }
            try apply(op, path: path, value: operation.value, to: &resource)
        }
        return resource
    }

    /// The resource's member for a name, spelled as the resource spells it.
    private func key(_ name: String, in members: [String: SCIMValue]) -> String {
        let lower = name.lowercased()
        return members.keys.first { $0.lowercased() == lower } ?? canonical(name)
    }

    private func apply(_ op: String, path: SCIMPatchPath, value: SCIMValue?, to resource: inout [String: SCIMValue]) throws {
        let attribute = key(path.attribute.attribute, in: resource)
        let isList = multiValued.contains(path.attribute.attribute.lowercased())
        if let filter = path.valueFilter {
            guard isList else { throw Self.invalid("\(attribute) is not multi-valued", SCIMError.invalidPath) }
            var values = resource[attribute]?.array ?? []
            var matched = false
            var kept: [SCIMValue] = []
            for item in values {
                guard filter.matches(item, caseExact: { _ in false }) else {
                    kept.append(item)
                    continue
                }
                matched = true
                guard var members = item.object else { continue }
                switch (op, path.subAttribute) {
                case ("remove", nil): continue
                case ("remove", let sub?): members[key(sub, in: members)] = nil
                case (_, let sub?): members[key(sub, in: members)] = value
                case (_, nil):
                    guard let replacement = value?.object else { throw Self.invalid("a value path's value is an object") }
                    for (name, member) in replacement { members[key(name, in: members)] = member }
                }
                kept.append(.object(members))
            }
            if !matched {
                guard op != "remove" else { return }
                // Entra ID: no value matches, so one is made as the filter describes it.
                var made = Self.equalities(filter)
                if let sub = path.subAttribute {
                    made[canonical(sub)] = value
                } else if let members = value?.object {
                    for (name, member) in members { made[canonical(name)] = member }
                }
                kept.append(.object(made))
            }
            values = kept
            resource[attribute] = values.isEmpty ? nil : .array(values)
            return
        }
        if let sub = path.attribute.subAttribute {
            if isList {
                // `emails.value`: every value's sub-attribute.
                guard var values = resource[attribute]?.array else {
                    if op == "remove" { return }
                    resource[attribute] = .array([.object([canonical(sub): value ?? .null])])
                    return
                }
                values = values.map { item in
                    guard var members = item.object else { return item }
                    members[key(sub, in: members)] = op == "remove" ? nil : value
                    return .object(members)
                }
                resource[attribute] = .array(values)
                return
            }
            var members = resource[attribute]?.object ?? [:]
            members[key(sub, in: members)] = op == "remove" ? nil : value
            resource[attribute] = members.isEmpty ? nil : .object(members)
            return
        }
        switch op {
        case "remove":
            if isList, let targets = value?.array {
                // Entra ID removes members by naming them in the value.
                let ids = Set(targets.compactMap { $0.member("value")?.string })
                let left = (resource[attribute]?.array ?? []).filter { item in !ids.contains(item.member("value")?.string ?? "") }
                resource[attribute] = left.isEmpty ? nil : .array(left)
            } else {
                resource[attribute] = nil
            }
        case "add" where isList:
            let added = value?.array ?? (value.map { [$0] } ?? [])
            var values = resource[attribute]?.array ?? []
            for item in added where !values.contains(item) { values.append(item) }
            resource[attribute] = .array(values)
        case "add":
            if case .object(let addition)? = value, case .object(var members)? = resource[attribute] {
                for (name, member) in addition { members[key(name, in: members)] = member }
                resource[attribute] = .object(members)
            } else {
                resource[attribute] = value
            }
        default:
            if isList, let value, value.array == nil {
                resource[attribute] = .array([value])
            } else {
                resource[attribute] = value
            }
        }
    }

    /// The `attribute eq value` terms of a value filter, as the members of a new value.
    static func equalities(_ filter: SCIMFilter) -> [String: SCIMValue] {
        switch filter {
        case .compare(let path, .eq, let value) where path.subAttribute == nil: [path.attribute: value]
        case .and(let left, let right): equalities(left).merging(equalities(right)) { $1 }
        default: [:]
        }
    }
}
