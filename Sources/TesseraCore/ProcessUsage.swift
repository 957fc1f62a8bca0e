#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The CPU time and memory this process has used so far, from `getrusage` (and, on
/// Linux, `/proc/self/statm` for the resident set now): what `/metrics` reports as
/// `process_cpu_seconds_total` and `process_resident_memory_bytes`, and what
/// `tessera bench` counts of its own cost.
public struct ProcessUsage: Sendable, Equatable {
    /// CPU seconds in user mode.
    public let userSeconds: Double
    /// CPU seconds in the kernel on the process's behalf.
    public let systemSeconds: Double
    /// The resident set now (Linux), or the largest it has been (elsewhere), in bytes.
    public let residentBytes: Int

    public var cpuSeconds: Double { userSeconds + systemSeconds }

    public init(userSeconds: Double, systemSeconds: Double, residentBytes: Int) {
        self.userSeconds = userSeconds
        self.systemSeconds = systemSeconds
        self.residentBytes = residentBytes
    }

    public static func current() -> ProcessUsage {
        var usage = rusage()
        #if os(Linux)
        _ = getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        _ = getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        #if os(Linux)
        // The second field of statm is the resident set in pages.
        let pages = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        let resident = pages.map { $0 * Int(sysconf(Int32(_SC_PAGESIZE))) } ?? Int(usage.ru_maxrss) * 1024
        #else
        let resident = Int(usage.ru_maxrss)
        #endif
        return ProcessUsage(userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime), residentBytes: resident)
    }
}
