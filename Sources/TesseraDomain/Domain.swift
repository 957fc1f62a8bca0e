import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraStore

/// What every use case shares: the store, the master-key box, the clock, the lifetimes,
/// the caches of tenants and their token issuers, and where the news of a changed
/// request goes. Built once per server; each use case (`attempts`, `activations`, …) is
/// a small value over it.
///
/// A use case owns its transactions and throws `DomainError`; nothing here knows HTTP.
public struct Domain: Sendable {
    public let store: SQLStore
    public let box: SecretBox
    public let settings: DomainSettings
    /// The clock every expiry is measured with; tests pass a fixed or stepping one.
    public let now: @Sendable () -> Date
    /// Where a changed request is announced (long polls, other nodes, CIBA pings).
    public let notifier: any RequestNotifier
    let tenants = TenantCache()
    let issuers = IssuerCache()

    public init(
        store: SQLStore, box: SecretBox, settings: DomainSettings, notifier: any RequestNotifier,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.box = box
        self.settings = settings
        self.notifier = notifier
        self.now = now
    }

    /// Seconds since 1970, as the store keeps times.
    public func epochNow() -> Int64 { Int64(now().timeIntervalSince1970) }

    /// A tenant's issuer URL: `{public URL}/t/{name}`.
    public func issuer(forTenantNamed name: String) -> String { "\(settings.publicURL)/t/\(name)" }

    /// The tenant a path names, or `not_found`. Tenants are kept in memory after a lookup
    /// (unknown names are not remembered); a change or deletion drops them on every node
    /// (`EventKey.tenant`), and a copy is read again after a minute whatever happens.
    public func tenant(named name: String) async throws -> TenantRecord {
        guard Validation.isTenantName(name) else { throw DomainError.notFound("tenant '\(name.prefix(64))'") }
        let (cached, generation) = await tenants.lookup(name)
        if let cached { return cached }
        guard let tenant = try await store.read({ try await $0.tenant(named: name) }) else {
            throw DomainError.notFound("tenant '\(name)'")
        }
        await tenants.remember(tenant, generation: generation)
        return tenant
    }

    /// The tenant's token issuer, built from its signing keys and cached (see `IssuerCache`).
    public func tokenIssuer(for tenant: TenantRecord) async throws -> TokenIssuer {
        let (cached, generation) = await issuers.lookup(tenantID: tenant.id)
        if let cached { return cached }
        let records = try await store.read { try await $0.signingKeys(tenantID: tenant.id) }
        let keys = try records.map { record in
            let raw = try box.open(record.sealedKey, context: SealingContext.signingKey(kid: record.kid))
            return ServerSigningKey(kid: record.kid, privateKey: try .init(rawRepresentation: raw))
        }
        guard let active = records.last(where: { $0.active }) else {
            throw StoreError(.corrupt, "tenant \(tenant.name) has no active signing key")
        }
        let issuer = try await TokenIssuer(keys: keys, activeKid: active.kid)
        await issuers.store(issuer, tenantID: tenant.id, generation: generation)
        return issuer
    }

    /// The tenant's public keys, from the same cached issuer that signs its tokens.
    public func publicKeys(for tenant: TenantRecord) async throws -> [PublicJWK] {
        try await tokenIssuer(for: tenant).publicJWKs
    }

    /// Announces a committed change: a tenant's changed signing keys drop its cached issuer
    /// here at once; the notifier wakes long polls, tells the other nodes and sends what
    /// the notice owes.
    public func announce(_ notice: RequestNotice, logger: Logger) async {
        for key in notice.keys { await received(key) }
        await notifier.deliver(notice, logger: logger)
    }

    /// Acts on an announced key, this node's own or another node's: a tenant's changed
    /// signing keys drop its cached issuer; other keys concern only the edge's long polls.
    public func received(_ key: String) async {
        if let tenantID = EventKey.tenantID(ofSigningKeysEvent: key) { await issuers.forget(tenantID: tenantID) }
        if let name = EventKey.tenantName(ofTenantEvent: key) { await tenants.forget(name) }
    }
}

/// Lifetimes and addresses the use cases need from the server's configuration.
public struct DomainSettings: Sendable {
    /// The public base URL; a tenant's issuer is `{publicURL}/t/{name}`.
    public var publicURL: String
    /// How long an authentication request lives, in seconds.
    public var requestLifetime: Int64
    /// How long an invitation lives unless it says otherwise, in seconds.
    public var invitationLifetime: Int64
    /// The interval a CIBA client is told to poll at, in seconds.
    public var backchannelInterval: Int

    public init(publicURL: String, requestLifetime: Int64, invitationLifetime: Int64, backchannelInterval: Int) {
        self.publicURL = publicURL
        self.requestLifetime = requestLifetime
        self.invitationLifetime = invitationLifetime
        self.backchannelInterval = backchannelInterval
    }
}

/// Tenants by name, as `IssuerCache` keeps issuers: dropped on a change, re-read after
/// `maximumAge`, and never kept when read before a change that came in meanwhile.
actor TenantCache {
    static let maximumAge: Duration = .seconds(60)

    private var byName: [String: (tenant: TenantRecord, loadedAt: ContinuousClock.Instant)] = [:]
    private var generations: [String: Int] = [:]

    func lookup(_ name: String) -> (tenant: TenantRecord?, generation: Int) {
        let generation = generations[name, default: 0]
        guard let entry = byName[name], ContinuousClock.now - entry.loadedAt < Self.maximumAge else { return (nil, generation) }
        return (entry.tenant, generation)
    }

    func remember(_ tenant: TenantRecord, generation: Int) {
        guard generations[tenant.name, default: 0] == generation else { return }
        byName[tenant.name] = (tenant, ContinuousClock.now)
    }

    func forget(_ name: String) {
        byName[name] = nil
        generations[name, default: 0] += 1
    }
}

/// Each tenant's token issuer, built from its signing keys. A change to the keys drops the
/// entry (`forget`, on every node through the announced event); an entry is also rebuilt
/// once it is `maximumAge` old, so a lost notification delays a change by that at most.
actor IssuerCache {
    static let maximumAge: Duration = .seconds(60)

    private struct Entry {
        let issuer: TokenIssuer
        let loadedAt: ContinuousClock.Instant
    }

    private var entries: [TenantID: Entry] = [:]
    /// Counts each tenant's `forget`s: an issuer built from keys read before a change is
    /// not kept after it.
    private var generations: [TenantID: Int] = [:]

    /// The cached issuer while it is fresh, and the generation to `store` a new one with.
    func lookup(tenantID: TenantID) -> (issuer: TokenIssuer?, generation: Int) {
        let generation = generations[tenantID, default: 0]
        guard let entry = entries[tenantID], ContinuousClock.now - entry.loadedAt < Self.maximumAge else { return (nil, generation) }
        return (entry.issuer, generation)
    }

    /// Keeps an issuer built after `lookup` returned `generation`, unless the keys changed since.
    func store(_ issuer: TokenIssuer, tenantID: TenantID, generation: Int) {
        guard generations[tenantID, default: 0] == generation else { return }
        entries[tenantID] = Entry(issuer: issuer, loadedAt: ContinuousClock.now)
    }

    func forget(tenantID: TenantID) {
        entries[tenantID] = nil
        generations[tenantID, default: 0] += 1
    }
}
