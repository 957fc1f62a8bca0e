import Foundation

/// A value kept as JSON in a TEXT column (sorted keys), typed in the record. A column
/// that does not decode is a corrupt row (`StoreError.corrupt`).
@propertyWrapper
public struct JSONText<Value: Codable & Sendable>: Codable, Sendable {
    public var wrappedValue: Value

    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        wrappedValue = try JSONCoding.decodeRemembered(Value.self, try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(try JSONCoding.string(wrappedValue))
    }
}

extension JSONText: Equatable where Value: Equatable {}

/// `JSONText` for a nullable column: nil is NULL.
@propertyWrapper
public struct OptionalJSONText<Value: Codable & Sendable>: Codable, Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try JSONCoding.decodeRemembered(Value.self, try container.decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(try JSONCoding.string(wrappedValue))
        } else {
            try container.encodeNil()
        }
    }
}

extension OptionalJSONText: Equatable where Value: Equatable {}
