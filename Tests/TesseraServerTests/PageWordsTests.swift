import Foundation
import Testing
import TesseraDomain
import TesseraTexts

@testable import TesseraServer

/// Every sentence a page or the console asks the catalogs for is in them: a key the
/// catalogs lack would show on the page as nothing (a template) or as the key itself.
@Suite("The pages' words are in the catalogs")
struct PageWordsTests {
    static let english = Catalog.shared.texts(language: "en")

    @Test("every {{t.KEY}} of the templates is a key of the English catalog")
    func templateKeys() throws {
        let pattern = try Regex(#"\{\{\{?t\.([A-Za-z0-9_.\-]+)\}\}"#)
        var used = Set<String>()
        for (name, template) in ConsoleTemplates.all.merging(PageTemplates.all, uniquingKeysWith: { first, _ in first }) {
            for match in template.matches(of: pattern) {
                let key = String(match.output[1].substring ?? "")
                used.insert(key)
                let known = Self.english.has(key)
                #expect(known, "the template \(name) asks for \(key)")
            }
        }
        #expect(used.count > 150, "\(used.count)")
    }

    @Test("every key the server's code names, and every key it builds from a list, is a key of the English catalog")
    func codeKeys() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/TesseraServer")
            .standardized
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)).compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" && ["Routes", "Web", "Middleware"].contains($0.deletingLastPathComponent().lastPathComponent) }
        #expect(files.count > 10)
        let literal = try Regex(#""((?:console|account|login|error|page|passkey|link|federation|signout|mail|device|app)\.[a-z0-9_.\-]*[a-z0-9_])""#)
        var named = 0
        var doneCodes = Set<String>()
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: literal) {
                let key = String(match.output[1].substring ?? "")
                // A file the server serves (`console.js`) is no sentence.
                if [".js", ".css", ".png", ".svg", ".json"].contains(where: { key.hasSuffix($0) }) { continue }
                named += 1
                // A prefix `Words.named` completes with a value of the API is the start of keys.
                let known = Self.english.has(key) || Catalog.shared.sentences["en"]?.keys.contains { $0.hasPrefix(key + ".") } == true
                #expect(known, "\(file.lastPathComponent) names \(key)")
            }
            if file.lastPathComponent == "ConsoleRoutes.swift" {
                for match in text.matches(of: try Regex(#"done(?:=|: ")([a-z\-]+)"#)) { doneCodes.insert(String(match.output[1].substring ?? "")) }
            }
        }
        #expect(named > 80, "\(named)")
        // Keys made from a list: each entry's sentence is there.
        #expect(doneCodes.count > 15, "\(doneCodes)")
        let built =
            ConsoleRoutes.tenantSettings.map { "console.setting.\($0)" } + ConsoleRoutes.brandingFields.map { "console.branding.\($0.name)" }
            + ServiceSwitch.all.filter { $0.console != nil }.map { "console.switch.\($0.field)" } + doneCodes.map { "console.done.\($0)" }
        for key in built {
            let known = Self.english.has(key)
            #expect(known, "\(key)")
        }
    }
}
