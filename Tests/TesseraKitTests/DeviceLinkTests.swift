import Foundation
import Testing
import TesseraCore
import TesseraCrypto

@testable import TesseraKit

/// The links the SDK takes (`DeviceLink.parse`), without a server: which it reads, the
/// issuer and value it reads from them, and which it refuses before any call.
@Suite("Device links (no server)")
struct DeviceLinkTests {
    func parse(_ text: String, endpoint: String = "authenticate", parameter: String = "request") throws -> (issuer: String, value: String) {
        try DeviceLink.parse(try #require(URL(string: text)), endpoint: endpoint, parameter: parameter)
    }

    @Test("the issuer's own link, an app link on a link domain and a custom-scheme link give the issuer and the value")
    func accepted() throws {
        let own = try parse("https://id.example/t/demo/authenticate?request=abc_DEF-1")
        #expect(own.issuer == "https://id.example/t/demo" && own.value == "abc_DEF-1")
        let activation = try parse("https://id.example/t/demo/activate?code=Zz9", endpoint: "activate", parameter: "code")
        #expect(activation.issuer == "https://id.example/t/demo" && activation.value == "Zz9")
        let appLink = try parse("https://links.shop.example/app/authenticate?request=r1&issuer=https://id.example/t/demo")
        #expect(appLink.issuer == "https://id.example/t/demo" && appLink.value == "r1")
        let scheme = try parse("shopapp://tessera/authenticate?request=r2&issuer=https://id.example/t/demo")
        #expect(scheme.issuer == "https://id.example/t/demo" && scheme.value == "r2")
        // Plain http only on a loopback host: a developer's own machine.
        #expect(try parse("http://127.0.0.1:8080/t/demo/authenticate?request=r3").issuer == "http://127.0.0.1:8080/t/demo")
        #expect(try parse("http://localhost:8080/t/demo/authenticate?request=r4").issuer == "http://localhost:8080/t/demo")
    }

    @Test(
        "links refused before any call: wrong endpoint or value, http off loopback, two issuers, a custom scheme without one, a link naming another issuer",
        arguments: [
            "https://id.example/t/demo/activate?request=r",
            "https://id.example/t/demo/authenticate",
            "https://id.example/t/demo/authenticate?request=",
            "https://id.example/t/demo/authenticate?request=a%2Fb",
            "https://id.example/t/demo/authenticate?request=" + String(repeating: "a", count: 257),
            "http://id.example/t/demo/authenticate?request=r",
            "http://127.0.0.1.evil.example/t/demo/authenticate?request=r",
            "https://links.example/authenticate?request=r&issuer=https://a.example/t/x&issuer=https://b.example/t/y",
            "shopapp://tessera/authenticate?request=r",
            "shopapp://other/authenticate?request=r&issuer=https://id.example/t/demo",
            "https://id.example/t/demo/authenticate?request=r&issuer=https://id.example/t/other",
            "https://links.example/authenticate?request=r&issuer=https://id.example/t/demo?x=1",
            "https://links.example/authenticate?request=r&issuer=http://id.example/t/demo",
        ])
    func refused(_ link: String) throws {
        #expect(throws: TesseraKitError.self) { try parse(link) }
    }

    @Test("loopback is localhost, ::1 and 127.0.0.0/8 literals only")
    func loopback() {
        for host in ["localhost", "LOCALHOST", "::1", "[::1]", "127.0.0.1", "127.9.8.7"] { #expect(DeviceLink.isLoopback(host), "\(host)") }
        for host in ["127.0.0.1.example", "128.0.0.1", "127.0.0", "example.com", ""] { #expect(!DeviceLink.isLoopback(host), "\(host)") }
    }
}

/// What the token manager decides from what it holds, without a server.
@Suite("Token manager's own reading (no server)")
struct TokenManagerReadingTests {
    @Test("a DPoP nonce belongs to an origin: scheme and host in lower case, the port only when given")
    func origins() throws {
        #expect(TokenManager.origin(of: try #require(URL(string: "HTTPS://ID.Example/t/demo/token?x=1"))) == "https://id.example")
        #expect(TokenManager.origin(of: try #require(URL(string: "http://127.0.0.1:8080/t/demo/token"))) == "http://127.0.0.1:8080")
    }

    @Test("an entry is labelled by the ID token's sub; anything that is not a JWT labels nothing")
    func subjects() throws {
        let key = SoftwareSigningKey()
        struct Claims: Encodable { let sub: String }
        let token = try CompactJWS.sign(claims: Claims(sub: "user-1"), header: JWSHeader(typ: "JWT"), signer: key)
        #expect(TokenManager.subject(of: token) == "user-1")
        #expect(TokenManager.subject(of: nil) == nil)
        #expect(TokenManager.subject(of: "not.a.jwt") == nil)
        #expect(TokenManager.dpopLabel("a") == "a.dpop")
    }
}
