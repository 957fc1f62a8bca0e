import Foundation

/// A JSON value as SCIM resources hold it (RFC 7643): what a request brings, what a PATCH
/// changes and what a filter reads. Object members keep their spelling; SCIM compares
/// attribute names without regard to case (`member(_:)`).
public enum SCIMValue: Codable, Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([SCIMValue])
    case object([String: SCIMValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([SCIMValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: SCIMValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }

    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var object: [String: SCIMValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    public var array: [SCIMValue]? {
        if case .array(let values) = self { return values }
        return nil
    }

    /// A boolean, also as the strings `"True"`/`"False"` some clients send (Entra ID).
    public var bool: Bool? {
        switch self {
        case .bool(let value): return value
        case .string(let text) where text.lowercased() == "true": return true
        case .string(let text) where text.lowercased() == "false": return false
        default: return nil
        }
    }

    /// The member named `name`, whatever its case.
    public func member(_ name: String) -> SCIMValue? {
        guard case .object(let members) = self else { return nil }
        if let exact = members[name] { return exact }
        let lower = name.lowercased()
        return members.first { $0.key.lowercased() == lower }?.value
    }
}

/// An attribute path (RFC 7644 §3.10): an attribute of a schema (the core one unless a
/// URN is given) and perhaps one of its sub-attributes. Names compare without case.
public struct SCIMAttributePath: Sendable, Equatable, CustomStringConvertible {
    public var schema: String?
    public var attribute: String
    public var subAttribute: String?

    public init(schema: String? = nil, attribute: String, subAttribute: String? = nil) {
        self.schema = schema
        self.attribute = attribute
        self.subAttribute = subAttribute
    }

    public var description: String { [attribute, subAttribute].compactMap { $0 }.joined(separator: ".") }

    /// `attribute.subAttribute` in lower case, the key the server's mappings use.
    public var key: String { description.lowercased() }
}

/// A filter (RFC 7644 §3.4.2.2): comparisons (`eq`, `ne`, `co`, `sw`, `ew`, `gt`, `ge`,
/// `lt`, `le`), presence (`pr`), `and`, `or`, `not (…)`, grouping and value paths
/// (`emails[type eq "work"]`).
public indirect enum SCIMFilter: Sendable, Equatable {
    public enum Operator: String, Sendable, CaseIterable {
        case eq, ne, co, sw, ew, gt, ge, lt, le
    }

    case present(SCIMAttributePath)
    case compare(SCIMAttributePath, Operator, SCIMValue)
    case and(SCIMFilter, SCIMFilter)
    case or(SCIMFilter, SCIMFilter)
    case not(SCIMFilter)
    /// `attribute[filter]`: some value of the multi-valued attribute matches the filter.
    case valuePath(SCIMAttributePath, SCIMFilter)

    /// Parses a filter; `invalidFilter` names what is wrong.
    public static func parse(_ text: String) throws -> SCIMFilter {
        var parser = SCIMParser(text)
        let filter = try parser.filter()
        try parser.end()
        return filter
    }

    /// Whether `resource` matches; `caseExact` tells which attributes compare with case.
    public func matches(_ resource: SCIMValue, caseExact: (SCIMAttributePath) -> Bool) -> Bool {
        switch self {
        case .and(let left, let right): return left.matches(resource, caseExact: caseExact) && right.matches(resource, caseExact: caseExact)
        case .or(let left, let right): return left.matches(resource, caseExact: caseExact) || right.matches(resource, caseExact: caseExact)
        case .not(let inner): return !inner.matches(resource, caseExact: caseExact)
        case .present(let path):
            return Self.values(at: path, in: resource).contains { value in
                switch value {
                case .null: false
                case .string(let text): !text.isEmpty
                case .array(let values): !values.isEmpty
                case .object(let members): !members.isEmpty
                default: true
                }
            }
        case .compare(let path, let op, let operand):
            let exact = caseExact(path)
            return Self.values(at: path, in: resource).contains { Self.compare($0, op, operand, caseExact: exact) }
        case .valuePath(let path, let inner):
            let values = resource.member(path.attribute).map { $0.array ?? [$0] } ?? []
            return values.contains { value in
                inner.matches(value, caseExact: { caseExact(SCIMAttributePath(attribute: path.attribute, subAttribute: $0.attribute)) })
            }
        }
    }

    /// The values a path names in a resource: a multi-valued attribute's sub-attribute of each
    /// value; a multi-valued attribute named alone, its `value`s (RFC 7644 §3.4.2.2).
    static func values(at path: SCIMAttributePath, in resource: SCIMValue) -> [SCIMValue] {
        guard let top = resource.member(path.attribute) else { return [] }
        let items = top.array ?? [top]
        if let sub = path.subAttribute { return items.compactMap { $0.member(sub) } }
        return items.map { item in item.object != nil ? (item.member("value") ?? item) : item }
    }

    static func compare(_ value: SCIMValue, _ op: Operator, _ operand: SCIMValue, caseExact: Bool) -> Bool {
        switch (value, operand) {
        case (.string(let left), .string(let right)):
            let a = caseExact ? left : left.lowercased()
            let b = caseExact ? right : right.lowercased()
            switch op {
            case .eq: return a == b
            case .ne: return a != b
            case .co: return a.contains(b)
            case .sw: return a.hasPrefix(b)
            case .ew: return a.hasSuffix(b)
            case .gt: return a > b
            case .ge: return a >= b
            case .lt: return a < b
            case .le: return a <= b
            }
        case (.number(let a), .number(let b)):
            switch op {
            case .eq: return a == b
            case .ne: return a != b
            case .gt: return a > b
            case .ge: return a >= b
            case .lt: return a < b
            case .le: return a <= b
            default: return false
            }
        case (let left, .bool(let right)):
            guard let flag = left.bool else { return op == .ne }
            return op == .eq ? flag == right : op == .ne ? flag != right : false
        case (.null, .null):
            return op == .eq
        case (_, .null):
            return op == .ne
        default:
            return op == .ne
        }
    }
}

/// A PATCH operation's path (RFC 7644 §3.5.2): an attribute path, or a value path with
/// perhaps a sub-attribute after it (`emails[type eq "work"].value`).
public struct SCIMPatchPath: Sendable, Equatable {
    public var attribute: SCIMAttributePath
    public var valueFilter: SCIMFilter?
    /// After a value filter: the sub-attribute of the matching values.
    public var subAttribute: String?

    public static func parse(_ text: String) throws -> SCIMPatchPath {
        var parser = SCIMParser(text)
        let path = try parser.attributePath()
        var result = SCIMPatchPath(attribute: path)
        if parser.take("[") {
            result.valueFilter = try parser.filter()
            guard parser.take("]") else { throw SCIMParser.invalid("a value filter ends with ]") }
            if parser.take(".") { result.subAttribute = try parser.name() }
        }
        try parser.end()
        return result
    }
}

/// The filter and path grammar's scanner and recursive-descent parser.
struct SCIMParser {
    private let scalars: [Character]
    private var index = 0

    init(_ text: String) { scalars = Array(text) }

    static func invalid(_ message: String) -> DomainError { DomainError(.invalid, SCIMError.invalidFilter, message) }

    private var atEnd: Bool { index >= scalars.count }

    private mutating func skipSpaces() {
        while !atEnd, scalars[index] == " " { index += 1 }
    }

    mutating func take(_ character: Character) -> Bool {
        guard !atEnd, scalars[index] == character else { return false }
        index += 1
        return true
    }

    mutating func end() throws {
        skipSpaces()
        guard atEnd else { throw Self.invalid("unexpected text at position \(index + 1)") }
    }

    /// FILTER = term *("or" term)
    mutating func filter() throws -> SCIMFilter {
        var left = try conjunction()
        while keyword("or") { left = .or(left, try conjunction()) }
        return left
    }

    private mutating func conjunction() throws -> SCIMFilter {
        var left = try factor()
        while keyword("and") { left = .and(left, try factor()) }
        return left
    }

    private mutating func factor() throws -> SCIMFilter {
        skipSpaces()
        if keyword("not") {
            skipSpaces()
            guard take("(") else { throw Self.invalid("not is followed by (") }
            let inner = try filter()
            skipSpaces()
            guard take(")") else { throw Self.invalid("a ( is not closed") }
            return .not(inner)
        }
        if take("(") {
            let inner = try filter()
            skipSpaces()
            guard take(")") else { throw Self.invalid("a ( is not closed") }
            return inner
        }
        let path = try attributePath()
        if take("[") {
            let inner = try filter()
            skipSpaces()
            guard take("]") else { throw Self.invalid("a [ is not closed") }
            return .valuePath(path, inner)
        }
        skipSpaces()
        let word = try name().lowercased()
        if word == "pr" { return .present(path) }
        guard let op = SCIMFilter.Operator(rawValue: word) else { throw Self.invalid("unknown operator \(word.prefix(16))") }
        skipSpaces()
        return .compare(path, op, try literal())
    }

    /// A keyword between spaces (`and`, `or`, `not`), consumed only when it is there.
    private mutating func keyword(_ word: String) -> Bool {
        let start = index
        skipSpaces()
        let letters = Array(word)
        guard index + letters.count <= scalars.count,
            String(scalars[index..<index + letters.count]).lowercased() == word
        else {
            index = start
            return false
        }
        let after = index + letters.count
        guard after == scalars.count || scalars[after] == " " || scalars[after] == "(" else {
            index = start
            return false
        }
        index = after
        return true
    }

    /// ATTRNAME: a letter, then letters, digits, `_`, `-` and `$` (as in `$ref`).
    mutating func name() throws -> String {
        let start = index
        while !atEnd, scalars[index].isLetter || scalars[index].isNumber || "_-$".contains(scalars[index]) { index += 1 }
        guard index > start else { throw Self.invalid("an attribute name is expected at position \(start + 1)") }
        return String(scalars[start..<index])
    }

    /// attrPath = [URI ":"] ATTRNAME [ "." subAttr ]. A URN ends at its last colon.
    mutating func attributePath() throws -> SCIMAttributePath {
        skipSpaces()
        let start = index
        while !atEnd, !" [].()".contains(scalars[index]) || (scalars[index] == "." && isInsideURN(from: start)) { index += 1 }
        let token = String(scalars[start..<index])
        guard !token.isEmpty else { throw Self.invalid("an attribute path is expected at position \(start + 1)") }
        var schema: String?
        var attribute = token
        if token.lowercased().hasPrefix("urn:"), let colon = token.lastIndex(of: ":") {
            schema = String(token[..<colon])
            attribute = String(token[token.index(after: colon)...])
        }
        var sub: String?
        if take(".") { sub = try name() }
        guard attribute.first?.isLetter == true || attribute.first == "$",
            attribute.allSatisfy({ $0.isLetter || $0.isNumber || "_-$".contains($0) })
        else { throw Self.invalid("'\(token.prefix(64))' is not an attribute name") }
        return SCIMAttributePath(schema: schema, attribute: attribute, subAttribute: sub)
    }

    /// Dots belong to a URN (`urn:ietf:params:scim:schemas:core:2.0:User`) until its last colon.
    private func isInsideURN(from start: Int) -> Bool {
        let sofar = String(scalars[start..<index]).lowercased()
        guard sofar.hasPrefix("urn:") else { return false }
        return scalars[index...].prefix { !" [".contains($0) }.contains(":")
    }

    /// compValue = false / null / true / number / string (JSON)
    private mutating func literal() throws -> SCIMValue {
        guard !atEnd else { throw Self.invalid("a value is expected") }
        if scalars[index] == "\"" {
            var text = "\""
            index += 1
            var escaped = false
            while !atEnd {
                let character = scalars[index]
                text.append(character)
                index += 1
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    guard let value = try? JSONDecoder().decode(String.self, from: Data(text.utf8)) else {
                        throw Self.invalid("a string value is not valid JSON")
                    }
                    return .string(value)
                }
            }
            throw Self.invalid("a string value is not closed")
        }
        if scalars[index].isNumber || scalars[index] == "-" {
            let start = index
            while !atEnd, scalars[index].isNumber || "-+.eE".contains(scalars[index]) { index += 1 }
            guard let number = Double(String(scalars[start..<index])) else { throw Self.invalid("a number value is not valid") }
            return .number(number)
        }
        let word = try name().lowercased()
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default:
            guard let number = Double(word) else { throw Self.invalid("'\(word.prefix(32))' is not a value") }
            return .number(number)
        }
    }
}

/// SCIM's error types (RFC 7644 §3.12).
public enum SCIMError {
    public static let invalidFilter = DomainError.Code("invalidFilter")
    public static let invalidPath = DomainError.Code("invalidPath")
    public static let invalidValue = DomainError.Code("invalidValue")
    public static let invalidSyntax = DomainError.Code("invalidSyntax")
    public static let noTarget = DomainError.Code("noTarget")
    public static let mutability = DomainError.Code("mutability")
    public static let uniqueness = DomainError.Code("uniqueness")
    public static let tooMany = DomainError.Code("tooMany")
    public static let invalidVersion = DomainError.Code("invalidVers")
}

/// The `attributes` and `excludedAttributes` parameters (RFC 7644 §3.4.2.5, §3.9): which
/// attributes an answer carries. `id` and `schemas` are always returned.
public struct SCIMProjection: Sendable {
    var included: [SCIMAttributePath] = []
    var excluded: [SCIMAttributePath] = []

    /// From the parameters' comma-separated lists (or a search body's arrays).
    public init(attributes: [String], excludedAttributes: [String]) throws {
        func paths(_ names: [String]) throws -> [SCIMAttributePath] {
            try names.flatMap { $0.split(separator: ",") }.map { name in
                do {
                    return try SCIMPatchPath.parse(name.trimmingCharacters(in: .whitespaces)).attribute
                } catch {
                    throw DomainError(.invalid, SCIMError.invalidValue, "'\(name.prefix(64))' is not an attribute")
                }
            }
        }
        included = try paths(attributes)
        excluded = try paths(excludedAttributes)
    }

    public var isEmpty: Bool { included.isEmpty && excluded.isEmpty }

    public func apply(_ resource: [String: SCIMValue]) -> [String: SCIMValue] {
        var result = resource
        if !included.isEmpty {
            result = [:]
            for (name, value) in resource {
                let lower = name.lowercased()
                if ["id", "schemas"].contains(lower) {
                    result[name] = value
                    continue
                }
                let wanted = included.filter { $0.attribute.lowercased() == lower }
                guard !wanted.isEmpty else { continue }
                if wanted.contains(where: { $0.subAttribute == nil }) {
                    result[name] = value
                } else {
                    let subs = Set(wanted.compactMap { $0.subAttribute?.lowercased() })
                    result[name] = Self.only(subs, of: value)
                }
            }
        }
        for path in excluded {
            guard let key = result.keys.first(where: { $0.lowercased() == path.attribute.lowercased() }),
                !["id", "schemas"].contains(key.lowercased())
            else { continue }
            if let sub = path.subAttribute?.lowercased() {
                result[key] = Self.without(sub, of: result[key] ?? .null)
            } else {
                result[key] = nil
            }
        }
        return result
    }

    static func only(_ subs: Set<String>, of value: SCIMValue) -> SCIMValue {
        switch value {
        case .object(let members): .object(members.filter { subs.contains($0.key.lowercased()) })
        case .array(let items): .array(items.map { only(subs, of: $0) })
        default: value
        }
    }

    static func without(_ sub: String, of value: SCIMValue) -> SCIMValue {
        switch value {
        case .object(let members): .object(members.filter { $0.key.lowercased() != sub })
        case .array(let items): .array(items.map { without(sub, of: $0) })
        default: value
        }
    }
}
