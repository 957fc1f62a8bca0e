import Foundation
import HTTPTypes
import HummingbirdTesting
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraRecords
import TesseraStore
import TesseraTesting
import Testing

/// The claim and the finish check a device's signature with a key this node kept from the
/// device's earlier calls (`DeviceKeyCache`) instead of reading the activation first: what
/// the kept copy says about the activation is never trusted, because both read it again in
/// their transaction. A device revoked after its key was kept is refused by both (that the
/// spends of a refused finish roll back is `SQLStoreTests.deviceCallRead`'s).
@Suite("Kept device keys")
struct KeptDeviceKeyTests {
    @Test("a device revoked after this node kept its key is refused at the finish and at the claim")
    func revokedAfterKept() async throws {
        let harness = try await RouterHarness.make(background: false)
        try await harness.run { client in
            let shop = try await StatementCountTests.Shop.make(client: client, clock: harness.clock)
            let (device, authorize) = (shop.device, shop.authorize)
            let activationID = try #require(try await device.personalizer.activations().first?.id)
            var browser = RouterBrowser(client: client)

            // A login: the claim reads the activation and keeps its key; the finish uses it.
            let first = try await browser.get(authorize)
            #expect(try await device.approve(try await device.start(first)))

            // The next login is claimed with the kept key, then the device is revoked.
            let second = try await browser.get(authorize)
            let secondID = try RouterDevice.requestID(on: second)
            let information = try await device.start(second)
            let (revoked, _) = try await client.admin(.post, "/admin/activations/\(activationID)/revoke")
            #expect(revoked == .ok)
            await #expect(throws: (any Error).self) { _ = try await device.approve(information) }
            // Not approved: the revocation ended the request, and the browser gets no code.
            let complete = try await browser.get("/t/demo/authorize/complete?request=\(secondID)")
            let location = complete.headers[.location] ?? ""
            #expect(location.contains("error=access_denied") && !location.contains("code="), "\(complete.status) \(location)")
            let stored = try await harness.store.read { try await $0.authRequest(id: TesseraCore.RequestID(rawValue: secondID)) }
            #expect(stored?.status == .expired && stored?.authTime == nil, "\(String(describing: stored))")

            // A new login is not claimed either.
            let third = try await browser.get(authorize)
            await #expect(throws: (any Error).self) { _ = try await device.start(third) }
        }
    }

    @Test("a user disabled, or a device locked, after this node kept the device's key is refused at the claim")
    func disabledOrLockedAfterKept() async throws {
        let harness = try await RouterHarness.make(background: false)
        try await harness.run { client in
            let shop = try await StatementCountTests.Shop.make(client: client, clock: harness.clock)
            let (device, authorize) = (shop.device, shop.authorize)
            var browser = RouterBrowser(client: client)
            #expect(try await device.approve(try await device.start(try await browser.get(authorize))))

            // Disabled: the claim is refused; enabled again, the device signs in.
            let (disabled, _) = try await client.admin(.post, "/admin/tenants/demo/users/\(shop.userID)/disable")
            #expect(disabled == .ok)
            await #expect(throws: (any Error).self) { _ = try await device.start(try await browser.get(authorize)) }
            let (enabled, _) = try await client.admin(.post, "/admin/tenants/demo/users/\(shop.userID)/enable")
            #expect(enabled == .ok)
            #expect(try await device.approve(try await device.start(try await browser.get(authorize))))

            // Wrong PINs until the activation is locked: from then on the claim answers the lock.
            var refusal: (any Error)?
            for _ in 0..<10 {
                let information: AuthenticationUserInformation
                do {
                    information = try await device.start(try await browser.get(authorize))
                } catch {
                    refusal = error
                    break
                }
                _ = try? await device.approve(information, pin: "999999")
            }
            guard case .pendingLockout? = refusal as? TesseraKitError else {
                Issue.record("the claim of a locked device was not refused with its lock: \(String(describing: refusal))")
                return
            }
        }
    }
}
