import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import TesseraCore

/// How much one caller may ask of a node before it is told to wait (`tessera serve`
/// flags). Limits are per node and per endpoint group; a count of 0 switches one off.
public struct ThrottleSettings: Sendable {
    /// Requests per second one source address may send to one group (and twice that in a burst).
    public var perAddress: Int
    /// Requests per second one authenticated OAuth client (`client_id`) may send to one
    /// endpoint (and twice that in a burst).
    public var perClient: Int
    /// Long polls one device may hold open at once.
    public var longPollsPerDevice: Int
    /// Long polls of login pages one source address may hold open at once (browsers
    /// behind one NAT share it).
    public var longPollsPerAddress: Int
    /// Long polls the node holds open at once.
    public var longPollsPerNode: Int
    /// Peers (reverse proxies) whose `X-Forwarded-For` names the real source address.
    public var trustedProxies: Set<String>

    public init(
        perAddress: Int = 100, perClient: Int = 500, longPollsPerDevice: Int = 4, longPollsPerAddress: Int = 32,
        longPollsPerNode: Int = 2_000, trustedProxies: Set<String> = []
    ) {
        self.perAddress = perAddress
        self.perClient = perClient
        self.longPollsPerDevice = longPollsPerDevice
        self.longPollsPerAddress = longPollsPerAddress
        self.longPollsPerNode = longPollsPerNode
        self.trustedProxies = Set(trustedProxies.map(SourceAddress.normalized))
    }
}

/// Answered with 429 and `Retry-After` (RFC 6585 §4).
struct TooManyRequests: HTTPResponseError {
    let retryAfter: Int
    let description: String

    var status: HTTPResponse.Status { .tooManyRequests }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var error = OAuthError(.tooManyRequests, "too_many_requests", description)
        error.headers[.retryAfter] = String(retryAfter)
        return try error.response(from: request, context: context)
    }
}

/// Token buckets per key: each holds up to `2 × rate` requests and refills at `rate` per
/// second. Buckets that are full again are dropped, so memory follows the active callers.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
        /// Its own refill rate and size: address and client buckets differ.
        let rate: Double
        let capacity: Double
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    private let lastSweep = Mutex<ContinuousClock.Instant>(.now)

    /// Takes one request from `key`'s bucket, or refuses with 429: "too many requests
    /// `from` (this address, this device, this client)".
    func check(_ key: String, rate: Int, from caller: String) throws(TooManyRequests) {
        if let wait = take(key, rate: rate) {
            throw TooManyRequests(retryAfter: wait, description: "too many requests \(caller): retry after \(wait) s")
        }
    }

    /// Takes one request from `key`'s bucket; nil when allowed, else the seconds to wait.
    func take(_ key: String, rate: Int, now: ContinuousClock.Instant = .now) -> Int? {
        guard rate > 0 else { return nil }
        let capacity = Double(rate * 2)
        sweepIfDue(now: now)
        return buckets.withLock { buckets -> Int? in
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: now, rate: Double(rate), capacity: capacity)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(capacity, bucket.tokens + seconds * Double(rate))
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return max(1, Int(((1 - bucket.tokens) / Double(rate)).rounded(.up)))
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            return nil
        }
    }

    /// Every ten seconds, forgets buckets that would be full by now.
    private func sweepIfDue(now: ContinuousClock.Instant) {
        let due = lastSweep.withLock { last -> Bool in
            guard now - last > .seconds(10) else { return false }
            last = now
            return true
        }
        guard due else { return }
        buckets.withLock { buckets in
            buckets = buckets.filter { _, bucket in
                let elapsed = now - bucket.updated
                return bucket.tokens + Double(elapsed.components.seconds) * bucket.rate < bucket.capacity
            }
        }
    }
}

/// Counts the long polls a node holds: per caller and in all.
final class LongPollGate: Sendable {
    private struct Counts {
        var total = 0
        var perCaller: [String: Int] = [:]
    }

    private let counts = Mutex(Counts())
    let perNode: Int

    init(perNode: Int) {
        self.perNode = perNode
    }

    /// Admits one more long poll of `caller` (at most `perCaller` at once), or refuses
    /// with how long to wait.
    func enter(_ caller: String, perCaller: Int) throws(TooManyRequests) {
        let admitted = counts.withLock { counts -> Bool in
            guard perNode <= 0 || counts.total < perNode, perCaller <= 0 || counts.perCaller[caller, default: 0] < perCaller
            else { return false }
            counts.total += 1
            counts.perCaller[caller, default: 0] += 1
            return true
        }
        guard admitted else {
            throw TooManyRequests(retryAfter: 2, description: "too many waiting requests: poll again without waiting for an answer first")
        }
    }

    /// The long polls this node holds open now.
    var open: Int { counts.withLock { $0.total } }

    func leave(_ caller: String) {
        counts.withLock { counts in
            counts.total -= 1
            let left = counts.perCaller[caller, default: 1] - 1
            counts.perCaller[caller] = left > 0 ? left : nil
        }
    }
}

/// Limits each endpoint of a group per source address, before its handler (and any
/// authentication) runs.
struct AddressThrottle: RouterMiddleware {
    typealias Context = TesseraRequestContext
    let group: String
    let limiter: RateLimiter
    let settings: ThrottleSettings

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Per endpoint (its route pattern), within the group; an IPv6 client counts by its /64.
        let endpoint = context.endpointPath ?? group
        let address = SourceAddress.rateKey(context.sourceAddress(trusting: settings.trustedProxies, request: request))
        try limiter.check("\(endpoint) address \(address)", rate: settings.perAddress, from: "from this address")
        return try await next(request, context)
    }
}

extension TesseraRequestContext {
    /// The address a request came from: the peer's, or, when the peer is a trusted proxy,
    /// the last address its `X-Forwarded-For` names (the one the proxy saw). IPv4 peers
    /// of a dual-stack listener (`::ffff:a.b.c.d`) are given as IPv4.
    func sourceAddress(trusting proxies: Set<String>, request: Request) -> String {
        let peer = SourceAddress.normalized(remoteAddress?.ipAddress ?? "unknown")
        guard proxies.contains(peer), let forwarded = request.headers[.xForwardedFor] else { return peer }
        let last = forwarded.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return last.isEmpty ? peer : SourceAddress.normalized(String(last.prefix(64)))
    }
}

/// Source addresses as the limits and the device see them.
enum SourceAddress {
    /// An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as plain IPv4; others unchanged.
    static func normalized(_ address: String) -> String {
        let lowered = address.lowercased()
        if lowered.hasPrefix("::ffff:"), lowered.dropFirst(7).split(separator: ".").count == 4 { return String(lowered.dropFirst(7)) }
        return address
    }

    /// What a rate limit counts: an IPv4 address, or the /64 of an IPv6 one (one client
    /// usually holds a whole /64).
    static func rateKey(_ address: String) -> String {
        address.contains(":") ? BrowserOrigin.network(of: address, ipv6PrefixGroups: 4) : address
    }

    static func isLoopback(_ address: String) -> Bool {
        let address = normalized(address)
        return address == "::1" || address.hasPrefix("127.")
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!
}
