import HTTPTypes
import Hummingbird
import Logging
import TesseraRecords
import Tracing

/// One server span per request, named by its route pattern (`POST /t/{tenant}/token`),
/// with the method, route, tenant and status; the store's calls and the outbound calls the
/// request makes are spans below it.
///
/// - A W3C `traceparent` (and `tracestate`) the request carries continues its trace only
///   from a `--trusted-proxy` peer; anyone else's starts a new trace.
/// - `RequestTrace.current` is set for the whole request, so that the records that carry
///   a trace across requests (a login, its code, a logout notice) get it, and a request
///   that reads one links its span to the first.
/// - The request's log lines carry `trace_id` while its span is recorded (sampled).
///
/// Only in the chain when tracing is configured (`--otlp-endpoint`, `OTEL_*`).
struct RequestTracing: RouterMiddleware {
    typealias Context = TesseraRequestContext
    let trustedProxies: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var parent = ServiceContext.topLevel
        let peer = SourceAddress.normalized(context.remoteAddress?.ipAddress ?? "")
        if trustedProxies.contains(peer) {
            InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HTTPFieldsCarrier())
        }
        let route = context.endpointPath ?? "unmatched"
        let span = InstrumentationSystem.tracer.startSpan("\(request.method.rawValue) \(route)", context: parent, ofKind: .server)
        let trace = RequestTrace(span: span)
        var context = context
        if span.isRecording {
            span.attributes["http.request.method"] = request.method.rawValue
            span.attributes["http.route"] = route
            if let tenant = context.parameters.get("tenant") { span.attributes["tessera.tenant"] = tenant }
            span.attributes["tessera.request_id"] = context.id
            if let own = trace.own, let traceID = Self.traceID(of: own) { context.logger[metadataKey: "trace_id"] = .string(traceID) }
        }
        do {
            let response = try await ServiceContext.withValue(span.context) {
                try await RequestTrace.$current.withValue(trace) { try await next(request, context) }
            }
            finish(span, status: response.status.code)
            return response
        } catch {
            finish(span, status: (error as? any HTTPResponseError)?.status.code ?? 500)
            throw error
        }
    }

    private func finish(_ span: any Span, status: Int) {
        span.attributes["http.response.status_code"] = status
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        span.end()
    }

    /// The trace id of a `traceparent` (`00-TRACEID-SPANID-FLAGS`).
    static func traceID(of traceParent: String) -> String? {
        let parts = traceParent.split(separator: "-")
        guard parts.count == 4, parts[1].utf8.count == 32 else { return nil }
        return String(parts[1])
    }
}

/// A request's header fields, for the propagator (a trusted proxy's `traceparent`).
struct HTTPFieldsCarrier: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}
