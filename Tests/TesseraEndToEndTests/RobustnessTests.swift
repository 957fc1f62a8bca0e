import Foundation
import Testing
import TesseraTesting

/// The hardening review's "keep it found": the outside harnesses in Tests/interop run
/// against a real `tessera serve` (on SQLite, or on a fresh PostgreSQL database in the
/// suite's PostgreSQL pass), each bounded in time.
/// The three run one after another (`.serialized`): each keeps a core busy, and at once
/// they would starve the rest of the suite on a two-core machine.
@Suite("Negative inputs and fuzzing against the live server (Python harnesses)", .tags(.live, .interop), .serialized, .timeLimit(.minutes(8)))
struct RobustnessTests {
    /// `--database URL` in the PostgreSQL pass: a fresh, empty database of its own.
    func databaseArguments() async throws -> [String] {
        guard let url = try await TestDatabase.fresh() else { return [] }
        return ["--database", url]
    }

    @Test("every operation gets malformed JSON and JOSE, wrong types, huge and empty values, replays and expired proofs: a clear 4xx, nothing written, nothing secret in the log")
    func negativeSuite() async throws {
        let result = try await Python.run(
            "negative_suite.py", ["--tessera", tesseraBinary, "--seconds", "300"] + (try await databaseArguments()), timeout: .seconds(400))
        let summary = result.output.split(separator: "\n").suffix(60).joined(separator: "\n")
        #expect(result.status == 0, "\(summary)\n\(result.errors.suffix(3000))")
        #expect(result.output.contains("operations covered: 94 of 94"), "\(summary)")
        #expect(result.output.contains("failures: 0"), "\(summary)")
    }

    @Test("Hypothesis fuzzes the JWS parser, the form decoders of the OAuth endpoints and the JSON decoders of every device and admin operation: no 5xx, no crash")
    func fuzzing() async throws {
        let result = try await Python.run(
            "fuzz_server.py", ["--tessera", tesseraBinary, "--seconds", "45", "--seed", "20261123", "--minimum-examples", "40"] + (try await databaseArguments()),
            timeout: .seconds(400))
        let summary = result.output.split(separator: "\n").suffix(40).joined(separator: "\n")
        #expect(result.status == 0, "\(summary)\n\(result.errors.suffix(3000))")
        #expect(result.output.contains("failures: 0"), "\(summary)")
        // Each target ran for real: its line reads "NAME  EXAMPLES  SECONDS  statuses".
        let targets = result.output.split(separator: "\n").filter { $0.hasPrefix("JWS:") || $0.hasPrefix("form:") || $0.hasPrefix("JSON:") }
        #expect(targets.count == 13, "\(summary)")
        for line in targets {
            let numbers = line.split(separator: " ").compactMap { Int($0) }
            #expect((numbers.first ?? 0) >= 10, "too few examples: \(line)")
        }
    }

    @Test(
        "libFuzzer (the toolchain's -sanitize=fuzzer,address) on the QR encoder for 30 s: no crash, no memory error, every symbol well formed",
        .enabled(if: TestDatabase.postgresURL == nil, "no database involved: runs once, in the suite's SQLite pass"))
    func qrEncoder() async throws {
        let root = Python.interopDirectory().deletingLastPathComponent().deletingLastPathComponent()
        // At the lowest priority, like the Python harnesses: the fuzzer takes idle CPU only.
        let result = try await Program.run(
            "/usr/bin/nice", ["-n", "19", root.appendingPathComponent("scripts/fuzz.sh").path, "30", "qr"], timeout: .seconds(300))
        #expect(result.status == 0, "\(result.output.suffix(3000))\n\(result.errors.suffix(3000))")
        #expect(result.output.contains("stat::number_of_executed_units"), "\(result.output.suffix(2000))")
    }

    @Test(
        "libFuzzer on the CBOR decoder (WebAuthn's attestation objects and COSE keys) for 30 s: no crash, no memory error, canonical re-encoding stable",
        .enabled(if: TestDatabase.postgresURL == nil, "no database involved: runs once, in the suite's SQLite pass"))
    func cborDecoder() async throws {
        let root = Python.interopDirectory().deletingLastPathComponent().deletingLastPathComponent()
        let result = try await Program.run(
            "/usr/bin/nice", ["-n", "19", root.appendingPathComponent("scripts/fuzz.sh").path, "30", "cbor"], timeout: .seconds(300))
        #expect(result.status == 0, "\(result.output.suffix(3000))\n\(result.errors.suffix(3000))")
        #expect(result.output.contains("stat::number_of_executed_units"), "\(result.output.suffix(2000))")
    }
}
