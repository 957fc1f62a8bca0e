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
/// locked for good. Lockout cannot be switched off: `freeAttempts` is at most 5.
public struct LockoutPolicy: Codable, Hashable, Sendable {
    public let freeAttempts: Int
    public let waits: [Int]
    public let permanentAfter: Int?

    public static let standard = LockoutPolicy(unchecked: 3, waits: [30, 60, 300, 900, 3600], permanentAfter: 10)

    init(unchecked freeAttempts: Int, waits: [Int], permanentAfter: Int?) {
        self.freeAttempts = freeAttempts
        self.waits = waits
        self.permanentAfter = permanentAfter
    }

    public init(freeAttempts: Int, waits: [Int], permanentAfter: Int?) throws(PolicyError) {
        guard (0...5).contains(freeAttempts) else {
            throw PolicyError("free attempts must be between 0 and 5")
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

    /// The lock that follows the `failures`-th consecutive failure, if any.
    public func lock(afterFailures failures: Int, at now: Date) -> LockoutInformation? {
        if let permanentAfter, failures >= permanentAfter {
            return LockoutInformation(isPermanent: true, lockedUntil: nil)
        }
        guard failures > freeAttempts else { return nil }
        let wait = waits[min(failures - freeAttempts - 1, waits.count - 1)]
        return LockoutInformation(isPermanent: false, lockedUntil: now.addingTimeInterval(TimeInterval(wait)))
    }
}
