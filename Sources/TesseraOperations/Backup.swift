import Foundation
import Logging
import TesseraBuildInfo
import TesseraCrypto
import TesseraDomain
import TesseraSQLite
import TesseraStore

/// What a backup directory says of itself (`backup.json`): when and by what it was made,
/// the schema, and the rows per table of the copy, which a restore checks the copy against
/// (a restore that finds fewer rows than were backed up fails; it never brings back an
/// empty database as if it were the data).
public struct BackupManifest: Codable, Sendable {
    public var format = 1
    public let createdAt: Int64
    public let release: String
    public let commit: String
    /// `sqlite` (the copy is `tessera.sqlite` beside this file) or `postgres` (the copy is
    /// the dump the printed `pg_dump` command writes).
    public let backend: String
    public let schemaVersion: Int
    /// Rows per table: of the copy (SQLite), or of the database when the backup was
    /// planned (PostgreSQL, whose dump is made afterwards).
    public let tables: [String: Int]
    public let masterKeyIncluded: Bool

    enum CodingKeys: String, CodingKey {
        case format, release, commit, backend, tables
        case createdAt = "created_at"
        case schemaVersion = "schema_version"
        case masterKeyIncluded = "master_key_included"
    }

    public static let fileName = "backup.json"
    public static let databaseFileName = "tessera.sqlite"
    public static let dumpFileName = "tessera.dump"
}

/// The outcome of `tessera backup`.
public struct BackupReport: Encodable, Sendable {
    public let directory: String
    public let manifest: BackupManifest
    /// For PostgreSQL: the commands that copy and restore the database (the password is
    /// never in them; libpq reads it from `PGPASSWORD` or `~/.pgpass`).
    public let dumpCommand: String?
    public let restoreCommand: String?

    enum CodingKeys: String, CodingKey {
        case directory, manifest
        case dumpCommand = "dump_command"
        case restoreCommand = "restore_command"
    }
}

/// What `tessera restore --verify` found, and what `--from` did.
public struct RestoreReport: Encodable, Sendable {
    public let schemaVersion: Int
    public let tables: [String: Int]
    /// Sealed secrets the master key opened, of how many.
    public let sealedOpened: Int
    public let sealedTotal: Int
    /// For `--from`: where the data now is, what was ended, and what it holds.
    public var dataDirectory: String?
    public var ended: RestoreEnded?
    public var inventory: RestoredInventory?

    enum CodingKeys: String, CodingKey {
        case tables, inventory, ended
        case schemaVersion = "schema_version"
        case sealedOpened = "sealed_opened"
        case sealedTotal = "sealed_total"
        case dataDirectory = "data_directory"
    }
}

/// Why a backup or a restore stopped, said so that an operator knows what to do.
public struct BackupError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// `tessera backup` and `tessera restore`.
public enum Backups {
    // MARK: Backing up

    /// Copies a running (or stopped) server's SQLite database into `target` with SQLite's
    /// online backup API, as one consistent snapshot while logins go on, holding the data
    /// directory's shared lock so that no `tessera rekey` runs mid-copy; beside it the admin
    /// token's digest, the manifest and, only when `includeMasterKey`, `master.key`.
    public static func backUpSQLite(dataDirectory: String, to target: String, includeMasterKey: Bool) async throws -> BackupReport {
        let directory = DataDirectory(path: dataDirectory)
        guard FileManager.default.fileExists(atPath: directory.databasePath) else {
            throw BackupError("\(directory.databasePath) does not exist: give the --data-dir of a server that has run (or --database for PostgreSQL)")
        }
        let lock = try DataDirectoryLock.take(.serving, in: directory)
        defer { lock.release() }
        try makeEmptyDirectory(target)
        let copy = target + "/" + BackupManifest.databaseFileName
        do {
            try await onOwnThread("tessera-backup") {
                _ = try SQLiteBackup.copy(from: directory.databasePath, to: copy)
                // A file of its own: no write-ahead log beside it to lose.
                try SQLiteBackup.useRollbackJournal(copy)
            }
            let (tables, schema) = try await onOwnThread("tessera-backup") {
                if let problems = try SQLiteBackup.integrityProblems(of: copy) {
                    throw BackupError("the copy fails SQLite's integrity check: \(problems)")
                }
                return (try SQLiteBackup.rowCounts(of: copy), try SQLiteBackup.integer("SELECT MAX(version) FROM schema_migrations", of: copy) ?? 0)
            }
            if FileManager.default.fileExists(atPath: directory.adminTokenDigestPath) {
                try copyFile(directory.adminTokenDigestPath, to: target + "/admin-token.sha256")
            }
            if includeMasterKey { try copyFile(directory.masterKeyPath, to: target + "/master.key") }
            let manifest = BackupManifest(
                createdAt: Int64(Date().timeIntervalSince1970), release: BuildInfo.version, commit: BuildInfo.commit, backend: "sqlite",
                schemaVersion: schema, tables: tables, masterKeyIncluded: includeMasterKey)
            try write(manifest, to: target)
            return BackupReport(directory: target, manifest: manifest, dumpCommand: nil, restoreCommand: nil)
        } catch {
            // Nothing half-made is left to be mistaken for a backup.
            try? FileManager.default.removeItem(atPath: target)
            throw error
        }
    }

    /// For PostgreSQL: checks that the database answers (and its schema), writes the
    /// manifest (and the master key only when asked) into `target`, and returns the
    /// `pg_dump` and `pg_restore` commands for the database, which copy the data itself.
    public static func planPostgres(
        url: String, dataDirectory: String?, to target: String, includeMasterKey: Bool, logger: Logger
    ) async throws -> BackupReport {
        let (schema, tables) = try await SQLStore.withPostgres(url: url, logger: logger, maximumConnections: 1) {
            (try await $0.schemaVersion(), try await $0.rowCounts())
        }
        // The commands are printed: no password in them (libpq takes it from PGPASSWORD or
        // ~/.pgpass). libpq reads the same URL, several hosts and target_session_attrs too.
        let printable = try PostgresURL(url).withoutPassword
        try makeEmptyDirectory(target)
        if let dataDirectory {
            let directory = DataDirectory(path: dataDirectory)
            if FileManager.default.fileExists(atPath: directory.adminTokenDigestPath) {
                try copyFile(directory.adminTokenDigestPath, to: target + "/admin-token.sha256")
            }
            if includeMasterKey { try copyFile(directory.masterKeyPath, to: target + "/master.key") }
        } else if includeMasterKey {
            throw BackupError("--include-master-key needs the --data-dir that holds master.key")
        }
        let manifest = BackupManifest(
            createdAt: Int64(Date().timeIntervalSince1970), release: BuildInfo.version, commit: BuildInfo.commit, backend: "postgres",
            schemaVersion: schema, tables: tables, masterKeyIncluded: includeMasterKey)
        try write(manifest, to: target)
        let dump = target + "/" + BackupManifest.dumpFileName
        return BackupReport(
            directory: target, manifest: manifest,
            dumpCommand: "pg_dump --format=custom --no-owner --file=\(shellQuoted(dump)) \(shellQuoted(printable))",
            restoreCommand: "pg_restore --no-owner --exit-on-error --dbname=\(shellQuoted("postgres://USER@HOST:PORT/NEW_DATABASE")) \(shellQuoted(dump))")
    }

    // MARK: Verifying and restoring

    /// Where the data of a backup is opened for its checks.
    public enum Copy: Sendable {
        /// A SQLite backup: copied into this directory (as `tessera.sqlite`) and opened there.
        case sqlite(workingDirectory: String)
        /// A PostgreSQL backup: the database its dump was restored into with `pg_restore`.
        case postgres(url: String)
    }

    /// Checks the backup in `backup` and runs `body` on its data, opened by this build:
    /// - the manifest is read; for SQLite, the copy's integrity and its rows against the
    ///   manifest (the copy itself is only read, the checks run on a working copy); for
    ///   PostgreSQL, that no table the backup had rows in is empty in the restored database;
    /// - this build can open and serve its schema;
    /// - the master key (`masterKey`, else the backup's own `master.key`) opens every
    ///   sealed secret in it, and its master-key check.
    static func withCheckedCopy<R: Sendable>(
        backup: String, masterKey: String?, copy: Copy, logger: Logger, _ body: (SQLStore, RestoreReport) async throws -> R
    ) async throws -> R {
        let manifest = try readManifest(backup)
        let box = try SecretBox(masterKey: try key(of: backup, masterKey: masterKey))
        switch (copy, manifest.backend) {
        case (.sqlite(let workingDirectory), "sqlite"):
            let file = backup + "/" + BackupManifest.databaseFileName
            guard FileManager.default.fileExists(atPath: file) else { throw BackupError("\(file) is missing: the backup is incomplete") }
            let tables = try await onOwnThread("tessera-restore") { () throws -> [String: Int] in
                if let problems = try SQLiteBackup.integrityProblems(of: file) {
                    throw BackupError("\(file) fails SQLite's integrity check: \(problems)")
                }
                return try SQLiteBackup.rowCounts(of: file)
            }
            // Every table the manifest counted is there with every row: a copy that lost rows
            // (or another, emptier file) is refused, never restored in silence.
            for (table, rows) in manifest.tables.sorted(by: { $0.key < $1.key }) where tables[table] != rows {
                throw BackupError(
                    "\(file) has \(tables[table].map(String.init) ?? "no") rows in \(table), the manifest \(rows): the copy is not the one backed up")
            }
            let working = workingDirectory + "/" + BackupManifest.databaseFileName
            try copyFile(file, to: working)
            let store = try await opened { try await SQLStore.openSQLite(path: working, logger: logger) }
            do {
                let result = try await checked(
                    store, tables: try await store.rowCounts(), box: box, keyPath: keyPath(of: backup, masterKey: masterKey), body)
                try await store.close()
                return result
            } catch {
                try? await store.close()
                throw error
            }
        case (.postgres(let url), "postgres"):
            return try await opened {
                try await SQLStore.withPostgres(url: url, logger: logger, maximumConnections: 2) { store in
                    let tables = try await store.rowCounts()
                    // The dump was made after the manifest, so the figures differ; but a table
                    // that had rows then and has none now means the dump or its restore lost them.
                    for (table, rows) in manifest.tables.sorted(by: { $0.key < $1.key }) where rows > 0 && (tables[table] ?? 0) == 0 {
                        throw BackupError("the database has no rows in \(table), which had \(rows) when the backup was taken: was the dump restored into it?")
                    }
                    return try await checked(store, tables: tables, box: box, keyPath: keyPath(of: backup, masterKey: masterKey), body)
                }
            }
        case (.sqlite, _):
            throw BackupError(
                "\(backup) is a PostgreSQL backup: restore its dump with the pg_restore command tessera backup printed, "
                    + "then give that database with --database")
        case (.postgres, _):
            throw BackupError("\(backup) is a SQLite backup: leave out --database")
        }
    }

    /// The schema and master-key checks on an opened copy (whose rows per table are
    /// `tables`), then `body`.
    private static func checked<R: Sendable>(
        _ store: SQLStore, tables: [String: Int], box: SecretBox, keyPath: String, _ body: (SQLStore, RestoreReport) async throws -> R
    ) async throws -> R {
        let schema = try await store.schemaState()
        guard schema.servable() else { throw BackupError("the backup's schema is not one this build serves") }
        let (opened, total) = try await MasterKeyRotation.sealedValuesOpened(by: box, in: store)
        let seal = try await store.read { try await $0.masterKeySeal() }
        let sealOpens = seal.map { (try? box.open($0, context: SealingContext.masterKeyCheck(id: "master-key"))) != nil }
        guard opened == total, sealOpens != false else {
            throw BackupError(
                "the master key \(keyPath) does not open this backup (it opens \(opened) of its \(total) sealed secrets"
                    + (sealOpens == false ? ", and not its master-key check" : "")
                    + "): give the master.key the server had when the backup was taken (after a rekey, master.key.previous)")
        }
        let report = RestoreReport(schemaVersion: schema.version, tables: tables, sealedOpened: opened, sealedTotal: total)
        return try await body(store, report)
    }

    /// Opens a copy, saying so when this build is too old for it.
    private static func opened<R>(_ open: () async throws -> R) async throws -> R {
        do { return try await open() } catch let error as SQLStore.SchemaNewerThanBuild {
            throw BackupError("the backup cannot be opened by this build: \(error)")
        }
    }

    static func readManifest(_ backup: String) throws -> BackupManifest {
        let path = backup + "/" + BackupManifest.fileName
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BackupError("\(path) does not exist: \(backup) is not a directory tessera backup wrote")
        }
        do { return try JSONDecoder().decode(BackupManifest.self, from: data) } catch {
            throw BackupError("\(path) is not a backup manifest: \(error)")
        }
    }

    /// Where the master key is: the file given, else the backup's own.
    static func keyPath(of backup: String, masterKey: String?) -> String { masterKey ?? (backup + "/master.key") }

    /// The master key: the file given, else the backup's own.
    static func key(of backup: String, masterKey: String?) throws -> Data {
        let path = keyPath(of: backup, masterKey: masterKey)
        do {
            guard let key = try DataDirectory(path: backup).readKey(at: path) else {
                throw BackupError(
                    masterKey == nil
                        ? "the backup holds no master key: give --master-key FILE (the master.key of the server when it was backed up)"
                        : "\(path) does not exist")
            }
            return key
        } catch let error as ServerStartupError {
            throw BackupError(error.description)
        }
    }

    /// `tessera restore --verify`: the checks, changing nothing (a SQLite copy is checked
    /// on a working copy that is removed after).
    public static func verify(backup: String, database: String?, masterKey: String?, logger: Logger) async throws -> RestoreReport {
        if let database {
            return try await withCheckedCopy(backup: backup, masterKey: masterKey, copy: .postgres(url: database), logger: logger) { $1 }
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-verify-\(UUID().uuidString)").path
        try makeEmptyDirectory(scratch)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        return try await withCheckedCopy(backup: backup, masterKey: masterKey, copy: .sqlite(workingDirectory: scratch), logger: logger) { $1 }
    }

    /// `tessera restore --from`: the checks, then `dataDirectory` (new or empty) becomes a
    /// data directory a server starts on: the master key, the admin token's digest and, for
    /// SQLite, the copy (brought up to this build's schema). For PostgreSQL the data is the
    /// database the dump was restored into (`database`). A restored database is older than
    /// the world, so every session and sign-in it held is ended (users sign in again), and
    /// the activations, keys and operators it holds are returned, to revoke again what was
    /// revoked since the backup.
    public static func restore(
        from backup: String, into dataDirectory: String, database: String?, masterKey: String?, now: Date = Date(), logger: Logger
    ) async throws -> RestoreReport {
        try makeEmptyDirectory(dataDirectory)
        do {
            let copy: Copy = database.map { .postgres(url: $0) } ?? .sqlite(workingDirectory: dataDirectory)
            var report = try await withCheckedCopy(backup: backup, masterKey: masterKey, copy: copy, logger: logger) { store, report in
                var report = report
                let at = Int64(now.timeIntervalSince1970)
                report.ended = try await store.transaction { try await $0.endEverythingLive(at: at) }
                report.inventory = try await store.read { try await $0.restoredInventory() }
                return report
            }
            let target = DataDirectory(path: dataDirectory)
            try copyFile(keyPath(of: backup, masterKey: masterKey), to: target.masterKeyPath)
            if FileManager.default.fileExists(atPath: backup + "/admin-token.sha256") {
                try copyFile(backup + "/admin-token.sha256", to: target.adminTokenDigestPath)
            }
            report.dataDirectory = dataDirectory
            return report
        } catch {
            // No half-restored data directory is left to start a server on.
            if let contents = try? FileManager.default.contentsOfDirectory(atPath: dataDirectory) {
                for name in contents { try? FileManager.default.removeItem(atPath: dataDirectory + "/" + name) }
            }
            throw error
        }
    }

    // MARK: Files

    /// Creates `path` (0700), or accepts it when it exists empty; anything in it is refused.
    static func makeEmptyDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, (try FileManager.default.contentsOfDirectory(atPath: path)).isEmpty else {
                throw BackupError("\(path) exists and is not an empty directory")
            }
            return
        }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Copies a file, the copy readable by its owner only.
    static func copyFile(_ source: String, to destination: String) throws {
        do {
            try FileManager.default.copyItem(atPath: source, toPath: destination)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination)
        } catch {
            throw BackupError("cannot copy \(source) to \(destination): \(error.localizedDescription)")
        }
    }

    static func write(_ manifest: BackupManifest, to directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let path = directory + "/" + BackupManifest.fileName
        guard FileManager.default.createFile(atPath: path, contents: try encoder.encode(manifest), attributes: [.posixPermissions: 0o600])
        else { throw BackupError("cannot write \(path)") }
    }

    static func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs blocking SQLite work on a thread of its own, not a cooperative one.
    static func onOwnThread<R: Sendable>(_ name: String, _ body: @Sendable () throws -> R) async throws -> R {
        let thread = SQLiteThread(name: name)
        defer { thread.stop() }
        return try await withTaskExecutorPreference(thread) { try body() }
    }
}
