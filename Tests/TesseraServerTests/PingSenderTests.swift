import Foundation
import HTTPTypes
import Logging
import TesseraCore
import TesseraCrypto
import TesseraTesting
import Testing

@testable import TesseraDomain
@testable import TesseraServer

/// The CIBA pings' lifetime: counted while under way, let finish at shutdown, and refused after.
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
        let pings = PingSender(box: box, outbound: Outbound(allowsPrivate: true))
        await pings.send(try ping("first"), logger: logger)
        await pings.shutdown()
        // The drain waited for the first ping: it has arrived by now.
        let received = await receiver.pending()
        #expect(received.count == 1)
        #expect(received.first?.headers["authorization"] == "Bearer token-first", "\(received.first?.headers ?? [:])")
        await pings.send(try ping("second"), logger: logger)
        try await Task.sleep(for: .milliseconds(300))
        #expect(await receiver.pending().count == 1, "nothing is sent after shutdown")
        await receiver.stop()
    }
}
