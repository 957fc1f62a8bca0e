import Crypto
import Foundation
import Testing
import TesseraCrypto
import TesseraTesting

/// JWE (ECDH-ES, ECDH-ES+A256KW on P-256, A256GCM) against joserfc and jwcrypto, both ways.
@Suite("JWE", .timeLimit(.minutes(3)))
struct JWETests {
    static func privateJWK(_ key: P256.KeyAgreement.PrivateKey) -> String {
        let raw = key.publicKey.rawRepresentation
        return #"{"kty":"EC","crv":"P-256","x":"\#(Base64URL.encode(raw.prefix(32)))","y":"\#(Base64URL.encode(raw.suffix(32)))","d":"\#(Base64URL.encode(key.rawRepresentation))"}"#
    }

    static func publicJWK(_ key: P256.KeyAgreement.PublicKey) -> String {
        let raw = key.rawRepresentation
        return #"{"kty":"EC","crv":"P-256","x":"\#(Base64URL.encode(raw.prefix(32)))","y":"\#(Base64URL.encode(raw.suffix(32)))"}"#
    }

    @Test("what Tessera encrypts, joserfc and jwcrypto decrypt", arguments: JWE.KeyManagement.allCases, ["joserfc", "jwcrypto"])
    func tesseraToPython(keyManagement: JWE.KeyManagement, library: String) async throws {
        let key = P256.KeyAgreement.PrivateKey()
        let plaintext = #"{"challenge":"Grüße aus Tessera","n":42}"#
        let token = try JWE.encrypt(Data(plaintext.utf8), to: key.publicKey, keyManagement: keyManagement, header: ["kid": "tenant-enc", "cty": "JSON"])
        let result = try await Python.run("jwe_interop.py", ["decrypt", library, Self.privateJWK(key), token])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == plaintext)
    }

    @Test("what joserfc and jwcrypto encrypt, Tessera decrypts; under another key it does not", arguments: JWE.KeyManagement.allCases, ["joserfc", "jwcrypto"])
    func pythonToTessera(keyManagement: JWE.KeyManagement, library: String) async throws {
        let key = P256.KeyAgreement.PrivateKey()
        let result = try await Python.run("jwe_interop.py", ["encrypt", library, keyManagement.rawValue, Self.publicJWK(key.publicKey), "from python"])
        #expect(result.status == 0, "\(result.errors)")
        let decrypted = try JWE.decrypt(result.output, with: key)
        #expect(String(decoding: decrypted.plaintext, as: UTF8.self) == "from python")
        #expect(decrypted.header("kid") == "interop")
        #expect(throws: TesseraCrypto.CryptoError.self) { try JWE.decrypt(result.output, with: P256.KeyAgreement.PrivateKey()) }
    }

    @Test("tampered parts, other algorithms, zip, a bad epk and wrong sizes are refused")
    func refusals() throws {
        let key = P256.KeyAgreement.PrivateKey()
        for keyManagement in JWE.KeyManagement.allCases {
            let token = try JWE.encrypt(Data("secret".utf8), to: key.publicKey, keyManagement: keyManagement)
            #expect(String(decoding: try JWE.decrypt(token, with: key).plaintext, as: UTF8.self) == "secret")
            var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for index in [0, 2, 3, 4] {
                var changed = parts
                var bytes = Array(Base64URL.decode(changed[index]) ?? Data())
                bytes[bytes.count / 2] ^= 1
                changed[index] = Base64URL.encode(Data(bytes))
                #expect(throws: TesseraCrypto.CryptoError.self, "part \(index) changed") { try JWE.decrypt(changed.joined(separator: "."), with: key) }
            }
            parts[1] = keyManagement == .ecdhES ? Base64URL.encode(Data(repeating: 1, count: 40)) : ""
            #expect(throws: TesseraCrypto.CryptoError.self) { try JWE.decrypt(parts.joined(separator: "."), with: key) }
        }
        func forged(_ header: String) -> String {
            Base64URL.encode(Data(header.utf8)) + "..AAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA"
        }
        let epk = #""epk":{"kty":"EC","crv":"P-256","x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","y":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}"#
        for header in [
            #"{"alg":"RSA-OAEP","enc":"A256GCM"}"#, #"{"alg":"ECDH-ES","enc":"A128CBC-HS256"}"#, #"{"alg":"dir","enc":"A256GCM"}"#,
            #"{"alg":"ECDH-ES","enc":"A256GCM","zip":"DEF"}"#, #"{"alg":"ECDH-ES","enc":"A256GCM",\#(epk)}"#,
            #"{"alg":"ECDH-ES","enc":"A256GCM"}"#,
        ] {
            #expect(throws: TesseraCrypto.CryptoError.self, "\(header)") { try JWE.decrypt(forged(header), with: key) }
        }
        #expect(throws: TesseraCrypto.CryptoError.self) { try JWE.decrypt("a.b.c", with: key) }
    }
}
