import Foundation
import Hummingbird
import TesseraDomain

/// A `multipart/form-data` body (RFC 7578): what a browser sends for a form with a file
/// field. Text fields become the same name-to-value map a URL-encoded form gives (with the
/// same rules: a name once, UTF-8, no NUL); file fields keep their bytes and media type.
/// No Swift package of the mirror reads it; the console's logo upload is its one user, and
/// Chromium is the outside implementation its test sends it with.
struct MultipartForm: Sendable {
    struct File: Sendable {
        let filename: String
        /// The part's own Content-Type, if it has one.
        let contentType: String?
        let bytes: Data
    }

    var fields: [String: String] = [:]
    var files: [String: File] = [:]

    /// The largest body read: well over a logo's 256 KiB, so that a larger one is refused
    /// beside its field by the use case, not as an unreadable form.
    static let maximumBodySize = 1024 * 1024
    /// More parts than any of the console's forms has.
    static let maximumParts = 16

    /// The boundary of a `multipart/form-data` Content-Type, or nil for any other type.
    static func boundary(ofContentType header: String?) -> String? {
        guard let header else { return nil }
        let parameters = Self.parameters(header)
        guard parameters.first?.name.lowercased() == "multipart/form-data" else { return nil }
        return parameters.dropFirst().first { $0.name.lowercased() == "boundary" }?.value
    }

    static func read(_ request: Request) async throws -> MultipartForm {
        guard let boundary = boundary(ofContentType: request.headers[.contentType]) else {
            throw DomainError.invalidRequest("the body is not multipart/form-data")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumBodySize)
        } catch {
            throw DomainError(.tooLarge, .invalidRequest, "the request body is larger than \(maximumBodySize) bytes")
        }
        return try parse(Array(buffer.readableBytesView), boundary: boundary)
    }

    /// The parts of `body` between `--boundary` lines, strictly: a part without a
    /// Content-Disposition naming it, a name given twice, a text field that is not UTF-8 or
    /// holds NUL, a body that does not end with the closing delimiter: each is refused.
    static func parse(_ body: [UInt8], boundary: String) throws -> MultipartForm {
        func refuse(_ why: String) -> DomainError { DomainError.invalidRequest("malformed multipart body: \(why)") }
        guard (1...70).contains(boundary.utf8.count) else { throw refuse("the boundary is 1 to 70 characters") }
        let delimiter = Array("--\(boundary)".utf8)
        let crlf: [UInt8] = [13, 10]
        // The first delimiter opens the body (a preamble before it is ignored, RFC 2046 §5.1.1).
        guard var cursor = find(delimiter, in: body, from: 0) else { throw refuse("no boundary") }
        cursor += delimiter.count
        var form = MultipartForm()
        var parts = 0
        while true {
            if body[cursor...].starts(with: [45, 45]) { break }  // "--": the closing delimiter
            guard body[cursor...].starts(with: crlf) else { throw refuse("a boundary line does not end") }
            cursor += 2
            parts += 1
            guard parts <= maximumParts else { throw refuse("more than \(maximumParts) parts") }
            guard let headersEnd = find(crlf + crlf, in: body, from: cursor) else { throw refuse("a part's headers do not end") }
            guard let headerText = String(validating: body[cursor..<headersEnd], as: UTF8.self) else {
                throw refuse("a part's headers are not UTF-8")
            }
            let contentStart = headersEnd + 4
            guard let contentEnd = find(crlf + delimiter, in: body, from: contentStart) else { throw refuse("a part does not end") }
            var disposition: [(name: String, value: String)] = []
            var contentType: String?
            for line in headerText.split(separator: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { throw refuse("a header line has no colon") }
                let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                switch name {
                case "content-disposition": disposition = parameters(value)
                case "content-type": contentType = parameters(value).first?.name.lowercased()
                default: break
                }
            }
            guard disposition.first?.name.lowercased() == "form-data",
                let name = disposition.first(where: { $0.name.lowercased() == "name" })?.value, !name.isEmpty
            else { throw refuse("a part has no form-data name") }
            guard form.fields[name] == nil, form.files[name] == nil else { throw refuse("the field '\(name.prefix(64))' is repeated") }
            let content = body[contentStart..<contentEnd]
            if let filename = disposition.first(where: { $0.name.lowercased() == "filename" })?.value {
                // A file field left empty is sent with an empty filename and no bytes: absent.
                if !filename.isEmpty || !content.isEmpty {
                    form.files[name] = File(filename: filename, contentType: contentType, bytes: Data(content))
                }
            } else {
                guard !content.contains(0), let text = String(validating: content, as: UTF8.self) else {
                    throw refuse("the field '\(name.prefix(64))' is not UTF-8 text")
                }
                form.fields[name] = text
            }
            cursor = contentEnd + 2 + delimiter.count
        }
        return form
    }

    /// `value; name=token; name="quoted \"text\""`: the leading value (as a parameter
    /// without a value), then each parameter; quotes are removed, a backslash escapes.
    static func parameters(_ header: String) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var index = header.startIndex
        func skipSpaces() { while index < header.endIndex, header[index] == " " || header[index] == "\t" { index = header.index(after: index) } }
        while index < header.endIndex {
            skipSpaces()
            var name = ""
            while index < header.endIndex, header[index] != "=", header[index] != ";" {
                name.append(header[index])
                index = header.index(after: index)
            }
            var value = ""
            if index < header.endIndex, header[index] == "=" {
                index = header.index(after: index)
                skipSpaces()
                if index < header.endIndex, header[index] == "\"" {
                    index = header.index(after: index)
                    while index < header.endIndex, header[index] != "\"" {
                        if header[index] == "\\", header.index(after: index) < header.endIndex { index = header.index(after: index) }
                        value.append(header[index])
                        index = header.index(after: index)
                    }
                    if index < header.endIndex { index = header.index(after: index) }
                    while index < header.endIndex, header[index] != ";" { index = header.index(after: index) }
                } else {
                    while index < header.endIndex, header[index] != ";" {
                        value.append(header[index])
                        index = header.index(after: index)
                    }
                    value = value.trimmingCharacters(in: .whitespaces)
                }
            }
            result.append((name.trimmingCharacters(in: .whitespaces), value))
            if index < header.endIndex { index = header.index(after: index) }
        }
        return result
    }

    /// Where `needle` first starts in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
