import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import TesseraCrypto
import TesseraDomain

/// Sends the CIBA pings the domain's notices owe (CIBA §10.2), after the answer committed.
/// Each ping is counted while it is under way; at shutdown new ones are refused and those
/// under way get up to 15 seconds (`PingShutdown`).
struct PingSender: Sendable {
    let box: SecretBox
    /// Pings go out without following redirects (CIBA §10.2), to addresses this allows.
    let outbound: Outbound
    let inFlight = InFlight()

    /// Posts `{"auth_req_id": …}` with the client's bearer token (CIBA §10.2), retrying
    /// a few times. A ping that never arrives costs the service nothing but time: it
    /// may still poll the token endpoint.
    func send(_ ping: BackchannelPing, logger: Logger) async {
        let token: String
        do {
            token = try ping.token(box: box)
        } catch {
            return logger.error("backchannel ping not sent: its token does not open", metadata: ["auth_req_id": "\(ping.authReqID)"])
        }
        guard await inFlight.enter() else {
            return logger.warning("backchannel ping not sent: the server is shutting down", metadata: ["auth_req_id": "\(ping.authReqID)"])
        }
        let inFlight = self.inFlight
        let outbound = self.outbound
        Task {
            await Self.deliver(ping, token: token, outbound: outbound, logger: logger)
            await inFlight.leave()
        }
    }

    private static func deliver(_ ping: BackchannelPing, token: String, outbound: Outbound, logger: Logger) async {
        var request = HTTPClientRequest(url: ping.endpoint)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        let body = (try? JSONEncoder().encode(["auth_req_id": ping.authReqID])) ?? Data()
        request.body = .bytes(ByteBuffer(bytes: body))
        for attempt in 0..<3 {
            if attempt > 0 { try? await Task.sleep(for: .seconds(1 << attempt)) }
            do {
                let response = try await outbound.execute(request)
                if (200..<300).contains(response.status) { return }
                logger.warning("backchannel ping refused", metadata: ["status": "\(response.status)", "endpoint": "\(ping.endpoint)"])
            } catch let refused as Outbound.Refused {
                // A target inside the network is not tried again.
                return logger.warning("backchannel ping not sent", metadata: ["endpoint": "\(ping.endpoint)", "reason": "\(refused)"])
            } catch {
                // The error's type only: some errors quote the request's headers, which hold the token.
                logger.warning("backchannel ping failed", metadata: ["endpoint": "\(ping.endpoint)", "error": "\(type(of: error))"])
            }
        }
    }

    /// Refuses new pings and lets those under way finish, for up to 15 seconds.
    func shutdown() async {
        await inFlight.drain(timeout: .seconds(15))
    }
}

/// Lets the pings under way finish when the server shuts down.
struct PingShutdown: Service {
    let pings: PingSender

    func run() async throws {
        try? await gracefulShutdown()
        await pings.shutdown()
    }
}
