import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A plain HTTP client for tests: follows no redirects and keeps no cookies, so a
/// test sees each response exactly as the server sent it.
public struct TestHTTP: Sendable {
    public struct Response: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let body: Data

        public var text: String { String(decoding: body, as: UTF8.self) }

        public func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                throw TestSupportError("not a JSON object: \(text)")
            }
            return object
        }

        public func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    private let session: URLSession

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    public func send(_ method: String, _ url: String, headers: [String: String] = [:], body: Data? = nil) async throws -> Response {
        guard let target = URL(string: url) else { throw TestSupportError("bad URL \(url)") }
        var request = URLRequest(url: target)
        request.httpMethod = method
        request.httpBody = body
        request.httpShouldHandleCookies = false
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestSupportError("not HTTP") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return Response(status: http.statusCode, headers: fields, body: data)
    }

    public func get(_ url: String, headers: [String: String] = [:]) async throws -> Response {
        try await send("GET", url, headers: headers)
    }

    public func postJSON(_ url: String, _ object: Any, headers: [String: String] = [:]) async throws -> Response {
        var all = headers
        all["Content-Type"] = "application/json"
        return try await send("POST", url, headers: all, body: try JSONSerialization.data(withJSONObject: object))
    }

    public func postForm(_ url: String, _ fields: [String: String], headers: [String: String] = [:]) async throws -> Response {
        var all = headers
        all["Content-Type"] = "application/x-www-form-urlencoded"
        let body = fields.sorted { $0.key < $1.key }.map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }.joined(separator: "&")
        return try await send("POST", url, headers: all, body: Data(body.utf8))
    }

    public static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
