import ArgumentParser
import Foundation
import Logging

/// The options of commands that work on a server's data directly, with the servers
/// stopped or beside them (`rekey`, `seed`): where the master key and the data are.
struct OfflineStoreOptions: ParsableArguments {
    @Option(help: "The data directory that holds master.key (and, without --database, tessera.sqlite).") var dataDir: String
    @Option(help: "The PostgreSQL URL the nodes use, as for serve (or TESSERA_DATABASE_URL).") var database: String?

    /// `--database`, else a non-empty `TESSERA_DATABASE_URL`, else nil (SQLite in the data directory).
    var databaseURL: String? {
        database ?? ProcessInfo.processInfo.environment["TESSERA_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Warnings and errors to standard error; the result goes to standard output.
    var logger: Logger {
        var logger = Logger(label: "tessera", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        return logger
    }
}
