/// Where the request that makes a change came from: the source address (a trusted
/// proxy's client, see `--trusted-proxy`), the user agent and the request id the answer
/// carries as `X-Request-Id`. The server sets it for the whole of each request; audit
/// and history entries written during the request record it.
public struct RequestOrigin: Sendable, Equatable {
    public var address: String
    public var userAgent: String?
    public var requestID: String

    public init(address: String, userAgent: String?, requestID: String) {
        self.address = address
        self.userAgent = userAgent
        self.requestID = requestID
    }

    /// The origin of the request being served, nil outside a request (background work,
    /// commands).
    @TaskLocal public static var current: RequestOrigin?
}
