import ArgumentParser

@main
struct Tessera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Tessera: device-bound multi-factor authentication with OpenID Connect.",
        subcommands: [Serve.self, Admin.self, Device.self, Bench.self, Seed.self, Rekey.self]
    )
}
