/// The one error type of TesseraStore (a row that does not decode is `corrupt`).
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case unavailable
        case conflict
        case corrupt
        /// Too many transactions wait on one queue (a hot activation): try again shortly.
        case busy
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Too many transactions of `queue` (`activation:…`) at once, on this node or another.
    package static func busy(queue: String) -> StoreError {
        StoreError(.busy, "too many attempts at once on one \(queue.prefix { $0 != ":" }): try again shortly")
    }
}
