import Foundation
import Testing
import TesseraCrypto

@Suite("CBOR (RFC 8949)")
struct CBORTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// RFC 8949 Appendix A: items whose encoding is also CTAP2's canonical one.
    static let canonical: [(CBOR, String)] = [
        (.unsigned(0), "00"), (.unsigned(23), "17"), (.unsigned(24), "1818"), (.unsigned(100), "1864"), (.unsigned(1000), "1903e8"),
        (.unsigned(1_000_000), "1a000f4240"), (.unsigned(1_000_000_000_000), "1b000000e8d4a51000"),
        (.unsigned(18_446_744_073_709_551_615), "1bffffffffffffffff"), (.integer(-1), "20"), (.integer(-10), "29"),
        (.integer(-100), "3863"), (.integer(-1000), "3903e7"), (.negative(18_446_744_073_709_551_615), "3bffffffffffffffff"),
        (.bytes([]), "40"), (.bytes([1, 2, 3, 4]), "4401020304"), (.text(""), "60"), (.text("a"), "6161"),
        (.text("IETF"), "6449455446"), (.text("\"\\"), "62225c"), (.text("\u{00fc}"), "62c3bc"), (.text("\u{6c34}"), "63e6b0b4"),
        (.text("\u{10151}"), "64f0908591"), (.array([]), "80"), (.array([.unsigned(1), .unsigned(2), .unsigned(3)]), "83010203"),
        (.array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])]), "8301820203820405"),
        (.map([]), "a0"), (.map([.init(.unsigned(1), .unsigned(2)), .init(.unsigned(3), .unsigned(4))]), "a201020304"),
        (.map([.init(.text("a"), .unsigned(1)), .init(.text("b"), .array([.unsigned(2), .unsigned(3)]))]), "a26161016162820203"),
        (.array([.text("a"), .map([.init(.text("b"), .text("c"))])]), "826161a161626163"),
        (.bool(false), "f4"), (.bool(true), "f5"), (.null, "f6"), (.undefined, "f7"), (.simple(16), "f0"), (.simple(255), "f8ff"),
        (.tagged(1, .unsigned(1_363_896_240)), "c11a514b67b0"), (.tagged(23, .bytes([1, 2, 3, 4])), "d74401020304"),
        (.float(1.1), "fb3ff199999999999a"), (.float(-4.1), "fbc010666666666666"),
    ]

    @Test("Appendix A's examples decode, and encode back to the same bytes", arguments: canonical)
    func appendixA(item: CBOR, encoding: String) throws {
        #expect(try CBOR.decode(Self.hex(encoding)) == item)
        #expect(item.encoded == Self.hex(encoding))
    }

    /// Appendix A's half and single precision floats: read, though this encoder writes doubles.
    static let floatVectors: [(String, Double)] = [
        ("f90000", 0.0), ("f98000", -0.0), ("f93c00", 1.0), ("f93e00", 1.5), ("f97bff", 65504.0), ("fa47c35000", 100000.0),
        ("fa7f7fffff", 3.4028234663852886e+38), ("fb7e37e43c8800759c", 1.0e+300), ("f90001", 5.960464477539063e-8),
        ("f90400", 0.00006103515625), ("f9c400", -4.0), ("f97c00", .infinity), ("f9fc00", -.infinity),
    ]

    @Test("half, single and double precision floats", arguments: floatVectors)
    func floats(encoding: String, value: Double) throws {
        #expect(try CBOR.decode(Self.hex(encoding)) == .float(value))
    }

    @Test("a NaN is read as NaN")
    func nan() throws {
        guard case .float(let value) = try CBOR.decode(Self.hex("f97e00")) else { Issue.record("not a float"); return }
        #expect(value.isNaN)
    }

    @Test("map keys are written in CTAP2's canonical order: shorter encodings first, then bytewise")
    func canonicalOrder() {
        let map = CBOR.map([
            .init(.text("aa"), .unsigned(1)), .init(.integer(-1), .unsigned(2)), .init(.unsigned(10), .unsigned(3)),
            .init(.text("b"), .unsigned(4)), .init(.unsigned(100), .unsigned(5)),
        ])
        #expect(map.encoded == Self.hex("a5" + "0a03" + "2002" + "186405" + "616204" + "62616101"))
    }

    static let refused: [(String, String)] = [
        ("", "empty input"), ("18", "argument cut short"), ("5a000000ff01", "byte string longer than the input"),
        ("9f01ff", "indefinite-length array"), ("5f4101ff", "indefinite-length byte string"), ("a2010201 03".replacingOccurrences(of: " ", with: ""), "repeated map key"),
        // Found by the fuzzer: two map keys that are maps of the same entries in another order.
        ("a4f7f70120a30120f7f72c0000a3f7f701202c00f7", "a repeated map key written in another order"),
        ("a2f93c0001fb3ff000000000000002", "a repeated float key in two precisions"),
        ("62c328", "text that is not UTF-8"), ("1c", "reserved additional information"), ("f810", "two-byte simple value below 32"),
        ("ff", "break outside an indefinite item"), ("0000", "bytes after the item"), ("9bffffffffffffffff", "array count beyond the input"),
        ("bb7fffffffffffffff", "map count beyond the input"), (String(repeating: "81", count: 40) + "00", "nesting deeper than the limit"),
        ("a1", "map without its entry"), ("c1", "tag without its item"),
    ]

    @Test("malformed or ambiguous encodings are refused", arguments: refused)
    func refusals(encoding: String, reason: String) {
        #expect(throws: CBORError.self, "\(reason)") { try CBOR.decode(Self.hex(encoding)) }
    }

    @Test("decodePrefix says where the first item ends")
    func prefix() throws {
        let bytes = Self.hex("a10102" + "f5")
        let (item, length) = try CBOR.decodePrefix(bytes[...])
        #expect(item == .map([.init(.unsigned(1), .unsigned(2))]))
        #expect(length == 3)
        #expect(try CBOR.decodePrefix(bytes[3...]).item == .bool(true))
    }

    @Test("random and mutated inputs are refused or read, never a crash; what is read encodes and reads back the same")
    func randomInputs() throws {
        var generator = SystemRandomNumberGenerator()
        let seeds = Self.canonical.map { Self.hex($0.1) } + [Self.hex("a301020326200121582000")]
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            } else {
                bytes = seeds.randomElement(using: &generator)!
                for _ in 0...Int.random(in: 0...3, using: &generator) where !bytes.isEmpty {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            guard let item = try? CBOR.decode(bytes) else { continue }
            // Compared as bytes: a NaN never equals itself, but its bits come back.
            let encoded = item.encoded
            #expect(try CBOR.decode(encoded).encoded == encoded)
        }
    }
}
