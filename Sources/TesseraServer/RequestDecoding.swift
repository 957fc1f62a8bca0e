import Foundation
import Hummingbird
import TesseraCore
import TesseraDomain

extension Parameters {
    /// A path parameter as the identifier it names; a missing one is the empty id,
    /// which no row has, so it answers like any unknown id.
    func id<ID: StringIdentifier>(_ name: String, as type: ID.Type = ID.self) -> ID {
        ID(rawValue: get(name) ?? "")
    }
}

/// Bodies are read whole, up to a limit, and decoded strictly; anything else is a 400
/// (or 413) before any handler logic runs.
enum RequestDecoding {
    static let maximumBodySize = 64 * 1024

    static func body(_ request: inout Request) async throws -> ByteBuffer {
        do {
            return try await request.collectBody(upTo: maximumBodySize)
        } catch {
            throw DomainError(.tooLarge, .invalidRequest, "the request body is larger than \(maximumBodySize) bytes")
        }
    }

    static func json<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        guard let value = try await optionalJSON(type, from: request) else {
            throw DomainError.invalidRequest("the request needs a JSON body")
        }
        return value
    }

    /// A `limit` query parameter: 1 to `maximum`, `standard` when absent.
    static func limit(_ query: [String: String], maximum: Int, standard: Int = 100) throws -> Int {
        guard let text = query["limit"] else { return standard }
        guard let value = Int(text) else { throw DomainError.invalidRequest("limit must be 1 to \(maximum)") }
        return try limit(value, maximum: maximum)
    }

    /// A `limit` the generated admin server has read as a number: 1 to `maximum`, `standard` when absent.
    static func limit(_ value: Int?, maximum: Int, standard: Int = 100) throws -> Int {
        guard let value else { return standard }
        guard (1...maximum).contains(value) else { throw DomainError.invalidRequest("limit must be 1 to \(maximum)") }
        return value
    }

    /// A time in a query parameter the generated admin server has read as a number:
    /// seconds since 1970, nil when absent.
    static func epoch(_ name: String, _ value: Int?) throws -> Int64? {
        try value.map { value in
            guard value >= 0 else { throw DomainError.invalidRequest("\(name) must be seconds since 1970") }
            return Int64(value)
        }
    }

    /// A long poll's `wait` query parameter: 0 to `RequestEvents.maximumWait` seconds, 0 when absent.
    static func wait(_ query: [String: String]) throws -> Int64 {
        guard let text = query["wait"] else { return 0 }
        guard let seconds = Int64(text), (0...Int64(RequestEvents.maximumWait)).contains(seconds) else {
            throw DomainError.invalidRequest("wait must be 0 to \(RequestEvents.maximumWait) seconds")
        }
        return seconds
    }

    /// A JSON body, or nil when the body is empty.
    static func optionalJSON<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T? {
        var request = request
        let buffer = try await body(&request)
        guard buffer.readableBytes > 0 else { return nil }
        return try decodeJSON(type, Data(buffer.readableBytesView))
    }

    /// A device's JSON body, in the clear or (gematik IDP profile) as a compact JWE to the
    /// tenant's encryption key `puk_idp_enc` with `Content-Type: application/jose`;
    /// `encrypted` says which. A JWE that does not open is a 400, like malformed JSON.
    static func deviceJSON<T: Decodable>(_ type: T.Type, from request: Request, opening: (String) throws -> Data) async throws
        -> (value: T, encrypted: Bool)
    {
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/jose") else { return (try await json(type, from: request), false) }
        var request = request
        let buffer = try await body(&request)
        guard let compact = String(bytes: buffer.readableBytesView, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
            !compact.isEmpty
        else { throw DomainError.invalidRequest("the request needs a JWE body") }
        let plaintext: Data
        do {
            plaintext = try opening(compact)
        } catch {
            throw DomainError.invalidRequest("the body is not a JWE to this issuer's encryption key (puk_idp_enc)")
        }
        return (try decodeJSON(type, plaintext), true)
    }

    private static func decodeJSON<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        guard !WireCoding.containsNUL(json: data) else { throw DomainError.invalidRequest("JSON strings may not contain NUL characters") }
        do {
            return try WireCoding.decoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw DomainError.invalidRequest("malformed JSON body: \(describe(error))")
        } catch let error as PolicyError {
            throw DomainError.invalidRequest(error.description)
        } catch {
            throw DomainError.invalidRequest("malformed JSON body")
        }
    }

    /// An `application/x-www-form-urlencoded` body; a parameter given twice is refused (RFC 6749 §3.1).
    static func form(from request: Request) async throws -> [String: String] {
        var request = request
        let buffer = try await body(&request)
        guard let text = String(bytes: buffer.readableBytesView, encoding: .utf8) else {
            throw DomainError.invalidRequest("the form body is not UTF-8")
        }
        return try parseForm(text)
    }

    static func parseForm(_ text: String) throws -> [String: String] {
        var values: [String: String] = [:]
        // Split on the bytes: `&` and `=` are ASCII, which never occurs inside a multi-byte
        // character, and splitting the String by Character cost a grapheme break check a byte.
        for pair in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let name = pair[..<(equals ?? pair.endIndex)]
            let value = equals.map { pair[pair.index(after: $0)...] } ?? pair[pair.endIndex...]
            guard let name = decodeComponent(Substring(name)), !name.isEmpty, let value = decodeComponent(Substring(value)) else {
                throw DomainError.invalidRequest("malformed form body")
            }
            guard values[name] == nil else { throw DomainError.invalidRequest("parameter '\(name)' is repeated") }
            values[name] = value
        }
        return values
    }

    /// A percent-decoded form or query component; nil when it is not valid (a bad escape,
    /// or bytes that are not UTF-8), or holds a NUL character (which no identifier, name
    /// or token has, and PostgreSQL cannot store).
    /// Works on the UTF-8 bytes: Foundation's `removingPercentEncoding` was 2 % of the
    /// server's CPU in a login run. A component with nothing to decode is itself.
    static func decodeComponent(_ text: Substring) -> String? {
        let utf8 = text.utf8
        if !utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") || $0 == 0 }) { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            index = utf8.index(after: index)
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index != utf8.endIndex, let high = hexValue(utf8[index]) else { return nil }
                index = utf8.index(after: index)
                guard index != utf8.endIndex, let low = hexValue(utf8[index]) else { return nil }
                index = utf8.index(after: index)
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }


    /// Query parameters, with the same no-repeats rule.
    static func query(_ request: Request) throws -> [String: String] {
        try parseForm(request.uri.query ?? "")
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "missing field '\(key.stringValue)'"
        // A query parameter of the admin API (the generated server decodes each on its own),
        // or a body that is not an object.
        case .typeMismatch(_, let context) where context.codingPath.isEmpty: "a parameter or the body is not of its documented type"
        case .typeMismatch(_, let context): "wrong type at '\(path(context))'"
        case .valueNotFound(_, let context): "missing value at '\(path(context))'"
        case .dataCorrupted(let context): context.codingPath.isEmpty ? "not valid JSON" : "invalid value at '\(path(context))'"
        @unknown default: "invalid JSON"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
