import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import TesseraCore
import TesseraRecords
import TesseraTesting
import Testing

@testable import TesseraServer
@testable import TesseraStore

extension ContainmentTests {
    static let fingerprint = (0..<32).map { _ in "AB" }.joined(separator: ":")

    static func androidLinks(_ package: String, linkDomain: String? = nil) -> String {
        let domain = linkDomain.map { #""link_domain":"\#($0)","# } ?? ""
        return #"{"app_links":{\#(domain)"android_apps":[{"package_name":"\#(package)","sha256_cert_fingerprints":["\#(fingerprint)"]}]}}"#
    }

    /// The Android apps a host's `assetlinks.json` lists.
    static func assetLinks(_ client: any TestClientProtocol, host: String) async throws -> [String] {
        let response = try await client.executeRequest(uri: "/.well-known/assetlinks.json", method: .get, headers: [HTTPField.Name("Host")!: host], body: nil)
        #expect(response.status == .ok)
        let statements = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]])
        return statements.compactMap { ($0["target"] as? [String: Any])?["package_name"] as? String }.sorted()
    }

    /// Finding 3: Android does not scope app links by path, so one tenant's app listed for
    /// the issuer's host would open another tenant's activation links.
    @Test("Android app links: a tenant's key lists its apps on its own link domain only; the issuer's host lists what an admin for every tenant put there")
    func androidAppLinksPerHost() async throws {
        let harness = try await RouterHarness.make { $0.publicURL = "https://id.example.com" }
        try await harness.run { client in
            for name in ["shop", "bank"] { try await client.admin(.post, "/admin/tenants", #"{"name":"\#(name)"}"#) }
            let (_, key) = try await client.admin(.post, "/admin/keys", #"{"name":"shop-admin","role":"admin","tenant":"shop"}"#)
            let shopKey = try #require(key["key"] as? String)
            let issuerHost = "id.example.com"

            // The tenant's own key cannot list an Android app for the issuer's whole host.
            let before = try await Self.rows(client)
            let refused = try await Self.call(client, .patch, "/admin/tenants/shop", token: shopKey, body: Self.androidLinks("com.shop.evil"))
            #expect(refused.status == .forbidden, "\(refused.text)")
            #expect(try await Self.rows(client) == before, "the refusal wrote nothing")
            #expect(try await Self.assetLinks(client, host: issuerHost) == [])

            // With its own link domain it may: that host's file lists its apps, the issuer's does not.
            let own = try await Self.call(
                client, .patch, "/admin/tenants/shop", token: shopKey, body: Self.androidLinks("com.shop.app", linkDomain: "links.shop.example"))
            #expect(own.status == .ok, "\(own.text)")
            #expect(try await Self.assetLinks(client, host: "links.shop.example") == ["com.shop.app"])
            #expect(try await Self.assetLinks(client, host: "LINKS.shop.example:443") == ["com.shop.app"])
            #expect(try await Self.assetLinks(client, host: issuerHost) == [])
            #expect(try await Self.assetLinks(client, host: "\(issuerHost):8443") == [])

            // An admin for every tenant lists the bank's app on the issuer's host; the shop's
            // link domain does not carry it.
            let (listed, bank) = try await client.admin(.patch, "/admin/tenants/bank", Self.androidLinks("com.bank.app"))
            #expect(listed == .ok && bank["android_apps_host_wide"] as? Bool == true, "\(bank)")
            #expect(try await Self.assetLinks(client, host: issuerHost) == ["com.bank.app"])
            #expect(try await Self.assetLinks(client, host: "links.shop.example") == ["com.shop.app"])

            // Link domains are unique and not the issuer's host.
            let (taken, _) = try await client.admin(.patch, "/admin/tenants/bank", Self.androidLinks("com.bank.app", linkDomain: "links.shop.example"))
            #expect(taken == .conflict)
            let (issuer, _) = try await client.admin(.patch, "/admin/tenants/bank", Self.androidLinks("com.bank.app", linkDomain: issuerHost))
            #expect(issuer == .badRequest)

            // A key of the bank may keep or drop what is listed, not add to it.
            let (_, bankKey) = try await client.admin(.post, "/admin/keys", #"{"name":"bank-admin","role":"admin","tenant":"bank"}"#)
            let bankToken = try #require(bankKey["key"] as? String)
            let added = try await Self.call(
                client, .patch, "/admin/tenants/bank", token: bankToken,
                body: #"{"app_links":{"android_apps":[{"package_name":"com.bank.app","sha256_cert_fingerprints":["\#(Self.fingerprint)"]},{"package_name":"com.bank.other","sha256_cert_fingerprints":["\#(Self.fingerprint)"]}]}}"#)
            #expect(added.status == .forbidden)
            let kept = try await Self.call(
                client, .patch, "/admin/tenants/bank", token: bankToken,
                body: #"{"app_links":{"custom_scheme":"bankapp","android_apps":[{"package_name":"com.bank.app","sha256_cert_fingerprints":["\#(Self.fingerprint)"]}]}}"#)
            #expect(kept.status == .ok, "\(kept.text)")
            #expect(try await Self.assetLinks(client, host: issuerHost) == ["com.bank.app"])

            // Settings stored before they were checked: a link domain that is the issuer's host
            // does not make the tenant its owner, and one two tenants name is nobody's.
            let store = harness.store
            try await store.transaction { tx in
                for (name, domain) in [("shop", issuerHost), ("bank", "links.shared.example")] {
                    var tenant = try #require(try await tx.tenant(named: name))
                    tenant.appLinks?.linkDomain = domain
                    try await tx.updateTenantSettings(tenant)
                }
                try await tx.insertTenant(
                    TenantRecord(
                        id: "third", name: "third", lockoutPolicy: .standard, processPolicy: try AuthenticatorPolicy(parsing: "device+pin"),
                        appLinks: AppLinks(linkDomain: "links.shared.example", androidApps: [.init(packageName: "com.third.app", sha256CertFingerprints: [Self.fingerprint])]),
                        createdAt: 1))
            }
            #expect(try await Self.assetLinks(client, host: issuerHost) == [], "the shop's app stays off the issuer's host")
            #expect(try await Self.assetLinks(client, host: "links.shared.example") == [])
        }
    }
}
