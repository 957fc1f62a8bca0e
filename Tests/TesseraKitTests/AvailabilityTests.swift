import Foundation
import Testing

/// Apps declare iOS 15 and macOS 12 and link TesseraKit. No machine here has an Apple SDK to
/// compile for those versions, so this test reads the sources that reach an app (TesseraKit,
/// TesseraKitCompat, TesseraCore, TesseraCrypto) for the APIs that came later, and fails on
/// one used outside an availability check (`if #available(…) { … }` or an `@available(…)`
/// declaration). The list is what these sources might reach for; add to it when a new
/// convenience tempts.
@Suite("The SDK's sources use nothing newer than iOS 15 and macOS 12 outside an availability check")
struct AvailabilityTests {
    /// A pattern, and the first versions that have it.
    static let newer: [(pattern: String, since: String)] = [
        (#"\bMutex\b"#, "iOS 18, macOS 15 (Synchronization)"),
        (#"\bAtomic<"#, "iOS 18, macOS 15 (Synchronization)"),
        (#"import Synchronization"#, "iOS 18, macOS 15"),
        (#"Task\.sleep\(for:"#, "iOS 16, macOS 13"),
        (#"\bDuration\b"#, "iOS 16, macOS 13"),
        (#"\bContinuousClock\b|\bSuspendingClock\b"#, "iOS 16, macOS 13"),
        (#"\bRegex\b|\bRegexBuilder\b|#/"#, "iOS 16, macOS 13"),
        (#"\.wholeMatch\(|\.firstMatch\(of:|\.matches\(of:|\.prefixMatch\("#, "iOS 16, macOS 13"),
        (#"\.replacing\(|\.trimmingPrefix\(|\.firstRange\(of:|\.ranges\(of:"#, "iOS 16, macOS 13"),
        (#"String\(validating:"#, "iOS 18, macOS 15"),
        (#"URL\(filePath:|\.appending\(path:|\.appending\(component:|\.appending\(components:"#, "iOS 16, macOS 13"),
        (#"\.path\(percentEncoded:|\.host\(percentEncoded:|\.query\(percentEncoded:"#, "iOS 16, macOS 13"),
        (#"withDiscardingTaskGroup|withThrowingDiscardingTaskGroup"#, "iOS 17, macOS 14"),
        (#"\bLocalizedStringResource\b"#, "iOS 16, macOS 13"),
        (#"@Observable\b|import Observation"#, "iOS 17, macOS 14"),
        (#"\.domainState\.biometry|context\.domainState"#, "iOS 18, macOS 15 (LAContext.domainState)"),
        (#"\bInlineArray\b|\bSpan<|\bRawSpan\b"#, "iOS 26, macOS 26"),
        (#"Locale\.Language\b|\.language\.languageCode"#, "iOS 16, macOS 13"),
    ]

    static let targets = ["TesseraKit", "TesseraKitCompat", "TesseraCore", "TesseraCrypto"]

    @Test("no API newer than iOS 15 / macOS 12 outside an availability check in TesseraKit, TesseraKitCompat, TesseraCore or TesseraCrypto")
    func sdkSources() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources").standardized
        let patterns = try Self.newer.map { (try Regex($0.pattern), $0.since) }
        var files = 0
        var found: [String] = []
        for target in Self.targets {
            let directory = sources.appendingPathComponent(target)
            let all = try #require(FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)).compactMap { $0 as? URL }
            for file in all where file.pathExtension == "swift" {
                files += 1
                let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
                for (number, line) in Self.unguarded(lines) {
                    let code = line.components(separatedBy: "//").first ?? line
                    for (pattern, since) in patterns where code.contains(pattern) {
                        found.append("\(target)/\(file.lastPathComponent):\(number): \(line.trimmingCharacters(in: .whitespaces)) (\(since))")
                    }
                }
            }
        }
        #expect(files > 40, "\(files)")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test("the check sees through an availability check and no further")
    func guardedRegions() {
        let lines = [
            "let a = Mutex(0)",
            "if #available(iOS 18, macOS 15, *) {",
            "    let b = Mutex(0)",
            "} else {",
            "    let c = Mutex(0)",
            "}",
            "@available(iOS 16, *)",
            "func later() {",
            "    try await Task.sleep(for: .seconds(1))",
            "}",
            "let d = Mutex(0)",
        ]
        #expect(Self.unguarded(lines).map(\.number) == [1, 5, 6, 11])
    }

    /// The lines (numbered from 1) outside every `#available` branch and `@available`
    /// declaration: such a region runs from its line to the brace that closes what it opened.
    static func unguarded(_ lines: [String]) -> [(number: Int, line: String)] {
        var result: [(number: Int, line: String)] = []
        var depth = 0
        var guardedUntil: Int? = nil  // the depth the guarded region closes back to
        var pending = false  // an availability check whose brace has not opened yet
        for (index, line) in lines.enumerated() {
            let code = line.components(separatedBy: "//").first ?? line
            if guardedUntil == nil, code.contains("#available(") || code.contains("@available(") {
                pending = true
            }
            let inside = guardedUntil != nil || pending
            if !inside { result.append((index + 1, line)) }
            for character in code {
                if character == "{" {
                    if pending {
                        guardedUntil = depth
                        pending = false
                    }
                    depth += 1
                } else if character == "}" {
                    depth -= 1
                    if let until = guardedUntil, depth == until { guardedUntil = nil }
                }
            }
        }
        return result
    }
}
