import Foundation

/// Runs the interop scripts in `Tests/interop` with the machine's python3 (their
/// packages are installed by `scripts/test.sh`).
public enum Python {
    /// The `Tests/interop` directory, found from a test file's path.
    public static func interopDirectory(from file: String = #filePath) -> URL {
        var url = URL(fileURLWithPath: file)
        while url.lastPathComponent != "Tests" && url.path != "/" { url.deleteLastPathComponent() }
        return url.appendingPathComponent("interop")
    }

    public static func run(
        _ script: String, _ arguments: [String], environment: [String: String] = [:], file: String = #filePath,
        onLine: (@Sendable (String) -> Void)? = nil
    ) async throws -> Subprocess.Result {
        try await Subprocess.run(
            "/usr/bin/env", ["python3", interopDirectory(from: file).appendingPathComponent(script).path] + arguments,
            environment: environment, onLine: onLine)
    }
}

/// Runs a program to its end, collecting its output (and handing over each line as it comes).
public enum Subprocess {
    public struct Result: Sendable {
        public let status: Int32
        public let output: String
        public let errors: String
    }

    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        onLine: (@Sendable (String) -> Void)? = nil
    ) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let collected = LineCollector(onLine: onLine)
        output.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        let errorData = OutputBuffer()
        errors.fileHandleForReading.readabilityHandler = { handle in errorData.append(handle.availableData) }
        try process.run()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
        collected.append(output.fileHandleForReading.readDataToEndOfFile())
        errorData.append(errors.fileHandleForReading.readDataToEndOfFile())
        return Result(status: process.terminationStatus, output: collected.text, errors: errorData.text)
    }
}

/// Collects a child's output and hands each complete line to a callback as it arrives.
final class LineCollector: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var data = Data()
    private var pending = Data()
    private let onLine: (@Sendable (String) -> Void)?

    init(onLine: (@Sendable (String) -> Void)?) { self.onLine = onLine }

    func append(_ chunk: Data) {
        guard !chunk.isEmpty else { return }
        var lines: [String] = []
        lock.lock()
        data.append(chunk)
        pending.append(chunk)
        while let newline = pending.firstIndex(of: 0x0A) {
            lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
            pending = Data(pending[pending.index(after: newline)...])
        }
        lock.unlock()
        for line in lines { onLine?(line) }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Bytes appended from several threads (a child's output), read as text at the end.
public final class OutputBuffer: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var data = Data()

    public init() {}

    public func append(_ chunk: Data) {
        lock.lock()
        data.append(chunk)
        lock.unlock()
    }

    public var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}
