import Foundation
import Testing
import TesseraCore
import TesseraKit
import TesseraTesting

@Suite("Lockout per activation", .timeLimit(.minutes(5)))
struct LockoutTests {
    @Test("wrong PIN → lockout result → pending lockout while it runs → success after the wait")
    func waitThenSuccess() async throws {
        try await withServer { server in
            // A two-minute wait, so the checks below run inside it however loaded the machine
            // is (the device derives its PIN key with PBKDF2 for each attempt); the test then
            // moves the server's clock past it instead of waiting.
            let scenario = try await Scenario.make(on: server, lockout: ["free_attempts": 1, "waits": [120], "permanent_after": 6])
            let service = try await scenario.createService()
            try await scenario.createUser("alice")
            let (device, activation) = try await activateDevice(scenario, username: "alice")
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)

            // The first failure is free: a lockout result without a wait.
            let first = try #require(try await signAndFinish(information, device: device, factors: [.device, .pin], pin: "0000").lockout)
            #expect(first.0.isPermanent == false)
            #expect((first.0.lockedUntil ?? .distantFuture) <= Date().addingTimeInterval(1))

            // The second starts the wait, announced on the failed attempt.
            let second = try #require(try await signAndFinish(first.1, device: device, factors: [.device, .pin], pin: "1111").lockout)
            let lockedUntil = try #require(second.0.lockedUntil)
            #expect(second.0.isPermanent == false)
            #expect(lockedUntil > Date().addingTimeInterval(1))
            #expect(try await scenario.status(login)["locked_until"] != nil, "the login page shows the lock")

            // While it runs, a new claim and even the right PIN get the pending-lockout error
            // with the same information.
            do {
                _ = try await device.authenticator.start(url: login.authenticationURL)
                Issue.record("a locked activation claimed the request")
            } catch TesseraKitError.pendingLockout(let pending) {
                #expect(abs((pending.lockedUntil ?? .distantPast).timeIntervalSince(lockedUntil)) < 1.5)
            }
            do {
                _ = try await signAndFinish(second.1, device: device, factors: [.device, .pin])
                Issue.record("an attempt during the lock was accepted")
            } catch TesseraKitError.pendingLockout(let pending) {
                #expect(pending.isPermanent == false)
                #expect(abs((pending.lockedUntil ?? .distantPast).timeIntervalSince(lockedUntil)) < 1.5)
            }
            let listed = try #require(try await scenario.activations(username: "alice").first)
            #expect(listed["failed_attempts"] as? Int == 2)
            #expect(listed["id"] as? String == activation.activation.id.rawValue)

            // The wait passes on the server's clock, not by sleeping.
            server.clock.advance(by: lockedUntil.timeIntervalSince(server.clock.now()) + 1.2)
            #expect(try await signAndFinish(second.1, device: device, factors: [.device, .pin]).isUserLogin)
            #expect(try await scenario.activations(username: "alice").first?["failed_attempts"] as? Int == 0)
            #expect(try await scenario.complete(login)["code"] != nil)
            device.remove()
        }
    }

    @Test("a wrong biometric or OTP counts like a wrong PIN, and the answer never says which factor failed")
    func anyFactorCounts() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: ["free_attempts": 5, "waits": [60], "permanent_after": 9])
            let service = try await scenario.createService(policy: "device+pin+otp")
            try await scenario.createUser("bob")
            let (device, _) = try await activateDevice(scenario, username: "bob", otp: true)
            let login = try await scenario.openLogin(service)
            var information = try await device.authenticator.start(url: login.authenticationURL)
            try information.sign(factor: DeviceFactor())
            try information.sign(factor: PinFactor("2468"))
            try information.sign(factor: OtpFactor(code: "000000"))
            let wrongOTP = try #require(try await device.authenticator.finish(information).lockout)
            var retry = wrongOTP.1
            #expect(retry.factors.isEmpty, "all supplied factors are cleared after a failure")
            try retry.sign(factor: DeviceFactor())
            try retry.sign(factor: PinFactor("9999"))
            try retry.sign(factor: try await device.authenticator.currentOtpFactor(for: retry))
            let wrongPIN = try #require(try await device.authenticator.finish(retry).lockout)
            // Same shape whichever factor was wrong.
            #expect(wrongOTP.0.isPermanent == wrongPIN.0.isPermanent)
            let recorded = device.transport.requests.filter { $0.url.path.hasSuffix("/finish") }
            #expect(recorded.count == 2)
            #expect(try await scenario.activations(username: "bob").first?["failed_attempts"] as? Int == 2)
            device.remove()
        }
    }

    @Test("a permanent lock stops every call until the admin unlocks the activation")
    func permanentLock() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: ["free_attempts": 1, "waits": [1], "permanent_after": 2])
            let service = try await scenario.createService()
            try await scenario.createUser("carol")
            let (device, activation) = try await activateDevice(scenario, username: "carol")
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            let first = try #require(try await signAndFinish(information, device: device, factors: [.device, .pin], pin: "0000").lockout)
            let second = try #require(try await signAndFinish(first.1, device: device, factors: [.device, .pin], pin: "0000").lockout)
            #expect(second.0.isPermanent)
            #expect(second.0.lockedUntil == nil)
            #expect(try await scenario.status(login)["status"] as? String == "locked")
            #expect(try await scenario.complete(login)["error"] == "access_denied")

            // A new login: the claim itself is refused with the pending lockout.
            let next = try await scenario.openLogin(service)
            do {
                _ = try await device.authenticator.start(url: next.authenticationURL)
                Issue.record("a permanently locked activation claimed a request")
            } catch TesseraKitError.pendingLockout(let pending) {
                #expect(pending.isPermanent)
            }
            let listed = try #require(try await scenario.activations(username: "carol").first)
            #expect(listed["permanently_locked"] as? Bool == true)

            try await scenario.unlock(activation.activation.id.rawValue)
            let retry = try await device.authenticator.start(url: next.authenticationURL)
            #expect(try await signAndFinish(retry, device: device, factors: [.device, .pin]).isUserLogin)
            device.remove()
        }
    }

    @Test("parallel wrong PINs never get more tries than the policy allows")
    func parallelAttempts() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: ["free_attempts": 2, "waits": [300], "permanent_after": 8])
            let service = try await scenario.createService()
            try await scenario.createUser("dave")
            let (device, _) = try await activateDevice(scenario, username: "dave")
            // Twelve requests claimed by the same activation, each with its own challenge.
            var claimed: [AuthenticationUserInformation] = []
            for _ in 0..<12 {
                let login = try await scenario.openLogin(service)
                claimed.append(try await device.authenticator.start(url: login.authenticationURL))
            }
            enum Outcome: Sendable { case lockout, pending, login, other }
            let outcomes = await withTaskGroup(of: Outcome.self) { group in
                for information in claimed {
                    group.addTask {
                        do {
                            let result = try await signAndFinish(information, device: device, factors: [.device, .pin], pin: "0000")
                            return result.isUserLogin ? .login : .lockout
                        } catch TesseraKitError.pendingLockout {
                            return .pending
                        } catch {
                            return .other
                        }
                    }
                }
                var all: [Outcome] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
            // Two free failures, the third starts the wait; every later attempt meets the lock.
            #expect(outcomes.filter { $0 == .lockout }.count == 3)
            #expect(outcomes.filter { $0 == .pending }.count == 9)
            #expect(outcomes.filter { $0 == .login || $0 == .other }.isEmpty)
            #expect(try await scenario.activations(username: "dave").first?["failed_attempts"] as? Int == 3)
            device.remove()
        }
    }
}
