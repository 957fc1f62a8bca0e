import Foundation
import Synchronization
import Testing
import TesseraCore
import TesseraCrypto
@testable import TesseraKit
import TesseraTesting
import TesseraTestSupport

@Suite("Biometric keys against a server: prompts and removal", .tags(.live), .timeLimit(.minutes(5)))
struct KeyStoreTests {
    @Test("one biometric prompt per enrolment and per login: the check's context goes with the biometric key's signature")
    func oneBiometricPrompt() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(policy: "device+biometric")
            try await scenario.createUser("fay")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prompts-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let store = MemoryKeyStore()
            let gate = CountingBiometricGate(stateFile: directory.appendingPathComponent("biometrics"))
            let transport = RecordingTransport()
            let personalizer = Personalizer(keyStore: store, transport: transport, biometrics: gate)
            let authenticator = Authenticator(keyStore: store, transport: transport, biometrics: gate)
            _ = try await personalizer.activate(url: try await scenario.invite("fay"), pin: "2468", enrollBiometric: true)
            #expect(gate.prompts == 1 && store.prompts == 0, "enrolment: one check, and the new key signs under it")
            #expect(gate.finishedChecks == 1, "the enrolment's check releases nothing after its signature")
            for round in 1...2 {
                let login = try await scenario.openLogin(service)
                var information = try await authenticator.start(url: login.authenticationURL)
                try information.sign(factor: DeviceFactor())
                try information.sign(factor: try await authenticator.biometricFactor(for: information, reason: "Sign in"))
                guard case .userLogin = try await authenticator.finish(information) else {
                    Issue.record("a biometric login")
                    return
                }
                #expect(gate.prompts == 1 + round && store.prompts == 0, "login \(round): one prompt, none from the key")
                #expect(gate.finishedChecks == 1 + round, "login \(round): the check is finished once the proof is signed")
            }
        }
    }

    @Test("biometrics enrolled again twice leave one biometric key on the device; deleting the activation leaves nothing of it")
    func reEnrolment() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(policy: "device+pin,device+biometric")
            try await scenario.createUser("kim")
            let (device, activated) = try await activateDevice(scenario, username: "kim", biometric: true)
            let personalizer = device.personalizer
            func biometricKeys() throws -> [String] {
                try FileManager.default.contentsOfDirectory(atPath: device.directory.path)
                    .filter { $0.hasPrefix("key-") && $0.contains("biometric") && !$0.hasSuffix(".tmp") }
            }
            #expect(try biometricKeys().count == 1)
            for _ in 0..<2 {
                try await device.biometrics.simulateBiometricChange()
                let current = try #require(try await personalizer.activations().first)
                let process = try await approve(try await personalizer.startAddAuthenticationFactor(.biometric, activation: current), device: device)
                guard case .apiAccessAddFactor(let added) = process else { Issue.record("expected apiAccessAddFactor, got \(process)"); return }
                _ = try await personalizer.finishAddFactor(added)
                let keys = try biometricKeys()
                #expect(keys.count == 1, "the replaced key is gone: \(keys)")
            }
            #expect(try await logsIn(scenario, service, device: device, factors: [.device, .biometric]).isUserLogin)

            let current = try #require(try await personalizer.activations().first)
            let deletion = try await approve(try await personalizer.startDeletion(activation: current), device: device)
            guard case .apiAccessDelete(let process) = deletion else { Issue.record("expected apiAccessDelete, got \(deletion)"); return }
            try await personalizer.finishDeletion(process)
            let prefix = activated.activation.storageLabel
            let folders = [device.directory, device.directory.appendingPathComponent("after-first-unlock")]
            let left = try folders.flatMap { try FileManager.default.contentsOfDirectory(atPath: $0.path) }.filter { $0.contains(prefix) }
            #expect(left.isEmpty, "left behind: \(left)")
            device.remove()
        }
    }
}
