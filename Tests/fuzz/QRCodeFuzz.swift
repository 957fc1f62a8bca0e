// A libFuzzer target for the QR encoder (Sources/TesseraQRCode/QRCode.swift), built by
// scripts/fuzz.sh with `swiftc -sanitize=fuzzer,address` together with that file alone
// (it has no dependencies). Every input is encoded; the encoder must either refuse it as
// too long or produce a well-formed symbol, and never crash or read out of bounds.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQRCode(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let code: QRCode
    do {
        code = try QRCode(bytes: bytes)
    } catch {
        // Byte mode, level M, versions 1 to 10 hold at most 213 bytes.
        precondition(bytes.count > 213, "refused \(bytes.count) bytes, which fit")
        return 0
    }
    precondition(bytes.count <= 213, "encoded \(bytes.count) bytes, more than version 10 holds")
    precondition((1...10).contains(code.version), "version \(code.version)")
    precondition(code.size == 17 + 4 * code.version, "size \(code.size) for version \(code.version)")
    // Read once: `modules` is drawn from the code's bit rows on each read.
    let modules = code.modules
    precondition(modules.count == code.size && modules.allSatisfy { $0.count == code.size }, "a row of another length")
    // The three finder patterns: a dark 7×7 ring around a dark 3×3 centre.
    for (top, left) in [(0, 0), (0, code.size - 7), (code.size - 7, 0)] {
        for y in 0..<7 {
            for x in 0..<7 {
                let ring = y == 0 || y == 6 || x == 0 || x == 6
                let centre = (2...4).contains(y) && (2...4).contains(x)
                precondition(modules[top + y][left + x] == (ring || centre), "finder pattern at \(top),\(left)")
            }
        }
    }
    // Timing patterns alternate between the finders.
    for index in 8..<(code.size - 8) {
        precondition(modules[6][index] == (index % 2 == 0) && modules[index][6] == (index % 2 == 0), "timing pattern")
    }
    // The renderings agree with the matrix.
    let scale = 2
    let image = code.pgm(scale: scale)
    precondition(!image.isEmpty && !code.svg(moduleSize: 1).isEmpty && !code.terminalText().isEmpty, "an empty rendering")
    return 0
}
