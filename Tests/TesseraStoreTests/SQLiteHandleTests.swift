import Foundation
import Testing
import TesseraSQLite

@Suite("SQLite connection")
struct SQLiteHandleTests {
    @Test("a reused SELECT * sees columns another connection added, and keeps its names otherwise")
    func columnsFollowTheSchema() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("handle-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try SQLiteHandle(path: path)
        let second = try SQLiteHandle(path: path)
        defer {
            first.close()
            second.close()
        }
        try first.execute("CREATE TABLE t (a INTEGER, b TEXT)", []) { _, _ in }
        try first.execute("INSERT INTO t VALUES (1, 'x')", []) { _, _ in }
        func select() throws -> [String: SQLiteValue] {
            var row: [String: SQLiteValue] = [:]
            try first.execute("SELECT * FROM t", []) { columns, values in
                for (name, offset) in columns.offsets { row[name] = values[offset] }
            }
            return row
        }
        #expect(try select() == ["a": .integer(1), "b": .text("x")])
        #expect(try select() == ["a": .integer(1), "b": .text("x")])
        try second.execute("ALTER TABLE t ADD COLUMN c TEXT DEFAULT 'new'", []) { _, _ in }
        #expect(try select() == ["a": .integer(1), "b": .text("x"), "c": .text("new")])
        // Same count, other names: a column renamed by the other connection.
        try second.execute("ALTER TABLE t RENAME COLUMN b TO d", []) { _, _ in }
        #expect(try select() == ["a": .integer(1), "d": .text("x"), "c": .text("new")])
    }
}
