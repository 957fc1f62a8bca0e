import Foundation
import SQLKit
import TesseraCore
import TesseraDomain
import TesseraRecords
import TesseraTestSupport
import Testing
@testable import TesseraStore

/// Attempts, lockout and grants straight on the domain: a temporary SQLite store, a clock
/// the test moves, no HTTP.
@Suite("Domain: attempts, lockout and grants")
struct AttemptsTests {
    @Test("ordered ids: fourteen zero-padded hex digits of microseconds, then a random part; later ids sort after earlier ones")
    func orderedIDs() async throws {
        let first = orderedID()
        try await Task.sleep(for: .milliseconds(2))
        let second = orderedID()
        #expect(first < second)
        for id in [first, second] {
            let time = id.prefix(14)
            #expect(time.allSatisfy { $0.isHexDigit && !$0.isUppercase }, "\(id)")
            let micros = try #require(UInt64(time, radix: 16))
            #expect(abs(Double(micros) / 1_000_000 - Date().timeIntervalSince1970) < 60)
            #expect(id.count == 14 + 11)
        }
    }

    @Test("a wrong PIN counts once and locks by the policy; the lock ends when the clock passes it; a success resets the count")
    func lockoutOnTheClock() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let (tenant, service, _) = try await harness.tenant()
        var phone = Phone()
        try await phone.activate(code: try await harness.invitationCode(tenant), harness: harness, tenant: tenant)

        let requestID = try await harness.loginRequest(service, tenant: tenant)
        let failed = try await phone.login(requestID, pin: "000000", harness: harness, tenant: tenant)
        #expect(failed.response.result == .lockout)
        let lock = try #require(failed.lockSet, "no free attempts: the first failure locks")
        #expect(lock.lockedUntil == harness.clock.now().addingTimeInterval(30))
        #expect(failed.response.userInformation != nil, "the device may try again once the wait is over")

        // While the lock runs, the device's next call is refused before any factor is checked.
        let caller = try await phone.caller("POST", "/t/demo/device/authentications/\(requestID)/claim", harness: harness, tenant: tenant)
        await #expect(throws: DomainError.pendingLockout(lock)) {
            _ = try await harness.domain.attempts.claim(
                requestID: requestID, selection: ClaimRequest(userID: nil), caller: caller, tenant: tenant, logger: harness.logger)
        }

        harness.clock.advance(by: 31)
        let retry = try await phone.finish(
            try #require(failed.response.userInformation), harness: harness, tenant: tenant)
        #expect(retry.response.result == .userLogin)
        #expect(retry.lockSet == nil)
        let activation = try #require(try await harness.store.read { try await $0.activation(id: phone.activationID) })
        #expect(activation.failedAttempts == 0)
        #expect(harness.notices.keys.contains("request:\(requestID)"), "the login page hears of the answer")
    }

    @Test("a request taken up by one device cannot be claimed or finished by another")
    func claimedElsewhere() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let (tenant, service, _) = try await harness.tenant()
        var first = Phone()
        try await first.activate(code: try await harness.invitationCode(tenant), harness: harness, tenant: tenant)
        var second = Phone(pin: "135790")
        try await second.activate(code: try await harness.invitationCode(tenant), harness: harness, tenant: tenant)

        let requestID = try await harness.loginRequest(service, tenant: tenant)
        let caller = try await first.caller("POST", "/t/demo/device/authentications/\(requestID)/claim", harness: harness, tenant: tenant)
        let challenge = try await harness.domain.attempts.claim(
            requestID: requestID, selection: ClaimRequest(userID: nil), caller: caller, tenant: tenant, logger: harness.logger)
        let other = try await second.caller("POST", "/t/demo/device/authentications/\(requestID)/claim", harness: harness, tenant: tenant)
        let refused = await #expect(throws: DomainError.self) {
            _ = try await harness.domain.attempts.claim(
                requestID: requestID, selection: ClaimRequest(userID: nil), caller: other, tenant: tenant, logger: harness.logger)
        }
        #expect(refused?.code == .requestClaimed)
        let finished = await #expect(throws: DomainError.self) {
            _ = try await second.finish(challenge, harness: harness, tenant: tenant)
        }
        #expect(finished?.code == .requestClaimed)
        let otherActivation = try #require(try await harness.store.read { try await $0.activation(id: second.activationID) })
        #expect(otherActivation.failedAttempts == 0, "a refused submission counts nothing")
    }

    @Test("a code is redeemed once; its second use ends the session and its access tokens")
    func codeOnce() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let (tenant, service, _) = try await harness.tenant()
        let code = try await harness.approvedCode(service, tenant: tenant)
        let tokens = try await harness.redeem(code, service, tenant: tenant)
        #expect(try await harness.domain.grants.userInfo(accessToken: tokens.accessToken, tenant: tenant)["email"] == "a@example.com")
        let again = await #expect(throws: DomainError.self) { _ = try await harness.redeem(code, service, tenant: tenant) }
        #expect(again?.code == .invalidGrant)
        // The second use of the code revoked its family: its access token is dead too.
        await #expect(throws: DomainError.invalidToken("the access token is not valid")) {
            _ = try await harness.domain.grants.userInfo(accessToken: tokens.accessToken, tenant: tenant)
        }
    }

    @Test("refresh rotation: each token once; a copied token revokes the whole family")
    func refreshReuse() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let (tenant, service, _) = try await harness.tenant()
        let first = try await harness.redeem(try await harness.approvedCode(service, tenant: tenant), service, tenant: tenant)
        let grants = harness.domain.grants
        let second = try await grants.refresh(try #require(first.refreshToken), scope: nil, client: service, tenant: tenant)
        #expect(second.refreshToken != first.refreshToken)
        let reuse = await #expect(throws: DomainError.self) {
            _ = try await grants.refresh(try #require(first.refreshToken), scope: nil, client: service, tenant: tenant)
        }
        #expect(reuse?.code == .invalidGrant)
        let afterTheft = await #expect(throws: DomainError.self) {
            _ = try await grants.refresh(try #require(second.refreshToken), scope: nil, client: service, tenant: tenant)
        }
        #expect(afterTheft?.code == .invalidGrant)
        await #expect(throws: DomainError.invalidToken("the access token is not valid")) {
            _ = try await grants.userInfo(accessToken: second.accessToken, tenant: tenant)
        }
    }

    @Test("a stored lockout policy that does not decode is a corrupt row, never the default policy")
    func corruptPolicy() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let (tenant, _, _) = try await harness.tenant()
        #expect(tenant.lockoutPolicy.freeAttempts == 0)
        try await harness.store.transaction { tx in
            try await tx.db.raw("UPDATE tenants SET lockout_policy = '{not json' WHERE id = \(bind: tenant.id)").run()
        }
        let error = await #expect(throws: StoreError.self) {
            _ = try await harness.store.read { try await $0.tenant(named: "demo") }
        }
        #expect(error?.code == .corrupt)
    }
}
