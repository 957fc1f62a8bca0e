import Hummingbird
import Logging
import OpenAPIRuntime
import TesseraCore
import TesseraDomain
import TesseraRecords

/// The outermost middleware: turns every error into its HTTP answer, and logs and counts
/// every request once, whatever its outcome.
///
/// - A `DomainError` becomes OAuth-style JSON with the status of its kind; pages raise
///   `BrowserError`; errors Hummingbird raises (oversize bodies, unknown routes) keep
///   their status with the OAuth-style body.
/// - A database that cannot be reached (`StoreError.unavailable`) is a 503
///   `temporarily_unavailable` with `Retry-After`, counted as
///   `tessera_database_unavailable_total`.
/// - Anything else is an opaque 500 for the caller. The log line of that request is at
///   error level and names the failure (its type, or a store error's code), with the
///   request id every line of the request carries; `/metrics` counts it by route.
/// - The line names the route pattern (`/t/{tenant}/token`), never the path or its query
///   (which name requests and can hold codes), and the tenant the path names.
struct EdgeMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context: context, status: response.status.code, start: start, failure: nil)
            return response
        } catch {
            // An admin operation's error comes wrapped by the generated server.
            var cause = error
            while let wrapped = cause as? OpenAPIRuntime.ServerError { cause = Self.unwrapped(wrapped) }
            let (answer, status, failure) = Self.answer(for: cause)
            if let cause = cause as? StoreError, cause.code == .unavailable {
                metrics.databaseUnavailable(route: context.endpointPath ?? "unmatched")
            }
            log(request, context: context, status: status, start: start, failure: failure)
            throw answer
        }
    }

    /// The HTTP form of an error (unwrapped from the generated server's), its status, and
    /// for a server failure what to log about it.
    static func answer(for error: any Error) -> (any HTTPResponseError, Int, String?) {
        switch error {
        case let error as DomainError where error.kind == .internal:
            // Opaque like any other server failure; the log names it.
            return (serverError, 500, "DomainError \(error.code)")
        case let error as DomainError:
            let answer = OAuthError(error)
            return (answer, answer.status.code, nil)
        case let error as OAuthError:
            return (error, error.status.code, error.status.code >= 500 ? "OAuthError \(error.code)" : nil)
        case let error as BrowserError:
            return (error, error.status.code, error.status.code >= 500 ? "BrowserError" : nil)
        case let error as WebRedirect:
            return (error, error.status.code, nil)
        case let error as TooManyRequests:
            return (error, error.status.code, nil)
        case let error as HTTPError:
            let code = error.status == .notFound ? "not_found" : "invalid_request"
            return (OAuthError(error.status, code, error.status.reasonPhrase.lowercased()), error.status.code, nil)
        case let error as StoreError where error.code == .busy:
            // A burst on one activation: the caller may simply try again.
            var answer = OAuthError(.serviceUnavailable, "temporarily_unavailable", error.message)
            answer.headers = [.retryAfter: "1"]
            return (answer, 503, nil)
        case let error as StoreError where error.code == .unavailable:
            // The database could not be reached (a restart, a switch-over): nothing the
            // request did; it may be sent again shortly. Counted, and logged as a failure.
            var answer = OAuthError(.serviceUnavailable, "temporarily_unavailable", "the database is unavailable; try again shortly")
            answer.headers = [.retryAfter: "2"]
            return (answer, 503, "StoreError \(error.description)")
        case let error as StoreError:
            // Store errors are written by the store and hold no secrets.
            return (serverError, 500, "StoreError \(error.description)")
        default:
            // Only the type: another module's error may quote what it was given.
            return (serverError, 500, String(reflecting: type(of: error)))
        }
    }

    /// What went wrong in an admin operation the generated server ran: the handler's or
    /// a middleware's own error, or (for a request that does not fit the document) a 400,
    /// or the status the OpenAPI runtime gives its error (415 for a body that is not JSON).
    static func unwrapped(_ error: OpenAPIRuntime.ServerError) -> any Error {
        switch error.underlyingError {
        case let decoding as DecodingError:
            return DomainError.invalidRequest("malformed request: \(RequestDecoding.describe(decoding))")
        case let policy as PolicyError:
            return DomainError.invalidRequest(policy.description)
        case is any HTTPResponseConvertible where (400..<500).contains(error.httpStatus.code):
            return OAuthError(error.httpStatus, "invalid_request", error.causeDescription)
        default:
            return error.underlyingError
        }
    }

    static var serverError: OAuthError { OAuthError(.internalServerError, "server_error", "the server could not complete the request") }

    private func log(_ request: Request, context: Context, status: Int, start: ContinuousClock.Instant, failure: String?) {
        let elapsed = ContinuousClock.now - start
        // The route pattern (`/t/{tenant}/token`), never the path, which names tenants and requests.
        let route = context.endpointPath ?? "unmatched"
        metrics.request(method: request.method.rawValue, route: route, status: status, duration: elapsed)
        // The metadata is built only when the line is written (a node at `warning` or above
        // writes no request lines, and building them was a visible part of a login's CPU).
        guard failure != nil || context.logger.logLevel <= .info else { return }
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        var metadata: Logger.Metadata = [
            "method": "\(request.method.rawValue)", "route": "\(route)", "status": .stringConvertible(status),
            "duration_ms": .stringConvertible(Double(micros) / 1000),
        ]
        if let tenant = context.parameters.get("tenant") { metadata["tenant"] = "\(tenant)" }
        if let failure {
            metadata["error"] = "\(failure)"
            metrics.serverError(route: route)
            context.logger.error("request failed", metadata: metadata)
        } else {
            context.logger.info("request", metadata: metadata)
        }
    }
}
