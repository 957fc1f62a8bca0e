import Foundation
import TesseraCore
import Testing

@testable import TesseraRecords
@testable import TesseraStore

@Suite("Decoded JSON columns kept for reuse")
struct DecodedColumnsTests {
    @Test("a remembered decode gives what a fresh decode gives; a bad text is still a corrupt row")
    func sameValues() throws {
        let texts = [#"["device","pin"]"#, #"["device","biometric"]"#, "[]"]
        for _ in 0..<3 {
            for text in texts {
                #expect(try JSONCoding.decodeRemembered([FactorType].self, text) == JSONCoding.decode([FactorType].self, text))
            }
        }
        // The same text under another type is its own entry.
        #expect(try JSONCoding.decodeRemembered([String].self, #"["device","pin"]"#) == ["device", "pin"])
        #expect(throws: StoreError.self) { try JSONCoding.decodeRemembered([FactorType].self, #"["device","#) }
        #expect(throws: StoreError.self) { try JSONCoding.decodeRemembered([FactorType].self, #"["teleport"]"#) }
    }

    @Test("two generations: texts read again stay, one-off texts pass through, long texts are not kept")
    func generations() {
        let cache = DecodedColumns(limit: 4)
        func key(_ text: String) -> DecodedColumns.Key { DecodedColumns.Key(type: ObjectIdentifier(String.self), text: text) }
        cache.remember("policy", for: key("policy"))
        for index in 0..<3 { cache.remember("once \(index)", for: key("once \(index)")) }
        #expect(cache.count == 4)
        // The fifth entry starts a new generation; the old one is still readable.
        cache.remember("once 3", for: key("once 3"))
        #expect(cache.value(for: key("policy")) as? String == "policy")  // moved back to the current generation
        for index in 4..<7 { cache.remember("once \(index)", for: key("once \(index)")) }
        // The current generation (policy, once 3, 4, 5) filled and once 6 started another:
        // policy is in the previous one, once 0-2 are gone.
        #expect(cache.value(for: key("policy")) as? String == "policy")
        #expect(cache.value(for: key("once 0")) == nil)
        #expect(cache.count <= 8)
        let long = String(repeating: "x", count: DecodedColumns.longestText + 1)
        cache.remember(long, for: key(long))
        #expect(cache.value(for: key(long)) == nil)
    }
}
