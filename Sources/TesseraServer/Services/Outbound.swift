import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TesseraCore
import TesseraDomain
import TesseraRecords
import Tracing

/// HTTP to targets that tenant admins and registering clients choose (identity providers,
/// back-channel logout, CIBA pings), over AsyncHTTPClient: no redirects followed, a
/// bounded answer, and only to addresses on the internet unless the operator allows
/// private ones (`OutboundTargets`). The host is resolved here, every address it has is
/// checked, and the connection goes to the address checked (the client's `dnsOverride`),
/// so a name that answers otherwise a moment later cannot steer the call inside.
struct Outbound: OutboundHTTP {
    /// Whether loopback, private and link-local targets are allowed (`--allow-private-outbound`,
    /// or a public URL on the loopback).
    let allowsPrivate: Bool
    let timeout: TimeAmount
    let maximumBody: Int

    init(allowsPrivate: Bool, timeout: TimeAmount = .seconds(10), maximumBody: Int = 1024 * 1024) {
        self.allowsPrivate = allowsPrivate
        self.timeout = timeout
        self.maximumBody = maximumBody
    }

    init(_ domain: Domain, timeout: TimeAmount = .seconds(10), maximumBody: Int = 1024 * 1024) {
        self.init(allowsPrivate: domain.settings.allowsPrivateOutbound, timeout: timeout, maximumBody: maximumBody)
    }

    /// A target refused before anything was sent: its host is internal.
    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    func get(_ url: String) async throws -> OutboundResponse {
        try await get(url, accept: "application/json")
    }

    func get(_ url: String, accept: String) async throws -> OutboundResponse {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: accept)
        return try await checked(request)
    }

    func postForm(_ url: String, _ fields: [String: String], headers: [String: String]) async throws -> OutboundResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        request.headers.replaceOrAdd(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.body(fields)))
        return try await checked(request)
    }

    /// For the domain: a refused target is a clear 400 naming why, not an unreachable one.
    private func checked(_ request: HTTPClientRequest) async throws -> OutboundResponse {
        do {
            return try await execute(request, kind: "federation")
        } catch let refused as Refused {
            throw DomainError.invalidRequest("the address is refused: \(refused)")
        }
    }

    /// Sends `request` to the address its host resolves to, once that address is checked;
    /// the answer whatever its status. A client per call: its pinned address is its own.
    /// Sends `request` in a client span named by `kind` (`logout`, `ciba_ping`, `webhook`,
    /// `message`, `federation`) below the current one, with the span's W3C `traceparent`.
    func execute(_ request: HTTPClientRequest, kind: String) async throws -> OutboundResponse {
        try await clientSpan("\(kind) \(request.method.rawValue)", kind: kind) { span in
            var request = request
            request.carryTrace()
            if span.isRecording {
                span.attributes["http.request.method"] = request.method.rawValue
                if let host = OutboundTargets.host(of: request.url) { span.attributes["server.address"] = host }
            }
            let response = try await send(request)
            span.attributes["http.response.status_code"] = response.status
            if response.status >= 500 { span.setStatus(SpanStatus(code: .error)) }
            return response
        }
    }

    private func send(_ request: HTTPClientRequest) async throws -> OutboundResponse {
        guard let host = OutboundTargets.host(of: request.url), let scheme = URL(string: request.url)?.scheme?.lowercased(),
            scheme == "https" || scheme == "http"
        else { throw Refused(description: "the URL is not an http(s) URL with a host") }
        if let refusal = OutboundTargets.refusal(request.url, allowsPrivate: allowsPrivate) { throw Refused(description: refusal) }
        // A name that does not resolve now may later: that is a failed call (retried), not a
        // refusal. The resolver gets five seconds, as a connection does.
        let found = try await OutboundTargets.resolve(host, timeout: 5)
        // The caller learns that the name is inside, not where (no map of the network).
        if !allowsPrivate, found.contains(where: \.isInternal) {
            throw Refused(description: "\(host) resolves to a loopback, private or link-local address")
        }
        // IPv4 first: a host whose IPv6 address this machine cannot route to still answers.
        let addresses = found.filter { if case .v4 = $0 { true } else { false } } + found.filter { if case .v6 = $0 { true } else { false } }
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: timeout))
        // The connection goes to the address checked; TLS still names and verifies the host.
        configuration.dnsOverride = [host: addresses[0].description, "[\(host)]": addresses[0].description]
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let response = try await client.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: maximumBody)
            try await client.shutdown()
            return OutboundResponse(status: Int(response.status.code), body: Data(body.readableBytesView))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}

/// NIO's header fields, for the propagator (outbound calls carry the span's `traceparent`).
struct HTTPHeadersCarrier: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier.replaceOrAdd(name: key, value: value)
    }
}

extension HTTPClientRequest {
    /// Adds the W3C `traceparent` (and `tracestate`) of the current span: the callee's
    /// spans join the caller's trace.
    mutating func carryTrace() {
        InstrumentationSystem.instrument.inject(ServiceContext.current ?? .topLevel, into: &headers, using: HTTPHeadersCarrier())
    }
}

/// Runs `body` in a client span below the current one (`tessera.outbound` names the kind of
/// call). A failure marks the span with its error's type only: an HTTP client's errors may
/// quote the request's headers, which hold tokens, and spans leave the server.
func clientSpan<R>(
    _ name: String, kind: String, context: ServiceContext? = nil, isolation: isolated (any Actor)? = #isolation,
    _ body: (any Span) async throws -> R
) async throws -> R {
    let span = InstrumentationSystem.tracer.startSpan(name, context: context ?? ServiceContext.current ?? .topLevel, ofKind: .client)
    defer { span.end() }
    if span.isRecording { span.attributes["tessera.outbound"] = kind }
    do {
        return try await ServiceContext.withValue(span.context) { try await body(span) }
    } catch {
        span.attributes["error.type"] = String(reflecting: type(of: error))
        span.setStatus(SpanStatus(code: .error))
        throw error
    }
}

/// Runs `body` in the trace a record carries (`traceparent`), or in a new one.
func inTrace<R>(_ traceParent: String?, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async rethrows -> R {
    guard let traceParent, let context = RequestTrace.context(of: traceParent) else { return try await body() }
    return try await ServiceContext.withValue(context) { try await body() }
}
