import Foundation
import SQLKit
import TesseraCore
import TesseraSQLite

/// The queries of the store, run inside one transaction or read.
public struct StoreTransaction: Sendable {
    let db: any SQLDatabase

    func insert(_ table: String, _ model: some Encodable & Sendable) async throws {
        do {
            try await db.insert(into: table).model(model, keyEncodingStrategy: .useDefaultKeys).run()
        } catch {
            // Classified by result code (SQLite's extended code, PostgreSQL's SQLSTATE), never by message text.
            if PostgresErrors.isUniqueViolation(error) || (error as? SQLiteFailure)?.isUniqueViolation == true {
                throw StoreError(.conflict, "\(table): a row with this key exists")
            }
            throw error
        }
    }

    func first<T: Decodable>(_ query: SQLQueryString, as type: T.Type) async throws -> T? {
        try await db.raw(query).first()?.decode(model: T.self, keyDecodingStrategy: .useDefaultKeys)
    }

    func all<T: Decodable>(_ query: SQLQueryString, as type: T.Type) async throws -> [T] {
        try await db.raw(query).all().map { try $0.decode(model: T.self, keyDecodingStrategy: .useDefaultKeys) }
    }
}
