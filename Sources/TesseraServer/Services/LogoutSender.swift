import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import TesseraCore
import TesseraDomain

/// Delivers back-channel logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.5):
/// the notices that ended sessions wrote in their transactions, POSTed as
/// `logout_token` to each service's `backchannel_logout_uri`, retried with back-off.
/// Every node runs one; a notice is taken by one node at a time (a lease in the
/// database), so a service hears of an end once per successful delivery.
struct LogoutSender: Service {
    let logout: Logout
    /// Where logout tokens may go (the service's address, checked when it is called).
    let outbound: Outbound
    let metrics: ServerMetrics
    /// Seconds between looks for due notices.
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await OutboxLoop.run(every: interval, logger: logger, what: "back-channel logout", take: { try await logout.takeDue() }) { delivery in
            await send(delivery)
        }
    }

    func send(_ delivery: Logout.Delivery) async {
        var request = HTTPClientRequest(url: delivery.uri)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Cache-Control", value: "no-store")
        request.body = .bytes(ByteBuffer(string: "logout_token=\(FormEncoding.component(delivery.logoutToken))"))
        let metadata: Logger.Metadata = ["client_id": "\(delivery.clientID)", "attempt": "\(delivery.attempts)"]
        do {
            let response = try await inTrace(delivery.traceParent) { try await outbound.execute(request, kind: "logout") }
            // 200, or 204 as some frameworks answer (Back-Channel Logout §2.8).
            if response.status == 200 || response.status == 204 {
                try await logout.delivered(noticeID: delivery.noticeID)
                logger.info("back-channel logout delivered", metadata: metadata)
                return
            }
            logger.warning("back-channel logout refused", metadata: metadata.merging(["status": "\(response.status)"]) { $1 })
        } catch let refused as Outbound.Refused {
            logger.warning("back-channel logout not sent", metadata: metadata.merging(["reason": "\(refused)"]) { $1 })
        } catch {
            // The error's type only: the token must not reach the log.
            logger.warning("back-channel logout failed", metadata: metadata.merging(["error": "\(type(of: error))"]) { $1 })
        }
        metrics.outboundFailure(kind: "logout")
        do {
            if try await !logout.failed(delivery) {
                logger.error("back-channel logout given up", metadata: metadata)
            }
        } catch {
            logger.error("back-channel logout: notice not updated", metadata: ["error": "\(type(of: error))"])
        }
    }
}
