import Foundation
import Testing
import TesseraCore
import TesseraDomain

@testable import TesseraServer

@Suite("Form and query components")
struct FormDecodingTests {
    /// Foundation's decoding, which the byte-level decoder replaced, is the reference;
    /// except that bytes which are not UTF-8 are refused, where Foundation on Linux puts
    /// U+FFFD in their place (none of the inputs has one of its own).
    static func foundation(_ text: String) -> String? {
        guard let decoded = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding, !decoded.contains("\0"),
            !decoded.contains("\u{FFFD}")
        else {
            return nil
        }
        return decoded
    }

    @Test("decodes as Foundation's removingPercentEncoding does, on chosen and random components")
    func matchesFoundation() {
        let chosen = [
            "", "a", "a+b", "a%20b", "%E2%82%AC", "%e2%82%ac", "%", "%4", "%zz", "%G0", "100%", "%00", "a%00b", "%FF", "%C3",
            "%C3%A9t%C3%A9", "%C3%28", "%ED%A0%80", "é", "%2B", "++", "redirect_uri=https%3A%2F%2Fx", "%%41", "%4%41",
        ]
        for text in chosen {
            #expect(RequestDecoding.decodeComponent(Substring(text)) == Self.foundation(text), "\(text)")
        }
        let alphabet = Array("ab+%0123456789AaFfGz\u{E9}\u{20AC}")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let text = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(RequestDecoding.decodeComponent(Substring(text)) == Self.foundation(text), "\(text)")
        }
    }

    @Test("a form keeps each name once and refuses repeats, bad escapes and NUL")
    func form() throws {
        #expect(try RequestDecoding.parseForm("a=1&b=x+y&c=%2F") == ["a": "1", "b": "x y", "c": "/"])
        #expect(throws: (any Error).self) { try RequestDecoding.parseForm("a=1&a=2") }
        #expect(throws: (any Error).self) { try RequestDecoding.parseForm("a=%zz") }
        #expect(throws: (any Error).self) { try RequestDecoding.parseForm("a=%00") }
        // Split on the bytes: empty pairs are skipped, the first `=` divides, a bare name has "".
        #expect(try RequestDecoding.parseForm("&&a=1&&b&c=x=y&é=ü%20&") == ["a": "1", "b": "", "c": "x=y", "é": "ü "])
        #expect(try RequestDecoding.parseForm("") == [:])
        #expect(throws: (any Error).self) { try RequestDecoding.parseForm("=1") }
        #expect(throws: (any Error).self) { try RequestDecoding.parseForm("a=1&=") }
        #expect(throws: (any Error).self) { try RequestDecoding.parseForm("a=x\u{0}") }
    }
}

@Suite("Form encoding and HTML escaping")
struct FormEncodingTests {
    @Test("components are encoded as Foundation encodes them with RFC 3986's unreserved set, and decode back")
    func matchesFoundation() {
        var allowed = CharacterSet()
        allowed.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let alphabet = Array("aZ09-._~ +%&=/?#é€😀\u{0}\n\"'<>")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = String((0..<Int.random(in: 0...10, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let encoded = FormEncoding.component(text)
            #expect(encoded == text.addingPercentEncoding(withAllowedCharacters: allowed), "\(text)")
            if !text.contains("\0") { #expect(RequestDecoding.decodeComponent(Substring(encoded)) == text) }
        }
        #expect(FormEncoding.component("é") == "%C3%A9")
    }

    @Test("the page templates escape every value (the byte escaper registered with Mustache), and a sentence with emphasis escapes each piece")
    func templatesEscape() {
        let html = Pages.error(
            titleKey: "error.not_found_title", messageKey: "error.not_found", detail: #"<script>alert("x")</script> & 'é'"#, look: Look.plain)
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;é&#39;"), "\(html)")
        #expect(!html.contains("<script>alert"))
        let marked = Look.plain.words.marked(
            "federation.confirm_text", ["identity": ("<i>a</i>", "link-identity"), "username": ("{identity}", "link-username")],
            ["provider": "P&Q", "tenant": "t"])
        #expect(marked.contains(#"<strong id="link-identity">&lt;i&gt;a&lt;/i&gt;</strong>"#) && marked.contains("P&amp;Q"), "\(marked)")
        #expect(marked.contains(#"<strong id="link-username">{identity}</strong>"#), "a value is never filled again: \(marked)")
    }

    @Test("HTML escaping replaces the five and keeps every other character")
    func escape() {
        #expect(Pages.escape(#"<a href="x">Tom & Jerry's</a> é😀"#) == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt; é😀")
        #expect(Pages.escape("plain é") == "plain é")
        #expect(Pages.escape("") == "")
    }

    @Test("a multipart form gives its fields and files, as Chromium sends them, and refuses what is malformed")
    func multipart() throws {
        let boundary = "----WebKitFormBoundaryx7Qq3Zb1kE0aH9Lf"
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x0D, 0x0A, 0x2D, 0x2D, 0x00, 0xFF]
        func body(_ parts: [(headers: String, content: [UInt8])], closing: String = "--\r\n") -> [UInt8] {
            var bytes: [UInt8] = []
            for part in parts { bytes += Array("--\(boundary)\r\n\(part.headers)\r\n\r\n".utf8) + part.content + Array("\r\n".utf8) }
            return bytes + Array("--\(boundary)\(closing)".utf8)
        }
        let sent = body([
            (#"Content-Disposition: form-data; name="csrf""#, Array("token é".utf8)),
            ("Content-Disposition: form-data; name=\"logo\"; filename=\"a \\\"b\\\".png\"\r\nContent-Type: image/png", png),
            (#"Content-Disposition: form-data; name="empty"; filename="""#, []),
        ])
        #expect(MultipartForm.boundary(ofContentType: "multipart/form-data; boundary=\(boundary)") == boundary)
        #expect(MultipartForm.boundary(ofContentType: #"Multipart/Form-Data; boundary="a b""#) == "a b")
        #expect(MultipartForm.boundary(ofContentType: "application/x-www-form-urlencoded") == nil)
        let form = try MultipartForm.parse(sent, boundary: boundary)
        #expect(form.fields == ["csrf": "token é"])
        #expect(form.files["logo"]?.bytes == Data(png) && form.files["logo"]?.contentType == "image/png")
        #expect(form.files["logo"]?.filename == #"a "b".png"#)
        #expect(form.files["empty"] == nil, "an empty file field is absent")
        // A preamble before the first boundary is ignored.
        #expect(try MultipartForm.parse(Array("preamble\r\n".utf8) + sent, boundary: boundary).fields == ["csrf": "token é"])
        let malformed: [[UInt8]] = [
            [],
            Array(sent.dropLast(4)),  // no closing delimiter
            body([(#"Content-Disposition: form-data; name="a""#, [65]), (#"Content-Disposition: form-data; name="a""#, [66])]),
            body([("Content-Disposition: form-data", [65])]),  // no name
            body([(#"Content-Type: text/plain"#, [65])]),  // no disposition
            body([(#"Content-Disposition: form-data; name="a""#, [0x41, 0x00])]),  // NUL in a text field
            body([(#"Content-Disposition: form-data; name="a""#, [0xC3])]),  // not UTF-8
            body([("no colon here", [65])]),
            body((0...MultipartForm.maximumParts).map { (#"Content-Disposition: form-data; name="f\#($0)""#, [65]) }),  // too many parts
        ]
        for bytes in malformed {
            #expect(throws: DomainError.self, "\(String(decoding: bytes.prefix(120), as: UTF8.self))") {
                try MultipartForm.parse(bytes, boundary: boundary)
            }
        }
        // Mutated bodies (bytes changed, cut out or repeated): each is read or refused, never a crash.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var bytes = sent
            for _ in 0...Int.random(in: 0...3, using: &generator) {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0...2, using: &generator) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...40, using: &generator)))
                default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 30)], at: at)
                }
                if bytes.isEmpty { bytes = [45] }
            }
            do {
                _ = try MultipartForm.parse(bytes, boundary: boundary)
            } catch {
                #expect(error is DomainError)
            }
        }
    }
}
