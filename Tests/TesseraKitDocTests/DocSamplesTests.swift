import Foundation
import Testing

/// The samples of docs/SDK.md compile because this target compiles them (Samples.swift);
/// this test keeps that file the one scripts/sdk_samples.py writes from the document.
@Suite("docs/SDK.md's samples")
struct DocSamplesTests {
    @Test("Samples.swift is written from docs/SDK.md as it stands (so every sample in it is compiled)")
    func upToDate() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let document = try String(contentsOf: root.appendingPathComponent("docs/SDK.md"), encoding: .utf8)
        let samples = try String(contentsOf: root.appendingPathComponent("Tests/TesseraKitDocTests/Samples.swift"), encoding: .utf8)
        let blocks = document.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(blocks.count >= 14)
        for (number, block) in blocks.enumerated() {
            #expect(samples.contains("func sample\(number + 1)()"), "sample \(number + 1) is not in Samples.swift")
            for line in block.split(separator: "\n") where !line.hasPrefix("import ") && !line.trimmingCharacters(in: .whitespaces).isEmpty {
                #expect(samples.contains(line.trimmingCharacters(in: .whitespaces)), "docs/SDK.md's sample \(number + 1) changed: run scripts/sdk_samples.py")
            }
        }
    }
}
