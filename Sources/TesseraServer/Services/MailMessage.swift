import Foundation

/// An e-mail as the server sends it (RFC 5322 with MIME): a plain-text part, an HTML
/// alternative, and images the HTML shows inline (`cid:`). Its `Message-ID` is the
/// outbox row's, so that a message sent twice (a crash between the server's 250 and the
/// outbox's commit) can be told apart by the receiver.
public struct MailMessage: Sendable {
    public struct InlineImage: Sendable {
        public let contentID: String
        public let contentType: String
        public let bytes: [UInt8]

        public init(contentID: String, contentType: String, bytes: [UInt8]) {
            self.contentID = contentID
            self.contentType = contentType
            self.bytes = bytes
        }
    }

    public var from: String
    public var to: String
    public var subject: String
    public var messageID: String
    public var date: Date
    public var text: String
    public var html: String?
    public var images: [InlineImage]

    public init(
        from: String, to: String, subject: String, messageID: String, date: Date, text: String, html: String? = nil,
        images: [InlineImage] = []
    ) {
        self.from = from
        self.to = to
        self.subject = subject
        self.messageID = messageID
        self.date = date
        self.text = text
        self.html = html
        self.images = images
    }

    /// The message's bytes: text parts as 8-bit UTF-8 where the server takes it
    /// (8BITMIME), base64 otherwise; images always base64; lines end CRLF.
    public func rendered(eightBit: Bool) -> [UInt8] {
        let boundary = "tessera-" + messageID.filter { $0.isLetter || $0.isNumber }.prefix(24)
        var lines = [
            "From: \(Self.header(from))", "To: \(Self.header(to))", "Subject: \(Self.encodedWord(subject))",
            "Date: \(Self.rfc5322Date(date))", "Message-ID: <\(messageID)>", "MIME-Version: 1.0", "Auto-Submitted: auto-generated",
        ]
        func textPart(_ type: String, _ body: String) -> [String] {
            if eightBit {
                return ["Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: 8bit", ""] + Self.normalizedLines(body)
            }
            return ["Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64", ""] + Self.base64Lines(Array(body.utf8))
        }
        guard let html else {
            lines += textPart("text/plain", text)
            return Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
        }
        let alternative = "\(boundary)-a"
        let related = "\(boundary)-r"
        lines += ["Content-Type: multipart/alternative; boundary=\"\(alternative)\"", "", "--\(alternative)"]
        lines += textPart("text/plain", text)
        lines += ["--\(alternative)"]
        if images.isEmpty {
            lines += textPart("text/html", html)
        } else {
            lines += ["Content-Type: multipart/related; boundary=\"\(related)\"", "", "--\(related)"]
            lines += textPart("text/html", html)
            for image in images {
                lines += [
                    "--\(related)", "Content-Type: \(image.contentType)", "Content-Transfer-Encoding: base64",
                    "Content-ID: <\(image.contentID)>", "Content-Disposition: inline", "",
                ]
                lines += Self.base64Lines(image.bytes)
            }
            lines += ["--\(related)--"]
        }
        lines += ["--\(alternative)--", ""]
        return Array(lines.joined(separator: "\r\n").utf8)
    }

    /// A mailbox for a header: as given when it is ASCII, its display name encoded otherwise.
    static func header(_ mailbox: String) -> String {
        guard !mailbox.allSatisfy(\.isASCII), let open = mailbox.lastIndex(of: "<") else { return mailbox }
        let name = mailbox[..<open].trimmingCharacters(in: .whitespaces)
        return "\(encodedWord(name)) \(mailbox[open...])"
    }

    /// RFC 2047: ASCII text as it is, anything else as `=?UTF-8?B?…?=` words.
    static func encodedWord(_ text: String) -> String {
        let clean = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if clean.allSatisfy({ $0.isASCII }) { return clean }
        // Words of at most 45 bytes of UTF-8 (60 of base64), split between characters.
        var words: [String] = []
        var current: [UInt8] = []
        for character in clean {
            let bytes = Array(String(character).utf8)
            if current.count + bytes.count > 45 {
                words.append("=?UTF-8?B?\(Data(current).base64EncodedString())?=")
                current = []
            }
            current += bytes
        }
        if !current.isEmpty { words.append("=?UTF-8?B?\(Data(current).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    static func base64Lines(_ bytes: [UInt8]) -> [String] {
        let encoded = Data(bytes).base64EncodedString()
        return stride(from: 0, to: encoded.count, by: 76).map { start in
            let from = encoded.index(encoded.startIndex, offsetBy: start)
            return String(encoded[from..<(encoded.index(from, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex)])
        }
    }

    /// Text as lines (a body's line breaks, whichever they were), none longer than SMTP allows.
    static func normalizedLines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false).flatMap { line -> [String] in
            // RFC 5322 §2.1.1: at most 998 bytes; long lines are broken (HTML and text both tolerate it at a space).
            var rest = String(line)
            var pieces: [String] = []
            while rest.utf8.count > 900, let space = rest.prefix(900).lastIndex(of: " ") {
                pieces.append(String(rest[..<space]))
                rest = String(rest[rest.index(after: space)...])
            }
            return pieces + [rest]
        }
    }

    /// `Fri, 27 Nov 2026 14:05:09 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        date.formatted(Date.VerbatimFormatStyle(
            format: "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) +0000",
            locale: Locale(identifier: "en_US_POSIX"), timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
    }
}
