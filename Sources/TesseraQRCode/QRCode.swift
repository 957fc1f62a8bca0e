
/// A QR code (ISO/IEC 18004) in byte mode with error correction level M, versions 1 to 10
/// (up to 213 bytes: enough for activation and authentication links).
///
/// No QR package is in the project's dependency set, so this encoder is written here
/// and tested by decoding its output with `zbarimg`.
public struct QRCode: Sendable {
    /// Bit x of `rows[y]` is the module at (x, y); 1 is dark. A symbol is at most 57
    /// modules wide (version 10), so a row fits one word.
    let rows: [UInt64]
    public let version: Int
    public var size: Int { rows.count }

    /// `true` is a dark module; rows top to bottom.
    public var modules: [[Bool]] { rows.map { row in (0..<rows.count).map { x in isDark(row, x) } } }

    private func isDark(_ row: UInt64, _ x: Int) -> Bool { (row >> UInt64(x)) & 1 == 1 }

    /// Whether the module at (x, y) is dark; outside the symbol (its quiet zone) is light.
    private func isDark(_ x: Int, _ y: Int) -> Bool {
        (0..<size).contains(x) && (0..<size).contains(y) && isDark(rows[y], x)
    }

    public enum EncodingError: Error, Sendable {
        case tooLong(Int)
    }

    // (data codewords per block, block count) groups and EC codewords per block, level M.
    fileprivate static let blocks: [(ec: Int, groups: [(count: Int, data: Int)])] = [
        (10, [(1, 16)]), (16, [(1, 28)]), (26, [(1, 44)]), (18, [(2, 32)]), (24, [(2, 43)]),
        (16, [(4, 27)]), (18, [(4, 31)]), (22, [(2, 38), (2, 39)]), (22, [(3, 36), (2, 37)]),
        (26, [(4, 43), (1, 44)]),
    ]

    private static let alignment: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
    ]

    public init(_ text: String) throws(EncodingError) {
        try self.init(bytes: Array(text.utf8))
    }

    public init(bytes: [UInt8]) throws(EncodingError) {
        var chosen: Int?
        for version in 1...10 {
            let capacityBits = Self.dataCodewords(version) * 8
            let countBits = version < 10 ? 8 : 16
            if 4 + countBits + bytes.count * 8 <= capacityBits {
                chosen = version
                break
            }
        }
        guard let version = chosen else { throw .tooLong(bytes.count) }
        var builder = Builder(version: version)
        builder.drawFunctionPatterns()
        let codewords = Self.interleave(Self.dataBits(bytes, version: version), version: version)
        builder.drawCodewords(codewords)
        builder.applyBestMask()
        self.rows = builder.rows
        self.version = version
    }

    private static func dataCodewords(_ version: Int) -> Int {
        blocks[version - 1].groups.reduce(0) { $0 + $1.count * $1.data }
    }

    private static func dataBits(_ bytes: [UInt8], version: Int) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, version < 10 ? 8 : 16)
        for byte in bytes { append(Int(byte), 8) }
        let capacity = dataCodewords(version) * 8
        append(0, min(4, capacity - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var codewords: [UInt8] = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { ($0 << 1) | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while codewords.count < capacity / 8 {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    private static func interleave(_ data: [UInt8], version: Int) -> [UInt8] {
        let spec = blocks[version - 1]
        var dataBlocks: [[UInt8]] = []
        var offset = 0
        for group in spec.groups {
            for _ in 0..<group.count {
                dataBlocks.append(Array(data[offset..<offset + group.data]))
                offset += group.data
            }
        }
        let generator = ReedSolomon.generator(degree: spec.ec)
        let ecBlocks = dataBlocks.map { ReedSolomon.remainder($0, generator: generator) }
        var result: [UInt8] = []
        let longest = dataBlocks.map(\.count).max() ?? 0
        for index in 0..<longest {
            for block in dataBlocks where index < block.count { result.append(block[index]) }
        }
        for index in 0..<spec.ec {
            for block in ecBlocks { result.append(block[index]) }
        }
        return result
    }

    /// Draws one symbol on bit rows (bit x of `rows[y]` is the module at (x, y)): masks
    /// and the penalty's lines are whole-word operations, and the mask choice is on a
    /// login's hot path.
    private struct Builder {
        let version: Int
        let size: Int
        /// 1 is dark.
        var rows: [UInt64]
        /// 1 is a module of a function pattern or of the format or version information.
        var function: [UInt64]

        init(version: Int) {
            self.version = version
            size = version * 4 + 17
            rows = Array(repeating: 0, count: size)
            function = rows
        }

        mutating func set(_ x: Int, _ y: Int, _ dark: Bool) {
            let bit = UInt64(1) << UInt64(x)
            if dark { rows[y] |= bit } else { rows[y] &= ~bit }
            function[y] |= bit
        }
        mutating func drawFunctionPatterns() {
            for i in 0..<size {
                set(6, i, i % 2 == 0)
                set(i, 6, i % 2 == 0)
            }
            for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
                for dy in -4...4 {
                    for dx in -4...4 {
                        let x = cx + dx
                        let y = cy + dy
                        guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                        let distance = max(abs(dx), abs(dy))
                        set(x, y, distance != 2 && distance != 4)
                    }
                }
            }
            let positions = QRCode.alignment[version - 1]
            for (i, cy) in positions.enumerated() {
                for (j, cx) in positions.enumerated() {
                    let last = positions.count - 1
                    if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                    for dy in -2...2 {
                        for dx in -2...2 { set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                    }
                }
            }
            drawFormatBits(mask: 0)
            if version >= 7 {
                var remainder = version
                for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
                let bits = version << 12 | remainder
                for i in 0..<18 {
                    let dark = (bits >> i) & 1 == 1
                    let a = size - 11 + i % 3
                    let b = i / 3
                    set(a, b, dark)
                    set(b, a, dark)
                }
            }
        }

        /// Error correction level M has format bits 00.
        mutating func drawFormatBits(mask: Int) {
            for (x, y, dark) in Self.formatModules(mask: mask, size: size) { set(x, y, dark) }
        }

        /// The format information of `mask` (level M): where each module goes, and whether
        /// it is dark.
        static func formatModules(mask: Int, size: Int) -> [(x: Int, y: Int, dark: Bool)] {
            var remainder = mask
            for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
            let bits = (mask << 10 | remainder) ^ 0x5412
            func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
            var modules: [(x: Int, y: Int, dark: Bool)] = []
            for i in 0...5 { modules.append((8, i, bit(i))) }
            modules += [(8, 7, bit(6)), (8, 8, bit(7)), (7, 8, bit(8))]
            for i in 9..<15 { modules.append((14 - i, 8, bit(i))) }
            for i in 0..<8 { modules.append((size - 1 - i, 8, bit(i))) }
            for i in 8..<15 { modules.append((8, size - 15 + i, bit(i))) }
            modules.append((8, size - 8, true))
            return modules
        }

        /// The codewords' bits in the zigzag of two-module columns, right to left, skipping
        /// function modules; the modules not yet drawn are light.
        mutating func drawCodewords(_ codewords: [UInt8]) {
            var index = 0
            let totalBits = codewords.count * 8
            var right = size - 1
            while right >= 1 {
                if right == 6 { right = 5 }
                let upward = (right + 1) & 2 == 0
                for vertical in 0..<size {
                    let y = upward ? size - 1 - vertical : vertical
                    for j in 0..<2 {
                        let bit = UInt64(1) << UInt64(right - j)
                        if function[y] & bit == 0 && index < totalBits {
                            if (codewords[index >> 3] >> (7 - (index & 7))) & 1 == 1 { rows[y] |= bit }
                            index += 1
                        }
                    }
                }
                right -= 2
            }
        }

        /// Flips the modules `mask` darkens, function modules left as they are.
        mutating func applyMask(_ mask: Int) {
            let pattern = MaskPatterns.table[version - 1][mask]
            for y in 0..<size { rows[y] ^= pattern[y] & ~function[y] }
        }

        /// Tries the eight masks (the grid fits 64 bits a row: versions 1 to 10 are at most
        /// 57 modules wide) and keeps the one with the lowest penalty.
        mutating func applyBestMask() {
            let patterns = MaskPatterns.table[version - 1]
            var masked = rows
            var columns = [UInt64](repeating: 0, count: size)
            var best = 0
            var bestPenalty = Int.max
            for mask in 0..<8 {
                for y in 0..<size { masked[y] = rows[y] ^ (patterns[mask][y] & ~function[y]) }
                for (x, y, dark) in Self.formatModules(mask: mask, size: size) {
                    if dark { masked[y] |= 1 << UInt64(x) } else { masked[y] &= ~(1 << UInt64(x)) }
                }
                for x in 0..<size { columns[x] = 0 }
                for y in 0..<size {
                    var row = masked[y]
                    while row != 0 {
                        let x = row.trailingZeroBitCount
                        columns[x] |= 1 << UInt64(y)
                        row &= row - 1
                    }
                }
                let penalty = QRPenalty.score(rows: masked, columns: columns, size: size)
                if penalty < bestPenalty {
                    bestPenalty = penalty
                    best = mask
                }
            }
            applyMask(best)
            drawFormatBits(mask: best)
        }
    }
}

/// Which modules each mask darkens (ISO/IEC 18004 Table 10), as bit rows per version:
/// worked out once, so choosing a mask costs no divisions per module.
private enum MaskPatterns {
    static let table: [[[UInt64]]] = (1...10).map { version in
        let size = version * 4 + 17
        return (0..<8).map { mask in
            (0..<size).map { y in
                (0..<size).reduce(UInt64(0)) { row, x in dark(mask, x, y) ? row | 1 << UInt64(x) : row }
            }
        }
    }

    static func dark(_ mask: Int, _ x: Int, _ y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (y / 2 + x / 3) % 2 == 0
        case 5: (x * y) % 2 + (x * y) % 3 == 0
        case 6: ((x * y) % 2 + (x * y) % 3) % 2 == 0
        default: ((x + y) % 2 + (x * y) % 3) % 2 == 0
        }
    }
}

/// The four penalty rules of ISO/IEC 18004 §7.8.3 on bit lines: bit `i` of `rows[y]` is
/// the module at (i, y), bit `i` of `columns[x]` the module at (x, i); 1 is dark.
enum QRPenalty {
    static func score(rows: [UInt64], columns: [UInt64], size: Int) -> Int {
        var score = 0
        for lines in [rows, columns] {
            for line in lines { score += runs(line, size: size) + finderLike(line, size: size) }
        }
        // Rule 2: each 2×2 block of one colour, 3 points.
        let pairs = (UInt64(1) << UInt64(size - 1)) - 1
        for y in 0..<(size - 1) {
            let top = rows[y]
            let bottom = rows[y + 1]
            let same = ~(top ^ bottom) & ~(top ^ (top >> 1)) & ~(bottom ^ (bottom >> 1)) & pairs
            score += 3 * same.nonzeroBitCount
        }
        // Rule 4: 10 points for each full 5 % the dark share is away from half.
        let dark = rows.reduce(0) { $0 + $1.nonzeroBitCount }
        score += abs(dark * 100 / (size * size) - 50) / 5 * 10
        return score
    }

    /// Rule 1: a run of five or more modules of one colour scores its length minus 2.
    /// A run of length L ≥ 5 holds L − 4 windows of five, so it scores its windows plus 2
    /// for its start: both counted on the whole line at once, for each colour.
    static func runs(_ line: UInt64, size: Int) -> Int {
        let inside = size >= 64 ? UInt64.max : (UInt64(1) << UInt64(size)) - 1
        // Outside the symbol is neither colour: no run goes past its edge.
        return runs(of: line & inside) + runs(of: ~line & inside)
    }

    /// Rule 1 for the runs of set bits of `line`.
    private static func runs(of line: UInt64) -> Int {
        // Bit i: modules i...i+4 are all of the colour.
        let windows = line & line >> 1 & line >> 2 & line >> 3 & line >> 4
        // Those windows that start a run: the module before is not of the colour.
        let starts = windows & ~(line << 1)
        return windows.nonzeroBitCount + 2 * starts.nonzeroBitCount
    }

    /// Rule 3: dark-light-dark×3-light-dark with four light modules after or before it
    /// scores 40 (both sides, 80); the four-module quiet zone around the symbol is light.
    static func finderLike(_ line: UInt64, size: Int) -> Int {
        // Bits at and past `size` are set: outside the symbol is light (size ≤ 57, so the
        // four modules after the last finder start stay below bit 64).
        let light = ~line
        // Starts f (0...size-7) of 1011101 at modules f...f+6.
        var finder = (UInt64(1) << UInt64(size - 6)) - 1
        for j in 0..<7 {
            let dark = (0b1011101 >> j) & 1 == 1
            finder &= (dark ? line : light) >> UInt64(j)
        }
        guard finder != 0 else { return 0 }
        var after = finder
        for j in 7...10 { after &= light >> UInt64(j) }
        var before = finder
        // Modules before the symbol (f - j < 0) are light: the shifted-in bits are set.
        for j in 1...4 { before &= light << UInt64(j) | ((1 << UInt64(j)) - 1) }
        return 40 * (after.nonzeroBitCount + before.nonzeroBitCount)
    }
}

enum ReedSolomon {
    /// αⁱ for i in 0..<255, and the logarithm of each non-zero byte, in GF(2⁸) with the
    /// QR polynomial x⁸ + x⁴ + x³ + x² + 1.
    private static let tables: (exp: [UInt8], log: [Int]) = {
        var exp = [UInt8](repeating: 0, count: 255)
        var log = [Int](repeating: 0, count: 256)
        var value = 1
        for power in 0..<255 {
            exp[power] = UInt8(value)
            log[value] = power
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return (exp, log)
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        guard a != 0 && b != 0 else { return 0 }
        return tables.exp[(tables.log[Int(a)] + tables.log[Int(b)]) % 255]
    }

    /// Coefficients of ∏ (x − αⁱ), highest power first without the leading 1, for each
    /// error-correction length of versions 1 to 10: made once, when first used (a static
    /// `let` is initialised once, safely across threads).
    private static let generators: [Int: [UInt8]] = Dictionary(
        uniqueKeysWithValues: Set(QRCode.blocks.map(\.ec)).map { ($0, makeGenerator(degree: $0)) })

    static func generator(degree: Int) -> [UInt8] { generators[degree] ?? makeGenerator(degree: degree) }

    private static func makeGenerator(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                result[j] = multiply(result[j], root)
                if j + 1 < degree { result[j] ^= result[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    /// Every product in GF(2⁸): `products[a << 8 | b]` is a·b, made once when first used
    /// (64 KiB), so the remainder's inner loop is a lookup instead of two logarithms, a sum
    /// modulo 255 and an exponent.
    private static let products: [UInt8] = (0..<65_536).map { multiply(UInt8($0 >> 8), UInt8($0 & 0xFF)) }

    static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        let degree = generator.count
        // A ring over `result` instead of removeFirst and append per byte.
        var result = [UInt8](repeating: 0, count: degree)
        var start = 0
        products.withUnsafeBufferPointer { products in
            generator.withUnsafeBufferPointer { generator in
                result.withUnsafeMutableBufferPointer { result in
                    for byte in data {
                        let factor = byte ^ result[start]
                        result[start] = 0
                        start = start + 1 == degree ? 0 : start + 1
                        guard factor != 0 else { continue }
                        let row = Int(factor) << 8
                        // The ring from `start` to its end, then from its beginning.
                        for i in 0..<(degree - start) { result[start + i] ^= products[row | Int(generator[i])] }
                        for i in (degree - start)..<degree { result[start + i - degree] ^= products[row | Int(generator[i])] }
                    }
                }
            }
        }
        return (0..<degree).map { result[(start + $0) % degree] }
    }
}

extension QRCode {
    /// An SVG drawing with a 4-module quiet zone, for inline use in a page.
    public func svg(moduleSize: Int = 6) -> String {
        let border = 4
        let dimension = (size + border * 2) * moduleSize
        // One rectangle per horizontal run of dark modules, written as bytes: string
        // interpolation per run was most of a login page's QR cost.
        var path: [UInt8] = []
        path.reserveCapacity(size * size * 3)
        // Every number here is below 100 (a symbol is at most 57 + 2 × 4 modules wide).
        func number(_ value: Int) {
            assert((0..<100).contains(value))
            if value >= 10 { path.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10)) }
            path.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10))
        }
        for (y, row) in rows.enumerated() {
            var rest = row
            while rest != 0 {
                let x = rest.trailingZeroBitCount
                let width = (~(rest >> UInt64(x))).trailingZeroBitCount
                // M{x} {y}h{w}v1h-{w}z
                path.append(UInt8(ascii: "M"))
                number(x + border)
                path.append(UInt8(ascii: " "))
                number(y + border)
                path.append(UInt8(ascii: "h"))
                number(width)
                path.append(contentsOf: "v1h-".utf8)
                number(width)
                path.append(UInt8(ascii: "z"))
                rest &= ~(((UInt64(1) << UInt64(width)) - 1) << UInt64(x))
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(dimension)" height="\(dimension)" \
            viewBox="0 0 \(size + border * 2) \(size + border * 2)" shape-rendering="crispEdges" role="img">\
            <rect width="100%" height="100%" fill="#fff"/><path fill="#000" d="\(String(decoding: path, as: UTF8.self))"/></svg>
            """
    }

    /// A binary PGM (P5) image, the simplest raster a decoder such as `zbarimg` reads.
    public func pgm(scale: Int = 4) -> [UInt8] {
        let border = 4
        let dimension = (size + border * 2) * scale
        var bytes = Array("P5\n\(dimension) \(dimension)\n255\n".utf8)
        for row in 0..<dimension {
            let y = row / scale - border
            for column in 0..<dimension {
                let x = column / scale - border
                let dark = isDark(x, y)
                bytes.append(dark ? 0 : 255)
            }
        }
        return bytes
    }

    /// A PNG image (8-bit grayscale, a quiet zone of four modules), as an e-mail shows it
    /// inline: written here (zlib's stored blocks, CRC-32, Adler-32) since nothing on the
    /// server's platforms encodes PNG without a graphics library.
    public func png(scale: Int = 6) -> [UInt8] {
        let border = 4
        let dimension = (size + border * 2) * scale
        var raw: [UInt8] = []
        raw.reserveCapacity((dimension + 1) * dimension)
        for row in 0..<dimension {
            raw.append(0)  // filter: none
            let y = row / scale - border
            for column in 0..<dimension {
                let x = column / scale - border
                raw.append(isDark(x, y) ? 0 : 255)
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, raw.count - offset)
            let final: UInt8 = offset + length == raw.count ? 1 : 0
            zlib += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            zlib += raw[offset..<(offset + length)]
            offset += length
        } while offset < raw.count
        zlib += PNG.bigEndian(PNG.adler32(raw))
        var header = PNG.bigEndian(UInt32(dimension)) + PNG.bigEndian(UInt32(dimension))
        header += [8, 0, 0, 0, 0]  // 8 bits, grayscale, deflate, no filter method, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + PNG.chunk("IHDR", header) + PNG.chunk("IDAT", zlib) + PNG.chunk("IEND", [])
    }

    /// The code drawn with Unicode half blocks, for a terminal (dark modules as spaces on
    /// a light background would invert; this draws dark as █).
    public func terminalText() -> String {
        let border = 2
        let span = -border..<(size + border)
        func dark(_ x: Int, _ y: Int) -> Bool { isDark(x, y) }
        var lines: [String] = []
        for y in stride(from: -border, to: size + border, by: 2) {
            var line = ""
            for x in span {
                switch (dark(x, y), dark(x, y + 1)) {
                case (true, true): line += " "
                case (true, false): line += "▄"
                case (false, true): line += "▀"
                case (false, false): line += "█"
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

/// PNG's framing: chunks with their CRC-32 (ISO 3309), and zlib's Adler-32.
enum PNG {
    static let crcTable: [UInt32] = (0..<256).map { value in
        var c = UInt32(value)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }
}
