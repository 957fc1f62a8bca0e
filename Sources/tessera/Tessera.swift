import ArgumentParser
import TesseraBuildInfo

@main
struct Tessera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Tessera: device-bound multi-factor authentication with OpenID Connect.",
        version: BuildInfo.summary,
        subcommands: [Serve.self, Health.self, Admin.self, Device.self, Bench.self, Seed.self, Rekey.self, Backup.self, Restore.self]
    )
}
