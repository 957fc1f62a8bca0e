import ArgumentParser
import Foundation
import Logging
import TesseraOperations
import TesseraServer

struct Rekey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace the master key: seal every secret in the database again under a new one (offline).",
        discussion: """
            Stop every node first: a running node keeps sealing with the old key (rekey \
            refuses while a server runs on this data directory or, on PostgreSQL, while any \
            node serves the database). The secrets \
            (signing keys, PIN keys, TOTP secrets, activation data's PIN keys, ping tokens) are \
            sealed again in one transaction; only after it commits does the new key replace \
            master.key, and the old one is kept as master.key.previous (backups taken before \
            the rekey need it). If anything fails, nothing changes. Then copy the new master.key \
            to every node's --data-dir and start the nodes.
            """)

    @OptionGroup var store: OfflineStoreOptions
    @Flag(help: "Print the result as JSON.") var json = false

    func run() async throws {
        // The key files are for this user only.
        umask(0o077)
        let location = try await store.location()
        let report = try await MasterKeyRotation.run(
            dataDirectory: location.dataDirectory, databaseURL: location.databaseURL, logger: store.logger)
        if json { return Output.encodable(report) }
        if report.finishedEarlierRun {
            print("finished an earlier rekey: its values were sealed already")
        } else {
            print("sealed again under a new master key:")
            for (kind, count) in report.resealed.sorted(by: { $0.key < $1.key }) { print("  \(kind): \(count)") }
        }
        print("master key: \(report.masterKey) (the old one: \(report.previousMasterKey))")
        print("copy \(report.masterKey) to every node's --data-dir before starting the nodes")
    }
}
