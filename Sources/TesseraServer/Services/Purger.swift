import Logging
import ServiceLifecycle
import TesseraAdminAPI
import TesseraDomain

/// Purges expired and spent data every `interval` seconds until shutdown. Every node
/// runs one; purges are idempotent, so nodes need not take turns. A failed purge is
/// logged and tried again at the next interval.
struct Purger: Service {
    let maintenance: Maintenance
    let metrics: ServerMetrics
    let interval: Int
    let logger: Logger

    func run() async throws {
        guard interval > 0 else {
            try? await gracefulShutdown()
            return
        }
        while !Task.isShuttingDownGracefully {
            // Spread over the interval, so nodes started together do not purge together.
            let wait = Duration.seconds(interval) + .milliseconds(Int.random(in: 0..<(interval * 100)))
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            } catch {
                return
            }
            do {
                metrics.purged(try await maintenance.purge(logger: logger).deleted.additionalProperties)
            } catch {
                metrics.purgeFailed()
                logger.error("purge failed", metadata: ["error": "\(type(of: error))"])
            }
        }
    }
}
