import Foundation
import Synchronization

/// A clock a test moves by hand: expiry and lockout waits pass in no time and exactly.
/// It runs with real time from where it was set (a server's clock must move on its own
/// too, or everything it times would stand still), plus what the test added.
public final class TestClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)
    private let fixed: Date?

    /// A clock standing still at `start` (for use cases called directly).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        fixed = start
    }

    /// A clock running with real time, `advance` moving it ahead (for a running server).
    public static func running() -> TestClock { TestClock(running: ()) }

    private init(running: Void) {
        fixed = nil
    }

    public func now() -> Date { (fixed ?? Date()).addingTimeInterval(offset.withLock { $0 }) }

    public func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}
