import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraTesting
import Testing
@testable import TesseraKit

/// Signs an account process with device + PIN and finishes it.
func approve(_ information: AuthenticationUserInformation, device: TestDevice, pin: String = "2468") async throws
    -> AuthenticationResult
{
    var information = information
    try information.sign(factor: DeviceFactor())
    try information.sign(factor: PinFactor(pin))
    return try await device.personalizer.finish(information)
}

/// Logs in through the browser flow with the given factors; true when approved.
func logsIn(
    _ scenario: Scenario, _ service: Scenario.Service, device: TestDevice, factors: [FactorType] = [.device, .pin], pin: String = "2468",
    username: String? = nil
) async throws -> AuthenticationResult {
    let login = try await scenario.openLogin(service)
    let information = try await device.authenticator.start(url: login.authenticationURL, username: username)
    return try await signAndFinish(information, device: device, factors: factors, pin: pin)
}

extension AuthenticationResult {
    var process: AccountProcess? {
        switch self {
        case .apiAccessAddFactor(let process), .apiAccessChangePin(let process), .apiAccessRequestNewActivationData(let process),
            .apiAccessDelete(let process), .apiAccessListDevices(let process), .apiAccessUnregisterDevice(let process):
            process
        default: nil
        }
    }
}

/// The OAuth error code of a refused SDK call.
func serverError(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch TesseraKitError.server(_, let error, _) {
        return error
    } catch {
        return "\(error)"
    }
}

@Suite("Account processes", .tags(.live), .timeLimit(.minutes(5)))
struct AccountProcessTests {
    @Test("change PIN, with a lockout in the middle: the old PIN stops at once, the new one works")
    func changePin() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 1, waits: [60], permanentAfter: 8))
            let service = try await scenario.createService()
            try await scenario.createUser("alice")
            let (device, activated) = try await activateDevice(scenario, username: "alice")
            let personalizer = device.personalizer

            let information = try await personalizer.startChangePin(activation: activated.activation)
            #expect(information.purpose == .changePin)
            #expect(information.service == nil)
            #expect(information.requestedAuthenticators.contains([.device, .pin]))
            // A wrong PIN in the process counts like one in a login: same counter, same result.
            let failed = try #require(try await approve(information, device: device, pin: "0000").lockout)
            #expect(try await scenario.activations(username: "alice").first?.failedAttempts == 1)
            let result = try await approve(failed.1, device: device)
            guard case .apiAccessChangePin(let process) = result else { Issue.record("expected apiAccessChangePin, got \(result)"); return }
            #expect(try await scenario.activations(username: "alice").first?.failedAttempts == 0)
            try await personalizer.finishChangePin(process, newPin: "97531")

            #expect(try await logsIn(scenario, service, device: device, pin: "2468").lockout != nil, "the old PIN is refused")
            // Changing the PIN does not clear the counter; only a successful authentication does.
            #expect(try await scenario.activations(username: "alice").first?.failedAttempts == 1)
            #expect(try await logsIn(scenario, service, device: device, pin: "97531").isUserLogin)
            #expect(try await scenario.activations(username: "alice").first?.failedAttempts == 0)
            device.remove()
        }
    }

    @Test("add factor: OTP, and biometrics enrolled again after the platform's set changed")
    func addFactor() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(policy: "device+pin,device+biometric,device+otp")
            try await scenario.createUser("bea")
            let (device, activated) = try await activateDevice(scenario, username: "bea", biometric: true)
            let personalizer = device.personalizer

            // OTP was not enrolled: the process adds it and hands out the provisioning URI once.
            let otp = try await approve(try await personalizer.startAddAuthenticationFactor(.otp, activation: activated.activation), device: device)
            guard case .apiAccessAddFactor(let otpProcess) = otp else { Issue.record("expected apiAccessAddFactor, got \(otp)"); return }
            #expect(otpProcess.description?.factor == .otp)
            let added = try await personalizer.finishAddFactor(otpProcess)
            #expect(Set(added.activation.factors) == [.device, .pin, .biometric, .otp])
            #expect(added.otpProvisioningURI?.hasPrefix("otpauth://totp/") == true)
            #expect(try await logsIn(scenario, service, device: device, factors: [.device, .otp]).isUserLogin)

            // The biometric set changes: the factor fails on the device until it is enrolled again.
            try await device.biometrics.simulateBiometricChange()
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            await #expect(throws: TesseraKitError.self) { _ = try await device.authenticator.biometricFactor(for: information, reason: "test") }
            let again = try await approve(
                try await personalizer.startAddAuthenticationFactor(.biometric, activation: activated.activation), device: device)
            guard case .apiAccessAddFactor(let biometricProcess) = again else { Issue.record("expected apiAccessAddFactor"); return }
            _ = try await personalizer.finishAddFactor(biometricProcess)
            #expect(try await logsIn(scenario, service, device: device, factors: [.device, .biometric]).isUserLogin)
            device.remove()
        }
    }

    @Test("new activation data: the new device needs the chosen PIN; the old one keeps working unless retired")
    func newActivationData() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("carl")
            let (old, activated) = try await activateDevice(scenario, username: "carl")

            let result = try await approve(try await old.personalizer.startRequestNewActivationData(activation: activated.activation), device: old)
            guard case .apiAccessRequestNewActivationData(let process) = result else { Issue.record("got \(result)"); return }
            let data = try await old.personalizer.finishRequestNewActivationData(process, newPin: "13579", alias: "phone")
            let phone = try TestDevice()
            // The link alone is not enough: the PIN chosen on the old device must match.
            #expect(await serverError { _ = try await phone.personalizer.activate(url: data.url, pin: "99999") } == "invalid_grant")
            let made = try await phone.personalizer.activate(url: data.url, pin: "13579")
            #expect(made.activation.alias == nil || made.activation.alias == "phone")
            #expect(try await scenario.activations(username: "carl").contains { $0.alias == "phone" })
            #expect(try await logsIn(scenario, service, device: phone, pin: "13579").isUserLogin)
            #expect(try await logsIn(scenario, service, device: old).isUserLogin, "the old activation keeps working")

            // With retire, the old activation goes when the new device has activated.
            let retiring = try await approve(try await old.personalizer.startRequestNewActivationData(activation: activated.activation), device: old)
            let retireData = try await old.personalizer.finishRequestNewActivationData(try #require(retiring.process), newPin: "24680", retire: true)
            #expect(try await logsIn(scenario, service, device: old).isUserLogin, "still working until the new device activates")
            let tablet = try TestDevice()
            _ = try await tablet.personalizer.activate(url: retireData.url, pin: "24680")
            #expect(await serverError { _ = try await logsIn(scenario, service, device: old) } == "invalid_token")
            #expect(try await scenario.activations(username: "carl").count == 2)
            for device in [old, phone, tablet] { device.remove() }
        }
    }

    @Test("delete: gone on the server and the device at once; the user's other device keeps working and sees it")
    func delete() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("dana")
            let (first, firstActivation) = try await activateDevice(scenario, username: "dana")
            let (second, secondActivation) = try await activateDevice(scenario, username: "dana")
            // A login the first device has taken up but not finished when it is deleted.
            let login = try await scenario.openLogin(service)
            let pending = try await first.authenticator.start(url: login.authenticationURL)

            let result = try await approve(try await first.personalizer.startDeletion(activation: firstActivation.activation), device: first)
            guard case .apiAccessDelete(let process) = result else { Issue.record("got \(result)"); return }
            try await first.personalizer.finishDeletion(process)
            #expect(try await first.personalizer.activations().isEmpty, "the keys are gone from the device")
            #expect(try await scenario.activations(username: "dana").map { $0.id } == [secondActivation.activation.id.rawValue])
            // Its proofs are refused from that moment.
            #expect(await serverError { _ = try await signAndFinish(pending, device: first, factors: [.device, .pin]) } != nil)

            // The other device sees the deletion at once and keeps working.
            let listed = try await approve(try await second.personalizer.startListDevices(activation: secondActivation.activation), device: second)
            let devices = try await second.personalizer.finishListDevices(try #require(listed.process))
            #expect(devices.map(\.activationID) == [secondActivation.activation.id])
            #expect(devices.first?.current == true)
            #expect(try await logsIn(scenario, service, device: second).isUserLogin)
            first.remove()
            second.remove()
        }
    }

    @Test("merge: an invitation joins the existing activation, which then signs in as both users")
    func merge() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(attributes: ["email"])
            try await scenario.createUser("erin", attributes: ["email": "erin@home.example"])
            try await scenario.createUser("erin.work", attributes: ["email": "erin@corp.example"])
            let (device, activated) = try await activateDevice(scenario, username: "erin")
            let invitation = try await scenario.invite("erin.work")

            let candidate = try #require(try await device.personalizer.mergeCandidate(for: invitation))
            #expect(candidate.id == activated.activation.id)
            let information = try await device.personalizer.startMerge(url: invitation, into: candidate)
            #expect(information.process?.username == "erin.work")
            let result = try await approve(information, device: device)
            guard case .apiAccessMergeComplete(let identifier) = result else { Issue.record("got \(result)"); return }

            // The invitation is spent.
            #expect(await serverError { _ = try await TestDevice().personalizer.activate(url: invitation, pin: "1111") } == "invalid_grant")
            // Same keys, same PIN: logs in as either user; the work login's subject is the idm identifier.
            let (login, code) = try await {
                let login = try await scenario.openLogin(service)
                let info = try await device.authenticator.start(url: login.authenticationURL, username: "erin.work")
                #expect(try await signAndFinish(info, device: device, factors: [.device, .pin]).isUserLogin)
                return (login, try #require(try await scenario.complete(login)["code"]))
            }()
            let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
            let claims = try await verifyIDToken(try #require(tokens["id_token"] as? String), scenario: scenario, clientID: service.clientID)
            #expect(claims["sub"] as? String == identifier.rawValue)
            #expect(claims["email"] as? String == "erin@corp.example")
            #expect(try await logsIn(scenario, service, device: device, username: "erin").isUserLogin)
            #expect(try await scenario.activations(username: "erin").count == 1)
            // The admin sees the merge (and can revoke the activation) under either user.
            #expect(try await scenario.activations(username: "erin.work").first?.mergedUsers == ["erin.work"])
            device.remove()
        }
    }

    @Test("devices and unregister; admin revoke; history and the audit log")
    func devicesHistoryAudit() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("finn")
            let (laptop, laptopActivation) = try await activateDevice(scenario, username: "finn")
            let (phone, phoneActivation) = try await activateDevice(scenario, username: "finn")
            #expect(try await logsIn(scenario, service, device: laptop).isUserLogin)
            #expect(try await logsIn(scenario, service, device: laptop, pin: "0000").lockout != nil)

            let listed = try await approve(try await laptop.personalizer.startListDevices(activation: laptopActivation.activation), device: laptop)
            let devices = try await laptop.personalizer.finishListDevices(try #require(listed.process))
            #expect(Set(devices.map(\.activationID)) == [laptopActivation.activation.id, phoneActivation.activation.id])
            #expect(devices.first { $0.current }?.activationID == laptopActivation.activation.id)
            #expect(devices.allSatisfy { $0.alias == "test" && $0.factors == [.device, .pin] })
            #expect(devices.first { $0.current }?.lastUsedAt != nil)

            let unregister = try await approve(
                try await laptop.personalizer.startUnregisterDevice(phoneActivation.activation.id, activation: laptopActivation.activation),
                device: laptop)
            #expect(try await laptop.personalizer.finishUnregisterDevice(try #require(unregister.process)) == phoneActivation.activation.id)
            #expect(await serverError { _ = try await logsIn(scenario, service, device: phone) } == "invalid_token")

            let history = try await laptop.personalizer.history(activation: laptopActivation.activation)
            let summary = history.reversed().map { "\($0.purpose.rawValue):\($0.outcome)" }
            #expect(
                summary == [
                    "login:approved", "login:failed", "list_devices:approved", "list_devices:completed", "unregister_device:approved",
                    "unregister_device:completed",
                ])
            #expect(history.last?.service == "Test Service")
            #expect(history.last?.factors == [.device, .pin])
            #expect(history.last?.username == "finn")

            try await scenario.revoke(laptopActivation.activation.id.rawValue)
            #expect(await serverError { _ = try await logsIn(scenario, service, device: laptop) } == "invalid_token")
            let actions = try await scenario.audit().compactMap { $0.action }
            for action in ["tenant.create", "service.create", "user.create", "invitation.create", "activation.create", "activation.unregister", "activation.revoke"] {
                #expect(actions.contains(action), "audit has \(action)")
            }
            let unregistered = try #require(try await scenario.audit().first { $0.action == "activation.unregister" })
            #expect(unregistered.actor == "activation:\(laptopActivation.activation.id.rawValue)")
            #expect(unregistered.target == phoneActivation.activation.id.rawValue)
            laptop.remove()
            phone.remove()
        }
    }

    @Test("stale and foreign process objects: a login approval never changes a PIN; replayed, unapproved, another activation's")
    func staleProcesses() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("gus")
            let (device, activated) = try await activateDevice(scenario, username: "gus")
            let (other, _) = try await activateDevice(scenario, username: "gus")
            let activation = activated.activation

            // An approved login dressed up as a PIN change is refused by the server.
            let login = try await scenario.openLogin(service)
            let loginInfo = try await device.authenticator.start(url: login.authenticationURL)
            #expect(try await signAndFinish(loginInfo, device: device, factors: [.device, .pin]).isUserLogin)
            let forged = AccountProcess(
                requestID: loginInfo.requestID, purpose: .changePin, expiresAt: .distantFuture, description: nil, activation: activation,
                pinSalt: "AAAAAAAAAAAAAAAAAAAAAA")
            #expect(await serverError { try await device.personalizer.finishChangePin(forged, newPin: "1111") } == "not_found")
            // ...and by the SDK, which checks the purpose before any call.
            let deletion = try #require(try await approve(try await device.personalizer.startDeletion(activation: activation), device: device).process)
            await #expect(throws: TesseraKitError.self) { try await device.personalizer.finishChangePin(deletion, newPin: "1111") }

            // Replayed: a completed process cannot be completed again.
            let change = try #require(try await approve(try await device.personalizer.startChangePin(activation: activation), device: device).process)
            try await device.personalizer.finishChangePin(change, newPin: "2468")
            #expect(await serverError { try await device.personalizer.finishChangePin(change, newPin: "8642") } == "invalid_grant")
            #expect(try await logsIn(scenario, service, device: device, pin: "2468").isUserLogin, "the replay changed nothing")

            // Not approved: a started process whose proof was never given.
            let started = try await device.personalizer.startChangePin(activation: activation)
            let unapproved = AccountProcess(
                requestID: started.requestID, purpose: .changePin, expiresAt: started.expiresAt, description: nil, activation: activation,
                pinSalt: "AAAAAAAAAAAAAAAAAAAAAA")
            #expect(await serverError { try await device.personalizer.finishChangePin(unapproved, newPin: "8642") } == "invalid_grant")

            // Another activation's process object is refused.
            let otherActivation = try #require(try await other.personalizer.activations().first)
            let theirResult = try await approve(try await other.personalizer.startChangePin(activation: otherActivation), device: other)
            let theirs = try #require(theirResult.process)
            let stolen = AccountProcess(
                requestID: theirs.requestID, purpose: .changePin, expiresAt: theirs.expiresAt, description: nil, activation: activation,
                pinSalt: theirs.pinSalt)
            #expect(await serverError { try await device.personalizer.finishChangePin(stolen, newPin: "8642") } == "access_denied")

            #expect(try await logsIn(scenario, service, device: device, pin: "2468").isUserLogin)
            device.remove()
            other.remove()
        }
    }

    @Test("an approved process left until its request expires is refused and changes nothing")
    func expiredProcess() async throws {
        // A lifetime long enough for start and approval while the whole suite runs on two
        // cores (6 s was not, on PostgreSQL, nor was 15 s in a CI PostgreSQL pass), short
        // enough to wait out beside the rest of the suite.
        try await withServer(requestLifetime: 40) { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("ivo")
            let (device, activated) = try await activateDevice(scenario, username: "ivo")
            let late = try #require(try await approve(try await device.personalizer.startChangePin(activation: activated.activation), device: device).process)
            try await Task.sleep(for: .seconds(max(0, late.expiresAt.timeIntervalSinceNow) + 1.2))
            #expect(await serverError { try await device.personalizer.finishChangePin(late, newPin: "8642") } == "expired_token")
            #expect(try await logsIn(scenario, service, device: device, pin: "2468").isUserLogin, "the PIN is unchanged")
            device.remove()
        }
    }

    @Test("concurrent processes on one activation; one process completed twice in parallel succeeds once")
    func concurrentProcesses() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(policy: "device+pin,device+otp")
            try await scenario.createUser("hal")
            let (device, activated) = try await activateDevice(scenario, username: "hal")
            let activation = activated.activation
            let personalizer = device.personalizer

            async let changeStart = personalizer.startChangePin(activation: activation)
            async let otpStart = personalizer.startAddAuthenticationFactor(.otp, activation: activation)
            let (changeInfo, otpInfo) = try await (changeStart, otpStart)
            async let changeResult = approve(changeInfo, device: device)
            async let otpResult = approve(otpInfo, device: device)
            let (change, otp) = try await (changeResult, otpResult)
            let changeProcess = try #require(change.process)
            let otpProcess = try #require(otp.process)
            #expect(changeProcess.purpose == .changePin && otpProcess.purpose == .addFactor)

            // The same PIN change completed twice at once: exactly one wins.
            async let a: Bool = (try? await personalizer.finishChangePin(changeProcess, newPin: "5555")) != nil
            async let b: Bool = (try? await personalizer.finishChangePin(changeProcess, newPin: "6666")) != nil
            async let c = personalizer.finishAddFactor(otpProcess)
            let (first, second, added) = try await (a, b, c)
            #expect([first, second].filter { $0 }.count == 1)
            #expect(added.activation.factors.contains(.otp))
            let newPin = first ? "5555" : "6666"
            #expect(try await logsIn(scenario, service, device: device, pin: newPin).isUserLogin)
            #expect(try await logsIn(scenario, service, device: device, factors: [.device, .otp]).isUserLogin)
            device.remove()
        }
    }

    @Test("activation data: parallel PIN guesses get five tries in all; it dies with the activation that made it; a locked activation completes nothing")
    func activationDataLimits() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 0, waits: [60], permanentAfter: 9))
            let service = try await scenario.createService()
            try await scenario.createUser("ida")
            let (device, activated) = try await activateDevice(scenario, username: "ida")
            let personalizer = device.personalizer
            let activation = activated.activation

            let first = try #require(try await approve(try await personalizer.startRequestNewActivationData(activation: activation), device: device).process)
            let guessed = try await personalizer.finishRequestNewActivationData(first, newPin: "13579")
            let refusals = try await withThrowingTaskGroup(of: Bool.self) { group in
                for guess in 0..<8 {
                    group.addTask {
                        let thief = try TestDevice()
                        defer { thief.remove() }
                        return (try? await thief.personalizer.activate(url: guessed.url, pin: "1000\(guess)")) == nil
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(refusals == 8)
            #expect(
                await serverError { _ = try await TestDevice().personalizer.activate(url: guessed.url, pin: "13579") } == "invalid_grant",
                "after five attempts even the right PIN is refused")

            // Activation data outlives nothing: deleting the activation that made it voids it.
            let second = try #require(try await approve(try await personalizer.startRequestNewActivationData(activation: activation), device: device).process)
            let orphan = try await personalizer.finishRequestNewActivationData(second, newPin: "24680")
            let (other, _) = try await activateDevice(scenario, username: "ida")
            let unregister = try await approve(
                try await other.personalizer.startUnregisterDevice(activation.id, activation: try #require(try await other.personalizer.activations().first)),
                device: other)
            _ = try await other.personalizer.finishUnregisterDevice(try #require(unregister.process))
            #expect(await serverError { _ = try await TestDevice().personalizer.activate(url: orphan.url, pin: "24680") } == "invalid_grant")

            // An approved process is not completed while the activation is locked.
            let otherActivation = try #require(try await other.personalizer.activations().first)
            let approved = try #require(try await approve(try await other.personalizer.startDeletion(activation: otherActivation), device: other).process)
            #expect(try await logsIn(scenario, service, device: other, pin: "0000").lockout != nil)
            await #expect(throws: TesseraKitError.self) { try await other.personalizer.finishDeletion(approved) }
            #expect(try await scenario.activations(username: "ida").count == 1, "nothing was deleted")
            device.remove()
            other.remove()
        }
    }
}
