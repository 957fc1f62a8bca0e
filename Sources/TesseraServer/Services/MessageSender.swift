import Foundation
import Logging
import ServiceLifecycle
import TesseraDomain
import TesseraRecords

/// Sends the outbox's messages to people (`Messages`) on every node: each second it takes
/// what is due (a lease per message, so one node sends each), renders it from its
/// template and sends it by e-mail (`SMTPClient`). Sent messages leave the outbox; a
/// failure is counted and tried again later, a permanent refusal or one past the maximum
/// age is given up and logged. No log line holds what a message says.
struct MessageSender: Service {
    let messages: Messages
    let smtp: SMTPClient?
    let metrics: ServerMetrics
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            do {
                let due = try await messages.takeDue()
                await withTaskGroup(of: Void.self) { group in
                    for send in due { group.addTask { await deliver(send) } }
                }
            } catch {
                logger.error("messages: outbox not read", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            }
        }
    }

    func deliver(_ send: Messages.Send) async {
        let metadata: Logger.Metadata = [
            "message_id": "\(send.message.id)", "template": "\(send.content.template)", "attempt": "\(send.message.attempts)",
        ]
        var problem: String
        var permanent = false
        do {
            guard let smtp else { throw SMTPError.configuration("this server has no --smtp-url") }
            let rendered = try MessageTemplates.render(send.content)
            let message = MailMessage(
                from: smtp.settings.from, to: send.message.recipient, subject: rendered.subject,
                messageID: "\(send.message.id)@\(smtp.settings.heloName)", date: Date(timeIntervalSince1970: TimeInterval(send.message.createdAt)),
                text: rendered.text, html: rendered.html, images: rendered.images)
            try await smtp.send(to: send.message.recipient, message)
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
