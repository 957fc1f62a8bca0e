import Foundation
import Testing
import TesseraCore

@Suite("Authenticator and lockout policies")
struct PolicyTests {
    @Test("a policy string lists alternatives of factor combinations")
    func parse() throws {
        let policy = try AuthenticatorPolicy(parsing: "device+pin, device+biometric")
        #expect(policy.alternatives == [FactorCombination([.device, .pin]), FactorCombination([.biometric, .device])])
        #expect(policy.description == "device+pin,device+biometric")
        #expect(throws: PolicyError.self) { try AuthenticatorPolicy(parsing: "device+fingerprint") }
        #expect(throws: PolicyError.self) { try AuthenticatorPolicy(parsing: "") }
    }

    @Test("the policy is filtered to what the activation enrolled, or returned whole")
    func filtering() throws {
        let policy = try AuthenticatorPolicy(parsing: "device+pin,device+biometric,device+otp")
        #expect(policy.filtered(toEnrolled: [.device, .pin]) == [FactorCombination([.device, .pin])])
        let otpOnly = try AuthenticatorPolicy(parsing: "device+otp")
        #expect(otpOnly.filtered(toEnrolled: [.device, .pin]) == otpOnly.alternatives)
    }

    @Test("failures escalate to waits and then a permanent lock")
    func lockout() throws {
        let policy = try LockoutPolicy(freeAttempts: 2, waits: [10, 60], permanentAfter: 5)
        let now = Date(timeIntervalSince1970: 1_000)
        #expect(policy.lock(afterFailures: 2, at: now) == nil)
        #expect(policy.lock(afterFailures: 3, at: now) == LockoutInformation(isPermanent: false, lockedUntil: now + 10))
        #expect(policy.lock(afterFailures: 4, at: now) == LockoutInformation(isPermanent: false, lockedUntil: now + 60))
        #expect(policy.lock(afterFailures: 5, at: now) == LockoutInformation(isPermanent: true, lockedUntil: nil))
        #expect(throws: PolicyError.self) { try LockoutPolicy(freeAttempts: 9, waits: [10], permanentAfter: nil) }
        #expect(LockoutPolicy.standard.lock(afterFailures: 4, at: now) != nil)
    }

    @Test("floors: below them a policy is refused when set, and a stored one is held to them when applied")
    func floors() throws {
        #expect(throws: Never.self) { try LockoutPolicy.standard.checkFloors() }
        for (waits, permanentAfter) in [([1], 10), ([300, 60], 10), ([5, 30], 10), ([30, 60], nil), ([30, 60], 21)] as [([Int], Int?)] {
            let policy = try LockoutPolicy(freeAttempts: 3, waits: waits, permanentAfter: permanentAfter)
            #expect(throws: PolicyError.self, "\(waits) \(String(describing: permanentAfter))") { try policy.checkFloors() }
        }
        // A policy stored before the floors: one-second waits and no permanent lock.
        let stored = try JSONDecoder().decode(LockoutPolicy.self, from: Data(#"{"free_attempts":1,"waits":[1,2]}"#.utf8))
        let now = Date(timeIntervalSince1970: 1_000)
        #expect(stored.lock(afterFailures: 2, at: now) == LockoutInformation(isPermanent: false, lockedUntil: now + 5))
        #expect(stored.lock(afterFailures: 3, at: now) == LockoutInformation(isPermanent: false, lockedUntil: now + 60))
        #expect(stored.lock(afterFailures: 9, at: now) == LockoutInformation(isPermanent: false, lockedUntil: now + 60))
        #expect(stored.lock(afterFailures: LockoutPolicy.maximumPermanentAfter, at: now)?.isPermanent == true)
    }
}
