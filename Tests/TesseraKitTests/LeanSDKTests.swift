import Foundation
import TesseraTesting
import Testing

@testable import TesseraKit

/// What an app carries when it links TesseraKit: on Apple platforms no BoringSSL or
/// SwiftASN1 (PBKDF2 from CommonCrypto there), nowhere the QR encoder or relying-party code,
/// and a privacy manifest.
@Suite("A lean SDK: what TesseraKit links, and its privacy manifest")
struct LeanSDKTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("on iOS TesseraKit links TesseraCore, TesseraCrypto and Crypto only; no QR encoder or relying-party code anywhere (scripts/sdk_dependencies.py)")
    func linkedModules() async throws {
        // Asynchronously: the script compiles manifests, and a blocked cooperative thread would
        // slow every suite beside it.
        let result = try await Program.run(
            "/usr/bin/env", ["python3", Self.root.appendingPathComponent("scripts/sdk_dependencies.py").path, "--check"])
        let text = result.output + result.errors
        #expect(result.status == 0, "\(text)")
        #expect(text.contains("failures: 0"), "\(text)")
        let ios = text.components(separatedBy: "TesseraKit on linux").first ?? ""
        #expect(ios.contains("TesseraKit on ios: 4 modules"), "\(ios)")
        for module in ["CryptoExtras", "SwiftASN1", "CCryptoBoringSSL", "TesseraQRCode", "TesseraWebAuthn"] {
            #expect(!ios.contains(module), "\(module) on iOS")
        }
    }

    @Test("the privacy manifest is a resource of TesseraKit: no tracking, no required-reason API, the user and installation ids for the app's function")
    func privacyManifest() throws {
        let url = try #require(Bundle.module.url(forResource: "PrivacyInfo", withExtension: "xcprivacy"))
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        #expect(plist["NSPrivacyTracking"] as? Bool == false)
        #expect((plist["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true)
        #expect((plist["NSPrivacyAccessedAPITypes"] as? [Any])?.isEmpty == true)
        let collected = try #require(plist["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
        #expect(Set(collected.compactMap { $0["NSPrivacyCollectedDataType"] as? String })
            == ["NSPrivacyCollectedDataTypeUserID", "NSPrivacyCollectedDataTypeDeviceID"])
        for entry in collected {
            #expect(entry["NSPrivacyCollectedDataTypeTracking"] as? Bool == false)
            #expect(entry["NSPrivacyCollectedDataTypePurposes"] as? [String] == ["NSPrivacyCollectedDataTypePurposeAppFunctionality"])
        }
    }

    /// The reason `NSPrivacyAccessedAPITypes` is empty: the SDK's sources call none of the
    /// APIs Apple asks a reason for (file timestamps, system boot time, disk space, active
    /// keyboards, user defaults).
    @Test("the SDK's sources call no API that needs a declared reason")
    func noRequiredReasonAPI() throws {
        let needles = [
            "systemUptime", "mach_absolute_time", "UserDefaults", "creationDate", "modificationDate", "attributesOfItem",
            "volumeAvailableCapacity", "statfs", "activeInputModes", "getattrlist",
        ]
        var found: [String] = []
        for target in ["TesseraKit", "TesseraKitCompat", "TesseraCore", "TesseraCrypto"] {
            let directory = Self.root.appendingPathComponent("Sources/\(target)")
            let files = try #require(FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)).compactMap { $0 as? URL }
            for file in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                found += needles.filter { text.contains($0) }.map { "\(target)/\(file.lastPathComponent): \($0)" }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }
}
