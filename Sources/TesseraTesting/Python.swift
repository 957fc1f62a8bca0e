import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        timeout: Duration = .seconds(180), onLine: (@Sendable (String) -> Void)? = nil
    ) async throws -> Subprocess.Result {
        try await Subprocess.run(
            "/usr/bin/env", ["python3", interopDirectory(from: file).appendingPathComponent(script).path] + arguments,
            environment: environment, timeout: timeout, onLine: onLine)
    }
}

/// Runs a program to its end, collecting its output (and handing over each line as it comes).
///
/// Nothing here blocks a thread of Swift's cooperative pool: the test processes run
/// many servers on two such threads, and one thread stuck in `waitUntilExit` or a
/// blocking read would starve them all. A child that outlives `timeout` is killed,
/// so a hang becomes a failing test instead of a run that never ends.
public enum Subprocess {
    public struct Result: Sendable {
        public let status: Int32
        public let output: String
        public let errors: String
    }

    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: Duration = .seconds(180), onLine: (@Sendable (String) -> Void)? = nil
    ) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let collected = LineCollector(onLine: onLine)
        let errorData = OutputBuffer()
        let outputClosed = Signal()
        let errorsClosed = Signal()
        let exited = Signal()
        process.terminationHandler = { _ in exited.fire() }
        try process.run()
        // Readers start once the child exists (a failed start leaves no thread behind);
        // the pipes hold what the child wrote meanwhile.
        drain(output, into: collected.append, closed: outputClosed)
        drain(errors, into: errorData.append, closed: errorsClosed)

        let finished = await exited.wait(timeout: timeout)
        if !finished {
            process.terminate()
            _ = await exited.wait(timeout: .seconds(5))
        }
        // A grandchild that inherited the pipes may keep them open: wait a little, not forever.
        _ = await outputClosed.wait(timeout: .seconds(5))
        _ = await errorsClosed.wait(timeout: .seconds(5))
        guard finished else {
            throw TestSupportError("\(executable) \(arguments.first ?? "") did not finish within \(timeout): \(errorData.text)")
        }
        return Result(status: process.terminationStatus, output: collected.text, errors: errorData.text)
    }

    /// Hands each chunk a pipe delivers to `sink` and fires `closed` at end of file.
    ///
    /// A plain thread of its own does the blocking reads: not the cooperative pool (a
    /// stuck child would starve it), and not a dispatch source (`readabilityHandler`),
    /// whose teardown raced the pipe's close and crashed libdispatch once in a few dozen runs.
    private static func drain(_ pipe: Pipe, into sink: @escaping @Sendable (Data) -> Void, closed: Signal) {
        let handle = pipe.fileHandleForReading
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                sink(Data(buffer[0..<count]))
            }
            // The read end goes now, not when the Pipe happens to be freed: a run starts
            // hundreds of children, and Foundation's socket manager (URLSession, Process)
            // select()s on its descriptors, which breaks once their numbers pass 1023.
            try? handle.close()
            closed.fire()
        }
        reader.start()
    }

    /// Collects what a pipe delivers into `buffer`, on a reader thread of its own (for
    /// children a test starts and stops by itself, like `tessera serve`).
    public static func collect(_ pipe: Pipe, into buffer: OutputBuffer) {
        drain(pipe, into: buffer.append, closed: Signal())
    }

    /// Waits, without blocking a thread, until a process started elsewhere has exited.
    public static func waitForExit(_ process: Process, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw TestSupportError("the process \(process.processIdentifier) did not exit within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A one-shot event that async code can wait for with a deadline.
final class Signal: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var fired = false
    private var waiters: [UUID: CheckedContinuation<Bool, Never>] = [:]

    func fire() {
        lock.lock()
        fired = true
        let pending = waiters
        waiters = [:]
        lock.unlock()
        for (_, continuation) in pending { continuation.resume(returning: true) }
    }

    /// True when the event happened, false when the deadline came first.
    func wait(timeout: Duration) async -> Bool {
        let id = UUID()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            lock.lock()
            if fired {
                lock.unlock()
                continuation.resume(returning: true)
                return
            }
            waiters[id] = continuation
            lock.unlock()
            let nanoseconds = UInt64(max(0, timeout.components.seconds)) * 1_000_000_000
                + UInt64(max(0, timeout.components.attoseconds / 1_000_000_000))
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
                lock.lock()
                let waiter = waiters.removeValue(forKey: id)
                lock.unlock()
                waiter?.resume(returning: false)
            }
        }
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
