import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import TesseraCrypto
import TesseraDomain

/// Sends the CIBA pings the domain's notices owe (CIBA §10.2), after the answer committed.
enum PingSender {
    /// Posts `{"auth_req_id": …}` with the client's bearer token (CIBA §10.2), retrying
    /// a few times. A ping that never arrives costs the service nothing but time: it
    /// may still poll the token endpoint.
    /// Pings go out without following redirects (CIBA §10.2), to addresses `outbound` allows.
    static func send(_ ping: BackchannelPing, box: SecretBox, outbound: Outbound, logger: Logger) {
        let token: String
        do {
            token = try ping.token(box: box)
        } catch {
            return logger.error("backchannel ping not sent: its token does not open", metadata: ["auth_req_id": "\(ping.authReqID)"])
        }
        Task {
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
    }
}
