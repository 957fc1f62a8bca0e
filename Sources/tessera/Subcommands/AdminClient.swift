import ArgumentParser
import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraKit

/// Options every `tessera admin` command takes.
struct AdminOptions: ParsableArguments {
    @Option(help: "Server URL (or TESSERA_SERVER; default http://127.0.0.1:8080).") var server: String?
    @Option(parsing: .unconditional, help: "Admin token or admin API key (or TESSERA_ADMIN_TOKEN).") var token: String?
    @Flag(help: "Print the server's JSON answer.") var json = false

    func client() throws -> AdminClient {
        let (url, token) = try serverAndToken()
        return AdminClient(base: url, token: token)
    }

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

    private func serverAndToken() throws -> (URL, String) {
        let environment = ProcessInfo.processInfo.environment
        let base = server ?? environment["TESSERA_SERVER"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: base.hasSuffix("/") ? String(base.dropLast()) : base), url.scheme != nil else {
            throw ValidationError("--server must be a URL")
        }
        guard let token = token ?? environment["TESSERA_ADMIN_TOKEN"], !token.isEmpty else {
            throw ValidationError("the admin token is missing: pass --token or set TESSERA_ADMIN_TOKEN")
        }
        return (url, token)
    }
}

/// A thin client of the admin REST API.
struct AdminClient {
    let base: URL
    let token: String
    let transport = URLSessionTransport()

    /// Sends a call and returns the answer's JSON, or throws the server's error.
    private func send(_ method: String, _ path: String, body data: Data?) async throws -> Any {
        // The path may carry a query; its parts are percent-encoded by the callers.
        guard let url = URL(string: base.absoluteString.trimmingSuffix("/") + "/" + path) else { throw CLIError("bad server URL") }
        let response = try await transport.send(
            HTTPRequestData(
                method: method, url: url,
                headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"], body: data))
        let object = try? JSONSerialization.jsonObject(with: response.body)
        guard (200..<300).contains(response.status), let object else {
            let error = (object as? [String: Any]).map { "\($0["error"] ?? "error"): \($0["error_description"] ?? "")" }
            throw CLIError("HTTP \(response.status) \(error ?? String(decoding: response.body, as: UTF8.self))")
        }
        return object
    }

    /// A call without a body whose answer decodes as `T` (the server's own view type);
    /// `--json` prints the answer as it came.
    func call<T: Decodable>(_ method: String, _ path: String, as type: T.Type) async throws -> (value: T, json: Any) {
        try decoded(try await send(method, path, body: nil), method, path)
    }

    /// A call with a body of the domain's own input type.
    func call<T: Decodable>(_ method: String, _ path: String, body: some Encodable, as type: T.Type) async throws -> (value: T, json: Any) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try decoded(try await send(method, path, body: try encoder.encode(body)), method, path)
    }

    private func decoded<T: Decodable>(_ json: Any, _ method: String, _ path: String) throws -> (value: T, json: Any) {
        do {
            return (try WireCoding.decoder().decode(T.self, from: try JSONSerialization.data(withJSONObject: json)), json)
        } catch {
            throw CLIError("the server's answer to \(method) /\(path) is not what this tessera expects: \(error)")
        }
    }
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum Output {
    static func json(_ object: Any) {
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) {
            print(String(decoding: data, as: UTF8.self))
        }
    }

    static func encodable(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        if let data = try? encoder.encode(value) { print(String(decoding: data, as: UTF8.self)) }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
