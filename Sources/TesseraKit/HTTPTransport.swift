import Crypto
import Foundation
import TesseraCore
import TesseraCrypto

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request, as the SDK hands it to an `HTTPTransport`.
public struct HTTPRequestData: Sendable {
    /// The HTTP method: `GET`, `POST` or `DELETE`.
    public var method: String
    /// The full URL, query included.
    public var url: URL
    /// The headers to send, among them the device's `Authorization` token: do not log them.
    public var headers: [String: String]
    /// The body (JSON, or a form for the token endpoint); nil for none.
    public var body: Data?
    /// Seconds to wait for the answer; 0 for the transport's default. Long polls set it
    /// beyond the time the server may hold them.
    public var timeout: TimeInterval

    /// Describes a request; mostly made by the SDK itself.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval = 0) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// The data task of one request, cancelled when its caller is (also before it started).
private final class DataTaskBox: Sendable {
    private struct State {
        var task: URLSessionDataTask?
        var cancelled = false
    }

    private let state = Locked(State())

    func start(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
        task.resume()
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}

/// What a transport answers: the status and the body, whatever the status.
public struct HTTPResponseData: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// The response body; empty when there was none.
    public var body: Data
    /// The response headers the SDK reads (`DPoP-Nonce`); names as the server sent them.
    public var headers: [String: String]
    /// An answer with `status`, `body` and, where the transport has them, `headers`.
    public init(status: Int, body: Data, headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// A header's value, its name compared without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// How the SDK talks HTTP; apps may bring their own (certificate pinning, proxies).
///
/// ```swift
/// struct LoggingTransport: HTTPTransport {
///     let inner = URLSessionTransport(session: pinnedSession)   // a session whose delegate pins
///     func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
///         log(request.method, request.url.path)   // not the headers: they carry device tokens
///         return try await inner.send(request)
///     }
/// }
/// let authenticator = Authenticator(keyStore: store, transport: LoggingTransport())
/// ```
public protocol HTTPTransport: Sendable {
    /// Sends the request and returns any answer the server gave, 4xx and 5xx included (the SDK
    /// reads their error bodies). Throw only when there is no answer, preferably
    /// `TesseraKitError.transport`, and stop when the calling task is cancelled.
    func send(_ request: HTTPRequestData) async throws -> HTTPResponseData
}

/// The default transport over URLSession (FoundationNetworking on Linux).
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Sends through `session`, by default an ephemeral one (no cookies or cache kept on
    /// disk). Pass a session with a delegate to pin certificates or use a proxy.
    public init(session: URLSession = URLSession(configuration: .ephemeral)) { self.session = session }

    /// Sends with a 30-second timeout unless the request sets its own, and cancels the data
    /// task when the calling task is cancelled. Throws `TesseraKitError.transport` when there
    /// is no HTTP answer.
    public func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval = 30
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if request.timeout > 0 { urlRequest.timeoutInterval = request.timeout }
        let session = self.session
        let box = DataTaskBox()
        // A cancelled caller (a pending-request stream the app stopped) cancels the request.
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponseData, any Error>) in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        return continuation.resume(throwing: TesseraKitError.transport(error.localizedDescription))
                    }
                    guard let http = response as? HTTPURLResponse else {
                        return continuation.resume(throwing: TesseraKitError.transport("not an HTTP response"))
                    }
                    var headers: [String: String] = [:]
                    for (name, value) in http.allHeaderFields {
                        if let name = name as? String, let value = value as? String { headers[name] = value }
                    }
                    continuation.resume(returning: HTTPResponseData(status: http.statusCode, body: data ?? Data(), headers: headers))
                }
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
    }
}

extension HTTPRequestData {
    /// A form POST (`application/x-www-form-urlencoded`) to an OAuth endpoint, answered in JSON.
    static func form(_ url: URL, _ fields: [String: String]) -> HTTPRequestData {
        HTTPRequestData(
            method: "POST", url: url, headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: Data(FormEncoding.body(fields).utf8))
    }
}

/// JSON calls to the server with its error bodies mapped to `TesseraKitError`.
struct ServerClient: Sendable {
    let transport: any HTTPTransport

    func post<Response: Decodable>(
        _ url: URL, body: some Encodable, headers: [String: String] = [:], as type: Response.Type
    ) async throws -> Response {
        try await send("POST", url, body: try WireCoding.encoder().encode(body), headers: headers, as: type)
    }

    /// POSTs `body` as a compact JWE to `key` (`Content-Type: application/jose`): the gematik
    /// profile's encrypted device requests; nil sends it as JSON.
    func post<Response: Decodable>(
        _ url: URL, body: some Encodable, encryptingTo key: (key: P256.KeyAgreement.PublicKey, id: String?)?, as type: Response.Type
    ) async throws -> Response {
        guard let key else { return try await post(url, body: body, as: type) }
        var header: [String: Any] = ["cty": "JSON"]
        if let id = key.id { header["kid"] = id }
        let jwe = try JWE.encrypt(try WireCoding.encoder().encode(body), to: key.key, header: header)
        return try await send("POST", url, body: Data(jwe.utf8), headers: ["Content-Type": "application/jose"], as: type)
    }

    func get<Response: Decodable>(
        _ url: URL, headers: [String: String] = [:], timeout: TimeInterval = 0, as type: Response.Type
    ) async throws -> Response {
        try await send("GET", url, body: nil, headers: headers, timeout: timeout, as: type)
    }

    func delete<Response: Decodable>(_ url: URL, headers: [String: String] = [:], as type: Response.Type) async throws -> Response {
        try await send("DELETE", url, body: nil, headers: headers, as: type)
    }

    private func send<Response: Decodable>(
        _ method: String, _ url: URL, body: Data?, headers: [String: String], timeout: TimeInterval = 0, as type: Response.Type
    ) async throws -> Response {
        var allHeaders = headers
        if body != nil, allHeaders["Content-Type"] == nil { allHeaders["Content-Type"] = "application/json" }
        allHeaders["Accept"] = "application/json"
        let response = try await transport.send(
            HTTPRequestData(method: method, url: url, headers: allHeaders, body: body, timeout: timeout))
        guard (200..<300).contains(response.status) else {
            if let error = try? WireCoding.decoder().decode(ErrorBody.self, from: response.body) {
                if response.status == 423, let lockout = error.lockout { throw TesseraKitError.pendingLockout(lockout) }
                throw TesseraKitError.server(status: response.status, error: error.error, description: error.errorDescription)
            }
            throw TesseraKitError.server(status: response.status, error: "unknown", description: "HTTP \(response.status)")
        }
        do {
            return try WireCoding.decoder().decode(Response.self, from: response.body)
        } catch {
            throw TesseraKitError.transport("the server's answer does not decode")
        }
    }
}

struct EmptyBody: Codable {}
