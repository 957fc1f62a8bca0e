import Logging
import ServiceLifecycle

/// What every outbox's sender does (back-channel logout, webhooks, messages to people):
/// every `interval` until a graceful shutdown, do what a look begins with (`first`: the
/// webhook dispatch), then take what is due and send it, the items side by side, until
/// nothing more is due; a failure to read the outbox is logged by its type and the next
/// look tries again.
enum OutboxLoop {
    static func run<Item: Sendable>(
        every interval: Duration, logger: Logger, what: String, first: () async throws -> Void = {},
        take: () async throws -> [Item], send: @escaping @Sendable (Item) async -> Void
    ) async {
        while !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            do {
                try await first()
                while !Task.isShuttingDownGracefully {
                    let due = try await take()
                    guard !due.isEmpty else { break }
                    await withTaskGroup(of: Void.self) { group in
                        for item in due { group.addTask { await send(item) } }
                    }
                }
            } catch {
                logger.error("\(what): outbox not read", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            }
        }
    }
}
