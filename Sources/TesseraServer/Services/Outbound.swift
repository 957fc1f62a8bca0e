import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TesseraCore
import TesseraDomain

/// The domain's HTTP to other servers (external identity providers), over
/// AsyncHTTPClient: no redirects followed, 10 s per request, at most 1 MiB an answer.
struct Outbound: OutboundHTTP {
    static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10))))
    static let maximumBody = 1024 * 1024

    func get(_ url: String) async throws -> OutboundResponse {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        return try await send(request)
    }

    func postForm(_ url: String, _ fields: [String: String], headers: [String: String]) async throws -> OutboundResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        request.headers.replaceOrAdd(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.body(fields)))
        return try await send(request)
    }

    private func send(_ request: HTTPClientRequest) async throws -> OutboundResponse {
        let response = try await Self.client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: Self.maximumBody)
        return OutboundResponse(status: Int(response.status.code), body: Data(body.readableBytesView))
    }
}
