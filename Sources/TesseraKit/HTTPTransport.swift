import Foundation
import TesseraCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

public struct HTTPRequestData: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct HTTPResponseData: Sendable {
    public var status: Int
    public var body: Data
    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// How the SDK talks HTTP; apps may bring their own (certificate pinning, proxies).
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequestData) async throws -> HTTPResponseData
}

/// The default transport over URLSession (FoundationNetworking on Linux).
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    public init(session: URLSession = URLSession(configuration: .ephemeral)) { self.session = session }

    public func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval = 30
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        do {
            let (data, response) = try await session.data(for: urlRequest)
            guard let http = response as? HTTPURLResponse else { throw TesseraKitError.transport("not an HTTP response") }
            return HTTPResponseData(status: http.statusCode, body: data)
        } catch let error as TesseraKitError {
            throw error
        } catch {
            throw TesseraKitError.transport(error.localizedDescription)
        }
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

    func get<Response: Decodable>(_ url: URL, headers: [String: String] = [:], as type: Response.Type) async throws -> Response {
        try await send("GET", url, body: nil, headers: headers, as: type)
    }

    private func send<Response: Decodable>(
        _ method: String, _ url: URL, body: Data?, headers: [String: String], as type: Response.Type
    ) async throws -> Response {
        var allHeaders = headers
        if body != nil { allHeaders["Content-Type"] = "application/json" }
        allHeaders["Accept"] = "application/json"
        let response = try await transport.send(HTTPRequestData(method: method, url: url, headers: allHeaders, body: body))
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
