import Foundation

/// A value behind a lock, for the code apps link too (TesseraCore, TesseraCrypto,
/// TesseraKit): `Synchronization.Mutex` needs iOS 18, this needs Foundation's `NSLock`,
/// which every supported platform has. `withLock` holds the lock for the closure only;
/// never suspend or call back out of it.
public final class Locked<Value>: @unchecked Sendable {
    // Only read or written while `lock` is held.
    private var value: Value
    private let lock = NSLock()

    public init(_ value: Value) { self.value = value }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
