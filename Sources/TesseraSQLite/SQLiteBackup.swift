import Foundation
internal import CSQLite

/// SQLite's online backup API (https://sqlite.org/backup.html): a copy of a live database
/// file, taken in one step so that it is one consistent snapshot, while the server goes on
/// writing beside it (in WAL mode a reader and the writer do not wait for each other).
///
/// Its calls block the calling thread for as long as the copy takes: run them on a thread
/// of their own (`SQLiteThread`), never on a cooperative or event-loop thread.
public enum SQLiteBackup {
    /// Copies the database at `source` into a new file at `destination` (which must not
    /// exist) and returns how many pages it copied. Writers on `source` are not stopped.
    public static func copy(from source: String, to destination: String) throws -> Int {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw SQLiteFailure(code: SQLITE_CANTOPEN, message: "\(destination) exists already")
        }
        let from = try open(source, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(from) }
        // A snapshot's read may meet a checkpoint's moment of exclusivity: wait it out.
        sqlite3_busy_timeout(from, 5000)
        let to = try open(destination, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        defer { sqlite3_close_v2(to) }
        guard let backup = sqlite3_backup_init(to, "main", from, "main") else {
            throw SQLiteFailure(code: sqlite3_extended_errcode(to), message: String(cString: sqlite3_errmsg(to)))
        }
        var status: Int32
        var waits = 0
        repeat {
            // -1: every page in one step, under one read transaction of the source.
            status = sqlite3_backup_step(backup, -1)
            if status == SQLITE_BUSY || status == SQLITE_LOCKED {
                waits += 1
                usleep(50_000)
            }
        } while (status == SQLITE_BUSY || status == SQLITE_LOCKED) && waits < 200
        let pages = Int(sqlite3_backup_pagecount(backup))
        sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE else {
            throw SQLiteFailure(code: status, message: "the backup of \(source) stopped: \(String(cString: sqlite3_errstr(status)))")
        }
        let finished = sqlite3_errcode(to)
        guard finished == SQLITE_OK else {
            throw SQLiteFailure(code: finished, message: String(cString: sqlite3_errmsg(to)))
        }
        return pages
    }

    /// `PRAGMA integrity_check` of the database at `path`: nil when it finds nothing wrong,
    /// else its first problems.
    public static func integrityProblems(of path: String) throws -> String? {
        let handle = try open(path, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(handle) }
        let lines = try rows("PRAGMA integrity_check(10)", handle).map { $0 ?? "" }
        return lines == ["ok"] ? nil : lines.joined(separator: "; ")
    }

    /// Switches a copy to a rollback journal (`journal_mode=DELETE`): a file that stands
    /// alone, with no write-ahead log beside it, readable on a read-only medium. A server
    /// that opens it switches it back to WAL.
    public static func useRollbackJournal(_ path: String) throws {
        let handle = try open(path, flags: SQLITE_OPEN_READWRITE)
        defer { sqlite3_close_v2(handle) }
        let status = sqlite3_exec(handle, "PRAGMA journal_mode = DELETE", nil, nil, nil)
        guard status == SQLITE_OK else { throw SQLiteFailure(code: status, message: String(cString: sqlite3_errmsg(handle))) }
    }

    /// Rows per table of the database at `path`, read only.
    public static func rowCounts(of path: String) throws -> [String: Int] {
        let handle = try open(path, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(handle) }
        let names = try rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'", handle)
            .compactMap { $0 }
        var counts: [String: Int] = [:]
        for name in names {
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            counts[name] = try rows("SELECT COUNT(*) FROM \(quoted)", handle).first.flatMap { $0.flatMap(Int.init) } ?? 0
        }
        return counts
    }

    /// The first column of the first row of `sql` on the database at `path` as an integer
    /// (nil for NULL or no row), read only.
    public static func integer(_ sql: String, of path: String) throws -> Int? {
        let handle = try open(path, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(handle) }
        return try rows(sql, handle).first.flatMap { $0.flatMap(Int.init) }
    }

    /// The first column of each row of `sql`, as text.
    private static func rows(_ sql: String, _ handle: OpaquePointer) throws -> [String?] {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else {
            throw SQLiteFailure(code: prepared, message: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        var values: [String?] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw SQLiteFailure(code: step, message: String(cString: sqlite3_errmsg(handle))) }
            values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) })
        }
        return values
    }

    private static func open(_ path: String, flags: Int32) throws -> OpaquePointer {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_EXRESCODE, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteFailure(code: status, message: "cannot open \(path): \(message)")
        }
        return handle
    }
}
