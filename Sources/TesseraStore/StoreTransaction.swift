import Foundation
import SQLKit
import TesseraCore
import TesseraRecords
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
        _ = try await insert(table, model, skippingConflicts: false)
    }

    /// Inserts `model` as `insert` does; with `skippingConflicts`, a row whose unique key
    /// exists already is left alone (`ON CONFLICT DO NOTHING`). Returns whether the row went in.
    func insert(_ table: String, _ model: some Encodable & Sendable, skippingConflicts: Bool) async throws -> Bool {
        var query = try Self.insertion(table, model)
        do {
            guard skippingConflicts else {
                try await db.raw(query).run()
                return true
            }
            query.appendLiteral(" ON CONFLICT DO NOTHING RETURNING 1")
            return try await !db.raw(query).all().isEmpty
        } catch {
            // Classified by result code (SQLite's extended code, PostgreSQL's SQLSTATE), never by message text.
            if PostgresErrors.isUniqueViolation(error) || (error as? SQLiteFailure)?.isUniqueViolation == true {
                throw StoreError(.conflict, "\(table): a row with this key exists")
            }
            throw error
        }
    }

    /// Whether the statements go to PostgreSQL: a compound write (`SQLStore.compoundWrite`)
    /// is one statement there, and a few on SQLite.
    var isPostgres: Bool { db.dialect.name == "postgresql" }

    /// The statement `insert` runs.
    static func insertion(_ table: String, _ model: some Encodable & Sendable) throws -> SQLQueryString {
        let row = try checked(table, RecordEncoder.columns(of: model))
        let columns = row.map { "\"\($0.0)\"" }.joined(separator: ", ")
        return "INSERT INTO \(unsafeRaw: "\"\(table)\"") (\(unsafeRaw: columns)) VALUES (\(SQLList(row.map(\.1))))"
    }

    /// Runs `writes`, statements that neither read nor write each other's rows, in this
    /// transaction: as one statement on PostgreSQL (each but the last a data-modifying
    /// `WITH` query; all of them see one snapshot) and one after another on SQLite.
    /// With `keys`, the same statement tells the other nodes (PostgreSQL's `pg_notify` on
    /// `channel`, sent when the transaction commits); on SQLite there are none to tell.
    func together(_ writes: [SQLQueryString], notifying keys: [String] = [], on channel: String = "") async throws {
        guard isPostgres else {
            for write in writes { try await db.raw(write).run() }
            return
        }
        var queries = writes
        if !keys.isEmpty { queries.append(Self.notification(keys, on: channel)) }
        guard let last = queries.last else { return }
        try await db.raw(Self.with(queries.dropLast(), then: last)).run()
    }

    /// `WITH w0 AS (first), w1 AS (second), … last`: data-modifying queries run once each,
    /// whether or not `last` reads them.
    static func with(_ queries: some Collection<SQLQueryString>, then last: SQLQueryString) -> SQLQueryString {
        guard !queries.isEmpty else { return last }
        var statement: SQLQueryString = "WITH "
        for (index, query) in queries.enumerated() {
            statement.appendLiteral(index == 0 ? "w0 AS (" : ", w\(index) AS (")
            statement += query
            statement.appendLiteral(")")
        }
        statement.appendLiteral(" ")
        statement += last
        return statement
    }

    /// A row per key, each telling the other nodes (`pg_notify`) at the commit; with
    /// `after` (a `WITH` query of the same statement), once per row of it: none when it has none.
    static func notification(_ keys: [String], on channel: String, after source: String? = nil) -> SQLQueryString {
        precondition(source.map(isPlainName) ?? true, "a WITH query's name is written into the statement")
        let rows = source.map { "\($0) CROSS JOIN " } ?? ""
        return "SELECT pg_notify(\(bind: channel), key) FROM \(unsafeRaw: rows)unnest(\(bind: keys)::text[]) AS key"
    }

    /// `INSERT INTO table (columns) SELECT values FROM source`: `model` as `insert` writes
    /// it, once for each row of `source` (a `WITH` query of the same statement), so that
    /// the row is written only when what it follows from was.
    static func insertion(_ table: String, _ model: some Encodable & Sendable, from source: String) throws -> SQLQueryString {
        let row = try checked(table, RecordEncoder.columns(of: model))
        guard isPlainName(source) else { throw StoreError(.corrupt, "not a plain name: \(source)") }
        let columns = row.map { "\"\($0.0)\"" }.joined(separator: ", ")
        return "INSERT INTO \(unsafeRaw: "\"\(table)\"") (\(unsafeRaw: columns)) SELECT \(SQLList(row.map(\.1))) FROM \(unsafeRaw: source)"
    }

    /// Writes every column of `model` over the row of `table` whose `key` column holds the
    /// model's value of it, except the columns in `keeping` (what a row never changes, such
    /// as its tenant or creation time). An absent optional is written as NULL: the row
    /// becomes the record. Columns are named by the record's coding keys, as for `insert`.
    func update(_ table: String, _ model: some Encodable & Sendable, key: String, keeping: Set<String> = []) async throws {
        let row = try Self.checked(table, RecordEncoder.columns(of: model, absentAsNull: true))
        guard let match = row.first(where: { $0.0 == key }) else { throw StoreError(.corrupt, "\(table): the record has no \(key)") }
        let assignments = row.filter { $0.0 != key && !keeping.contains($0.0) }
            .map { SQLBinaryExpression(SQLIdentifier($0.0), .equal, $0.1) }
        guard !assignments.isEmpty else { return }
        let query: SQLQueryString =
            "UPDATE \(unsafeRaw: "\"\(table)\"") SET \(SQLList(assignments)) WHERE \(unsafeRaw: "\"\(key)\"") = \(match.1)"
        try await db.raw(query).run()
    }

    /// A record's columns, once the table's and every column's name are plain (they are
    /// written into the statement, not bound).
    static func checked(_ table: String, _ row: [(String, any SQLExpression)]) throws -> [(String, any SQLExpression)] {
        for name in [table] + row.map(\.0) where !isPlainName(name) {
            throw StoreError(.corrupt, "not a plain column name: \(name)")
        }
        return row
    }

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
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            // The records' wrappers and ids read one plain value through a single-value
            // container: served from the row directly, not through the row's own Codable
            // decoding of the whole type. Anything else (a type that wants another
            // container) is left to the row.
            do {
                return try T(from: ColumnDecoder(row: row, column: key.stringValue))
            } catch is ColumnDecoder.NotAPlainValue {
                return try row.decode(column: key.stringValue, as: T.self)
            }
        }

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

/// One column of a row as a `Decoder` with a single-value container of plain values
/// (text, integers, floating point, NULL), which is all the records' wrappers and ids
/// read; any other container is `NotAPlainValue`, and the caller asks the row instead.
struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    struct NotAPlainValue: Error {}

    let row: any SQLRow
    let column: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw NotAPlainValue() }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw NotAPlainValue() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { (try? row.decodeNil(column: column)) ?? true }
    func decode(_ type: String.Type) throws -> String { try row.decode(column: column, as: String.self) }
    func decode(_ type: Int.Type) throws -> Int { try row.decode(column: column, as: Int.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try row.decode(column: column, as: Int64.self) }
    func decode(_ type: Double.Type) throws -> Double { try row.decode(column: column, as: Double.self) }
    func decode(_ type: Bool.Type) throws -> Bool { try row.decode(column: column, as: Bool.self) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { throw NotAPlainValue() }
}

/// A record's columns for an INSERT, from its `Encodable` conformance: one column per
/// coding key, each value bound as the plain text or integer the records' wrappers and
/// ids encode to (so no bind needs Codable again when the statement runs), an absent
/// optional left out (the column's default), and an explicit nil as NULL.
final class RecordEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    fileprivate var columns: [(String, any SQLExpression)] = []
    /// Set when the record wrote something that is not one plain value per column.
    fileprivate var unsupported = false
    /// An absent optional is a NULL column (an UPDATE) rather than no column (an INSERT).
    fileprivate var absentAsNull = false

    static func columns(of model: some Encodable, absentAsNull: Bool = false) throws -> [(String, any SQLExpression)] {
        let encoder = RecordEncoder()
        encoder.absentAsNull = absentAsNull
        try model.encode(to: encoder)
        guard !encoder.unsupported else {
            throw EncodingError.invalidValue(model, .init(codingPath: [], debugDescription: "a record's columns are plain values"))
        }
        return encoder.columns
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Columns(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        unsupported = true
        return Discarded<AnyKey>()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        unsupported = true
        return Discarded<AnyKey>()
    }

    private struct Columns<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: RecordEncoder
        var codingPath: [any CodingKey] { [] }

        func add(_ key: Key, _ value: any SQLExpression) { encoder.columns.append((key.stringValue, value)) }

        mutating func encodeNil(forKey key: Key) throws { add(key, SQLLiteral.null) }
        // An optional: its value (each plain type bound directly, as `encode` does), or when
        // absent NULL or no column.
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { if let value { add(key, SQLBind(value)) } else { absent(key) } }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { if let value { add(key, SQLBind(Int64(value))) } else { absent(key) } }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { if let value { add(key, SQLBind(value)) } else { absent(key) } }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { if let value { add(key, SQLBind(value)) } else { absent(key) } }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { if let value { add(key, SQLBind(value)) } else { absent(key) } }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) } else { absent(key) }
        }

        func absent(_ key: Key) {
            if encoder.absentAsNull { add(key, SQLLiteral.null) }
        }

        mutating func encode(_ value: String, forKey key: Key) throws { add(key, SQLBind(value)) }
        mutating func encode(_ value: Int, forKey key: Key) throws { add(key, SQLBind(Int64(value))) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { add(key, SQLBind(value)) }
        mutating func encode(_ value: Double, forKey key: Key) throws { add(key, SQLBind(value)) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { add(key, SQLBind(value)) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            let column = ColumnEncoder()
            try value.encode(to: column)
            guard let bound = column.value, !column.unsupported else {
                throw EncodingError.invalidValue(value, .init(codingPath: [key], debugDescription: "not a plain column value"))
            }
            add(key, bound)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            encoder.unsupported = true
            return KeyedEncodingContainer(Discarded<NestedKey>())
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            encoder.unsupported = true
            return Discarded<Key>()
        }

        mutating func superEncoder() -> any Encoder { encoder }
        mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }
}

/// One value of a record (a wrapper's or id's single value) as a bind or NULL.
private final class ColumnEncoder: Encoder, SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var value: (any SQLExpression)?
    var unsupported = false

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        unsupported = true
        return KeyedEncodingContainer(Discarded<Key>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        unsupported = true
        return Discarded<AnyKey>()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { value = SQLLiteral.null }
    func encode(_ value: String) throws { self.value = SQLBind(value) }
    func encode(_ value: Int) throws { self.value = SQLBind(Int64(value)) }
    func encode(_ value: Int64) throws { self.value = SQLBind(value) }
    func encode(_ value: Double) throws { self.value = SQLBind(value) }
    func encode(_ value: Bool) throws { self.value = SQLBind(value) }
    func encode<T: Encodable>(_ value: T) throws { try value.encode(to: self) }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Where a record writes what is not a plain column value: nothing is kept, and the
/// encoder that handed it out has failed the insert.
private struct Discarded<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    { KeyedEncodingContainer(Discarded<NestedKey>()) }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { RecordEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { RecordEncoder() }
}

extension Discarded: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(Discarded<NestedKey>())
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
}
