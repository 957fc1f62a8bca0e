// CBOR (RFC 8949) as WebAuthn and COSE use it: attestation objects, authenticator data's
// credential keys and extensions, COSE keys. No package in the mirror reads CBOR, so this
// file is the project's own; it imports nothing, so scripts/fuzz.sh builds it alone with
// libFuzzer (Tests/fuzz/CBORFuzz.swift).
//
// The decoder reads what an authenticator may send and refuses what would let two
// readers disagree or let an attacker spend memory: indefinite lengths (CTAP2's canonical
// form has none), duplicate map keys, text that is not UTF-8, reserved encodings,
// nesting deeper than `CBOR.maximumDepth`, and lengths beyond the bytes at hand (checked
// before anything is allocated). The encoder writes CTAP2's canonical form: shortest
// lengths, map keys sorted by their encoding's length and then its bytes.

/// One CBOR data item.
public indirect enum CBOR: Sendable, Hashable {
    case unsigned(UInt64)
    /// The negative integer `-1 - n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// A map in the order it was read (or is to be written, before canonical sorting).
    case map([Entry])
    case tagged(UInt64, CBOR)
    case bool(Bool)
    case null
    case undefined
    case simple(UInt8)
    case float(Double)

    public struct Entry: Sendable, Hashable {
        public let key: CBOR
        public let value: CBOR
        public init(_ key: CBOR, _ value: CBOR) {
            self.key = key
            self.value = value
        }
    }

    /// How deep arrays, maps and tags may nest: COSE keys and attestation objects need 4.
    public static let maximumDepth = 16

    /// An integer, positive or negative.
    public static func integer(_ value: Int64) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The value of an integer item that fits in `Int64`.
    public var integerValue: Int64? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value): value <= UInt64(Int64.max) ? -1 - Int64(value) : nil
        default: nil
        }
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = self { bytes } else { nil }
    }

    public var textValue: String? {
        if case .text(let text) = self { text } else { nil }
    }

    public var arrayValue: [CBOR]? {
        if case .array(let items) = self { items } else { nil }
    }

    public var mapValue: [Entry]? {
        if case .map(let entries) = self { entries } else { nil }
    }

    /// The value under `key` in a map; nil for a missing key or an item that is no map.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    public subscript(key: String) -> CBOR? { self[.text(key)] }
    public subscript(key: Int64) -> CBOR? { self[.integer(key)] }
}

/// Why bytes are not the CBOR expected.
public struct CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

// MARK: Decoding

extension CBOR {
    /// Decodes exactly one item that fills `bytes`.
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        let (item, length) = try decodePrefix(bytes[...])
        guard length == bytes.count else { throw CBORError("\(bytes.count - length) bytes after the CBOR item") }
        return item
    }

    /// Decodes the item at the start of `bytes` and says how many bytes it took: authenticator
    /// data puts its credential key and its extensions one after the other.
    public static func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (item: CBOR, length: Int) {
        var reader = Reader(bytes: bytes)
        let item = try reader.item(depth: 0)
        return (item, reader.offset - bytes.startIndex)
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var offset: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            self.offset = bytes.startIndex
        }

        var remaining: Int { bytes.endIndex - offset }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard offset < bytes.endIndex else { throw CBORError("the CBOR item ends early") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func take(_ count: UInt64) throws(CBORError) -> ArraySlice<UInt8> {
            // Checked against what is there before anything is allocated.
            guard count <= UInt64(remaining) else { throw CBORError("a length of \(count) runs past the end of the CBOR item") }
            let start = offset
            offset += Int(count)
            return bytes[start..<offset]
        }

        /// The argument of an initial byte: the value, length or count it carries.
        mutating func argument(_ additional: UInt8) throws(CBORError) -> UInt64 {
            switch additional {
            case 0..<24: return UInt64(additional)
            case 24...27:
                var value: UInt64 = 0
                for byte in try take(1 << UInt64(additional - 24)) { value = value << 8 | UInt64(byte) }
                return value
            case 31: throw CBORError("indefinite lengths are not allowed")
            default: throw CBORError("reserved additional information \(additional)")
            }
        }

        mutating func item(depth: Int) throws(CBORError) -> CBOR {
            guard depth <= CBOR.maximumDepth else { throw CBORError("CBOR nested deeper than \(CBOR.maximumDepth) levels") }
            let initial = try byte()
            let major = initial >> 5
            let additional = initial & 0x1F
            if major == 7 { return try simpleOrFloat(additional) }
            let argument = try argument(additional)
            switch major {
            case 0: return .unsigned(argument)
            case 1: return .negative(argument)
            case 2: return .bytes(Array(try take(argument)))
            case 3:
                // Decoded, then compared with its bytes: invalid UTF-8 would have been replaced.
                let encoded = try take(argument)
                let text = String(decoding: encoded, as: UTF8.self)
                guard text.utf8.elementsEqual(encoded) else { throw CBORError("a CBOR text string is not UTF-8") }
                return .text(text)
            case 4:
                // Each item takes at least one byte: a count beyond the bytes left is refused
                // before the array is reserved.
                guard argument <= UInt64(remaining) else { throw CBORError("an array of \(argument) items runs past the end") }
                var items: [CBOR] = []
                items.reserveCapacity(Int(argument))
                for _ in 0..<argument { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                guard argument <= UInt64(remaining / 2) else { throw CBORError("a map of \(argument) entries runs past the end") }
                var entries: [Entry] = []
                entries.reserveCapacity(Int(argument))
                // Keys are compared by their canonical encoding: two maps holding the same
                // entries in another order, or 1.0 written as half and as double precision,
                // are one key, and a map may not hold it twice (RFC 8949 section 5.6).
                var keys = Set<[UInt8]>()
                for _ in 0..<argument {
                    let key = try item(depth: depth + 1)
                    guard keys.insert(key.encoded).inserted else { throw CBORError("a CBOR map repeats a key") }
                    entries.append(Entry(key, try item(depth: depth + 1)))
                }
                return .map(entries)
            default:  // 6
                return .tagged(argument, try item(depth: depth + 1))
            }
        }

        mutating func simpleOrFloat(_ additional: UInt8) throws(CBORError) -> CBOR {
            switch additional {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 23: return .undefined
            case 0..<20: return .simple(additional)
            case 24:
                let value = try byte()
                guard value >= 32 else { throw CBORError("a two-byte simple value below 32") }
                return .simple(value)
            case 25:
                let raw = try take(2)
                return .float(Double(Self.half(UInt16(raw[raw.startIndex]) << 8 | UInt16(raw[raw.startIndex + 1]))))
            case 26:
                var bits: UInt32 = 0
                for byte in try take(4) { bits = bits << 8 | UInt32(byte) }
                return .float(Double(Float(bitPattern: bits)))
            case 27:
                var bits: UInt64 = 0
                for byte in try take(8) { bits = bits << 8 | UInt64(byte) }
                return .float(Double(bitPattern: bits))
            case 31: throw CBORError("a break outside an indefinite-length item")
            default: throw CBORError("reserved additional information \(additional)")
            }
        }

        /// IEEE 754 half precision (RFC 8949 Appendix D).
        static func half(_ bits: UInt16) -> Float {
            let exponent = Int(bits >> 10 & 0x1F)
            let mantissa = Float(bits & 0x3FF)
            let magnitude: Float =
                switch exponent {
                case 0: mantissa * 0x1p-24
                case 31: mantissa == 0 ? .infinity : .nan
                default: (1 + mantissa / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
                }
            return bits & 0x8000 != 0 ? -magnitude : magnitude
        }
    }
}

// MARK: Encoding

extension CBOR {
    /// The canonical CTAP2 encoding (shortest lengths, sorted map keys).
    public var encoded: [UInt8] {
        var output: [UInt8] = []
        write(into: &output)
        return output
    }

    private static func head(_ major: UInt8, _ argument: UInt64, into output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: output.append(type | UInt8(argument))
        case 24...0xFF: output += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF: output += [type | 25, UInt8(argument >> 8), UInt8(argument & 0xFF)]
        case 0x10000...0xFFFF_FFFF:
            output.append(type | 26)
            for shift in stride(from: 24, through: 0, by: -8) { output.append(UInt8(argument >> UInt64(shift) & 0xFF)) }
        default:
            output.append(type | 27)
            for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(argument >> UInt64(shift) & 0xFF)) }
        }
    }

    private func write(into output: inout [UInt8]) {
        switch self {
        case .unsigned(let value): Self.head(0, value, into: &output)
        case .negative(let value): Self.head(1, value, into: &output)
        case .bytes(let bytes):
            Self.head(2, UInt64(bytes.count), into: &output)
            output += bytes
        case .text(let text):
            Self.head(3, UInt64(text.utf8.count), into: &output)
            output += text.utf8
        case .array(let items):
            Self.head(4, UInt64(items.count), into: &output)
            for item in items { item.write(into: &output) }
        case .map(let entries):
            Self.head(5, UInt64(entries.count), into: &output)
            let sorted = entries.map { (key: $0.key.encoded, value: $0.value) }.sorted { left, right in
                left.key.count != right.key.count ? left.key.count < right.key.count : left.key.lexicographicallyPrecedes(right.key)
            }
            for entry in sorted {
                output += entry.key
                entry.value.write(into: &output)
            }
        case .tagged(let tag, let item):
            Self.head(6, tag, into: &output)
            item.write(into: &output)
        case .bool(let value): output.append(value ? 0xF5 : 0xF4)
        case .null: output.append(0xF6)
        case .undefined: output.append(0xF7)
        case .simple(let value):
            if value < 24 { output.append(0xE0 | value) } else { output += [0xF8, value] }
        case .float(let value):
            output.append(0xFB)
            let bits = value.bitPattern
            for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(bits >> UInt64(shift) & 0xFF)) }
        }
    }
}
