import ArgumentParser
import Foundation
import TesseraAdminAPI

/// Options every `tessera admin` command takes.
struct AdminOptions: ParsableArguments {
    @Option(help: "Server URL (or TESSERA_SERVER; default http://127.0.0.1:8080).") var server: String?
    @Option(parsing: .unconditional, help: "Admin token or admin API key (or TESSERA_ADMIN_TOKEN).") var token: String?
    @Option(help: "A file holding the admin token or API key (or TESSERA_ADMIN_TOKEN_FILE), one trailing newline dropped.")
    var tokenFile: String?
    @Flag(help: "Print the server's JSON answer.") var json = false

    /// Calls the admin API with its typed client (generated from the API's document); an
    /// answer other than success throws the server's error.
    func calling<T>(_ call: (Client) async throws -> T) async throws -> T {
        let (url, token) = try serverAndToken()
        do {
            return try await call(AdminAPI.client(server: url, token: token))
        } catch {
            throw AdminAPIError.unwrapped(error)
        }
    }

    /// The server's URL (without a trailing "/") and the admin credential.
    func serverAndToken() throws -> (server: URL, token: String) {
        let environment = ProcessInfo.processInfo.environment
        let base = server ?? environment["TESSERA_SERVER"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: base.hasSuffix("/") ? String(base.dropLast()) : base), url.scheme != nil else {
            throw ValidationError("--server must be a URL")
        }
        if token != nil, tokenFile != nil { throw ValidationError("give --token or --token-file, not both") }
        func set(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        // The first that is given: --token, --token-file, TESSERA_ADMIN_TOKEN, TESSERA_ADMIN_TOKEN_FILE.
        if let token {
            guard !token.isEmpty else { throw ValidationError("--token is empty") }
            return (url, token)
        }
        if let tokenFile { return (url, try Settings.readSecret(tokenFile, origin: .flag("--token-file"))) }
        if let variable = set("TESSERA_ADMIN_TOKEN") { return (url, variable) }
        if let file = set("TESSERA_ADMIN_TOKEN_FILE") { return (url, try Settings.readSecret(file, origin: .environment("TESSERA_ADMIN_TOKEN_FILE"))) }
        throw ValidationError("the admin token is missing: pass --token or --token-file, or set TESSERA_ADMIN_TOKEN or TESSERA_ADMIN_TOKEN_FILE")
    }
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum Output {
    static func encodable(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        if let data = try? encoder.encode(value) { print(String(decoding: data, as: UTF8.self)) }
    }

    /// One JSON object per line (JSON Lines), for a consumer that reads a stream.
    static func line(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let data = try? encoder.encode(value) { print(String(decoding: data, as: UTF8.self)) }
    }
}
