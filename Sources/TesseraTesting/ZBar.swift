import Foundation
import TesseraCore
import TesseraTestSupport

/// Decodes QR codes with `zbarimg` (Debian's zbar-tools), an implementation that owes
/// nothing to Tessera's encoder.
public enum ZBar {
    /// Runs `zbarimg` on an image (PGM, or PNG with `kind: "png"`) and returns the decoded text.
    public static func decode(_ pgm: [UInt8], kind: String = "pgm") async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).\(kind)")
        try await BlockingWork.run { try Data(pgm).write(to: file) }
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Program.run("/usr/bin/env", ["zbarimg", "--quiet", "--raw", "-Sbinary", file.path], timeout: .seconds(60))
        guard result.status == 0 else {
            throw TestSupportError("zbarimg exited \(result.status) (is zbar-tools installed?)")
        }
        var text = result.output
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Rasterises the QR code a page shows as inline SVG (as the server draws it: one
    /// `M x y h1v1h-1z` square per dark module) into a PGM image.
    public static func pgm(fromSVGIn page: String, scale: Int = 4) throws -> [UInt8] {
        guard let viewBox = page.range(of: #"viewBox="0 0 (\d+) \d+""#, options: .regularExpression) else {
            throw TestSupportError("no SVG on the page")
        }
        let size = Int(page[viewBox].split(separator: " ")[2]) ?? 0
        guard let pathStart = page.range(of: ##"<path fill="#000" d=""##) else { throw TestSupportError("no QR path") }
        let rest = page[pathStart.upperBound...]
        let path = rest[..<(rest.firstIndex(of: "\"") ?? rest.endIndex)]
        var dark = Array(repeating: Array(repeating: false, count: size), count: size)
        // Each piece is one run of dark modules: "M<x> <y>h<width>v1h-<width>".
        for run in path.split(separator: "z") {
            let parts = run.dropFirst().split(separator: "h")
            let origin = parts.first?.split(separator: " ").compactMap { Int($0) } ?? []
            let width = parts.count == 3 ? Int(parts[1].split(separator: "v").first ?? "") : nil
            guard origin.count == 2, let width, width > 0, origin[0] + width <= size, origin[1] < size else {
                throw TestSupportError("unexpected path")
            }
            for x in origin[0]..<(origin[0] + width) { dark[origin[1]][x] = true }
        }
        let dimension = size * scale
        var bytes = Array("P5\n\(dimension) \(dimension)\n255\n".utf8)
        for row in 0..<dimension {
            for column in 0..<dimension { bytes.append(dark[row / scale][column / scale] ? 0 : 255) }
        }
        return bytes
    }
}
