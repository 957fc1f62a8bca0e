import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraOperations
import TesseraRecords
import TesseraStore

/// What the HTTP edge shares: the domain (store, box, clock, caches, use cases), the
/// server's configuration, the admin token, the long-poll hub, the pusher and metrics.
package struct ServerState: Sendable {
    let configuration: ServerConfiguration
    let domain: Domain
    let adminTokenDigest: String
    /// Wakes devices waiting for their users' pending requests to change.
    let requestEvents: RequestEvents
    /// Wakes devices that sleep, through their push service.
    let pusher: Pusher
    /// Sends the CIBA pings that answers owe.
    let pings: PingSender
    /// Where pushes and pings run after the answer (a service of the group).
    package let background: BackgroundWork
    let metrics = ServerMetrics()
    /// Requests per source address and per client, per endpoint.
    let limiter = RateLimiter()
    /// The services' logos, fetched for their login pages.
    let serviceLogos = ServiceLogos()
    let tenantLogos = TenantLogos()
    /// Long polls held open, per caller and in all.
    let longPolls: LongPollGate

    package init(
        configuration: ServerConfiguration, store: SQLStore, box: SecretBox, adminTokenDigest: String, pusher: Pusher,
        now: @escaping @Sendable () -> Date
    ) {
        let events = RequestEvents()
        self.configuration = configuration
        longPolls = LongPollGate(perNode: configuration.throttle.longPollsPerNode)
        self.adminTokenDigest = adminTokenDigest
        self.requestEvents = events
        self.pusher = pusher
        let background = BackgroundWork()
        self.background = background
        let pings = PingSender(
            box: box, outbound: Outbound(allowsPrivate: configuration.allowsPrivateOutbound, maximumBody: 64 * 1024), work: background)
        self.pings = pings
        var settings = DomainSettings(
            publicURL: configuration.publicURL, requestLifetime: Int64(configuration.requestLifetime),
            invitationLifetime: Int64(configuration.invitationLifetime), backchannelInterval: configuration.backchannelInterval,
            relyingPartyID: configuration.webAuthnRelyingPartyID, allowsPrivateOutbound: configuration.allowsPrivateOutbound)
        settings.sendsEmail = configuration.smtp != nil
        settings.sendsMessages = configuration.messageWebhook != nil
        settings.messageMaximumAge = Int64(configuration.deliveryMaxAge)
        metrics.registerStore(
            backend: store.backendName, observers: store.observers, purgeKinds: PurgeTarget.allCases.map(\.rawValue) + ["history", "audit"])
        domain = Domain(
            store: store, box: box,
            settings: settings,
            notifier: EdgeNotifier(
                store: store, box: box, events: events, pusher: pusher,
                pings: pings, background: background), now: now)
    }

    var publicURL: String { configuration.publicURL }
    func epochNow() -> Int64 { domain.epochNow() }

    /// A long poll: reads, and when `waitFor` says the caller has what was read already,
    /// waits for a change to `keys` (up to the timeout it gives) and reads once more. The
    /// waiter registers before the first read, so a change between read and wait still
    /// wakes it.
    ///
    /// Only so many long polls wait at once for one `caller` and on the node; one more is
    /// answered 429 with `Retry-After` before anything is read.
    ///
    /// Each read runs as a child task (`inOwnTask`), so that its frames are not part of
    /// what the request's task holds while it waits.
    func longPoll<T: Sendable>(
        watching keys: Set<String>, caller: String, perCaller: Int, isolation: isolated (any Actor)? = #isolation,
        read: @Sendable () async throws -> T, waitFor: (T) -> Duration?
    ) async throws -> T {
        try longPolls.enter(caller, perCaller: perCaller)
        defer { longPolls.leave(caller) }
        let waiter = await requestEvents.register(keys: keys)
        let first: T
        do {
            first = try await inOwnTask(read)
        } catch {
            await requestEvents.discard(waiter)
            throw error
        }
        guard let timeout = waitFor(first) else {
            await requestEvents.discard(waiter)
            return first
        }
        await requestEvents.wait(waiter, timeout: timeout)
        return try await inOwnTask(read)
    }

    /// Acts on an announced key, this node's own or (through `EventRelay`) another
    /// node's: a tenant's changed signing keys drop its cached issuer; every key wakes the
    /// long polls watching it.
    func receive(_ key: String) async {
        await domain.received(key)
        if key == SQLStore.notificationsMissed {
            // Every long poll looks again at what it waits for.
            await requestEvents.publishAll()
        } else {
            await requestEvents.publish(key)
        }
    }
}

/// Runs `work` as a child task, whose frames are freed when it ends. A task keeps the
/// memory its deepest call needed until the task itself ends (Swift's task allocator
/// reuses its slabs but frees them only then), and a connection's task lives as long as
/// the connection: deep work done before a request waits, a long poll's reads and the
/// device's authentication, would otherwise stay allocated for as long as it waits.
func inOwnTask<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
    async let result = work()
    return try await result
}

/// Delivers the domain's notices: wakes this node's long polls, tells the other nodes (on
/// PostgreSQL, by NOTIFY; a node hears its own notification too, which only wakes a poll
/// that then finds nothing new), and sends a CIBA ping when one is owed.
struct EdgeNotifier: RequestNotifier {
    let store: SQLStore
    let box: SecretBox
    let events: RequestEvents
    let pusher: Pusher
    /// Sends the CIBA pings the notices owe.
    let pings: PingSender
    let background: BackgroundWork

    func deliver(_ notice: RequestNotice, logger: Logger) async {
        for key in notice.keys { await events.publish(key) }
        if !notice.told { await store.notify(EventKey.channel, notice.keys) }
        if let ping = notice.ping { pings.send(ping, logger: logger) }
        if let wake = notice.wake {
            await pusher.wake(
                userID: wake.userID,
                message: {
                    PushMessage(token: $0, issuer: wake.issuer, requestID: wake.requestID, serviceName: wake.serviceName, expiresAt: wake.expiresAt)
                }, targets: PushTargets(store: store), on: background, logger: logger)
        }
    }
}
