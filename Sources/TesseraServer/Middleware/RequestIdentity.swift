import HTTPTypes
import Hummingbird
import Logging
import TesseraRecords

/// The outermost middleware: gives every request its id and origin.
///
/// - The id is the one every log line of the request carries and every answer's
///   `X-Request-Id` (errors included): a trusted proxy's own `X-Request-Id` is kept (one to
///   128 letters, digits and `-_.:`), any other caller's replaced.
/// - The origin (`RequestOrigin`: source address through `--trusted-proxy`, user agent,
///   the id) is set for the whole of the request, so that audit and history entries
///   written on its behalf record where it came from.
struct RequestIdentity: RouterMiddleware {
    typealias Context = TesseraRequestContext
    let trustedProxies: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let peer = SourceAddress.normalized(context.remoteAddress?.ipAddress ?? "unknown")
        if trustedProxies.contains(peer), let given = request.headers[.xRequestID], Self.isAcceptable(given) {
            context.logger[metadataKey: "hb.request.id"] = .string(given)
        }
        let id = context.id
        let origin = RequestOrigin(
            address: context.sourceAddress(trusting: trustedProxies, request: request),
            userAgent: request.headers[.userAgent].map { String($0.prefix(512)) }, requestID: id)
        var response: Response
        do {
            response = try await RequestOrigin.$current.withValue(origin) { try await next(request, context) }
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.xRequestID] = id
        return response
    }

    /// Short enough for a log line, and nothing a log or header could be bent by.
    static func isAcceptable(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
                case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"): true
                default: false
                }
            }
    }
}

extension HTTPField.Name {
    static let xRequestID = HTTPField.Name("X-Request-Id")!
}
