import ArgumentParser
import Foundation
import TesseraOperations
import TesseraStore

/// `tessera backup`: a copy of a server's data that `tessera restore` can put back.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Back up a server's data: its SQLite database while it serves, or the commands for its PostgreSQL database.",
        discussion: """
            SQLite: copies the data directory's database with SQLite's online backup API (one consistent snapshot; \
            logins go on), holding the data directory's shared lock so that no rekey runs mid-copy, and writes \
            DIR/tessera.sqlite, DIR/admin-token.sha256 and DIR/backup.json (the schema and the rows per table, which \
            a restore checks the copy against). master.key is not copied unless --include-master-key is given: keep \
            the key and the backup apart, and both safe; a restore needs the key the server had at the time.
            PostgreSQL (--database): checks that the database answers, writes DIR/backup.json, and prints the \
            pg_dump command that copies the database into DIR and the pg_restore command that restores it.
            """)

    @OptionGroup var store: OfflineStoreOptions
    @Option(help: "The directory to write the backup to (new, or empty).") var to: String
    @Flag(help: "Copy master.key into the backup too: whoever holds the backup can then open every sealed secret.")
    var includeMasterKey = false
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        umask(0o077)
        let location = try await store.location()
        if includeMasterKey {
            FileHandle.standardError.write(
                Data("warning: the backup holds master.key: whoever reads it can open every PIN key, TOTP secret and signing key in it\n".utf8))
        }
        let report: BackupReport
        if let url = location.databaseURL {
            report = try await Backups.planPostgres(
                url: url, dataDirectory: location.dataDirectory, to: to, includeMasterKey: includeMasterKey, logger: store.logger)
        } else {
            report = try await Backups.backUpSQLite(dataDirectory: location.dataDirectory, to: to, includeMasterKey: includeMasterKey)
        }
        if json { return Output.encodable(report) }
        let manifest = report.manifest
        if let dump = report.dumpCommand, let restore = report.restoreCommand {
            print("the database answers (schema \(manifest.schemaVersion)); wrote \(to)/\(BackupManifest.fileName)")
            print("copy the database (PGPASSWORD or ~/.pgpass gives the password):\n  \(dump)")
            print("restore it into a new, empty database:\n  \(restore)")
        } else {
            print("backed up to \(to): schema \(manifest.schemaVersion), \(manifest.tables.values.reduce(0, +)) rows in \(manifest.tables.count) tables")
            for (table, rows) in manifest.tables.sorted(by: { $0.key < $1.key }) where rows > 0 { print("  \(table)\t\(rows)") }
        }
        if !manifest.masterKeyIncluded {
            print("master.key is not in the backup: a restore needs the key this server has now (--master-key FILE)")
        }
    }
}

/// `tessera restore`: checks a backup, or makes a data directory of it.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a backup (--verify DIR), or put it in place as a new data directory (--from DIR --data-dir NEW).",
        discussion: """
            --verify DIR checks the manifest, the copy's integrity and its rows against the manifest, that this build \
            can open its schema, and that the master key (--master-key FILE, else the backup's own master.key) opens \
            every sealed secret in it; it prints the rows per table and exits non-zero naming the cause when anything \
            is wrong. --from DIR --data-dir NEW does the same checks, then writes NEW (new or empty) as a data \
            directory a server can start on. A restored database is older than the world: every session, refresh \
            token and sign-in it held is ended (users sign in again), and the activations, admin keys and console \
            operators it holds are printed, so that what was revoked since the backup can be revoked again.
            PostgreSQL: restore the dump with the pg_restore command tessera backup printed into a new database, then \
            give that database with --database: --verify checks it, --from ends its sessions and writes --data-dir NEW \
            (the master key and the admin token's digest) for the nodes.
            """)

    @Option(help: "Check the backup in this directory, changing nothing.") var verify: String?
    @Option(help: "Restore the backup in this directory into --data-dir.") var from: String?
    @OptionGroup var store: OfflineStoreOptions
    @Option(help: "The master.key the server had when the backup was taken (default: the backup's own, if it holds one).")
    var masterKey: String?
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        guard (verify == nil) != (from == nil) else { throw ValidationError("give --verify DIR or --from DIR (with --data-dir NEW)") }
    }

    func run() async throws {
        umask(0o077)
        let report: RestoreReport
        let backup: String
        if let verify {
            backup = verify
            report = try await Backups.verify(
                backup: verify, database: try await store.databaseURL(), masterKey: masterKey, logger: store.logger)
        } else {
            backup = from ?? ""
            let location = try await store.location()
            report = try await Backups.restore(
                from: backup, into: location.dataDirectory, database: location.databaseURL, masterKey: masterKey, logger: store.logger)
        }
        if json { return Output.encodable(report) }
        print("backup \(backup): schema \(report.schemaVersion), the master key opens all \(report.sealedTotal) sealed secrets")
        for (table, rows) in report.tables.sorted(by: { $0.key < $1.key }) { print("  \(table)\t\(rows)") }
        guard let directory = report.dataDirectory else { return print("verified") }
        print("restored into \(directory)")
        if let ended = report.ended {
            print(
                "ended what it held from before: \(ended.sessions) sessions (their refresh tokens), \(ended.singleSignOnSessions) single "
                    + "sign-on sessions, \(ended.webSessions) console and account sign-ins, \(ended.codes) authorization codes")
        }
        guard let inventory = report.inventory else { return }
        print("what it holds; revoke again whatever was revoked since the backup:")
        let date = ISO8601DateFormatter()
        func day(_ seconds: Int64) -> String { date.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) }
        print("activations (\(inventory.activations.count)):")
        for a in inventory.activations { print("  \(a.tenant)\t\(a.username)\t\(a.id)\t\(a.alias ?? "-")\tcreated \(day(a.createdAt))") }
        print("admin keys (\(inventory.keys.count)):")
        for k in inventory.keys { print("  \(k.id)\t\(k.name)\t\(k.role)\t\(k.tenant ?? "every tenant")\tcreated \(day(k.createdAt))") }
        print("console operators (\(inventory.operators.count)):")
        for o in inventory.operators { print("  \(o.username)\t\(o.role)\t\(o.tenant ?? "every tenant")\tcreated \(day(o.createdAt))") }
    }
}
