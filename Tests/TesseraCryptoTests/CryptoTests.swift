import Crypto
import Foundation
import TesseraCore
import TesseraCrypto
import TesseraTesting
import Testing

@Suite("PKCE (RFC 7636)")
struct PKCETests {
    @Test("the appendix B example verifier gives the appendix B challenge")
    func appendixB() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.challenge(forVerifier: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.verify(verifier: verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
    }

    @Test("malformed or wrong verifiers are refused")
    func refusals() {
        let challenge = PKCE.challenge(forVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(!PKCE.verify(verifier: "short", challenge: challenge))
        #expect(!PKCE.verify(verifier: String(repeating: "a", count: 43), challenge: challenge))
        #expect(!PKCE.verify(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk!", challenge: challenge))
        #expect(PKCE.isWellFormedChallenge(challenge))
        #expect(!PKCE.isWellFormedChallenge("plain-text-challenge"))
    }
}

@Suite("TOTP (RFC 6238 appendix B, SHA-1)")
struct TOTPTests {
    static let vectors: [(Int64, String)] = [
        (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
        (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ]

    @Test("the RFC's eight-digit codes", arguments: vectors)
    func vector(time: Int64, code: String) {
        let totp = TOTP(secret: Data("12345678901234567890".utf8), digits: 8)
        #expect(totp.code(at: Date(timeIntervalSince1970: TimeInterval(time))) == code)
    }

    @Test("a step is accepted once, with one step of drift either way")
    func singleUse() {
        let totp = TOTP(secret: Data("12345678901234567890".utf8))
        let now = Date(timeIntervalSince1970: 1_111_111_111)
        let previous = totp.code(at: now.addingTimeInterval(-30))
        let step = totp.matchingStep(for: previous, at: now, lastUsedStep: nil)
        #expect(step == totp.step(at: now) - 1)
        #expect(totp.matchingStep(for: previous, at: now, lastUsedStep: step) == nil)
        #expect(totp.matchingStep(for: totp.code(at: now.addingTimeInterval(-90)), at: now, lastUsedStep: nil) == nil)
    }
}

@Suite("PIN proofs and sealed secrets")
struct PinAndBoxTests {
    @Test("a PIN proof verifies only for its PIN, request and challenge")
    func pinProof() throws {
        let salt = Data("per-activation-salt".utf8)
        let key = try PinProof.deriveKeyData(pin: "2468", salt: salt)
        let proof = PinProof.proof(keyData: key, requestID: "r1", challenge: "c1")
        #expect(PinProof.proof(keyData: key, requestID: "r1", challenge: "c1") == proof)
        #expect(PinProof.proof(keyData: key, requestID: "r1", challenge: "c2") != proof)
        #expect(PinProof.proof(keyData: try PinProof.deriveKeyData(pin: "2469", salt: salt), requestID: "r1", challenge: "c1") != proof)
    }

    @Test("the PIN key is PBKDF2-HMAC-SHA256 of the PIN's UTF-8 bytes, 210 000 rounds, as Python's hashlib.pbkdf2_hmac makes it")
    func pinKeyMatchesHashlib() throws {
        // hashlib.pbkdf2_hmac('sha256', pin.encode(), b'0123456789abcdef', 210000, 32).hex()
        let salt = Data("0123456789abcdef".utf8)
        for (pin, expected) in [
            ("2468", "767d42abcd619d37c196487699ac52119dc6cc890e402f70da6568853209feea"),
            ("ünï-2468", "5dafb9ec7c621c46a2201b8f6ef71492fc96f781eb395fa63241fe89c715e8c3"),
        ] {
            let key = try PinProof.deriveKeyData(pin: pin, salt: salt)
            #expect(key.map { String(format: "%02x", $0) }.joined() == expected, "\(pin)")
        }
    }

    @Test("a sealed value opens only under its master key and context")
    func secretBox() throws {
        let box = try SecretBox(masterKey: SecretBox.makeMasterKey())
        let sealed = try box.seal(Data("secret".utf8), context: "pin-key:a")
        #expect(try box.open(sealed, context: "pin-key:a") == Data("secret".utf8))
        #expect(throws: TesseraCrypto.CryptoError.self) { try box.open(sealed, context: "pin-key:b") }
        let other = try SecretBox(masterKey: SecretBox.makeMasterKey())
        #expect(throws: TesseraCrypto.CryptoError.self) { try other.open(sealed, context: "pin-key:a") }
    }
}

@Suite("ES256 compact JWS against joserfc")
struct JWSInteropTests {
    @Test("joserfc verifies what Tessera signs")
    func tesseraToJoserfc() async throws {
        let key = SoftwareSigningKey()
        let payload = #"{"hello":"world","n":1}"#
        let token = try CompactJWS.sign(payload: Data(payload.utf8), header: JWSHeader(typ: "test"), signer: key)
        let jwk = String(decoding: try JSONEncoder().encode(key.publicJWK), as: UTF8.self)
        let result = try await Python.run("jws_interop.py", ["verify", jwk, token])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == payload)
    }

    @Test("Tessera verifies what joserfc signs, and refuses it under another key")
    func joserfcToTessera() async throws {
        let result = try await Python.run("jws_interop.py", ["sign", "from python"])
        #expect(result.status == 0, "\(result.errors)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let jwkData = try JSONSerialization.data(withJSONObject: try #require(object["jwk"]))
        let key = try JSONDecoder().decode(PublicJWK.self, from: jwkData).publicKey()
        let jws = try CompactJWS.parse(try #require(object["token"] as? String))
        #expect(String(decoding: try jws.verifiedPayload(with: key), as: UTF8.self) == "from python")
        #expect(throws: TesseraCrypto.CryptoError.self) { try jws.verifiedPayload(with: SoftwareSigningKey().publicKey) }
    }

    @Test("a JWK whose coordinate lost its leading zero bytes (as joserfc writes about one key in 150) is the same key")
    func shortCoordinates() throws {
        // About one key in 256 has an x that starts with a zero byte.
        let key = try #require((0..<20_000).lazy.map { _ in SoftwareSigningKey().publicKey }.first { $0.rawRepresentation.first == 0 })
        let full = PublicJWK(key)
        var short = full
        short.x = Base64URL.encode(key.rawRepresentation.prefix(32).drop { $0 == 0 })
        #expect((short.x ?? "").count < (full.x ?? "").count)
        #expect(try short.publicKey().rawRepresentation == key.rawRepresentation)
        #expect(short.thumbprint != full.thumbprint, "the thumbprint is over the members as given (RFC 7638)")
        var long = full
        long.x = Base64URL.encode(Data([0]) + key.rawRepresentation.prefix(32))
        #expect(throws: TesseraCrypto.CryptoError.self) { try long.publicKey() }
        var empty = full
        empty.y = ""
        #expect(throws: TesseraCrypto.CryptoError.self) { try empty.publicKey() }
    }

    @Test("alg none, HMAC and tampered tokens are refused")
    func refusals() throws {
        let key = SoftwareSigningKey()
        let token = try CompactJWS.sign(payload: Data("x".utf8), header: JWSHeader(), signer: key)
        let parts = token.split(separator: ".").map(String.init)
        let none = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + parts[1] + "."
        #expect(throws: TesseraCrypto.CryptoError.self) { try CompactJWS.parse(none) }
        let hmac = Base64URL.encode(Data(#"{"alg":"HS256"}"#.utf8)) + "." + parts[1] + "." + parts[2]
        #expect(throws: TesseraCrypto.CryptoError.self) { try CompactJWS.parse(hmac) }
        let tampered = parts[0] + "." + Base64URL.encode(Data("y".utf8)) + "." + parts[2]
        #expect(throws: TesseraCrypto.CryptoError.self) { try CompactJWS.parse(tampered).verifiedPayload(with: key.publicKey) }
        #expect(throws: TesseraCrypto.CryptoError.self) { try CompactJWS.parse("not a token") }
    }

    @Test("crit and b64 headers are refused; a typ is checked when the caller names one", arguments: [
        #"{"alg":"ES256","crit":["urn:x"],"urn:x":true}"#, #"{"alg":"ES256","b64":false,"crit":["b64"]}"#,
        #"{"alg":"ES256","b64":true}"#, #"{"alg":"ES256","crit":[]}"#,
    ])
    func extensionHeaders(header: String) throws {
        let key = SoftwareSigningKey()
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data("x".utf8))
        let token = input + "." + Base64URL.encode(try key.es256Signature(for: Data(input.utf8)))
        #expect(throws: TesseraCrypto.CryptoError.self) { try CompactJWS.parse(token) }
    }

    @Test("a typ is checked when the caller names one, case-insensitively (RFC 7515 §4.1.9)")
    func types() throws {
        let key = SoftwareSigningKey()
        let token = try CompactJWS.sign(payload: Data("x".utf8), header: JWSHeader(typ: "tessera-proof+jwt"), signer: key)
        #expect(try CompactJWS.parse(token, type: "tessera-proof+jwt").unverifiedPayload == Data("x".utf8))
        #expect(try CompactJWS.parse(token, type: "Tessera-Proof+JWT").header.typ == "tessera-proof+jwt")
        #expect(throws: TesseraCrypto.CryptoError.self) { try CompactJWS.parse(token, type: "tessera-device+jwt") }
        let untyped = try CompactJWS.sign(payload: Data("x".utf8), header: JWSHeader(), signer: key)
        #expect(throws: TesseraCrypto.CryptoError.self) { try CompactJWS.parse(untyped, type: "tessera-proof+jwt") }
    }
}

@Suite("Base64url (RFC 4648 §5)")
struct Base64URLTests {
    @Test("every length from 0 to 64 bytes matches Foundation's base64 with the url alphabet, and decodes back")
    func matchesFoundation() throws {
        for length in 0...64 {
            // Fixed bytes that reach every value of each 6-bit group over the lengths.
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ length &* 31 &+ 7) })
            let expected = bytes.base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == expected)
            #expect(Base64URL.decode(encoded) == bytes)
        }
        #expect(Base64URL.encode(Data("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.decode("Zm9vYg") == Data("foob".utf8))
    }

    @Test("padding, the standard alphabet, white space, a stray length and non-zero unused bits are refused")
    func strict() {
        for text in [
            "Zm9vYg==", "a+b/", "Zm9v Yg", "Zm9vY", "Zm9vYh", "Zh", "Zm9vYmE=", "é", "+m9v", "Z+9v", "Zm+v", "Zm9+", "Zm9vYm.y", "Zm9vYmF\u{7F}",
            "Zm9vé", "Zm9vYmFyé", "Zm9vYmFy\u{0}", "Zm9vYmFy!A",
        ] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
    }
}

@Suite("Random bytes")
struct RandomBytesTests {
    @Test("every length from 0 to 40 gets that many bytes, different each time, every byte value reachable")
    func lengths() {
        for count in 0...40 {
            let first = Secrets.randomBytes(count)
            #expect(first.count == count)
            if count >= 8 { #expect(first != Secrets.randomBytes(count)) }
        }
        // 4,096 bytes reach all 256 values unless the generator is broken (chance ~ 256·e⁻¹⁶).
        #expect(Set(Secrets.randomBytes(4_096)).count == 256)
    }
}
