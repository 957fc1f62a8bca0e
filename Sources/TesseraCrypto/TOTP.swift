import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238) with HMAC-SHA1, 30-second steps.
public struct TOTP: Sendable {
    public let secret: Data
    public let digits: Int
    public let period: Int

    public init(secret: Data, digits: Int = 6, period: Int = 30) {
        self.secret = secret
        self.digits = digits
        self.period = period
    }

    public static func makeSecret() -> Data { Secrets.randomBytes(20) }

    public func step(at date: Date) -> Int64 { Int64(floor(date.timeIntervalSince1970 / Double(period))) }

    /// The code for one time step (RFC 4226 dynamic truncation).
    public func code(forStep step: Int64) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    public func code(at date: Date) -> String { code(forStep: step(at: date)) }

    /// The step a code belongs to, looking one step back and one ahead; a step at or
    /// before `lastUsedStep` is never accepted again.
    public func matchingStep(for code: String, at date: Date, lastUsedStep: Int64?) -> Int64? {
        let now = step(at: date)
        var match: Int64?
        for candidate in (now - 1)...(now + 1) where Secrets.constantTimeEquals(self.code(forStep: candidate), code) {
            match = candidate
        }
        guard let match else { return nil }
        if let lastUsedStep, match <= lastUsedStep { return nil }
        return match
    }

    /// The `otpauth://` URI an authenticator app imports.
    public func provisioningURI(issuer: String, account: String) -> String {
        var components = URLComponents()
        components.scheme = "otpauth"
        components.host = "totp"
        components.path = "/\(issuer):\(account)"
        components.queryItems = [
            URLQueryItem(name: "secret", value: Base32.encode(secret)),
            URLQueryItem(name: "issuer", value: issuer),
            URLQueryItem(name: "digits", value: String(digits)),
            URLQueryItem(name: "period", value: String(period)),
        ]
        return components.string ?? ""
    }
}

enum Base32 {
    static func encode(_ data: Data) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var output = ""
        var buffer: UInt32 = 0
        var bits = 0
        for byte in data {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return output
    }
}
