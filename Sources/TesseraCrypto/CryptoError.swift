/// The one error type of TesseraCrypto. Messages never contain key material.
public struct CryptoError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Code: String, Sendable {
        case malformed
        case unsupportedAlgorithm
        case invalidSignature
        case invalidKey
        case expired
        case invalidClaims
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
