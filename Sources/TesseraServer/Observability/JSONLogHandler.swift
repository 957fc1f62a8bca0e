import Foundation
import Logging
import Synchronization

/// How the server writes its log: swift-log's text lines, or one JSON object per line.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}

/// Where log lines go: standard error, or a file (appended). Each line is written whole,
/// in one `write`, under a lock, so lines of concurrent requests never interleave.
public final class LogOutput: Sendable {
    private let descriptor: Int32
    private let lock = Mutex(())

    public static let standardError = LogOutput(descriptor: 2)

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// A file the lines are appended to (created for this user only).
    public convenience init(appendingTo path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        self.init(descriptor: descriptor)
    }

    public func write(_ line: [UInt8]) {
        lock.withLock { _ in
            line.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    offset += written
                }
            }
        }
    }
}

/// A log handler that writes each event as one JSON object on a line:
///
///     {"ts":"2026-11-28T10:00:00.123Z","level":"info","msg":"request","logger":"tessera",
///      "request_id":"…","route":"/t/{tenant}/token","status":200,"duration_ms":3,…}
///
/// - The event's own fields are JSON values: numbers and booleans stay numbers and
///   booleans, nested metadata stays objects and arrays, never JSON text in a string.
/// - Hummingbird's request id (`hb.request.id`) is `request_id`, the id answers carry as
///   `X-Request-Id`.
/// - A field named like one of the line's own keys (`ts`, `level`, `msg`, `logger`) is
///   written as `field.NAME`, so nothing overwrites them.
/// - An error attached to the event is written by its type only: another module's error
///   may quote what it was given.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: LogOutput

    public init(label: String, level: Logger.Level = .info, output: LogOutput = .standardError, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.logLevel = level
        self.output = output
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    static let ownKeys: Set<String> = ["ts", "level", "msg", "logger"]

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let given = event.metadata { fields.merge(given) { _, new in new } }
        var line = JSONLine()
        line.key("ts")
        line.string(Self.timestamp(Date()))
        line.key("level")
        line.string(event.level.rawValue)
        line.key("msg")
        line.string(event.message.description)
        line.key("logger")
        line.string(label)
        if let error = event.error {
            line.key("error_type")
            line.string(String(reflecting: type(of: error)))
        }
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            let name = key == "hb.request.id" ? "request_id" : (Self.ownKeys.contains(key) ? "field.\(key)" : key)
            line.key(name)
            line.value(value)
        }
        output.write(line.finished())
    }

    /// RFC 3339 in UTC with milliseconds.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        let milliseconds = Int((date.timeIntervalSince1970 - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = milliseconds < 10 ? "00\(milliseconds)" : (milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)")
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millis)Z"
    }
}

/// One JSON object, written field by field.
struct JSONLine {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var first = true

    mutating func key(_ name: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func value(_ value: Logger.Metadata.Value) {
        switch value {
        case .string(let text):
            string(text)
        case .stringConvertible(let convertible):
            switch convertible {
            case let number as Int: raw(String(number))
            case let number as Int64: raw(String(number))
            case let number as Int32: raw(String(number))
            case let number as UInt: raw(String(number))
            case let number as UInt64: raw(String(number))
            case let number as Double where number.isFinite: raw(String(number))
            case let number as Float where number.isFinite: raw(String(number))
            case let flag as Bool: raw(flag ? "true" : "false")
            default: string(convertible.description)
            }
        case .dictionary(let dictionary):
            bytes.append(UInt8(ascii: "{"))
            for (index, (key, item)) in dictionary.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                string(key)
                bytes.append(UInt8(ascii: ":"))
                self.value(item)
            }
            bytes.append(UInt8(ascii: "}"))
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                self.value(item)
            }
            bytes.append(UInt8(ascii: "]"))
        }
    }

    private mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// A JSON string: quotes, backslashes and control characters escaped (RFC 8259).
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    func finished() -> [UInt8] { bytes + [UInt8(ascii: "}"), UInt8(ascii: "\n")] }
}
