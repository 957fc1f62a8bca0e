/// A field of a partial update: absent (unchanged), `null` (cleared) or a value.
public enum Patch<Value: Codable & Sendable>: Sendable {
    case absent
    case null
    case value(Value)

    public var isAbsent: Bool {
        if case .absent = self { return true }
        return false
    }

    /// Writes the field: nothing when absent, `null`, or the value.
    public func encode<Key: CodingKey>(into container: inout KeyedEncodingContainer<Key>, _ key: Key) throws {
        switch self {
        case .absent: break
        case .null: try container.encodeNil(forKey: key)
        case .value(let value): try container.encode(value, forKey: key)
        }
    }

    public init<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws {
        if !container.contains(key) {
            self = .absent
        } else if try container.decodeNil(forKey: key) {
            self = .null
        } else {
            self = .value(try container.decode(Value.self, forKey: key))
        }
    }
}

extension Patch: Equatable where Value: Equatable {}
extension Patch: Hashable where Value: Hashable {}
