import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import TesseraDomain
import TesseraRecords

/// Works the webhook outbox (`WebhookOutbox`) on every node: each second it dispatches
/// what committed since the last look into the hooks' outboxes, then posts each hook's
/// first due delivery, signed, through `Outbound` (the outbound-address rule of targets
/// tenants choose). Hooks are served side by side; one hook's deliveries one at a time,
/// in order. Nothing of a payload or secret is logged.
struct WebhookSender: Service {
    let outbox: WebhookOutbox
    let outbound: Outbound
    let metrics: ServerMetrics
    let interval: Duration
    let logger: Logger

    func run() async throws {
        // Each look dispatches what committed since the last, then sends until nothing is
        // due: a hook with a backlog is emptied at the receiver's pace.
        await OutboxLoop.run(
            every: interval, logger: logger, what: "webhooks", first: { _ = try await outbox.dispatch() }, take: { try await outbox.takeDue() }
        ) { send in await deliver(send) }
    }

    func deliver(_ send: WebhookOutbox.Send) async {
        var request = HTTPClientRequest(url: send.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Tessera-Webhooks")
        for (name, value) in send.headers(at: Int64(Date().timeIntervalSince1970)) { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: send.delivery.payload))
        let metadata: Logger.Metadata = [
            "webhook_id": "\(send.delivery.webhookID)", "delivery_id": "\(send.delivery.id)", "event": "\(send.delivery.event)",
            "attempt": "\(send.delivery.attempts)",
        ]
        var status: Int?
        var problem: String
        do {
            let response = try await outbound.execute(request, kind: "webhook")
            if (200..<300).contains(response.status) {
                try await outbox.delivered(send, status: response.status)
                logger.debug("webhook delivered", metadata: metadata)
                return
            }
            status = response.status
            problem = "HTTP \(response.status)"
        } catch let refused as Outbound.Refused {
            problem = "refused: \(refused)"
        } catch {
            // The error's type only: another module's error may quote what it was given.
            problem = String(reflecting: type(of: error))
        }
        metrics.outboundFailure(kind: "webhook")
        do {
            switch try await outbox.failed(send, status: status, error: problem) {
            case .retrying:
                logger.warning("webhook delivery failed", metadata: metadata.merging(["problem": "\(problem)"]) { $1 })
            case .disabled:
                metrics.webhookDisabled()
                logger.error("webhook disabled: deliveries failed past the maximum age", metadata: metadata)
            }
        } catch {
            logger.error("webhooks: delivery not updated", metadata: metadata.merging(["error": "\(type(of: error))"]) { $1 })
        }
    }
}
