import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCore
import TesseraDomain
import TesseraTesting
import Testing

@testable import TesseraServer

#if canImport(Glibc)
import Glibc
import NIOHTTP1
#endif

/// Finding 6 of the containment review: targets that tenant admins and registering clients
/// choose (back-channel logout, CIBA pings, identity providers) reach no loopback, private
/// or link-local address, unless the operator allows it.
@Suite("Outbound targets: nothing inside the server's network unless allowed")
struct OutboundTargetTests {
    /// Tessera's judgement of every host of a corpus against Python's: the resolver reads
    /// the literal, `ipaddress` classifies it (Tests/interop/outbound_addresses.py).
    @Test("address literals are read as the resolver reads them and judged as Python's ipaddress judges them")
    func literalsAgainstPython() async throws {
        let result = try await Python.run("outbound_addresses.py", [], timeout: .seconds(60))
        #expect(result.status == 0, "\(result.errors)")
        let corpus = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[Any]])
        #expect(corpus.count > 2000)
        var disagreements: [String] = []
        for entry in corpus {
            let host = try #require(entry.first as? String)
            let expected = entry[1] as? Bool
            let url = host.contains(":") ? "https://[\(host)]/logout" : "https://\(host)/logout"
            let refused = OutboundTargets.refusal(url, allowsPrivate: false) != nil
            // A name Python does not judge is resolved when called: never refused on its face.
            if refused != (expected ?? false) { disagreements.append("\(host): Tessera \(refused), Python \(String(describing: expected))") }
            if let expected, !host.contains("%"), !host.lowercased().contains("localhost") {
                #expect(OutboundTargets.literal(host) != nil, "\(host) is a literal")
                #expect(OutboundTargets.literal(host)?.contains(where: \.isInternal) == expected, "\(host)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(20))")
        #expect(OutboundTargets.refusal("https://127.1/x", allowsPrivate: true) == nil, "allowed when the operator allows it")
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The check at send time is on the addresses the name resolves to, and the call goes
    /// to the address checked.
    @Test("a call is checked on the addresses its host resolves to, and goes to the address checked")
    func sendTimeCheck() async throws {
        let receiver = try await CallbackReceiver.start(status: .ok)
        let port = try #require(URL(string: receiver.baseURL)?.port)
        // This machine's own name resolves inside (to a loopback address here, or its own LAN address).
        let name = Self.hostName()
        let addresses = try await OutboundTargets.resolve(name)
        let inside = addresses.contains(where: \.isInternal)
        try #require(inside, "the machine's name \(name) resolves to \(addresses)")
        let closed = Outbound(allowsPrivate: false)
        for url in ["http://\(name):\(port)/named", "http://127.1:\(port)/short", "http://[::ffff:127.0.0.1]:\(port)/mapped", "http://localhost:\(port)/"] {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            await #expect(throws: Outbound.Refused.self, "\(url)") { try await closed.execute(request, kind: "test") }
        }
        // Through the domain's interface the refusal is a clear 400, not an unreachable provider.
        do {
            _ = try await closed.get("http://127.1:\(port)/.well-known/openid-configuration")
            Issue.record("a loopback provider was called")
        } catch let error as DomainError {
            #expect(error.kind == .invalid && error.message.contains("refused"), "\(error)")
        }
        #expect(await receiver.pending().isEmpty, "nothing reached the receiver")

        // Allowed, the same targets are called: `127.1` and `localhost` reach 127.0.0.1.
        let open = Outbound(allowsPrivate: true)
        for url in ["http://127.1:\(port)/short", "http://localhost:\(port)/named"] {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.body = .bytes(ByteBuffer(string: "x=1"))
            #expect(try await open.execute(request, kind: "test").status == 200, "\(url)")
            let received = try await receiver.next()
            #expect(received.path == URL(string: url)?.path)
        }
        await receiver.stop()
    }

    /// The admin API refuses such targets with 400 on a server whose public URL is not on
    /// the loopback, and takes them with `--allow-private-outbound` or a loopback public URL.
    @Test("registration refuses loopback, private and link-local targets (400, nothing written) unless the operator allows them")
    func registrationRefusals() async throws {
        let refusedTargets = [
            "http://127.0.0.1:9000/bcl", "https://127.1/bcl", "https://2130706433/bcl", "https://0177.0.0.1/bcl",
            "https://[::ffff:127.0.0.1]/bcl", "https://169.254.169.254/latest", "https://10.1.2.3/bcl", "https://[fd00::1]/bcl",
            "https://localhost./bcl", "https://api.localhost/bcl",
        ]
        @Sendable func service(_ field: String, _ target: String) -> String {
            let ping = field == "backchannel_client_notification_endpoint" ? #","backchannel_token_delivery_mode":"ping""# : ""
            return #"{"name":"Shop","redirect_uris":["https://shop.example/cb"],"\#(field)":"\#(target)"\#(ping)}"#
        }
        let fields = ["backchannel_logout_uri", "backchannel_client_notification_endpoint"]
        let closed = try await RouterHarness.make { $0.publicURL = "https://id.example.com" }
        try await closed.run { client in
            try await client.admin(.post, "/admin/tenants", #"{"name":"demo"}"#)
            let before = try await ContainmentTests.rows(client)
            for field in fields {
                for target in refusedTargets {
                    let (status, body) = try await client.admin(.post, "/admin/tenants/demo/services", service(field, target))
                    #expect(status == .badRequest, "\(field) \(target): \(status) \(body)")
                }
            }
            let provider = #"{"name":"corp","display_name":"Corp","discovery_url":"https://127.1/.well-known/openid-configuration","client_id":"x"}"#
            let (status, body) = try await client.admin(.post, "/admin/tenants/demo/identity-providers", provider)
            #expect(status == .badRequest && "\(body)".contains("refused"), "\(status) \(body)")
            #expect(try await ContainmentTests.rows(client) == before, "refusals write nothing")
            // A public name is taken (it is resolved when called).
            let (created, _) = try await client.admin(.post, "/admin/tenants/demo/services", service("backchannel_logout_uri", "https://shop.example/bcl"))
            #expect(created == .created)
        }
        for allowed in [
            try await RouterHarness.make {
                $0.publicURL = "https://id.example.com"
                $0.allowPrivateOutbound = true
            },
            try await RouterHarness.make(),
        ] {
            try await allowed.run { client in
                try await client.admin(.post, "/admin/tenants", #"{"name":"demo"}"#)
                for field in fields {
                    let (status, body) = try await client.admin(.post, "/admin/tenants/demo/services", service(field, "http://127.0.0.1:9000/bcl"))
                    #expect(status == .created, "\(field): \(status) \(body)")
                }
            }
        }
    }
}
