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
        try await db.raw(query).first()?.decode(model: T.self, keyDecodingStrategy: .useDefaultKeys)
    }

    func all<T: Decodable>(_ query: SQLQueryString, as type: T.Type) async throws -> [T] {
        try await db.raw(query).all().map { try $0.decode(model: T.self, keyDecodingStrategy: .useDefaultKeys) }
    }
}
