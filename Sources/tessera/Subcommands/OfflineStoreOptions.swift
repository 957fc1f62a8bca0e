import ArgumentParser
import Foundation
import Logging

/// The options of commands that work on a server's data directly, with the servers
/// stopped or beside them (`rekey`, `seed`): where the master key and the data are. Like
/// `serve`'s, they may come from the environment or a configuration file (`Settings`): the
/// same file serves both, its other keys unused here.
struct OfflineStoreOptions: ParsableArguments {
    @Option(help: "A YAML configuration file, as for serve (data_dir, database, database_password_file).") var config: String?
    @Option(help: "The data directory that holds master.key (and, without --database, tessera.sqlite).") var dataDir: String?
    @Option(help: "The PostgreSQL URL the nodes use, as for serve (or TESSERA_DATABASE_URL).") var database: String?
    @Option(help: "A file holding the PostgreSQL password, as for serve.") var databasePasswordFile: String?

    /// Where the data is: the data directory, and the PostgreSQL URL (password included) or
    /// nil for the SQLite file in the data directory.
    func location() async throws -> (dataDirectory: String, databaseURL: String?) {
        let settings = try await Settings.load(config, keys: Serve.keys)
        guard let directory = try settings.string("data_dir", flag: dataDir) else {
            throw ValidationError("give --data-dir (or TESSERA_DATA_DIR, or data_dir in --config): the data directory of the server")
        }
        let database = try settings.databaseURL(flag: database, passwordFile: databasePasswordFile)
        return (directory, database)
    }

    /// The PostgreSQL URL alone (password included), or nil for none: for commands that
    /// need no data directory.
    func databaseURL() async throws -> String? {
        let settings = try await Settings.load(config, keys: Serve.keys)
        return try settings.databaseURL(flag: database, passwordFile: databasePasswordFile)
    }

    /// Warnings and errors to standard error; the result goes to standard output.
    var logger: Logger {
        var logger = Logger(label: "tessera", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        return logger
    }
}
