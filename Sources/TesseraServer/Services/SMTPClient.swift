import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Where and how the server sends e-mail (`--smtp-url`, `--smtp-from`, …).
public struct SMTPSettings: Sendable {
    public var host: String
    public var port: Int
    /// `smtps://`: TLS from the first byte (port 465); `smtp://`: STARTTLS (port 587 or 25).
    public var implicitTLS: Bool
    /// The envelope and `From:` address (`Name <address>` or `address`).
    public var from: String
    public var user: String?
    public var password: String?
    /// Plain SMTP without STARTTLS is allowed (a local sink only: `--smtp-insecure`).
    public var insecure: Bool
    /// A PEM file of the CA (or certificate) that signs the server's certificate (`--smtp-ca`).
    public var caFile: String?
    /// The name this server gives in EHLO.
    public var heloName: String

    public init(
        url: String, from: String, user: String? = nil, password: String? = nil, insecure: Bool = false, caFile: String? = nil,
        heloName: String = "localhost"
    ) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), ["smtp", "smtps"].contains(scheme),
            let host = components.host, !host.isEmpty, components.path.isEmpty || components.path == "/"
        else { throw SMTPError.configuration("the SMTP URL is smtp://host:port or smtps://host:port") }
        guard Self.address(of: from) != nil else {
            throw SMTPError.configuration("the sender is an address (name@example.com) or Name <name@example.com>")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.implicitTLS = scheme == "smtps"
        self.port = components.port ?? (implicitTLS ? 465 : 587)
        self.from = from
        self.user = user
        self.password = password
        self.insecure = insecure
        self.caFile = caFile
        self.heloName = heloName
    }

    /// The bare address of `Name <address>` or `address`, or nil when it is none (or could
    /// bend a header or a command: line breaks, angle brackets inside).
    public static func address(of mailbox: String) -> String? {
        guard !mailbox.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else { return nil }
        var address = mailbox.trimmingCharacters(in: .whitespaces)
        if let open = address.lastIndex(of: "<"), address.hasSuffix(">") {
            address = String(address[address.index(after: open)..<address.index(before: address.endIndex)])
        }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), address.count <= 254,
            !address.contains(where: { $0 == " " || $0 == "<" || $0 == ">" || $0 == "," || $0 == ";" })
        else { return nil }
        return address
    }
}

public enum SMTPError: Error, CustomStringConvertible, Sendable {
    case configuration(String)
    /// The server answered a command with this reply: 4xx is worth trying again, 5xx not.
    case reply(command: String, code: Int, text: String)
    case protocolError(String)
    case timedOut

    public var description: String {
        switch self {
        case .configuration(let text): text
        case .reply(let command, let code, let text): "\(command): \(code) \(text.prefix(200))"
        case .protocolError(let text): text
        case .timedOut: "the SMTP server did not answer in time"
        }
    }

    /// Whether a later attempt may succeed: anything but a permanent (5xx) refusal of a recipient or message.
    public var isTransient: Bool {
        if case .reply(_, let code, _) = self { return code < 500 }
        return true
    }
}

/// A small SMTP client (RFC 5321) on SwiftNIO: one message per connection. It reads
/// multi-line replies, takes up TLS at once (`smtps`) or by STARTTLS (RFC 3207), which is
/// required unless the settings allow plain SMTP, verifies the server's certificate and
/// name (against the system's roots, or `--smtp-ca`), authenticates with AUTH PLAIN or
/// LOGIN (RFC 4954) only inside TLS, sends 8-bit text where 8BITMIME (RFC 6152) is
/// offered, and dot-stuffs the message.
public struct SMTPClient: Sendable {
    public let settings: SMTPSettings
    public var timeout: Duration = .seconds(30)

    public init(settings: SMTPSettings) {
        self.settings = settings
    }

    /// Sends `message` to `recipient`; the message is rendered once the server has said
    /// whether it takes 8-bit text.
    public func send(to recipient: String, _ message: MailMessage) async throws {
        guard let to = SMTPSettings.address(of: recipient) else { throw SMTPError.configuration("the recipient is not an address") }
        guard let from = SMTPSettings.address(of: settings.from) else { throw SMTPError.configuration("the sender is not an address") }
        try await withDeadline(timeout) { try await converse(from: from, to: to, message) }
    }

    /// TLS as the client speaks it: TLS 1.2 or later, the server's certificate verified
    /// against the system's roots or `--smtp-ca`.
    private func tlsContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let caFile = settings.caFile { configuration.trustRoots = .file(caFile) }
        return try NIOSSLContext(configuration: configuration)
    }

    /// The name the certificate must carry; an address literal is checked against its IP entries.
    private var serverHostname: String? {
        (try? SocketAddress(ipAddress: settings.host, port: 0)) != nil ? nil : settings.host
    }

    private func converse(from: String, to: String, _ message: MailMessage) async throws {
        let implicitTLS = settings.implicitTLS
        let context = try tlsContext()
        let hostname = serverHostname
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if implicitTLS {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: hostname))
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            var replies = ReplyReader(inbound.makeAsyncIterator())
            func command(_ line: String, expect: ClosedRange<Int>, name: String? = nil) async throws -> Reply {
                try await outbound.write(ByteBuffer(string: line + "\r\n"))
                let reply = try await replies.next()
                guard expect.contains(reply.code) else {
                    throw SMTPError.reply(command: name ?? String(line.prefix(4)), code: reply.code, text: reply.lines.joined(separator: " "))
                }
                return reply
            }
            let greeting = try await replies.next()
            guard greeting.code == 220 else {
                throw SMTPError.reply(command: "greeting", code: greeting.code, text: greeting.lines.joined(separator: " "))
            }
            var extensions = try await command("EHLO \(settings.heloName)", expect: 250...250).extensions
            var secure = implicitTLS
            if !secure {
                if extensions["STARTTLS"] != nil {
                    _ = try await command("STARTTLS", expect: 220...220)
                    // Nothing may follow the 220 before TLS: what did was injected in clear.
                    guard replies.isEmpty else { throw SMTPError.protocolError("the server sent more after its STARTTLS answer") }
                    let raw = channel.channel
                    try await raw.eventLoop.submit {
                        try raw.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: hostname), position: .first)
                    }.get()
                    secure = true
                    extensions = try await command("EHLO \(settings.heloName)", expect: 250...250).extensions
                } else if !settings.insecure {
                    throw SMTPError.protocolError("the SMTP server offers no STARTTLS (plain SMTP needs --smtp-insecure)")
                }
            }
            if let user = settings.user {
                guard secure || settings.insecure else { throw SMTPError.protocolError("no authentication outside TLS") }
                let mechanisms = Set((extensions["AUTH"] ?? "").uppercased().split(separator: " ").map(String.init))
                let password = settings.password ?? ""
                if mechanisms.contains("PLAIN") {
                    let token = Data("\0\(user)\0\(password)".utf8).base64EncodedString()
                    _ = try await command("AUTH PLAIN \(token)", expect: 235...235, name: "AUTH")
                } else if mechanisms.contains("LOGIN") {
                    _ = try await command("AUTH LOGIN", expect: 334...334, name: "AUTH")
                    _ = try await command(Data(user.utf8).base64EncodedString(), expect: 334...334, name: "AUTH")
                    _ = try await command(Data(password.utf8).base64EncodedString(), expect: 235...235, name: "AUTH")
                } else {
                    throw SMTPError.protocolError("the SMTP server offers neither AUTH PLAIN nor AUTH LOGIN")
                }
            }
            let eightBit = extensions["8BITMIME"] != nil
            _ = try await command("MAIL FROM:<\(from)>" + (eightBit ? " BODY=8BITMIME" : ""), expect: 250...250)
            _ = try await command("RCPT TO:<\(to)>", expect: 250...251)
            _ = try await command("DATA", expect: 354...354)
            try await outbound.write(ByteBuffer(bytes: Self.dotStuffed(message.rendered(eightBit: eightBit))))
            let accepted = try await replies.next()
            guard accepted.code == 250 else {
                throw SMTPError.reply(command: "DATA", code: accepted.code, text: accepted.lines.joined(separator: " "))
            }
            // The message is the server's now; a lost QUIT changes nothing.
            try? await outbound.write(ByteBuffer(string: "QUIT\r\n"))
            _ = try? await replies.next()
        }
    }

    /// The message as DATA carries it: CRLF line ends, a line beginning with "." given
    /// another (RFC 5321 §4.5.2), and the final "<CRLF>.<CRLF>".
    static func dotStuffed(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(message.count + 64)
        var atLineStart = true
        var previous: UInt8 = 0
        for byte in message {
            if byte == UInt8(ascii: "\n"), previous != UInt8(ascii: "\r") { out.append(UInt8(ascii: "\r")) }
            if atLineStart, byte == UInt8(ascii: ".") { out.append(UInt8(ascii: ".")) }
            out.append(byte)
            atLineStart = byte == UInt8(ascii: "\n")
            previous = byte
        }
        if !atLineStart { out += Array("\r\n".utf8) }
        out += Array(".\r\n".utf8)
        return out
    }

    /// One reply: its code and its lines' texts.
    struct Reply {
        let code: Int
        let lines: [String]

        /// EHLO's keywords (upper case) and their parameters.
        var extensions: [String: String] {
            var found: [String: String] = [:]
            for line in lines.dropFirst() {
                let parts = line.split(separator: " ", maxSplits: 1)
                guard let keyword = parts.first else { continue }
                found[keyword.uppercased()] = parts.count > 1 ? String(parts[1]) : ""
            }
            return found
        }
    }

    /// Reads replies from the connection: lines `XYZ-text` continue one, `XYZ text` ends it.
    struct ReplyReader {
        var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        var buffer: [UInt8] = []

        init(_ iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) {
            self.iterator = iterator
        }

        var isEmpty: Bool { buffer.isEmpty }

        mutating func line() async throws -> String {
            while true {
                if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    var line = Array(buffer[..<end])
                    buffer.removeFirst(end + 1)
                    if line.last == UInt8(ascii: "\r") { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                guard buffer.count < 4096 else { throw SMTPError.protocolError("an SMTP reply line is too long") }
                guard let chunk = try await iterator.next() else { throw SMTPError.protocolError("the SMTP server closed the connection") }
                buffer += chunk.readableBytesView
            }
        }

        mutating func next() async throws -> Reply {
            var lines: [String] = []
            var code: Int?
            while lines.count < 100 {
                let line = try await line()
                let digits = line.prefix(3)
                guard digits.count == 3, let value = Int(digits), (200...599).contains(value) || (100...199).contains(value) else {
                    throw SMTPError.protocolError("not an SMTP reply: \(line.prefix(80))")
                }
                if let code, code != value { throw SMTPError.protocolError("a reply's lines disagree on the code") }
                code = value
                let separator = line.dropFirst(3).first
                lines.append(String(line.dropFirst(4)))
                if separator != "-" { return Reply(code: value, lines: lines) }
            }
            throw SMTPError.protocolError("an SMTP reply of more than 100 lines")
        }
    }
}

/// Runs `body`, failing with `SMTPError.timedOut` after `limit`.
func withDeadline<R: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> R) async throws -> R {
    try await withThrowingTaskGroup(of: R?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else { throw SMTPError.timedOut }
        return result
    }
}
