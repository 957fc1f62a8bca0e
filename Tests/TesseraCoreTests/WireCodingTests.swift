import Foundation
import Testing
import TesseraCore

@Suite("A NUL in device JSON, raw or escaped")
struct WireCodingTests {
    @Test("a raw NUL or a \\u0000 escape anywhere is found; other escapes, short texts and a backslash at the end are not")
    func containsNUL() {
        let found = [
            "{\"a\":\"\\u0000\"}", "\\u0000", "{\"a\":\"x\\U0000\"}", "{\"\\u0000\":1}", "{\"a\":\"\\\\u0000\"}", "[\"\\u000\\u0000\"]",
        ]
        for text in found { #expect(WireCoding.containsNUL(json: Data(text.utf8)), "\(text)") }
        #expect(WireCoding.containsNUL(json: Data([0x7B, 0x00, 0x7D])))
        #expect(WireCoding.containsNUL(json: Data([0x00])))
        let clean = ["", "{}", "\\", "\\u000", "{\"a\":\"\\u000A\"}", "{\"a\":\"\\u0001\\n\\\\\"}", "{\"a\":\"u0000\"}", "x\\u00", "\\u0\\"]
        for text in clean { #expect(!WireCoding.containsNUL(json: Data(text.utf8)), "\(text)") }
        // A slice of a larger buffer: only its own bytes count.
        let whole = Data("\\u0000{\"a\":1}".utf8)
        #expect(!WireCoding.containsNUL(json: whole[whole.index(whole.startIndex, offsetBy: 6)...]))
        #expect(WireCoding.containsNUL(json: whole[whole.startIndex..<whole.index(whole.startIndex, offsetBy: 6)]))
    }
}
