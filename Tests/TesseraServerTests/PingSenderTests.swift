import Foundation
import HTTPTypes
import Logging
import ServiceLifecycle
import TesseraCore
import TesseraCrypto
import TesseraTesting
import Testing

@testable import TesseraDomain
@testable import TesseraServer

/// The CIBA pings' lifetime: background work of the service group, let finish at shutdown, and refused after.
@Suite("CIBA pings at shutdown")
struct PingSenderTests {
    @Test("a ping under way when the server shuts down is delivered first; one asked for afterwards is not sent")
    func drainedAtShutdown() async throws {
        let receiver = try await CallbackReceiver.start(status: .noContent)
        let box = try SecretBox(masterKey: SecretBox.makeMasterKey())
        let logger = Logger(label: "test")
        func ping(_ id: String) throws -> BackchannelPing {
            let requestID = RequestID(id)
            let sealed = try box.seal(Data("token-\(id)".utf8), context: SealingContext.notificationToken(requestID: requestID))
            return BackchannelPing(endpoint: "\(receiver.baseURL)/ping", sealedToken: sealed, authReqID: requestID)
        }
        let work = BackgroundWork()
        let pings = PingSender(box: box, outbound: Outbound(allowsPrivate: true), work: work)
        let group = ServiceGroup(configuration: .init(services: [work], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { running in
            running.addTask { try await group.run() }
            #expect(pings.send(try ping("first"), logger: logger))
            await group.triggerGracefulShutdown()
            try await running.waitForAll()
        }
        // The service ended after the first ping was delivered: it has arrived by now.
        let received = await receiver.pending()
        #expect(received.count == 1)
        #expect(received.first?.headers["authorization"] == "Bearer token-first", "\(received.first?.headers ?? [:])")
        #expect(!pings.send(try ping("second"), logger: logger), "nothing is handed over after shutdown")
        await receiver.stop()
    }
}
