import Foundation
import Logging
import Synchronization
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// What every use case shares: the store, the master-key box, the clock, the lifetimes,
/// the caches of tenants, their token issuers, services and device keys, and where the
/// news of a changed request goes. Built once per server; each use case (`attempts`,
/// `activations`, …) is a small value over it.
///
/// A use case owns its transactions and throws `DomainError`; nothing here knows HTTP.
public struct Domain: Sendable {
    let store: SQLStore
    public let box: SecretBox
    public let settings: DomainSettings
    /// The clock every expiry is measured with; tests pass a fixed or stepping one.
    public let now: @Sendable () -> Date
    /// Where a changed request is announced (long polls, other nodes, CIBA pings).
    public let notifier: any RequestNotifier
    let tenants = RefreshingCache<String, TenantRecord>()
    let issuers = RefreshingCache<TenantID, TokenIssuer>()
    let services = ServiceCache()
    let clientKeys = ClientKeyCache()
    let deviceKeys = DeviceKeyCache()

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
        let (cached, generation) = tenants.lookup(name)
        if let cached { return cached }
        guard let tenant = try await store.lookup({ try await $0.tenant(named: name) }) else {
            throw DomainError.notFound("tenant '\(name)'")
        }
        tenants.store(tenant, for: name, generation: generation)
        return tenant
    }

    /// The tenant's token issuer, built from its signing keys and cached (see `RefreshingCache`).
    public func tokenIssuer(for tenant: TenantRecord) async throws -> TokenIssuer {
        let (cached, generation) = issuers.lookup(tenant.id)
        if let cached { return cached }
        let records = try await store.read { try await $0.signingKeys(tenantID: tenant.id) }
        var keys: [ServerSigningKey] = []
        var active: [SigningAlgorithm: String] = [:]
        for record in records {
            let algorithm = record.algorithm
            let raw = try box.open(record.sealedKey, context: SealingContext.signingKey(kid: record.kid))
            keys.append(try ServerSigningKey(kid: record.kid, algorithm: algorithm, privateBytes: raw))
            if record.active { active[algorithm] = record.kid }
        }
        guard active[.es256] != nil else {
            throw StoreError(.corrupt, "tenant \(tenant.name) has no active ES256 signing key")
        }
        let issuer = try await TokenIssuer(keys: keys, activeKids: active, tenantName: tenant.name)
        issuers.store(issuer, for: tenant.id, generation: generation)
        return issuer
    }

    /// The tenant's issuer with an active key for `algorithm`: the tenant's first key of
    /// an algorithm is made when a service first needs it (a service set to it, or a
    /// token to sign with it), once, on the tenant's signing-key queue.
    public func tokenIssuer(for tenant: TenantRecord, signingWith algorithm: SigningAlgorithm, logger: Logger? = nil) async throws
        -> TokenIssuer
    {
        let issuer = try await tokenIssuer(for: tenant)
        if issuer.signs(with: algorithm) { return issuer }
        let key = try ServerSigningKey.generate(algorithm)
        let sealed = try box.seal(key.privateBytes, context: SealingContext.signingKey(kid: key.kid))
        let now = epochNow()
        try await store.transaction(queue: Administration.signingKeyQueue(tenantID: tenant.id)) { tx in
            let keys = try await tx.signingKeys(tenantID: tenant.id)
            guard !keys.contains(where: { $0.active && $0.algorithm == algorithm }) else { return }
            try await tx.insertSigningKey(
                SigningKeyRecord(
                    kid: key.kid, tenantID: tenant.id, sealedKey: sealed, active: true, algorithm: algorithm, createdAt: now))
            try await Audit.record(
                tx, tenantID: tenant.id, actor: .system, action: .signingKeyProvision, target: key.kid,
                details: ["algorithm": algorithm.rawValue], at: now)
        }
        await announce(RequestNotice(keys: [EventKey.signingKeys(tenantID: tenant.id)]), logger: logger ?? Logger(label: "tessera.keys"))
        return try await tokenIssuer(for: tenant)
    }

    /// The algorithm of a service's ID tokens (and logout tokens); ES256 for a value
    /// `checkedService` would not have let through.
    public static func idTokenAlgorithm(of service: ServiceRecord) -> SigningAlgorithm {
        service.idTokenAlgorithm
    }

    /// The tenant's issuer with an active key for the service's ID-token algorithm.
    public func tokenIssuer(for tenant: TenantRecord, signingFor service: ServiceRecord, logger: Logger? = nil) async throws -> TokenIssuer {
        try await tokenIssuer(for: tenant, signingWith: Self.idTokenAlgorithm(of: service), logger: logger)
    }

    /// The tenant's public keys, from the same cached issuer that signs its tokens.
    /// Whether the database answers, every migration this build knows is applied, and no
    /// migration applied since (by a newer node of a rolling upgrade) is one this build
    /// cannot run beside (`/ready`).
    public func schemaIsServable() async -> Bool {
        (try? await store.schemaState())?.servable() == true
    }

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
    /// signing keys drop its cached issuer; a changed or deleted tenant drops its copy and
    /// every cached service; a changed service drops every cached service; other keys
    /// concern only the edge's long polls.
    public func received(_ key: String) async {
        if key == SQLStore.notificationsMissed {
            // The other nodes' changes since the connection was lost were not heard: read
            // everything cached again.
            tenants.forgetAll()
            issuers.forgetAll()
            services.forgetAll()
            return
        }
        if let tenantID = EventKey.tenantID(ofSigningKeysEvent: key) { issuers.forget(tenantID) }
        if let name = EventKey.tenantName(ofTenantEvent: key) {
            tenants.forget(name)
            services.forgetAll()
        }
        if key == EventKey.services { services.forgetAll() }
    }

    /// The service with this client id, or nil. Services are kept in memory (`ServiceCache`;
    /// unknown ids are not remembered): every change to one is announced (`EventKey.services`)
    /// and drops them all on every node, at once on the node that made it.
    ///
    /// A miss is read in `tx` when given (a transaction holds its connection and must not
    /// wait for another), and then not kept: a read transaction's snapshot may be older than
    /// the last change, and a write transaction may see a change of its own (or, on SQLite,
    /// of another member of its batch) that is not committed yet. A miss without `tx` is
    /// read by one statement of its own and kept.
    public func service(clientID: ClientID, in tx: StoreTransaction? = nil) async throws -> ServiceRecord? {
        let (cached, epoch) = services.lookup(clientID: clientID)
        if let cached { return cached }
        return try await serviceMiss(in: tx, epoch: epoch) { try await $0.service(clientID: clientID) }
    }

    /// The service with this id, or nil; cached as `service(clientID:in:)`.
    public func service(id: ServiceID, in tx: StoreTransaction? = nil) async throws -> ServiceRecord? {
        let (cached, epoch) = services.lookup(id: id)
        if let cached { return cached }
        return try await serviceMiss(in: tx, epoch: epoch) { try await $0.service(id: id) }
    }

    /// Announces, after its commit, that a service was added, changed or removed.
    func servicesChanged(logger: Logger?) async {
        await announce(RequestNotice(keys: [EventKey.services]), logger: logger ?? Logger(label: "tessera.services"))
    }

    private func serviceMiss(
        in tx: StoreTransaction?, epoch: Int, _ read: (StoreTransaction) async throws -> ServiceRecord?
    ) async throws -> ServiceRecord? {
        if let tx { return try await read(tx) }
        let found = try await store.lookup(read)
        if let found { services.store(found, epoch: epoch) }
        return found
    }
}

/// Lifetimes and addresses the use cases need from the server's configuration.
public struct DomainSettings: Sendable {
    /// The public base URL; a tenant's issuer is `{publicURL}/t/{name}`.
    public var publicURL: String
    /// The WebAuthn RP ID, when it is not the public URL's host (a parent domain of it).
    public var relyingPartyID: String?
    /// How long an authentication request lives, in seconds.
    public var requestLifetime: Int64
    /// How long an invitation lives unless it says otherwise, in seconds.
    public var invitationLifetime: Int64
    /// The interval a CIBA client is told to poll at, in seconds.
    public var backchannelInterval: Int
    /// Whether targets that tenant admins and clients choose (back-channel logout, CIBA
    /// pings, identity providers) may be loopback, private or link-local addresses.
    public var allowsPrivateOutbound: Bool
    /// Whether the server sends e-mail (`--smtp-url`): invitations may go by e-mail.
    public var sendsEmail = false
    /// Whether the server has a message gateway (`--message-webhook`): invitations may go there.
    public var sendsMessages = false
    /// Seconds a message to a person may keep failing before it is given up (`--delivery-max-age`).
    public var messageMaximumAge: Int64 = 259_200

    /// The public URL's host, in lower case (the issuer's host).
    public var publicHost: String { OutboundTargets.host(of: publicURL)?.lowercased() ?? "" }

    public init(
        publicURL: String, requestLifetime: Int64, invitationLifetime: Int64, backchannelInterval: Int, relyingPartyID: String? = nil,
        allowsPrivateOutbound: Bool = false
    ) {
        self.publicURL = publicURL
        self.allowsPrivateOutbound = allowsPrivateOutbound
        self.relyingPartyID = relyingPartyID
        self.requestLifetime = requestLifetime
        self.invitationLifetime = invitationLifetime
        self.backchannelInterval = backchannelInterval
    }
}

/// What a node keeps in memory of what other nodes may change (tenants by name, token
/// issuers by tenant): a change drops the entry (`forget`, on every node through the
/// announced event); an entry is read again once it is `maximumAge` old, so a lost
/// notification delays a change by that at most; and a value read before a change that
/// came in meanwhile is not kept (`generation`).
///
/// A lock, not an actor: a lookup is a dictionary access, which a hop to an actor and
/// back on every request would cost more than.
final class RefreshingCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    static var maximumAge: Duration { .seconds(60) }

    private struct State {
        var entries: [Key: (value: Value, loadedAt: ContinuousClock.Instant)] = [:]
        /// Counts each key's `forget`s.
        var generations: [Key: Int] = [:]
    }

    private let state = Mutex(State())

    /// The cached value while it is fresh, and the generation to `store` a new one with.
    func lookup(_ key: Key) -> (value: Value?, generation: Int) {
        let now = ContinuousClock.now
        return state.withLock { state in
            let generation = state.generations[key, default: 0]
            guard let entry = state.entries[key], now - entry.loadedAt < Self.maximumAge else { return (nil, generation) }
            return (entry.value, generation)
        }
    }

    /// Keeps a value read after `lookup` returned `generation`, unless it changed since.
    func store(_ value: Value, for key: Key, generation: Int) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.generations[key, default: 0] == generation else { return }
            state.entries[key] = (value, now)
        }
    }

    func forget(_ key: Key) {
        state.withLock { state in
            state.entries[key] = nil
            state.generations[key, default: 0] += 1
        }
    }

    /// Drops every entry (after notifications may have been missed).
    func forgetAll() {
        state.withLock { state in
            for key in Set(state.entries.keys).union(state.generations.keys) { state.generations[key, default: 0] += 1 }
            state.entries.removeAll()
        }
    }
}

/// The services a node keeps in memory, by client id and by id. One read fills both keys
/// of a service and every change to any service drops them all (`forgetAll`, on every node
/// through the announced event); an entry is read again once it is `maximumAge` old, so a
/// lost notification delays a change by that at most; a service read before a `forgetAll`
/// that came in meanwhile is not kept (`epoch`).
///
/// A lock, not an actor: lookups happen inside transactions too, where a hop to an actor
/// and back would cost more than the read it saves.
final class ServiceCache: Sendable {
    /// The same as the tenants' and issuers'.
    static var maximumAge: Duration { RefreshingCache<ServiceID, ServiceRecord>.maximumAge }

    private struct Entry {
        let service: ServiceRecord
        let loadedAt: ContinuousClock.Instant
    }

    private struct State {
        var byClientID: [ClientID: Entry] = [:]
        var byID: [ServiceID: Entry] = [:]
        /// Counts `forgetAll`s.
        var epoch = 0
    }

    private let state = Mutex(State())

    /// The cached service while it is fresh, and the epoch to `store` one read now with.
    func lookup(clientID: ClientID) -> (service: ServiceRecord?, epoch: Int) {
        let now = ContinuousClock.now
        return state.withLock { state in (Self.fresh(state.byClientID[clientID], now: now), state.epoch) }
    }

    func lookup(id: ServiceID) -> (service: ServiceRecord?, epoch: Int) {
        let now = ContinuousClock.now
        return state.withLock { state in (Self.fresh(state.byID[id], now: now), state.epoch) }
    }

    /// Keeps, under both its keys, a service read after a `lookup` answered `epoch`, unless
    /// a `forgetAll` came since.
    func store(_ service: ServiceRecord, epoch: Int) {
        let entry = Entry(service: service, loadedAt: ContinuousClock.now)
        state.withLock { state in
            guard state.epoch == epoch else { return }
            state.byClientID[service.clientID] = entry
            state.byID[service.id] = entry
        }
    }

    func forgetAll() {
        state.withLock { state in
            state.byClientID.removeAll()
            state.byID.removeAll()
            state.epoch += 1
        }
    }

    private static func fresh(_ entry: Entry?, now: ContinuousClock.Instant) -> ServiceRecord? {
        guard let entry, now - entry.loadedAt < maximumAge else { return nil }
        return entry.service
    }
}

extension Domain {
    /// An operator's invitation that is still good, and its user: for what a browser does
    /// with one (a passkey, a first sign-in at another provider). Activation data a device
    /// made for itself (with a PIN key) is for a device only.
    func operatorInvitation(code: String, tenant: TenantRecord, now: Int64) async throws -> (InvitationRecord, UserRecord) {
        let found = try await store.read { tx -> (InvitationRecord, UserRecord)? in
            guard let invitation = try await tx.invitation(codeDigest: Secrets.digest(code)), invitation.tenantID == tenant.id,
                let user = try await tx.user(id: invitation.userID)
            else { return nil }
            return (invitation, user)
        }
        guard let (invitation, user) = found, invitation.createdByActivationID == nil, invitation.sealedPinKey == nil else {
            throw DomainError.invalidGrant("the invitation is not valid")
        }
        guard invitation.usedAt == nil else { throw DomainError.invalidGrant("the invitation was used already") }
        guard invitation.expiresAt > now else { throw DomainError(.invalid, .expiredToken, "the invitation has expired") }
        guard user.disabledAt == nil else { throw DomainError(.forbidden, .accessDenied, "the user is disabled") }
        return (invitation, user)
    }
}
