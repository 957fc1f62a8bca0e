import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TesseraCore
import TesseraKit
import TesseraTestSupport

/// A plain HTTP client for tests (AsyncHTTPClient): follows no redirects and keeps no
/// cookies, so a test sees each response exactly as the server sent it.
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

    /// One client for the whole test process; it lives as long as the process. Tests
    /// send more requests at once to one server than AsyncHTTPClient's default of 8
    /// connections per host (writers beside long polls): one waiting for a connection
    /// longer than the connect timeout would fail for the client's sake, not the server's.
    /// The connect timeout (which also bounds that wait) is 15 s: in the PostgreSQL pass,
    /// with the whole suite at once on two cores, a burst of 100 requests once waited 5 s.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(15), read: .seconds(60)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        // An idle connection goes after a second, not a minute: a run talks to hundreds of
        // servers, and each kept connection holds two descriptors of this process (both
        // ends are here). Foundation's socket manager select()s on descriptors, which
        // breaks once their numbers pass 1023.
        configuration.connectionPool.idleTimeout = .seconds(1)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    public init() {}

    public func send(_ method: String, _ url: String, headers: [String: String] = [:], body: Data? = nil) async throws -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await sendAgainIfClosedUnsent(Self.client, request, timeout: .seconds(60))
        let data = try await response.body.collect(upTo: 16 * 1024 * 1024)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name] = header.value }
        let answer = Data(data.readableBytesView)
        SuiteLogs.exchange(
            requestHeaders: headers.map { ($0.key, $0.value) }, requestBody: body,
            responseHeaders: response.headers.map { ($0.name, $0.value) }, responseBody: answer)
        return Response(status: Int(response.status.code), headers: fields, body: answer)
    }

    public func get(_ url: String, headers: [String: String] = [:]) async throws -> Response {
        try await send("GET", url, headers: headers)
    }

    public func postJSON(_ url: String, _ object: Any, headers: [String: String] = [:]) async throws -> Response {
        var all = headers
        all["Content-Type"] = "application/json"
        return try await send("POST", url, headers: all, body: try JSONSerialization.data(withJSONObject: object))
    }

    public func patchJSON(_ url: String, _ object: Any, headers: [String: String] = [:]) async throws -> Response {
        var all = headers
        all["Content-Type"] = "application/json"
        return try await send("PATCH", url, headers: all, body: try JSONSerialization.data(withJSONObject: object))
    }

    public func postForm(_ url: String, _ fields: [String: String], headers: [String: String] = [:]) async throws -> Response {
        var all = headers
        all["Content-Type"] = "application/x-www-form-urlencoded"
        return try await send("POST", url, headers: all, body: Data(FormEncoding.body(fields).utf8))
    }

    public static func encode(_ text: String) -> String { FormEncoding.component(text) }
}

/// Sends a request, and sends it again on a fresh connection if the pool handed it a kept
/// connection that had closed in the meantime. AsyncHTTPClient fails such a request with
/// `ChannelError.ioOnClosedChannel` before writing a byte of it (HTTP1Connection checks
/// that the channel is active and fails the request otherwise), so the server never saw
/// it and sending it again cannot do anything twice; browsers retry a request on a reused
/// connection the same way. Any other failure is the test's to see.
func sendAgainIfClosedUnsent(_ client: HTTPClient, _ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
    var tries = 0
    while true {
        do {
            return try await client.execute(request, timeout: timeout)
        } catch ChannelError.ioOnClosedChannel where tries < 2 {
            tries += 1
        }
    }
}

/// The SDK's `HTTPTransport` over AsyncHTTPClient, for the test devices and token
/// managers: hundreds of them talk to the servers of one test process at once.
///
/// FoundationNetworking's URLSession on Linux left requests unanswered until their
/// timeout when the whole suite loaded the machine (a few in one run, dozens in
/// another), and each `URLSessionTransport` keeps a session of its own with its own
/// threads and descriptors. The SDK's own transport is still exercised end to end by the
/// command-line tests: `tessera device` and `tessera admin` send through it.
public struct ClientTransport: HTTPTransport {
    /// No read timeout of its own: each request's deadline is its `timeout` (long polls
    /// set theirs beyond the server's hold), or 30 s as URLSessionTransport has it.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(15)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        configuration.connectionPool.idleTimeout = .seconds(1)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    public init() {}

    public func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.replaceOrAdd(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let seconds = request.timeout > 0 ? request.timeout : 30
        do {
            let response = try await sendAgainIfClosedUnsent(Self.client, outgoing, timeout: .milliseconds(Int64(seconds * 1000)))
            let data = try await response.body.collect(upTo: 16 * 1024 * 1024)
            var fields: [String: String] = [:]
            for header in response.headers { fields[header.name] = header.value }
            let answer = Data(data.readableBytesView)
            SuiteLogs.exchange(
                requestHeaders: request.headers.map { ($0.key, $0.value) }, requestBody: request.body,
                responseHeaders: response.headers.map { ($0.name, $0.value) }, responseBody: answer)
            return HTTPResponseData(status: Int(response.status.code), body: answer, headers: fields)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw TesseraKitError.transport("\(error)")
        }
    }
}
