import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit
import Synchronization
import TesseraCore
import TesseraRecords

/// The store's statements, prepared by PostgreSQL once per connection.
///
/// Sent as unnamed statements, every execution is parsed, analysed and planned again
/// (each lookup by key cost PostgreSQL about twice its execution). A named statement
/// is prepared on a connection the first time it runs there (PostgresNIO keeps which
/// connection has which), and afterwards only bound and executed. The SQL text is the
/// key: SQLKit writes the same text for the same query shape.
final class PostgresStatements: Sendable {
    /// A statement: its SQL and the types of its binds.
    struct Key: Hashable, Sendable {
        let sql: String
        let types: String
    }

    /// A name handed out, the statement it names, and the generation it belongs to.
    struct Name: Sendable {
        let text: String
        let key: Key
        let generation: Int
    }

    private struct State {
        var names: [Key: Name] = [:]
        var generation = 0
        var issued = 0
    }

    private let state = Mutex(State())
    /// Statements named at once, at most: beyond them (generated lists of any length
    /// could be unbounded) a statement runs unnamed, as before.
    static let limit = 1_024
    /// Names handed out over the process's life, at most: a name is retired after a
    /// failure and each retired one stays prepared on its connections, so past this
    /// every statement runs unnamed.
    static let lifetimeLimit = 4_096

    /// The name of `sql`'s prepared statement for binds of `types`, or nil to run it
    /// unnamed. A statement is prepared with its parameters' types (PostgreSQL infers a
    /// NULL's), so other types of binds make another statement.
    func name(for sql: String, types: String) -> Name? {
        let key = Key(sql: sql, types: types)
        return state.withLock { state in
            if let name = state.names[key] { return name }
            guard state.names.count < Self.limit, state.issued < Self.lifetimeLimit else { return nil }
            let name = Name(text: "tessera_\(state.issued)", key: key, generation: state.generation)
            state.issued += 1
            state.names[key] = name
            return name
        }
    }

    /// Gives the statement a new name after it failed in a way that may not last (a
    /// lock or statement timeout, a cancel, a deadlock): PostgresNIO keeps a failed
    /// preparation's error for the name on that connection and answers every later use
    /// with it, so the name must not be used again.
    func retire(_ name: Name) {
        state.withLock { state in
            if state.names[name.key]?.text == name.text { state.names[name.key] = nil }
        }
    }

    /// After the schema changed under a prepared statement of `generation` (another
    /// node migrated), every statement is prepared again, under new names; failures of
    /// the same generation found at once start one new generation, not one each.
    func forgetAll(generation: Int) {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.names = [:]
            state.generation += 1
        }
    }
}

/// A pooled connection as an SQL database whose statements with binds run prepared
/// (`PostgresStatements`); one without binds (BEGIN, COMMIT) or with a bind of another
/// type than text, integer, boolean, double, text array or NULL runs unnamed, through PostgresKit.
struct PreparingPostgresDatabase: SQLDatabase {
    let connection: PostgresConnection
    let statements: PostgresStatements
    private let plain: any SQLDatabase

    init(_ connection: PostgresConnection, statements: PostgresStatements) {
        self.connection = connection
        self.statements = statements
        plain = connection.sql(queryLogLevel: nil)
    }

    var logger: Logger { connection.logger }
    var eventLoop: any EventLoop { connection.eventLoop }
    var dialect: any SQLDialect { plain.dialect }
    /// Queries are not logged: their binds hold digests and sealed secrets.
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        guard !connection.isClosed else { return eventLoop.makeFailedFuture(PostgresErrors.ConnectionClosed()) }
        return plain.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        // On the connection's event loop (`SQLStore.onLoop`) nothing closes it between this
        // look and the statement's write.
        guard !connection.isClosed else { throw PostgresErrors.ConnectionClosed() }
        StoreCall.current?.statement()
        let (sql, binds) = serialize(query)
        guard !binds.isEmpty, let (bindings, types) = Self.bindings(binds), let name = statements.name(for: sql, types: types) else {
            return try await plain.execute(sql: query, onRow)
        }
        do {
            try await NamedStatement.$current.withValue(NamedStatement.Text(name: name.text, sql: sql)) {
                let rows = try await connection.execute(NamedStatement(bindings: bindings), logger: connection.logger)
                for try await row in rows { onRow(PostgresStoreRow(row)) }
            }
        } catch where PostgresErrors.isStalePlan(error) {
            statements.forgetAll(generation: name.generation)
            throw error
        } catch where PostgresErrors.mayPass(error) {
            statements.retire(name)
            throw error
        }
    }

    /// The binds as PostgreSQL values of the types PostgresKit would give them, and their
    /// types in one letter each (a NULL is `n`); nil for a bind of any other type.
    static func bindings(_ binds: [any Encodable & Sendable]) -> (PostgresBindings, String)? {
        var bindings = PostgresBindings(capacity: binds.count)
        var types = ""
        for bind in binds {
            if let optional = bind as? any NoneOrSome, optional.isNone {
                bindings.appendNull()
                types.append("n")
                continue
            }
            switch bind {
            case let value as String: bindings.append(value); types.append("t")
            case let value as Int64: bindings.append(value); types.append("i")
            case let value as Int: bindings.append(value); types.append("i")
            case let value as Bool: bindings.append(value); types.append("b")
            case let value as Double: bindings.append(value); types.append("d")
            case let value as any StringIdentifier: bindings.append(value.rawValue); types.append("t")
            case let value as [String]: bindings.append(value); types.append("a")
            default: return nil
            }
        }
        return (bindings, types)
    }
}

/// An optional bind: a NULL is bound without a type, for PostgreSQL to infer.
private protocol NoneOrSome {
    var isNone: Bool { get }
}

extension Optional: NoneOrSome {
    var isNone: Bool { self == nil }
}

/// PostgresNIO names a prepared statement by its type; this one takes its name and SQL
/// from the task that executes it (both are read while the task runs `execute`).
private struct NamedStatement: PostgresPreparedStatement {
    struct Text: Sendable {
        let name: String
        let sql: String
    }

    @TaskLocal static var current = Text(name: "", sql: "")
    static var name: String { current.name }
    static var sql: String { current.sql }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// A row of a prepared statement: PostgresKit's row, which the store reads by column name,
/// and the row's cells in order, for a row that holds several tables' columns side by
/// side (`SELECT NULL AS "|user", u.*, NULL AS "|request", r.* …`, where names repeat):
/// `segments` answers each table's columns as a row of their own.
struct PostgresStoreRow: SQLRow {
    let row: PostgresRow
    private let base: any SQLRow

    init(_ row: PostgresRow) {
        self.row = row
        base = row.sql()
    }

    var allColumns: [String] { base.allColumns }
    func contains(column: String) -> Bool { base.contains(column: column) }
    func decodeNil(column: String) throws -> Bool { try base.decodeNil(column: column) }
    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D { try base.decode(column: column, as: D.self) }

    /// Each marker column's name (`|name` as `name`) with the columns after it, up to the
    /// next marker or the row's end; the row's cells are walked once.
    func segments() -> [String: PostgresSegment] {
        var segments: [String: PostgresSegment] = [:]
        var name: String?
        var cells: [PostgresCell] = []
        for cell in row.makeRandomAccess() {
            guard cell.columnName.hasPrefix("|") else {
                if name != nil { cells.append(cell) }
                continue
            }
            if let name { segments[name] = PostgresSegment(cells: cells) }
            name = String(cell.columnName.dropFirst())
            cells = []
        }
        if let name { segments[name] = PostgresSegment(cells: cells) }
        return segments
    }
}

/// One table's columns of a `PostgresStoreRow`: plain values (what the records' columns
/// hold: text, integers, floating point, booleans), each decoded by PostgresNIO as
/// PostgresKit decodes them.
struct PostgresSegment: SQLRow {
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    let cells: [PostgresCell]
    /// Each column's place among `cells` (a record reads each of its columns up to three
    /// times: whether it is there, whether it is NULL, its value).
    private let places: [String: Int]

    init(cells: [PostgresCell]) {
        self.cells = cells
        places = Dictionary(cells.enumerated().map { ($1.columnName, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private func cell(_ column: String) -> PostgresCell? { places[column].map { cells[$0] } }

    var allColumns: [String] { cells.map(\.columnName) }
    func contains(column: String) -> Bool { cell(column) != nil }
    func decodeNil(column: String) throws -> Bool { cell(column)?.bytes == nil }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let cell = cell(column) else { throw Unreadable(description: "no column \(column)") }
        guard let plain = D.self as? any PostgresDecodable.Type else {
            throw Unreadable(description: "column \(column): \(D.self) is not a plain value")
        }
        func read<P: PostgresDecodable>(_ type: P.Type) throws -> P { try cell.decode(P.self) }
        guard let value = try read(plain) as? D else { throw Unreadable(description: "column \(column): not a \(D.self)") }
        return value
    }
}
