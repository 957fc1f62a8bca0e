import Foundation
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore
import TesseraTestSupport
import Testing
@testable import TesseraDomain

/// Services are kept in memory: what a change does on the node that made it, what it does
/// on a node that only hears of it, and a read that races a change.
@Suite("Domain: cached services")
struct ServiceCacheTests {
    @Test("a change written by another node holds here once its notice is heard; the domain's own change holds at once and is announced")
    func changesAndNotices() async throws {
        let harness = try await Harness.make()
        defer { Task { try? await harness.close() } }
        let (tenant, service, secret) = try await harness.tenant()
        let domain = harness.domain
        let refused = { (secret: String) async -> Bool in
            (try? await domain.authenticateClient(clientID: service.clientID.rawValue, secret: secret, tenant: tenant)) == nil
        }
        #expect(await !refused(secret))

        // Another node rotates the secret: straight in the store, no notice yet.
        let other = Secrets.randomToken()
        try await harness.store.transaction { tx in
            var changed = try #require(try await tx.service(clientID: service.clientID))
            changed.secretDigest = Secrets.digest(other)
            try await tx.updateService(changed)
        }
        #expect(await !refused(secret), "the copy in memory stands until the notice")
        await domain.received(EventKey.services)
        #expect(await refused(secret))
        #expect(await !refused(other))
        #expect(try await domain.service(id: service.id)?.secretDigest == Secrets.digest(other))

        // The domain's own rotation: the old secret fails at once, and the other nodes are told.
        let rotated = try JSONDecoder().decode(
            [String: JSONValue].self,
            from: JSONEncoder().encode(try await domain.administration().rotateSecret(clientID: service.clientID, tenant: tenant, logger: harness.logger)))
        guard case .string(let newest) = rotated["client_secret"] else { throw TestSupportError("no new secret") }
        #expect(await refused(other))
        #expect(await !refused(newest))
        #expect(harness.notices.keys.contains(EventKey.services))

        // A miss read inside a transaction is used but not kept: here the transaction's own
        // change, rolled back afterwards.
        await domain.received(EventKey.services)
        struct RolledBack: Error {}
        await #expect(throws: RolledBack.self) {
            try await harness.store.transaction { tx in
                var changed = try #require(try await tx.service(clientID: service.clientID))
                changed.secretDigest = Secrets.digest("never committed")
                try await tx.updateService(changed)
                #expect(try await domain.service(clientID: service.clientID, in: tx)?.secretDigest == Secrets.digest("never committed"))
                throw RolledBack()
            }
        }
        #expect(try await domain.service(clientID: service.clientID)?.secretDigest == Secrets.digest(newest))

        // A deleted tenant takes its services out of memory too. The read by client id just
        // above kept the service under its id as well.
        try await harness.store.transaction { tx in try await tx.deleteService(id: service.id) }
        #expect(try await domain.service(id: service.id)?.id == service.id, "in memory until the notice")
        await domain.received(EventKey.tenant(named: tenant.name))
        #expect(try await domain.service(clientID: service.clientID)?.id == nil)
        #expect(try await domain.service(id: service.id)?.id == nil)
    }

    @Test("a service read before a forgetAll that came in meanwhile is not kept; one read after is kept under both keys")
    func epochs() throws {
        let cache = ServiceCache()
        let service = ServiceRecord(
            id: "s1", tenantID: "t1", clientID: "c1", name: "S", secretDigest: nil, isPublic: true, redirectURIs: [], policy: try AuthenticatorPolicy(parsing: "device+pin"),
            attributes: [], createdAt: 1)
        let (missing, epoch) = cache.lookup(clientID: "c1")
        #expect(missing == nil)
        cache.forgetAll()
        cache.store(service, epoch: epoch)
        #expect(cache.lookup(clientID: "c1").service == nil, "read before forgetAll, stored after it")
        #expect(cache.lookup(id: "s1").service == nil)

        let (_, fresh) = cache.lookup(id: "s1")
        cache.store(service, epoch: fresh)
        #expect(cache.lookup(clientID: "c1").service?.id == "s1", "one read fills both keys")
        #expect(cache.lookup(id: "s1").service?.clientID == "c1")
        cache.forgetAll()
        #expect(cache.lookup(clientID: "c1").service == nil && cache.lookup(id: "s1").service == nil)
    }

    @Test("tenants and issuers: a value read before its own forget is not kept; another key's forget does not concern it")
    func generations() {
        let cache = RefreshingCache<String, Int>()
        let (missing, generation) = cache.lookup("a")
        #expect(missing == nil)
        cache.forget("a")
        cache.store(1, for: "a", generation: generation)
        #expect(cache.lookup("a").value == nil, "read before its forget, stored after it")

        let (_, fresh) = cache.lookup("a")
        cache.forget("b")
        cache.store(2, for: "a", generation: fresh)
        #expect(cache.lookup("a").value == 2)
        cache.forget("a")
        #expect(cache.lookup("a").value == nil)
    }
}
