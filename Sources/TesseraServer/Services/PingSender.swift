import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import TesseraCrypto
import TesseraDomain
import Tracing

/// Sends the CIBA pings the domain's notices owe (CIBA §10.2), after the answer committed,
/// as background work (`BackgroundWork`): at shutdown new ones are refused and those
/// under way get up to 15 seconds.
struct PingSender: Sendable {
    let box: SecretBox
    /// Pings go out without following redirects (CIBA §10.2), to addresses this allows.
    let outbound: Outbound
    let work: BackgroundWork

    /// Posts `{"auth_req_id": …}` with the client's bearer token (CIBA §10.2), retrying
    /// a few times. A ping that never arrives costs the service nothing but time: it
    /// may still poll the token endpoint. False when the ping was not handed over (its
    /// token does not open, or the server is shutting down).
    @discardableResult
    func send(_ ping: BackchannelPing, logger: Logger) -> Bool {
        let token: String
        do {
            token = try ping.token(box: box)
        } catch {
            logger.error("backchannel ping not sent: its token does not open", metadata: ["auth_req_id": "\(ping.authReqID)"])
            return false
        }
        let outbound = self.outbound
        // The ping is sent in the trace of the request that answered the backchannel request.
        let trace = ServiceContext.current ?? .topLevel
        guard work.submit({ await ServiceContext.withValue(trace) { await Self.deliver(ping, token: token, outbound: outbound, logger: logger) } }) else {
            logger.warning("backchannel ping not sent: the server is shutting down", metadata: ["auth_req_id": "\(ping.authReqID)"])
            return false
        }
        return true
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
                let response = try await outbound.execute(request, kind: "ciba_ping")
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
}
