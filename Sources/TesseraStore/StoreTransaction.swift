import Foundation
import SQLKit
import TesseraCore
import TesseraSQLite

/// The queries of the store, run inside one transaction or read.
public struct StoreTransaction: Sendable {
    let db: any SQLDatabase

    /// Inserts `model` as a row of `table` (columns named by its coding keys; nil values
    /// left to the column's default). The statement is written here rather than by
    /// SQLKit's insert builder, whose identifier quoting ran a generic string replace per
    /// column and was a visible part of a login's CPU; the names are the records' own
    /// snake_case keys, checked below.
    func insert(_ table: String, _ model: some Encodable & Sendable) async throws {
        let row = try Self.encoder.encode(model)
        for name in [table] + row.map(\.0) where !Self.isPlainName(name) {
            throw StoreError(.corrupt, "not a plain column name: \(name)")
        }
        let columns = row.map { "\"\($0.0)\"" }.joined(separator: ", ")
        let query: SQLQueryString = "INSERT INTO \(unsafeRaw: "\"\(table)\"") (\(unsafeRaw: columns)) VALUES (\(SQLList(row.map(\.1))))"
        do {
            try await db.raw(query).run()
        } catch {
            // Classified by result code (SQLite's extended code, PostgreSQL's SQLSTATE), never by message text.
            if PostgresErrors.isUniqueViolation(error) || (error as? SQLiteFailure)?.isUniqueViolation == true {
                throw StoreError(.conflict, "\(table): a row with this key exists")
            }
            throw error
        }
    }

    private static let encoder = SQLQueryEncoder(keyEncodingStrategy: .useDefaultKeys, nilEncodingStrategy: .default)

    /// Lower-case letters, digits and underscores, not starting with a digit.
    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }

    func first<T: Decodable>(_ query: SQLQueryString, as type: T.Type) async throws -> T? {
        try await db.raw(query).first().map { try T(from: RecordDecoder(row: $0)) }
    }

    func all<T: Decodable>(_ query: SQLQueryString, as type: T.Type) async throws -> [T] {
        try await db.raw(query).all().map { try T(from: RecordDecoder(row: $0)) }
    }
}

/// Reads a record from a result row, one column per coding key (the names are the
/// records' own, no key conversion): what SQLKit's `SQLRowDecoder` does for the store,
/// without its general machinery (key strategies, prefixes, error wrapping), which was a
/// visible part of a login's CPU. Plain values are read from the row directly; anything
/// else (the records' property wrappers, ids) as the row's own decoding reads it.
struct RecordDecoder: Decoder {
    let row: any SQLRow
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Columns(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a row is not a list"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "a row is not a single value"))
    }

    private struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: any SQLRow
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { row.allColumns.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { row.contains(column: key.stringValue) }
        func decodeNil(forKey key: Key) throws -> Bool { try row.decodeNil(column: key.stringValue) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try row.decode(column: key.stringValue, as: String.self) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try row.decode(column: key.stringValue, as: Int64.self) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try row.decode(column: key.stringValue, as: Int.self) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try row.decode(column: key.stringValue, as: Bool.self) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try row.decode(column: key.stringValue, as: Double.self) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try row.decode(column: key.stringValue, as: T.self) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "a column is not a row"))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "a column is not a list"))
        }

        func superDecoder() throws -> any Decoder { RecordDecoder(row: row) }
        func superDecoder(forKey key: Key) throws -> any Decoder { RecordDecoder(row: row) }
    }
}
