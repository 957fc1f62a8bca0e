import Foundation
import Testing
@testable import TesseraQRCode
import TesseraTesting

@Suite("QR codes decode with zbarimg")
struct QRCodeTests {
    static let samples = [
        "A",
        "http://127.0.0.1:8080/t/demo/authenticate?request=Zm9vYmFyYmF6cXV4cXV1eA",
        "https://login.example.com/t/acme-corporation/activate?code=Q2hhbGxlbmdlLXZhbHVlLXRoYXQtaXMtbG9uZ2VyLXRoYW4tZXhwZWN0ZWQ",
        String(repeating: "tessera-", count: 26),
    ]

    @Test("every version up to 10 round-trips through zbarimg", arguments: samples)
    func roundTrip(text: String) async throws {
        let code = try QRCode(text)
        let decoded = try await ZBar.decode(code.pgm(scale: 4))
        #expect(decoded == text)
    }

    @Test("the PNG form (as e-mails show it) round-trips through zbarimg, whose reader checks its CRCs and zlib stream", arguments: samples)
    func png(text: String) async throws {
        let image = try QRCode(text).png(scale: 3)
        #expect(Array(image.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(try await ZBar.decode(image, kind: "png") == text)
    }

    @Test("versions grow with the payload and stop at 10")
    func versions() throws {
        #expect(try QRCode("A").version == 1)
        #expect(try QRCode(String(repeating: "x", count: 100)).version > 4)
        #expect(throws: QRCode.EncodingError.self) { try QRCode(String(repeating: "x", count: 300)) }
    }
}

@Suite("QR mask penalty")
struct QRPenaltyTests {
    /// ISO/IEC 18004 §7.8.3 read module by module, as written in the standard: the
    /// reference the bit-parallel score is checked against.
    static func reference(_ grid: [[Bool]]) -> Int {
        let size = grid.count
        var score = 0
        let lines: [[Bool]] = grid + (0..<size).map { x in grid.map { $0[x] } }
        for line in lines {
            var run = 1
            for i in 1..<size {
                if line[i] == line[i - 1] {
                    run += 1
                } else {
                    if run >= 5 { score += 3 + run - 5 }
                    run = 1
                }
            }
            if run >= 5 { score += 3 + run - 5 }
            let padded = [Bool](repeating: false, count: 4) + line + [Bool](repeating: false, count: 4)
            let finder: [Bool] = [true, false, true, true, true, false, true]
            let quiet = [Bool](repeating: false, count: 4)
            for start in 0...(padded.count - 11) {
                let window = Array(padded[start..<start + 11])
                if window == finder + quiet { score += 40 }
                if window == quiet + finder { score += 40 }
            }
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = grid[y][x]
                if grid[y][x + 1] == colour && grid[y + 1][x] == colour && grid[y + 1][x + 1] == colour { score += 3 }
            }
        }
        let dark = grid.joined().filter { $0 }.count
        let percent = dark * 100 / (size * size)
        score += abs(percent - 50) / 5 * 10
        return score
    }

    static func bits(_ grid: [[Bool]]) -> (rows: [UInt64], columns: [UInt64]) {
        let size = grid.count
        var rows = [UInt64](repeating: 0, count: size)
        var columns = [UInt64](repeating: 0, count: size)
        for y in 0..<size {
            for x in 0..<size where grid[y][x] {
                rows[y] |= 1 << UInt64(x)
                columns[x] |= 1 << UInt64(y)
            }
        }
        return (rows, columns)
    }

    @Test("the bit-parallel score equals the standard's rules read module by module, on every size from 21 to 57")
    func matchesReference() {
        var generator = SystemRandomNumberGenerator()
        for version in 1...10 {
            let size = version * 4 + 17
            for density in [0.0, 0.1, 0.5, 0.9, 1.0] {
                for _ in 0..<20 {
                    var grid = (0..<size).map { _ in (0..<size).map { _ in Double.random(in: 0..<1, using: &generator) < density } }
                    // Finder-like runs at the edges, where the quiet zone counts as light.
                    if Bool.random(using: &generator) {
                        for (i, dark) in [true, false, true, true, true, false, true].enumerated() {
                            grid[0][i] = dark
                            grid[size - 1][size - 7 + i] = dark
                            grid[i][size - 1] = dark
                        }
                    }
                    let (rows, columns) = Self.bits(grid)
                    #expect(QRPenalty.score(rows: rows, columns: columns, size: size) == Self.reference(grid), "version \(version)")
                }
            }
        }
    }

    @Test("codes from every version decode the same, whichever mask each one takes")
    func everyVersion() async throws {
        for version in 1...10 {
            // Lengths that land in each version (byte mode, level M).
            let capacity = [14, 26, 42, 62, 84, 106, 122, 152, 180, 213][version - 1]
            let text = String((0..<capacity).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789/:?=&".randomElement()! })
            let code = try QRCode(text)
            #expect(code.version == version)
            #expect(try await ZBar.decode(code.pgm(scale: 4)) == text)
        }
    }
}

@Suite("Reed-Solomon error correction")
struct ReedSolomonTests {
    /// GF(2⁸) multiplication bit by bit, and division with a shifting array: the
    /// textbook forms the table-driven code is checked against.
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var result: UInt8 = 0
        var a = a
        var b = b
        while b != 0 {
            if b & 1 != 0 { result ^= a }
            let carry = a & 0x80 != 0
            a <<= 1
            if carry { a ^= 0x1D }
            b >>= 1
        }
        return result
    }

    static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for i in 0..<result.count { result[i] ^= multiply(generator[i], factor) }
        }
        return result
    }

    @Test("table multiplication and the ring remainder equal the textbook forms for every error-correction length")
    func matchesTextbook() {
        for a in 0...255 {
            for b in stride(from: 0, through: 255, by: 7) {
                #expect(ReedSolomon.multiply(UInt8(a), UInt8(b)) == Self.multiply(UInt8(a), UInt8(b)))
            }
        }
        // Version 1's generator of degree 10 (ISO/IEC 18004 Annex A), as exponents of α:
        // 251, 67, 46, 61, 118, 70, 64, 94, 32, 45.
        let expected: [UInt8] = [216, 194, 159, 111, 199, 94, 95, 113, 157, 193]
        #expect(ReedSolomon.generator(degree: 10) == expected)
        var generator = SystemRandomNumberGenerator()
        for degree in [10, 16, 18, 22, 24, 26] {
            let polynomial = ReedSolomon.generator(degree: degree)
            for _ in 0..<50 {
                let data = (0..<Int.random(in: 1...60, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                #expect(ReedSolomon.remainder(data, generator: polynomial) == Self.remainder(data, generator: polynomial))
            }
        }
    }
}
