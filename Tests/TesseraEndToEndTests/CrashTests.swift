import Foundation
import Synchronization
import TesseraCore
import TesseraKit
import TesseraTesting
import Testing

#if canImport(Glibc)
import Glibc
import TesseraAdminAPI
#endif

/// What the server acknowledged before it died, collected by the load's workers.
final class Acknowledged: Sendable {
    struct State {
        var activations: [String: URL] = [:]
        var unacknowledged: [(username: String, url: URL)] = []
        var wrongPins = 0
        var codes: [(code: String, verifier: String?)] = []
    }
    let state = Mutex(State())
}

/// What SIGTERM's writers saw.
final class WriteOutcome: Sendable {
    struct State {
        var created: [String] = []
        var serverErrors: [String] = []
        var refused = 0
    }
    let state = Mutex(State())
}

@Suite("Crash safety", .tags(.live, .crash), .timeLimit(.minutes(5)))
struct CrashTests {
    @Test("a node killed with SIGKILL under load keeps every activation, code and failed attempt it acknowledged")
    func sigkill() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try TestServerPort.free(restartable: true)
        let base = "http://127.0.0.1:\(port)"
        let database = try await TestDatabase.fresh()
        let token = "crash-test-admin-token-\(UUID().uuidString)"
        let first = try await serve(directory: directory, port: port, database: database, token: token)
        defer { first.kill() }

        let scenario = try await Scenario.make(
            baseURL: base, adminToken: token, lockout: .init(freeAttempts: 5, waits: [5, 60], permanentAfter: 20))
        let service = try await scenario.createService(policy: "device+pin")
        try await scenario.createUser("victim")
        let (victim, _) = try await activateDevice(scenario, username: "victim")
        for index in 0..<40 { try await scenario.createUser("user\(index)") }

        let acknowledged = Acknowledged()
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                // Activations, one device each.
                group.addTask {
                    for index in 0..<40 {
                        guard let url = try? await scenario.invite("user\(index)"), let device = try? TestDevice() else { return }
                        do {
                            let result = try await device.personalizer.activate(
                                url: url, pin: "2468", alias: nil, enrollBiometric: false, enrollOTP: false)
                            acknowledged.state.withLock { $0.activations[result.activation.id.rawValue] = url }
                        } catch {
                            acknowledged.state.withLock { $0.unacknowledged.append(("user\(index)", url)) }
                            return
                        }
                    }
                }
                // Wrong PINs (five are free; the sixth locks for five seconds, which the
                // worker waits out, the seventh for a minute).
                group.addTask {
                    while !Task.isCancelled {
                        do {
                            let login = try await scenario.openLogin(service)
                            let information = try await victim.authenticator.start(url: login.authenticationURL)
                            if try await signAndFinish(information, device: victim, factors: [.device, .pin], pin: "0000").lockout != nil {
                                acknowledged.state.withLock { $0.wrongPins += 1 }
                            }
                        } catch TesseraKitError.pendingLockout {
                            try? await Task.sleep(for: .milliseconds(300))
                        } catch {
                            return
                        }
                    }
                }
                // Logins up to their code (not redeemed yet).
                group.addTask {
                    while !Task.isCancelled {
                        do {
                            let (device, _) = try await activateDevice(scenario, username: "user39")
                            while true {
                                let login = try await scenario.openLogin(service)
                                let information = try await device.authenticator.start(url: login.authenticationURL)
                                guard try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin,
                                    let code = try await scenario.complete(login)["code"]
                                else { return }
                                acknowledged.state.withLock { $0.codes.append((code, login.verifier)) }
                            }
                        } catch {
                            return
                        }
                    }
                }
            }
        }
        // Let the load run until each kind of work has been acknowledged at least once
        // (a loaded machine needs longer), then kill the node without warning mid-stream.
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            let ready = acknowledged.state.withLock { !$0.activations.isEmpty && $0.wrongPins > 0 && !$0.codes.isEmpty }
            if ready { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(700))
        first.kill()
        try await first.waitForExit()
        load.cancel()
        _ = await load.value

        let second = try await serve(directory: directory, port: port, database: database, token: token)
        defer { if second.isRunning { second.terminate() } }
        let seen = acknowledged.state.withLock { $0 }
        #expect(!seen.activations.isEmpty && seen.wrongPins > 0 && !seen.codes.isEmpty, "the load ran: \(seen.activations.count) activations, \(seen.wrongPins) wrong PINs, \(seen.codes.count) codes")

        // Every acknowledged code still redeems, once (first: codes live a minute).
        for (code, verifier) in seen.codes {
            let redeemed = try await scenario.redeem(code: code, service: service, verifier: verifier)
            #expect(redeemed.status == 200, "\(redeemed.text)")
        }
        // Every acknowledged activation is there, and its invitation is spent.
        let listed = try await scenario.activations()
        let ids = Set(listed.map(\.id))
        for (id, url) in seen.activations {
            #expect(ids.contains(id), "activation \(id) was acknowledged")
            let again = try TestDevice()
            await #expect(throws: TesseraKitError.self) {
                _ = try await again.personalizer.activate(url: url, pin: "2468", alias: nil, enrollBiometric: false, enrollOTP: false)
            }
            again.remove()
        }
        // An activation cut off by the kill is all there or not at all: its invitation is
        // spent exactly when the activation exists.
        for (username, url) in seen.unacknowledged {
            let exists = listed.contains { $0.username == username }
            let device = try TestDevice()
            let worked = (try? await device.personalizer.activate(url: url, pin: "2468", alias: nil, enrollBiometric: false, enrollOTP: false)) != nil
            #expect(worked != exists, "\(username): activation \(exists ? "exists" : "missing"), invitation \(worked ? "unused" : "spent")")
            device.remove()
        }
        // Every acknowledged failed attempt counted (one more may have committed unanswered).
        let victimRecord = try #require(listed.first { $0.username == "victim" })
        let failures = victimRecord.failedAttempts
        #expect(failures >= seen.wrongPins && failures <= seen.wrongPins + 1, "\(failures) stored, \(seen.wrongPins) acknowledged")
        victim.remove()
        second.terminate()
        try await second.waitForExit()
    }

    @Test("SIGTERM under load: requests in flight are answered, long polls released, nothing acknowledged lost, exit 0")
    func gracefulShutdown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-term-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try TestServerPort.free(restartable: true)
        let base = "http://127.0.0.1:\(port)"
        let database = try await TestDatabase.fresh()
        let token = "term-test-admin-token-\(UUID().uuidString)"
        let first = try await serve(directory: directory, port: port, database: database, token: token)
        defer { first.kill() }
        let scenario = try await Scenario.make(baseURL: base, adminToken: token)
        let service = try await scenario.createService(policy: "device+pin")
        let headers = ["Authorization": "Bearer \(token)"]

        // Writers: user after user, each acknowledged only by its 201.
        let outcome = WriteOutcome()
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for index in 0... {
                            let username = "w\(worker)-\(index)"
                            do {
                                let response = try await scenario.http.postJSON(
                                    "\(base)/admin/tenants/\(scenario.tenant)/users", ["username": username], headers: headers)
                                outcome.state.withLock {
                                    if response.status == 201 {
                                        $0.created.append(username)
                                    } else {
                                        $0.serverErrors.append("\(response.status) \(response.text)")
                                    }
                                }
                            } catch {
                                // Refused or cut: the node has stopped taking requests.
                                outcome.state.withLock { $0.refused += 1 }
                                return
                            }
                        }
                    }
                }
            }
        }
        // Browsers long-polling their login's status (up to 25 s each).
        var polls: [Task<Int, any Error>] = []
        for _ in 0..<3 {
            let login = try await scenario.openLogin(service)
            polls.append(Task { try await scenario.http.get(login.statusURL + "&wait=25&known=pending", headers: ["Cookie": login.cookie]).status })
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while outcome.state.withLock({ $0.created.count }) < 30 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(300))

        let stopping = ContinuousClock.now
        first.terminate()
        // The long polls are answered at once, not after their 25 s.
        for poll in polls {
            #expect(try await poll.value == 200)
        }
        #expect(ContinuousClock.now - stopping < .seconds(10), "long polls released by the shutdown")
        try await first.waitForExit()
        #expect(first.exitedNormally && first.terminationStatus == 0, "a clean exit after SIGTERM")
        #expect(ContinuousClock.now - stopping < .seconds(15))
        _ = await writers.value

        let seen = outcome.state.withLock { $0 }
        #expect(seen.created.count >= 30)
        #expect(seen.serverErrors.isEmpty, "requests in flight were answered properly: \(seen.serverErrors.prefix(3))")

        // After a restart every acknowledged user is there.
        let second = try await serve(directory: directory, port: port, database: database, token: token)
        defer { if second.isRunning { second.terminate() } }
        // (Creating one again is a conflict exactly when it exists.)
        var missing: [String] = []
        for username in seen.created {
            let again = try await scenario.http.postJSON(
                "\(base)/admin/tenants/\(scenario.tenant)/users", ["username": username], headers: headers)
            if again.status != 409 { missing.append("\(username): \(again.status)") }
        }
        #expect(missing.isEmpty, "acknowledged but missing: \(missing.prefix(5))")
    }
}
