import ArgumentParser
import Foundation
import Logging
import TesseraOperations
import TesseraServer

struct Seed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fill a tenant with many users and activated devices, straight in the database (for benchmarks).",
        discussion: """
            Writes --activations users, each with one activated device (a P-256 device key and \
            a PIN key sealed under the master key, as enrolment writes them), 20,000 rows per \
            transaction, two transactions at a time, into the database of --data-dir (or --database). No one \
            holds the devices' private keys, so these activations never log in; they make \
            the tables and indexes as large as a real deployment's, to measure with \
            `tessera bench` how the server behaves at that size. The tenant must exist \
            (tessera admin tenant create T, or one run of tessera bench). It may run \
            while the server runs.
            """)

    @OptionGroup var store: OfflineStoreOptions
    @Option(help: "The tenant to fill.") var tenant = "bench"
    @Option(help: "How many users with an activated device to add.") var activations: Int
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        guard (1...10_000_000).contains(activations) else { throw ValidationError("--activations must be 1 to 10,000,000") }
    }

    func run() async throws {
        let total = activations
        let location = try await store.location()
        let report = try await BulkEnrolment.run(
            dataDirectory: location.dataDirectory, databaseURL: location.databaseURL, tenant: tenant, count: total, logger: store.logger
        ) { done in
            FileHandle.standardError.write(Data("\rseeding: \(done)/\(total)".utf8))
        }
        FileHandle.standardError.write(Data("\n".utf8))
        if json { return Output.encodable(report) }
        print("added \(report.created) activations to \(report.tenant) in \(String(format: "%.1f", report.seconds)) s; it has \(report.activations)")
    }
}
