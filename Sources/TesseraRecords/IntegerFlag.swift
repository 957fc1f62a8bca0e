/// A `Bool` kept in an INTEGER column (0 or 1), the same on SQLite and PostgreSQL; a NULL
/// (a column added after the row was written) reads as false.
@propertyWrapper
public struct IntegerFlag: Codable, Sendable, Equatable {
    public var wrappedValue: Bool

    public init(wrappedValue: Bool) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? false : try container.decode(Int.self) != 0
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue ? 1 : 0)
    }
}
