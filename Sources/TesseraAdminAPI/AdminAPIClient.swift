package import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
package import OpenAPIRuntime

/// The admin API's typed client (generated from openapi.yaml) over AsyncHTTPClient, with
/// the caller's admin token or admin API key as a bearer token.
package enum AdminAPI {
    package static func client(server: URL, token: String) -> Client {
        Client(serverURL: server, transport: AsyncHTTPClientTransport(), middlewares: [BearerToken(token: token), FailureAnswers()])
    }
}

/// Sends the admin credential with every call.
struct BearerToken: ClientMiddleware {
    let token: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}

/// An answer other than success: its status and the server's error body.
package struct AdminAPIError: Error, CustomStringConvertible {
    package let status: Int
    package let error: String
    package let errorDescription: String

    package var description: String { "HTTP \(status) \(error): \(errorDescription)" }

    /// The error a call threw: an answer other than success as the server gave it, the
    /// generated client's wrapper taken off.
    package static func unwrapped(_ error: any Error) -> any Error {
        (error as? ClientError)?.underlyingError ?? error
    }
}

/// Turns every answer of 400 and above into an `AdminAPIError` before the generated code
/// reads it, so that a call returns only what succeeded.
struct FailureAnswers: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        var data = Data()
        if let responseBody { data = try await Data(collecting: responseBody, upTo: 1 << 20) }
        let answer = try? JSONDecoder().decode(Components.Schemas.ErrorBody.self, from: data)
        throw AdminAPIError(
            status: response.status.code, error: answer?.error ?? "error",
            errorDescription: answer?.errorDescription ?? String(decoding: data.prefix(500), as: UTF8.self))
    }
}
