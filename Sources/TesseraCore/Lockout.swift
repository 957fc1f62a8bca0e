import Foundation

/// What a failed attempt or a call during a running lock tells the user.
public struct LockoutInformation: Codable, Hashable, Sendable {
    /// The activation is disabled until an administrator unlocks it.
    public let isPermanent: Bool
    /// When the next attempt may be made; `nil` when permanent.
    public let lockedUntil: Date?

    public init(isPermanent: Bool, lockedUntil: Date?) {
        self.isPermanent = isPermanent
        self.lockedUntil = lockedUntil
    }

    enum CodingKeys: String, CodingKey {
        case isPermanent = "is_permanent"
        case lockedUntil = "locked_until"
    }
}

/// How failed attempts on one activation turn into waits and finally a permanent lock.
///
/// After `freeAttempts` consecutive failures every further failure starts a wait taken
/// from `waits` (the last one repeats); at `permanentAfter` failures the activation is
/// locked for good.
///
/// Lockout cannot be switched off. A policy an administrator sets must keep the floors
/// (`checkFloors()`): at most 5 free attempts; waits of at least `minimumWait` seconds
/// that never shrink and reach `minimumLongestWait`; and a permanent lock at no more than
/// `maximumPermanentAfter` failures. A stored policy from before the floors is held to
/// them when it is applied (`lock(afterFailures:at:)`).
public struct LockoutPolicy: Codable, Hashable, Sendable {
    public let freeAttempts: Int
    public let waits: [Int]
    public let permanentAfter: Int?

    public static let standard = LockoutPolicy(unchecked: 3, waits: [30, 60, 300, 900, 3600], permanentAfter: 10)

    /// The most failures that start no wait.
    public static let maximumFreeAttempts = 5
    /// The shortest wait a failure may start (seconds).
    public static let minimumWait = 5
    /// The longest of the waits is at least this (seconds): guesses slow to one a minute.
    public static let minimumLongestWait = 60
    /// The permanent lock comes at this many consecutive failures or sooner.
    public static let maximumPermanentAfter = 20

    init(unchecked freeAttempts: Int, waits: [Int], permanentAfter: Int?) {
        self.freeAttempts = freeAttempts
        self.waits = waits
        self.permanentAfter = permanentAfter
    }

    public init(freeAttempts: Int, waits: [Int], permanentAfter: Int?) throws(PolicyError) {
        guard (0...Self.maximumFreeAttempts).contains(freeAttempts) else {
            throw PolicyError("free attempts must be between 0 and \(Self.maximumFreeAttempts)")
        }
        guard !waits.isEmpty, waits.allSatisfy({ $0 > 0 && $0 <= 86_400 * 30 }) else {
            throw PolicyError("waits must be one or more durations between 1 second and 30 days")
        }
        if let permanentAfter, permanentAfter <= freeAttempts {
            throw PolicyError("the permanent lock must come after the free attempts")
        }
        self.init(unchecked: freeAttempts, waits: waits, permanentAfter: permanentAfter)
    }

    enum CodingKeys: String, CodingKey {
        case freeAttempts = "free_attempts"
        case waits
        case permanentAfter = "permanent_after"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            freeAttempts: c.decode(Int.self, forKey: .freeAttempts),
            waits: c.decode([Int].self, forKey: .waits),
            permanentAfter: c.decodeIfPresent(Int.self, forKey: .permanentAfter)
        )
    }

    /// Refuses a policy below the floors (see the type's documentation).
    public func checkFloors() throws(PolicyError) {
        guard waits.allSatisfy({ $0 >= Self.minimumWait }) else {
            throw PolicyError("every wait must be at least \(Self.minimumWait) seconds")
        }
        guard zip(waits, waits.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw PolicyError("waits must not get shorter")
        }
        guard (waits.last ?? 0) >= Self.minimumLongestWait else {
            throw PolicyError("the longest wait must be at least \(Self.minimumLongestWait) seconds")
        }
        guard let permanentAfter, permanentAfter <= Self.maximumPermanentAfter else {
            throw PolicyError("permanent_after is required and at most \(Self.maximumPermanentAfter) failures: lockout cannot be switched off")
        }
    }

    /// The lock that follows the `failures`-th consecutive failure, if any. The floors
    /// hold here too, whatever was stored.
    public func lock(afterFailures failures: Int, at now: Date) -> LockoutInformation? {
        let free = min(freeAttempts, Self.maximumFreeAttempts)
        if failures >= min(permanentAfter ?? Self.maximumPermanentAfter, Self.maximumPermanentAfter) {
            return LockoutInformation(isPermanent: true, lockedUntil: nil)
        }
        guard failures > free else { return nil }
        let index = failures - free - 1
        // Never shorter than the floor, than an earlier wait, or (past the listed waits)
        // than the floor's longest wait.
        var wait = max(Self.minimumWait, waits.prefix(index + 1).max() ?? Self.minimumWait)
        if index >= waits.count - 1 { wait = max(wait, Self.minimumLongestWait) }
        return LockoutInformation(isPermanent: false, lockedUntil: now.addingTimeInterval(TimeInterval(wait)))
    }
}
