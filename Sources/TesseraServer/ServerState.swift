import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraStore

/// What every handler shares: the store, the master-key box, the clock and the
/// tenants' token issuers.
struct ServerState: Sendable {
    let configuration: ServerConfiguration
    let store: SQLStore
    let box: SecretBox
    let adminTokenDigest: String
    let issuers: IssuerCache
    let tenants = TenantCache()
    /// Wakes devices waiting for their users' pending requests to change.
    let requestEvents = RequestEvents()
    /// Wakes devices that sleep, through their push service.
    let pusher: Pusher
    let metrics = ServerMetrics()
    let now: @Sendable () -> Date

    var publicURL: String { configuration.publicURL }

    func issuer(forTenantNamed name: String) -> String { "\(publicURL)/t/\(name)" }

    func epochNow() -> Int64 { Int64(now().timeIntervalSince1970) }

    /// The tenant a path names, or a 404. Tenants never change once created, so they are
    /// kept in memory after the first lookup (unknown names are not remembered).
    func tenant(named name: String) async throws -> TenantRecord {
        guard Validation.isTenantName(name) else { throw DomainError.notFound("tenant '\(name.prefix(64))'") }
        if let cached = await tenants.tenant(named: name) { return cached }
        guard let tenant = try await store.read({ try await $0.tenant(named: name) }) else {
            throw DomainError.notFound("tenant '\(name)'")
        }
        await tenants.remember(tenant)
        return tenant
    }

    /// A long poll: reads, and when `waitFor` says the caller has what was read already,
    /// waits for a change to `keys` (up to the timeout it gives) and reads once more. The
    /// waiter registers before the first read, so a change between read and wait still
    /// wakes it.
    func longPoll<T: Sendable>(
        watching keys: Set<String>, isolation: isolated (any Actor)? = #isolation, read: () async throws -> T,
        waitFor: (T) -> Duration?
    ) async throws -> T {
        let waiter = await requestEvents.register(keys: keys)
        let first: T
        do {
            first = try await read()
        } catch {
            await requestEvents.discard(waiter)
            throw error
        }
        guard let timeout = waitFor(first) else {
            await requestEvents.discard(waiter)
            return first
        }
        await requestEvents.wait(waiter, timeout: timeout)
        return try await read()
    }

    /// The PostgreSQL channel nodes tell each other about changes on.
    static let eventChannel = "tessera_events"

    /// Wakes this node's long polls watching `keys`, and every other node's (on
    /// PostgreSQL, by NOTIFY; a node hears its own notification too, which only wakes a
    /// poll that then finds nothing new).
    func announce(_ keys: [String]) async {
        for key in keys { await receive(key) }
        await store.notify(Self.eventChannel, keys)
    }

    /// Acts on an announced key, this node's own or (through `EventRelay`) another
    /// node's: a tenant's changed signing keys drop its cached issuer; every key wakes the
    /// long polls watching it.
    func receive(_ key: String) async {
        if let tenantID = RequestEvents.tenantID(ofSigningKeysEvent: key) { await issuers.forget(tenantID: tenantID) }
        await requestEvents.publish(key)
    }

    func lockoutPolicy(of tenant: TenantRecord) -> LockoutPolicy {
        (try? JSONDecoder().decode(LockoutPolicy.self, from: Data(tenant.lockoutPolicy.utf8))) ?? .standard
    }

    func tokenIssuer(for tenant: TenantRecord) async throws -> TokenIssuer {
        let (cached, generation) = await issuers.lookup(tenantID: tenant.id)
        if let cached { return cached }
        let records = try await store.read { try await $0.signingKeys(tenantID: tenant.id) }
        let keys = try records.map { record in
            let raw = try box.open(record.sealedKey, context: SealingContext.signingKey(kid: record.kid))
            return ServerSigningKey(kid: record.kid, privateKey: try .init(rawRepresentation: raw))
        }
        guard let active = records.last(where: { $0.active == 1 }) else {
            throw ServerStartupError("tenant \(tenant.name) has no active signing key")
        }
        let issuer = try await TokenIssuer(keys: keys, activeKid: active.kid)
        await issuers.store(issuer, tenantID: tenant.id, generation: generation)
        return issuer
    }

    /// The tenant's public keys, from the same cached issuer that signs its tokens.
    func publicKeys(for tenant: TenantRecord) async throws -> [PublicJWK] {
        try await tokenIssuer(for: tenant).publicJWKs
    }
}

actor TenantCache {
    private var byName: [String: TenantRecord] = [:]
    func tenant(named name: String) -> TenantRecord? { byName[name] }
    func remember(_ tenant: TenantRecord) { byName[tenant.name] = tenant }
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

    private var entries: [String: Entry] = [:]
    /// Counts each tenant's `forget`s: an issuer built from keys read before a change is
    /// not kept after it.
    private var generations: [String: Int] = [:]

    /// The cached issuer while it is fresh, and the generation to `store` a new one with.
    func lookup(tenantID: String) -> (issuer: TokenIssuer?, generation: Int) {
        let generation = generations[tenantID, default: 0]
        guard let entry = entries[tenantID], ContinuousClock.now - entry.loadedAt < Self.maximumAge else { return (nil, generation) }
        return (entry.issuer, generation)
    }

    /// Keeps an issuer built after `lookup` returned `generation`, unless the keys changed since.
    func store(_ issuer: TokenIssuer, tenantID: String, generation: Int) {
        guard generations[tenantID, default: 0] == generation else { return }
        entries[tenantID] = Entry(issuer: issuer, loadedAt: ContinuousClock.now)
    }

    func forget(tenantID: String) {
        entries[tenantID] = nil
        generations[tenantID, default: 0] += 1
    }
}

/// Checks on names and URIs that come from administrators and clients.
enum Validation {
    static func isTenantName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...63).contains(bytes.count) else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || (index > 0 && byte == 0x2D)
        }
    }

    static func isUsername(_ name: String) -> Bool {
        (1...128).contains(name.count) && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
            && name.trimmingCharacters(in: .whitespaces) == name
    }

    static let reservedClaims: Set<String> = [
        "iss", "sub", "aud", "exp", "iat", "nbf", "jti", "auth_time", "nonce", "amr", "acr", "azp", "sid", "at_hash",
        "c_hash", "scope", "client_id",
    ]

    static func isAttributeName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), !reservedClaims.contains(name) else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || (index > 0 && byte >= 0x30 && byte <= 0x39)
        }
    }

    /// Redirect URIs are absolute, carry no fragment, and use https, http on a loopback
    /// host, or a private-use scheme with a dot (RFC 8252 §7.1).
    static func isRedirectURI(_ text: String) -> Bool {
        guard text.count <= 2048, let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            components.fragment == nil
        else { return false }
        switch scheme {
        case "https": return !(components.host ?? "").isEmpty
        case "http": return ["127.0.0.1", "localhost", "[::1]", "::1"].contains(components.host ?? "")
        default: return scheme.contains(".")
        }
    }

    /// Where a server posts to a service: https, or http on a loopback host (CIBA §4
    /// requires TLS; loopback serves development).
    static func isNotificationEndpoint(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), components.fragment == nil,
            text.count <= 2048
        else { return false }
        return (scheme == "https" && !(components.host ?? "").isEmpty) || (scheme == "http" && isRedirectURI(text))
    }
}
