import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import TesseraDomain
import Tracing
import TesseraRecords

/// Sends the outbox's messages to people (`Messages`) on every node: each second it takes
/// what is due (a lease per message, so one node sends each), renders it from its
/// template and sends it by e-mail (`SMTPClient`) or to the message gateway (a POST
/// signed as Standard Webhooks says, its `webhook-id` the message's, whose body is
/// `{id, type: "message.TEMPLATE", timestamp, tenant, data: {to, username, language,
/// subject, text, link?}}`; the operator chose its address, so private ones are allowed). Sent messages leave the outbox; a
/// failure is counted and tried again later, a permanent refusal or one past the maximum
/// age is given up and logged. No log line holds what a message says.
struct MessageSender: Service {
    let messages: Messages
    let smtp: SMTPClient?
    let gateway: ServerConfiguration.MessageWebhook?
    let outbound: Outbound
    let metrics: ServerMetrics
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await OutboxLoop.run(every: interval, logger: logger, what: "messages", take: { try await messages.takeDue() }) { send in
            await deliver(send)
        }
    }

    /// Posts a message to the gateway; its status.
    func post(_ send: Messages.Send) async throws -> Int {
        guard let gateway, let key = StandardWebhooks.key(of: gateway.secret) else {
            throw SMTPError.configuration("this server has no --message-webhook")
        }
        let rendered = try MessageTemplates.render(send.content)
        let values = send.content.values
        var data: [String: String] = [
            "to": send.message.recipient, "username": values["username"] ?? "", "language": send.content.language,
            "subject": rendered.subject, "text": rendered.text,
        ]
        if let link = values["link"] { data["link"] = link }
        let id = "msg_" + send.message.id
        let body = try WebhookPayload.encode(
            id: id, type: "message.\(send.content.template)", at: send.message.createdAt, tenant: values["tenant"], data: data)
        var request = HTTPClientRequest(url: gateway.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        for (name, value) in StandardWebhooks.headers(id: id, timestamp: Int64(Date().timeIntervalSince1970), body: body, secret: key) {
            request.headers.add(name: name, value: value)
        }
        request.body = .bytes(ByteBuffer(string: body))
        return try await outbound.execute(request, kind: "message").status
    }

    func deliver(_ send: Messages.Send) async {
        await inTrace(send.message.traceParent) { await deliverInTrace(send) }
    }

    private func deliverInTrace(_ send: Messages.Send) async {
        let metadata: Logger.Metadata = [
            "message_id": "\(send.message.id)", "template": "\(send.content.template)", "attempt": "\(send.message.attempts)",
        ]
        var problem: String
        var permanent = false
        do {
            if send.message.channel == Messages.Channel.message.rawValue {
                let status = try await post(send)
                guard (200..<300).contains(status) else {
                    // A refusal of the message itself is for good; the gateway's trouble is not.
                    throw SMTPError.reply(command: "gateway", code: (400..<500).contains(status) && status != 408 && status != 429 ? 550 : 450, text: "HTTP \(status)")
                }
                try await messages.sent(send)
                logger.info("message sent", metadata: metadata)
                return
            }
            guard let smtp else { throw SMTPError.configuration("this server has no --smtp-url") }
            // A logo that cannot be read now leaves the message without it, not unsent.
            let rendered = try MessageTemplates.render(send.content, logo: try? await messages.logo(of: send))
            let message = MailMessage(
                from: smtp.settings.from, to: send.message.recipient, subject: rendered.subject,
                messageID: "\(send.message.id)@\(smtp.settings.heloName)", date: Date(timeIntervalSince1970: TimeInterval(send.message.createdAt)),
                text: rendered.text, html: rendered.html, images: rendered.images)
            try await clientSpan("email SMTP", kind: "email") { _ in try await smtp.send(to: send.message.recipient, message) }
            try await messages.sent(send)
            logger.info("message sent", metadata: metadata)
            return
        } catch let error as SMTPError {
            problem = error.description
            permanent = !error.isTransient
        } catch {
            problem = String(reflecting: type(of: error))
        }
        metrics.outboundFailure(kind: send.message.channel)
        do {
            if try await messages.failed(send, error: problem, permanent: permanent) {
                logger.warning("message not sent yet", metadata: metadata.merging(["problem": "\(problem)"]) { $1 })
            } else {
                logger.error("message given up", metadata: metadata.merging(["problem": "\(problem)"]) { $1 })
            }
        } catch {
            logger.error("messages: message not updated", metadata: metadata.merging(["error": "\(type(of: error))"]) { $1 })
        }
    }
}
