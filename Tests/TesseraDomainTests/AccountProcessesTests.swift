import Foundation
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraRecords
import TesseraStore
import TesseraTestSupport
import Testing

/// Account processes at the use cases, one purpose at a time: started by the device,
/// finished like a login, completed once.
@Suite("Account processes (domain, no HTTP)")
struct AccountProcessesTests {
    /// Starts `purpose` for the phone and finishes it with device + PIN: the approved grant.
    func approved(_ input: ProcessStartRequest, phone: Phone, harness: Harness, tenant: TenantRecord) async throws -> ProcessGrant {
        let caller = try await phone.caller("POST", "/t/demo/device/processes", harness: harness, tenant: tenant)
        let challenge = try await harness.domain.accountProcesses.start(input, caller: caller, tenant: tenant, logger: harness.logger)
        let finished = try await phone.finish(challenge, harness: harness, tenant: tenant)
        return try requireValue(finished.response.process)
    }

    func complete(_ grant: ProcessGrant, _ input: ProcessCompletionRequest, phone: Phone, harness: Harness, tenant: TenantRecord)
        async throws -> ProcessCompletion
    {
        let caller = try await phone.caller("POST", "/t/demo/device/processes/\(grant.requestID)/complete", harness: harness, tenant: tenant)
        return try await harness.domain.accountProcesses.complete(
            requestID: grant.requestID, input: input, caller: caller, tenant: tenant, logger: harness.logger)
    }

    @Test("a new PIN replaces the old one, once: the process cannot be completed twice, the old PIN fails and the new one logs in")
    func changePin() async throws {
        let harness = try await Harness.make()
        let (tenant, service, _) = try await harness.tenant(lockout: #"{"free_attempts":3,"waits":[30,60],"permanent_after":10}"#)
        var phone = Phone()
        try await phone.activate(code: try await harness.invitationCode(tenant), harness: harness, tenant: tenant)

        let grant = try await approved(ProcessStartRequest(purpose: .changePin), phone: phone, harness: harness, tenant: tenant)
        let salt = try requireValue(grant.pinSalt.flatMap(Base64URL.decode))
        let newKey = try PinProof.deriveKeyData(pin: "135790", salt: salt)
        let completion = try await complete(
            grant, ProcessCompletionRequest(pinKey: Base64URL.encode(newKey)), phone: phone, harness: harness, tenant: tenant)
        #expect(completion.purpose == .changePin)
        await #expect(throws: DomainError.self) {
            _ = try await complete(grant, ProcessCompletionRequest(pinKey: Base64URL.encode(newKey)), phone: phone, harness: harness, tenant: tenant)
        }

        // The phone still proves the old PIN's key: refused and counted.
        let refused = try await phone.login(try await harness.loginRequest(service, tenant: tenant), harness: harness, tenant: tenant)
        #expect(refused.response.result == .lockout)
        phone.pinKey = newKey
        let accepted = try await phone.login(try await harness.loginRequest(service, tenant: tenant), harness: harness, tenant: tenant)
        #expect(accepted.response.result == .userLogin)
        let audit = try await harness.store.read { try await $0.audit(tenantID: tenant.id, since: nil, limit: 100) }
        #expect(audit.contains { $0.action == AuditAction.pinChange.rawValue && $0.actor == "activation:\(phone.activationID)" })
        try await harness.close()
    }

    @Test("listing devices marks the caller and writes no audit entry; unregistering names another activation of the same user only")
    func devices() async throws {
        let harness = try await Harness.make()
        let (tenant, _, _) = try await harness.tenant()
        var phone = Phone()
        try await phone.activate(code: try await harness.invitationCode(tenant), harness: harness, tenant: tenant)
        var tablet = Phone()
        try await tablet.activate(code: try await harness.invitationCode(tenant), harness: harness, tenant: tenant)

        let listing = try await complete(
            try await approved(ProcessStartRequest(purpose: .listDevices), phone: phone, harness: harness, tenant: tenant),
            ProcessCompletionRequest(), phone: phone, harness: harness, tenant: tenant)
        let devices = try requireValue(listing.devices)
        #expect(Set(devices.map(\.activationID)) == [phone.activationID, tablet.activationID])
        #expect(devices.filter(\.current).map(\.activationID) == [phone.activationID])

        let removal = try await complete(
            try await approved(
                ProcessStartRequest(purpose: .unregisterDevice, target: tablet.activationID), phone: phone, harness: harness, tenant: tenant),
            ProcessCompletionRequest(), phone: phone, harness: harness, tenant: tenant)
        #expect(removal.removed == tablet.activationID)
        #expect(try await harness.store.read { try await $0.activation(id: tablet.activationID) } == nil)
        let audit = try await harness.store.read { try await $0.audit(tenantID: tenant.id, since: nil, limit: 100) }
        let unregistered = try requireValue(audit.first { $0.action == AuditAction.activationUnregister.rawValue })
        #expect(unregistered.target == tablet.activationID.rawValue)
        #expect(!audit.contains { $0.action == AuditAction.devicesList.rawValue })
        try await harness.close()
    }
}
