import Foundation
import Glibc
import Subprocess
import SystemPackage
import TesseraTestSupport

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
    ) async throws -> Program.Result {
        try await Program.run(
            "/usr/bin/env", ["python3", interopDirectory(from: file).appendingPathComponent(script).path] + arguments,
            environment: environment, timeout: timeout, onLine: onLine)
    }
}

extension Python {
    /// Starts a helper of Tests/interop that serves on a free port of 127.0.0.1 and writes
    /// the port to `directory`/port (the receivers and sinks): returns once it has.
    public static func serve(
        _ script: String, in directory: URL, arguments: [String] = [], file: String = #filePath
    ) async throws -> (process: ChildProcess, port: Int) {
        let process = try await ChildProcess.start(
            "/usr/bin/env", ["python3", interopDirectory(from: file).appendingPathComponent(script).path, directory.path] + arguments)
        for _ in 0..<100 {
            if let text = try? String(contentsOf: directory.appendingPathComponent("port"), encoding: .utf8),
                let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return (process, port)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.kill()
        throw TestSupportError("\(script) did not start")
    }

    /// The JSON objects a helper appended, one per line, to `directory`/`file`.
    public static func records(_ file: String, in directory: URL) -> [[String: Any]] {
        guard let text = try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }
}

/// Runs a program to its end, collecting its output (and handing over each line as it comes).
///
/// Children are started and watched by swift-subprocess, which waits for them through
/// a pidfd in epoll. Not by Foundation's `Process`: that learns of a child's exit through
/// a socket its socket manager `select()`s on, and a test process holds so many
/// descriptors (every test's servers and connections) that the socket's number passed
/// 1023 now and then, after which the exit was never seen and the run hung.
/// A child that outlives `timeout` is killed with its whole process group, so a hang
/// becomes a failing test instead of a run that never ends.
public enum Program {
    public struct Result: Sendable {
        public let status: Int32
        public let output: String
        public let errors: String
    }

    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: Duration = .seconds(180), onLine: (@Sendable (String) -> Void)? = nil
    ) async throws -> Result {
        let collected = LineCollector(onLine: onLine)
        let errors = OutputBuffer()
        let timedOut = Signal()
        var options = PlatformOptions()
        // Its own process group, so that a timeout also ends what the child started
        // (a browser, a driver) and nothing is left holding the pipes open.
        options.processGroupID = 0
        let outcome = try await Subprocess.run(
            .path(FilePath(executable)), arguments: Arguments(arguments), environment: Program.environment(environment),
            platformOptions: options, input: .none, output: .sequence, error: .sequence
        ) { execution in
            let processGroup = execution.processIdentifier.value
            let watchdog = Task {
                try await Task.sleep(for: timeout)
                timedOut.fire()
                Glibc.kill(-processGroup, SIGKILL)
            }
            defer { watchdog.cancel() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await chunk in execution.standardOutput { collected.append(Program.data(chunk)) }
                }
                group.addTask {
                    for try await chunk in execution.standardError { errors.append(Program.data(chunk)) }
                }
                try await group.waitForAll()
            }
        }
        if timedOut.hasFired {
            throw TestSupportError("\(executable) \(arguments.first ?? "") did not finish within \(timeout): \(errors.text)")
        }
        return Result(status: outcome.terminationStatus.code, output: collected.text, errors: errors.text)
    }

    static func environment(_ overrides: [String: String?]) -> Environment {
        var keyed: [Environment.Key: String?] = [:]
        for (key, value) in overrides {
            if let key = Environment.Key(rawValue: key) { keyed[key] = value }
        }
        return .inherit.updating(keyed)
    }

    static func data(_ buffer: SubprocessOutputSequence.Buffer) -> Data {
        buffer.withUnsafeBytes { Data($0) }
    }
}

extension TerminationStatus {
    /// The exit code, or the number of the signal that ended the child.
    var code: Int32 {
        switch self {
        case .exited(let code): return code
        case .signaled(let signal): return signal
        }
    }
}

/// A program a test starts and stops by itself (`tessera serve`, nginx), watched by
/// swift-subprocess (see ``Program``) until it exits.
public final class ChildProcess: Sendable {
    public let processIdentifier: pid_t
    /// What it writes to standard output, when started with `collectOutput`.
    public let output: OutputBuffer
    private let exited: Signal
    private let status: LockedValue<TerminationStatus?>
    private let task: Task<Void, Never>

    private init(
        processIdentifier: pid_t, output: OutputBuffer, exited: Signal, status: LockedValue<TerminationStatus?>, task: Task<Void, Never>
    ) {
        self.processIdentifier = processIdentifier
        self.output = output
        self.exited = exited
        self.status = status
        self.task = task
    }

    /// Starts `executable`; standard input is the null device, standard output too unless
    /// `collectOutput`, standard error too unless `errorFile` names a file it is appended to.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String?] = [:], collectOutput: Bool = false,
        errorFile: String? = nil
    ) async throws -> ChildProcess {
        let output = OutputBuffer()
        let exited = Signal()
        let status = LockedValue<TerminationStatus?>(nil)
        let started = AsyncThrowingStream<pid_t, any Error>.makeStream()
        let configuration = Configuration(
            executable: .path(FilePath(executable)), arguments: Arguments(arguments), environment: Program.environment(environment))
        let task = Task {
            do {
                let outcome: TerminationStatus
                if collectOutput {
                    outcome = try await Subprocess.run(configuration, input: .none, output: .sequence, error: .discarded) { execution in
                        started.continuation.yield(execution.processIdentifier.value)
                        for try await chunk in execution.standardOutput { output.append(Program.data(chunk)) }
                    }.terminationStatus
                } else if let errorFile {
                    let descriptor = try FileDescriptor.open(
                        FilePath(errorFile), .writeOnly, options: [.create, .append], permissions: [.ownerReadWrite])
                    outcome = try await Subprocess.run(
                        configuration, input: .none, output: .discarded, error: .fileDescriptor(descriptor, closeAfterSpawningProcess: true)
                    ) { execution in
                        started.continuation.yield(execution.processIdentifier.value)
                    }.terminationStatus
                } else {
                    outcome = try await Subprocess.run(configuration, input: .none, output: .discarded, error: .discarded) { execution in
                        started.continuation.yield(execution.processIdentifier.value)
                    }.terminationStatus
                }
                status.set(outcome)
            } catch {
                started.continuation.finish(throwing: error)
            }
            exited.fire()
        }
        var iterator = started.stream.makeAsyncIterator()
        guard let pid = try await iterator.next() else { throw TestSupportError("\(executable) did not start") }
        return ChildProcess(processIdentifier: pid, output: output, exited: exited, status: status, task: task)
    }

    public var isRunning: Bool { !exited.hasFired }

    /// How it ended: its exit code, or the signal's number; nil while it runs.
    public var terminationStatus: Int32? { status.get()?.code }

    /// True once it has exited by itself (with any code), not through a signal.
    public var exitedNormally: Bool {
        if case .exited = status.get() { return true }
        return false
    }

    /// SIGTERM, while it runs.
    public func terminate() { send(SIGTERM) }

    /// SIGKILL, while it runs.
    public func kill() { send(SIGKILL) }

    /// SIGHUP: for `tessera serve`, load the TLS certificate and key again.
    public func hangUp() { send(SIGHUP) }

    private func send(_ signal: Int32) {
        if isRunning { Glibc.kill(processIdentifier, signal) }
    }

    /// Waits, without blocking a thread, until it has exited; past `timeout` it is killed
    /// and this throws.
    public func waitForExit(timeout: Duration = .seconds(30)) async throws {
        if await exited.wait(timeout: timeout) { return }
        kill()
        _ = await exited.wait(timeout: .seconds(5))
        throw TestSupportError("the process \(processIdentifier) did not exit within \(timeout)")
    }
}

/// A value behind a lock, for the few places here that share one between threads.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set(_ newValue: Value) {
        lock.lock()
        value = newValue
        lock.unlock()
    }
}

/// A one-shot event that async code can wait for with a deadline.
final class Signal: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var fired = false
    private var waiters: [UUID: CheckedContinuation<Bool, Never>] = [:]

    var hasFired: Bool {
        lock.lock()
        defer { lock.unlock() }
        return fired
    }

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
