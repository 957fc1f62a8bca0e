import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// The names under which changes are announced: the long polls of devices and pages
/// watch them, and on PostgreSQL other nodes hear them (LISTEN/NOTIFY).
public enum EventKey {
    /// The PostgreSQL channel nodes tell each other about changes on.
    public static let channel = "tessera_events"

    /// A user's pending requests changed (watched by the user's devices).
    public static func user(_ id: UserID) -> String { "user:\(id)" }
    /// One request's status changed (watched by the login page).
    public static func request(_ id: RequestID) -> String { "request:\(id)" }
    /// A tenant's signing keys changed: every node drops the tenant's cached issuer.
    public static func signingKeys(tenantID: TenantID) -> String { signingKeysPrefix + tenantID.rawValue }

    /// A service was added, changed or removed: every node drops its cached services.
    public static let services = "services"

    /// A tenant's settings changed, or it was deleted: every node drops its cached copy.
    public static func tenant(named name: String) -> String { tenantPrefix + name }

    /// The tenant name a `tenant` key names, or nil for any other key.
    public static func tenantName(ofTenantEvent key: String) -> String? {
        key.hasPrefix(tenantPrefix) ? String(key.dropFirst(tenantPrefix.count)) : nil
    }

    private static let tenantPrefix = "tenant:"

    /// The tenant a `signingKeys` key names, or nil for any other key.
    public static func tenantID(ofSigningKeysEvent key: String) -> TenantID? {
        key.hasPrefix(signingKeysPrefix) ? TenantID(String(key.dropFirst(signingKeysPrefix.count))) : nil
    }

    private static let signingKeysPrefix = "signing-keys:"
}

/// What taking up or answering a request owes once it is committed: a wake-up for
/// whoever watches it (the login page; for a backchannel request also the devices of
/// its user) and, for a backchannel request answered in ping mode, the service's ping.
public struct RequestNotice: Sendable {
    public let keys: [String]
    public let ping: BackchannelPing?
    /// A new backchannel request: its user's devices are woken through their push targets.
    public let wake: PushWake?
    /// Whether the transaction that made the notice told the other nodes its keys already
    /// (on PostgreSQL in its last statement, sent at its commit), so the notifier does not.
    public var told = false

    public init(keys: [String], ping: BackchannelPing? = nil, wake: PushWake? = nil) {
        self.keys = keys
        self.ping = ping
        self.wake = wake
    }

    public init(_ record: AuthRequestRecord, service: ServiceRecord?, answered: Bool) {
        var keys = [EventKey.request(record.id)]
        if record.flow == .ciba, let userID = record.userID { keys.append(EventKey.user(userID)) }
        self.keys = keys
        ping = answered ? BackchannelPing.owed(for: record, service: service) : nil
        wake = nil
    }
}

/// A wake-up owed to a user's devices: a request waits for them. The push names the
/// request, never its content.
public struct PushWake: Sendable {
    public let userID: UserID
    public let issuer: String
    public let requestID: RequestID
    public let serviceName: String
    public let expiresAt: Int64
}

/// A ping-mode notification owed to a service: its request was answered (CIBA §10.2).
/// The token stays sealed until the notice is delivered, after the commit.
public struct BackchannelPing: Sendable {
    public let endpoint: String
    public let sealedToken: String
    public let authReqID: RequestID

    /// The ping for a backchannel request of a ping-mode service, read inside the
    /// transaction that answered it: nothing about the ping can undo the answer (or its
    /// lockout count).
    static func owed(for record: AuthRequestRecord, service: ServiceRecord?) -> BackchannelPing? {
        guard record.flow == .ciba, let service, service.backchannelMode == BackchannelMode.ping,
            let endpoint = service.notificationEndpoint, let sealed = record.sealedNotificationToken
        else { return nil }
        return BackchannelPing(endpoint: endpoint, sealedToken: sealed, authReqID: record.id)
    }

    /// The client's notification token, opened with the master key.
    public func token(box: SecretBox) throws -> String {
        String(decoding: try box.open(sealedToken, context: SealingContext.notificationToken(requestID: authReqID)), as: UTF8.self)
    }
}

/// Delivers notices after their transaction committed: wakes local long polls, tells the
/// other nodes (unless the transaction told them: `RequestNotice.told`), sends pings. The
/// server provides it; a domain test may record them.
public protocol RequestNotifier: Sendable {
    func deliver(_ notice: RequestNotice, logger: Logger) async
}
