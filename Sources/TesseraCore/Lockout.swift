import Foundation

// The lockout rule, whole: how failures are counted per factor (`FactorFailures`), how a
// tenant's policy turns a count into a wait or a permanent lock (`LockoutPolicy`), and the
// lock an activation is under at a moment (`LockoutInformation.current`). The attempts use
// case applies it when a proof fails (`Attempts.countFailure`), the store keeps the counts
// and the lock, and an administrator's unlock resets both.

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

/// An activation's consecutive failed attempts, counted per factor whose proof a holder
/// of the device key could guess or forge. A failed attempt counts once against every
/// such factor in its combination (it does not tell which one was wrong); a success
/// resets the counts of the factors it proved and no other, so a combination without the
/// PIN never buys more PIN guesses.
public struct FactorFailures: Sendable, Hashable {
    public var pin: Int
    public var otp: Int
    public var biometric: Int
    /// A security key's assertion cannot be guessed, but a failed one counts like any
    /// other factor's: the same lockout covers every factor.
    public var securityKey: Int

    public init(pin: Int = 0, otp: Int = 0, biometric: Int = 0, securityKey: Int = 0) {
        self.pin = pin
        self.otp = otp
        self.biometric = biometric
        self.securityKey = securityKey
    }

    /// The count the lockout policy applies to.
    public var highest: Int { max(pin, otp, biometric, securityKey) }

    /// After a failed attempt with `factors`.
    public func failing(_ factors: [FactorType]) -> FactorFailures {
        var next = self
        for factor in Set(factors) {
            switch factor {
            case .pin: next.pin += 1
            case .otp: next.otp += 1
            case .biometric: next.biometric += 1
            case .securitykey: next.securityKey += 1
            case .device, .federation: break
            }
        }
        return next
    }

    /// After a successful attempt with `factors`: only what they proved starts again.
    public func succeeding(_ factors: [FactorType]) -> FactorFailures {
        var next = self
        for factor in Set(factors) {
            switch factor {
            case .pin: next.pin = 0
            case .otp: next.otp = 0
            case .biometric: next.biometric = 0
            case .securitykey: next.securityKey = 0
            case .device, .federation: break
            }
        }
        return next
    }
}

extension LockoutInformation {
    /// The lock an activation is under at `now`, from what the store keeps of it: a
    /// permanent lock until an administrator unlocks it, or a wait until `lockedUntil`.
    public static func current(permanentlyLocked: Bool, lockedUntil: Int64?, now: Int64) -> LockoutInformation? {
        if permanentlyLocked { return LockoutInformation(isPermanent: true, lockedUntil: nil) }
        guard let lockedUntil, lockedUntil > now else { return nil }
        return LockoutInformation(isPermanent: false, lockedUntil: Date(timeIntervalSince1970: TimeInterval(lockedUntil)))
    }

    /// When a wait ends, in whole seconds (rounded up, so the lock never ends early).
    public var lockedUntilEpoch: Int64? { lockedUntil.map { Int64($0.timeIntervalSince1970.rounded(.up)) } }
}
