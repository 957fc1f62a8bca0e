import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Messages to people (e-mailed invitations) through the outbox `messages`: written in the
/// transaction of what they tell, sealed with the master key (an invitation's link is a
/// secret), sent by every node's message sender, removed once sent. A message that keeps
/// failing is tried again with back-off for `messageMaximumAge` seconds, then given up; one
/// the mail server refuses for good (5xx) is given up at once. Its id is its `Message-ID`,
/// the same on every attempt, so the rare second send after a crash between the mail
/// server's acceptance and the removal's commit can be told apart by the receiver.
public struct Messages: Sendable {
    let domain: Domain

    /// The channels a message goes by.
    public enum Channel: String, Sendable {
        case email
        /// The operator's message gateway (`--message-webhook`: SMS, a messenger).
        case message
    }

    /// Seconds a taken message is the taker's.
    static let lease: Int64 = 60

    /// Writes a message into the outbox in `tx`.
    static func enqueue(
        _ tx: StoreTransaction, domain: Domain, tenantID: TenantID?, channel: Channel, recipient: String, content: MessageContent, at now: Int64
    ) async throws {
        let id = orderedID()
        let sealed = try domain.box.seal(try JSONEncoder().encode(content), context: SealingContext.messageContent(id: id))
        try await tx.insertMessage(
            MessageRecord(id: id, tenantID: tenantID, channel: channel.rawValue, recipient: recipient, sealedContent: sealed, createdAt: now))
    }

    /// A message ready to send.
    public struct Send: Sendable {
        public let message: MessageRecord
        public let content: MessageContent
    }

    /// Up to `limit` due messages, each taken for the lease.
    public func takeDue(limit: Int = 16) async throws -> [Send] {
        let now = domain.epochNow()
        // Most looks find nothing: a read decides whether a transaction is worth it.
        guard try await domain.store.read({ try await $0.hasDueMessages(now: now) }) else { return [] }
        let taken = try await domain.store.transaction { tx in try await tx.takeDueMessages(now: now, lease: Self.lease, limit: limit) }
        return try taken.map { message in
            let data = try domain.box.open(message.sealedContent, context: SealingContext.messageContent(id: message.id))
            return Send(message: message, content: try JSONDecoder().decode(MessageContent.self, from: data))
        }
    }

    /// The logo of the tenant a message is from, if it has one in a type every mail reader
    /// shows (PNG: many show no SVG).
    public func logo(of send: Send) async throws -> [UInt8]? {
        guard let tenantID = send.message.tenantID,
            let tenant = try await domain.store.read({ try await $0.tenant(id: tenantID) }),
            let logo = try await domain.logo(of: tenant), logo.type == "image/png"
        else { return nil }
        return Array(logo.bytes)
    }

    public func sent(_ send: Send) async throws {
        try await domain.store.transaction { tx in try await tx.deleteMessage(id: send.message.id) }
    }

    /// An attempt that failed: tried again after the back-off unless the failure is for
    /// good or the message is past the maximum age. Returns whether it will be tried again.
    public func failed(_ send: Send, error: String, permanent: Bool) async throws -> Bool {
        let now = domain.epochNow()
        if permanent || now - send.message.createdAt >= domain.settings.messageMaximumAge {
            try await domain.store.transaction { tx in try await tx.deleteMessage(id: send.message.id) }
            return false
        }
        let next = now + WebhookOutbox.backoff(afterAttempt: send.message.attempts)
        try await domain.store.transaction { tx in try await tx.postponeMessage(id: send.message.id, until: next, error: error) }
        return true
    }
}

extension Domain {
    public var messages: Messages { Messages(domain: self) }
}
