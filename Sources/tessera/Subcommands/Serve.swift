import ArgumentParser
import Foundation
import Logging
import TesseraServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the identity server (embedded SQLite in the data directory).",
        discussion: """
            The admin token is read from TESSERA_ADMIN_TOKEN; without it, one is generated at \
            the first start, printed once, and only its digest is kept in the data directory.
            SIGTERM or SIGINT stops the server after in-flight requests finish.
            """)

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on.") var port = 8080
    @Option(help: "The origin clients reach the server at, without a path (default http://HOST:PORT).") var publicURL: String?
    @Option(help: "Directory for the database, master key and admin token digest.") var dataDir = "./tessera-data"
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel = "info"
    @Option(help: "PEM certificate chain: serve HTTPS (with --tls-key).") var tlsCertificate: String?
    @Option(help: "PEM private key of --tls-certificate.") var tlsKey: String?
    @Flag(help: "Allow a plain-HTTP public URL on a non-loopback host (behind a TLS-terminating proxy only).")
    var allowInsecureHttp = false

    func validate() throws {
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be between 1 and 65535") }
        if let publicURL {
            guard let url = URLComponents(string: publicURL), ["http", "https"].contains(url.scheme ?? ""),
                !(url.host ?? "").isEmpty, url.query == nil, url.fragment == nil, url.path.isEmpty
            else { throw ValidationError("--public-url must be an http(s) origin such as https://id.example.com, without a path") }
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "tessera")
        // Everything the server writes (database, WAL, keys) is for its own user only.
        umask(0o077)
        let environment = ProcessInfo.processInfo.environment
        let configuration = ServerConfiguration(
            host: host, port: port, publicURL: publicURL, dataDirectory: dataDir,
            adminToken: environment["TESSERA_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
            tls: tlsCertificate.flatMap { certificate in
                tlsKey.map { ServerConfiguration.TLSFiles(certificateChain: certificate, privateKey: $0) }
            },
            allowInsecureHTTP: allowInsecureHttp)
        let server = try await buildApplication(
            configuration: configuration, logger: logger,
            onServerRunning: { boundPort in
                logger.notice(
                    "listening", metadata: ["address": "\(configuration.host):\(boundPort)", "public_url": "\(configuration.publicURL)"])
            })
        if let token = server.generatedAdminToken {
            FileHandle.standardOutput.write(
                Data("Generated the admin token (shown only this once; keep it):\n  export TESSERA_ADMIN_TOKEN=\(token)\n".utf8))
        }
        try await server.run()
    }
}
