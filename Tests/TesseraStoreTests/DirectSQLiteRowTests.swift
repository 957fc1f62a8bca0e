import Foundation
import SQLKit
import SQLiteNIO
import TesseraCore
import TesseraRecords
import TesseraSQLite
import Testing

@testable import TesseraStore

@Suite("SQLite rows read through SQLKit: a column found by the one read last, or by its name")
struct DirectSQLiteRowTests {
    struct Record: Decodable, Equatable {
        let id: String
        let count: Int64
        let note: String?
        let flag: Int
    }

    private func row(_ names: [String], _ values: [SQLiteData]) -> DirectSQLiteRow {
        DirectSQLiteRow(columns: SQLiteColumns(names: names), values: values)
    }

    @Test("a record decodes the same whatever order the statement selects its columns in")
    func anyOrder() throws {
        let expected = Record(id: "a1", count: 7, note: nil, flag: 1)
        let inOrder = row(["id", "count", "note", "flag"], [.text("a1"), .integer(7), .null, .integer(1)])
        let reversed = row(["flag", "note", "count", "id"], [.integer(1), .null, .integer(7), .text("a1")])
        let shuffled = row(["count", "extra", "flag", "id", "note"], [.integer(7), .text("x"), .integer(1), .text("a1"), .null])
        for candidate in [inOrder, reversed, shuffled] {
            #expect(try candidate.decode(model: Record.self) == expected)
            // Read twice from the same row: the second pass starts where the first ended.
            #expect(try candidate.decode(model: Record.self) == expected)
        }
        #expect(inOrder.contains(column: "note"))
        #expect(try inOrder.decodeNil(column: "note"))
        #expect(try !inOrder.decodeNil(column: "id"))
        #expect(!inOrder.contains(column: "missing"))
        #expect(try inOrder.decodeNil(column: "missing"))
        #expect(throws: StoreError.self) { try inOrder.decode(column: "missing", as: String.self) }
        #expect(try inOrder.decode(column: "id", as: String.self) == "a1")
    }

    @Test("a name the statement repeats reads its first column, whatever was read before")
    func repeatedName() throws {
        let repeated = row(["id", "name", "id"], [.text("first"), .text("n"), .text("second")])
        #expect(try repeated.decode(column: "name", as: String.self) == "n")
        #expect(try repeated.decode(column: "id", as: String.self) == "first")
        #expect(try repeated.decode(column: "id", as: String.self) == "first")
    }

    @Test("a bind becomes the SQLite value sqlite-kit's encoder makes of it, told apart by its type")
    func binds() throws {
        let binds: [any Encodable & Sendable] = [
            "text", "", 7, -7, Int64(-3), Int64.max, true, false, 2.5, String?.none, String?("x"), Int?.none, Int?(4),
            Int64?(9), Int64?.none, Bool?(true), Double?.none, Int32(5), Data([1, 2, 3]), ["a", "b"],
            UserID("u-1"), RequestID("r-1"), ActivationID?("a-1"), TenantID?.none,
        ]
        for bind in binds {
            #expect(try DirectSQLiteDatabase.value(of: bind) == DirectSQLiteDatabase.encoded(bind), "\(bind)")
        }
        #expect(try DirectSQLiteDatabase.value(of: "text") == .text("text"))
        #expect(try DirectSQLiteDatabase.value(of: Int64(-3)) == .integer(-3))
        #expect(try DirectSQLiteDatabase.value(of: false) == .integer(0))
        #expect(try DirectSQLiteDatabase.value(of: String?.none) == .null)
        #expect(try DirectSQLiteDatabase.value(of: Int?(4)) == .integer(4))
        #expect(try DirectSQLiteDatabase.value(of: UserID("u-1")) == .text("u-1"))
    }
}
