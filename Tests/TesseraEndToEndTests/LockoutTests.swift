import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraKit
import TesseraTesting
import TesseraTestSupport
import Testing

@Suite("Lockout per activation", .tags(.live), .timeLimit(.minutes(5)))
struct LockoutTests {
    @Test("wrong PIN → lockout result → pending lockout while it runs → success after the wait")
    func waitThenSuccess() async throws {
        try await withServer { server in
            // A 90-second wait, so the checks below run inside it however loaded the machine
            // is (the device derives its PIN key with PBKDF2 for each attempt); the test then
            // moves the server's clock past it instead of waiting (by less than the two
            // minutes the device's proofs live, which are signed on the real clock).
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 1, waits: [90], permanentAfter: 6))
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
            #expect(listed.failedAttempts == 2)
            #expect(listed.id == activation.activation.id.rawValue)

            // The wait passes on the server's clock, not by sleeping.
            server.clock.advance(by: lockedUntil.timeIntervalSince(server.clock.now()) + 1.2)
            #expect(try await signAndFinish(second.1, device: device, factors: [.device, .pin]).isUserLogin)
            #expect(try await scenario.activations(username: "alice").first?.failedAttempts == 0)
            #expect(try await scenario.complete(login)["code"] != nil)
            device.remove()
        }
    }

    @Test("a wrong biometric or OTP counts like a wrong PIN, and the answer never says which factor failed")
    func anyFactorCounts() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 5, waits: [60], permanentAfter: 9))
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
            #expect(try await scenario.activations(username: "bob").first?.failedAttempts == 2)
            device.remove()
        }
    }

    @Test("a wait longer than the request extends the request: the device retries the same login after the wait, the page waits and gets its code")
    func retryOutlivesTheRequest() async throws {
        // Requests live 20 s here; the first wait is a minute.
        try await withServer(requestLifetime: 20) { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 0, waits: [60], permanentAfter: 10))
            let service = try await scenario.createService()
            try await scenario.createUser("ray")
            let (device, _) = try await activateDevice(scenario, username: "ray")
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            #expect(information.expiresAt < Date().addingTimeInterval(30))
            let (lock, retry) = try #require(try await signAndFinish(information, device: device, factors: [.device, .pin], pin: "0000").lockout)
            let until = try #require(lock.lockedUntil)
            // The retry object lives past the wait, and the page still waits, showing the lock.
            #expect(retry.expiresAt >= until.addingTimeInterval(19), "\(retry.expiresAt) vs \(until)")
            let status = try await scenario.status(login)
            #expect(status["status"] as? String == "claimed" && status["locked_until"] != nil, "\(status)")
            // After the wait (on the server's clock), the same login goes through.
            server.clock.advance(by: until.timeIntervalSince(server.clock.now()) + 1.5)
            #expect(try await scenario.status(login)["status"] as? String == "claimed", "not expired after the wait")
            #expect(try await signAndFinish(retry, device: device, factors: [.device, .pin]).isUserLogin)
            #expect(try await scenario.complete(login)["code"] != nil)
            device.remove()
        }
    }

    @Test("a success resets only the counts of the factors it proved: a one-time code buys no more PIN guesses")
    func successResetsWhatItProved() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 5, waits: [60], permanentAfter: 9))
            let service = try await scenario.createService(policy: "device+pin,device+otp")
            try await scenario.createUser("olga")
            let (device, _) = try await activateDevice(scenario, username: "olga", otp: true)
            func failedAttempts() async throws -> Int? {
                try await scenario.activations(username: "olga").first?.failedAttempts
            }
            for expected in 1...2 {
                let login = try await scenario.openLogin(service)
                let information = try await device.authenticator.start(url: login.authenticationURL)
                #expect(try await signAndFinish(information, device: device, factors: [.device, .pin], pin: "0000").lockout != nil)
                #expect(try await failedAttempts() == expected)
            }
            // Device and one-time code: a success, but it proved nothing about the PIN.
            let otpLogin = try await scenario.openLogin(service)
            let otpInformation = try await device.authenticator.start(url: otpLogin.authenticationURL)
            #expect(try await signAndFinish(otpInformation, device: device, factors: [.device, .otp]).isUserLogin)
            #expect(try await failedAttempts() == 2, "the PIN's count stands")
            // The third wrong PIN continues from there.
            let third = try await scenario.openLogin(service)
            #expect(
                try await signAndFinish(try await device.authenticator.start(url: third.authenticationURL), device: device, factors: [.device, .pin], pin: "0000")
                    .lockout != nil)
            #expect(try await failedAttempts() == 3)
            // The right PIN resets it.
            _ = try await approvedLogin(scenario, service, device: device)
            #expect(try await failedAttempts() == 0)
            device.remove()
        }
    }

    @Test("lockout cannot be switched off: waits under the floor, shrinking waits, no or a late permanent lock are refused")
    func lockoutFloors() async throws {
        try await withServer { server in
            let http = TestHTTP()
            let admin = ["Authorization": "Bearer \(server.adminToken)", "Content-Type": "application/json"]
            let refused: [[String: Any]] = [
                ["free_attempts": 3, "waits": [1], "permanent_after": 10],
                ["free_attempts": 3, "waits": [300, 60], "permanent_after": 10],
                ["free_attempts": 3, "waits": [5, 30], "permanent_after": 10],
                ["free_attempts": 3, "waits": [30, 60]],
                ["free_attempts": 3, "waits": [30, 60], "permanent_after": 1000],
            ]
            for (index, lockout) in refused.enumerated() {
                let body = try JSONSerialization.data(withJSONObject: ["name": "floor\(index)", "lockout": lockout])
                let created = try await http.send("POST", "\(server.baseURL)/admin/tenants", headers: admin, body: body)
                #expect(created.status == 400, "\(lockout): \(created.text)")
                #expect(try created.json()["error"] as? String == "invalid_request")
            }
            #expect(try await http.get("\(server.baseURL)/admin/tenants", headers: admin).text.contains("floor") == false)
            // The same for a change of an existing tenant's policy, which stays as it was.
            let scenario = try await Scenario.make(on: server)
            let body = try JSONSerialization.data(withJSONObject: ["lockout": ["free_attempts": 5, "waits": [1], "permanent_after": 10]])
            let changed = try await http.send("PATCH", "\(server.baseURL)/admin/tenants/\(scenario.tenant)", headers: admin, body: body)
            #expect(changed.status == 400, "\(changed.text)")
            let tenant = try await http.get("\(server.baseURL)/admin/tenants/\(scenario.tenant)", headers: admin).json()
            #expect((tenant["lockout"] as? [String: Any])?["waits"] as? [Int] == [30, 60, 300, 900, 3600])
        }
    }

    @Test("a permanent lock stops every call until the admin unlocks the activation")
    func permanentLock() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 1, waits: [60], permanentAfter: 2))
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
            #expect(listed.permanentlyLocked == true)

            try await scenario.unlock(activation.activation.id.rawValue)
            let retry = try await device.authenticator.start(url: next.authenticationURL)
            #expect(try await signAndFinish(retry, device: device, factors: [.device, .pin]).isUserLogin)
            device.remove()
        }
    }

    @Test("parallel wrong PINs never get more tries than the policy allows")
    func parallelAttempts() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 2, waits: [300], permanentAfter: 8))
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
                        // 503 (too many attempts wait on this activation's queue at once, on a
                        // loaded machine) spends nothing and says to come again: the device does.
                        for _ in 0..<20 {
                            do {
                                let result = try await signAndFinish(information, device: device, factors: [.device, .pin], pin: "0000")
                                return result.isUserLogin ? .login : .lockout
                            } catch TesseraKitError.pendingLockout {
                                return .pending
                            } catch TesseraKitError.server(let status, _, _) where status == 503 {
                                try? await Task.sleep(for: .milliseconds(200))
                            } catch {
                                return .other
                            }
                        }
                        return .other
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
            #expect(try await scenario.activations(username: "dave").first?.failedAttempts == 3)
            device.remove()
        }
    }
}
