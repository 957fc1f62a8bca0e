import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `tessera health`: whether a server answers `/ready` with 200, as the exit status (0: it
/// does, 1: it does not), for container health checks where no curl exists.
struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 when the server answers /ready (its database open and migrated), 1 otherwise.",
        discussion: "For health checks: the image's HEALTHCHECK runs it. Nothing is printed when the server is ready.")

    @Option(help: "The server: its origin (then /ready is asked) or the full URL to ask (default http://127.0.0.1:PORT, PORT from TESSERA_PORT, else 8080).")
    var url: String?
    @Option(help: "Seconds to wait for the answer.") var timeout = 5

    /// The origin asked when no --url is given: the port `tessera serve` takes from the same
    /// environment (an image's health check runs beside the server, with its variables).
    static var localOrigin: String {
        let port = ProcessInfo.processInfo.environment["TESSERA_PORT"].flatMap(Int.init) ?? 8080
        return "http://127.0.0.1:\(port)"
    }

    func validate() throws {
        let url = self.url ?? Self.localOrigin
        guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme ?? ""), !(components.host ?? "").isEmpty
        else { throw ValidationError("--url must be an http(s) URL") }
        guard (1...60).contains(timeout) else { throw ValidationError("--timeout is 1 to 60 seconds") }
    }

    /// The URL asked: `/ready` of an origin, or `url` as given when it has a path.
    var readyURL: String {
        let url = self.url ?? Self.localOrigin
        let path = URLComponents(string: url)?.path ?? ""
        return path.isEmpty || path == "/" ? url.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/ready" : url
    }

    func run() async throws {
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(Int64(timeout)))))
        let status: UInt
        do {
            let response = try await client.execute(HTTPClientRequest(url: readyURL), timeout: .seconds(Int64(timeout)))
            status = response.status.code
            _ = try? await response.body.collect(upTo: 64 * 1024)
        } catch {
            try? await client.shutdown()
            FileHandle.standardError.write(Data("\(readyURL): no answer (\(type(of: error)))\n".utf8))
            throw ExitCode.failure
        }
        try? await client.shutdown()
        guard status == 200 else {
            FileHandle.standardError.write(Data("\(readyURL) answered \(status): not ready\n".utf8))
            throw ExitCode.failure
        }
    }
}
