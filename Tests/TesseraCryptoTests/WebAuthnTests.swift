import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import Testing
import TesseraCrypto
import TesseraWebAuthn
import X509

/// An authenticator made in the test, with knobs for everything a relying party must
/// refuse: it writes authenticator data, client data and attestation objects by hand.
struct TestAuthenticator {
    enum Key {
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    let key: Key
    let credentialID: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }
    let aaguid: [UInt8] = Array(repeating: 0, count: 16)

    static let rpID = "login.example.com"
    static let origin = "https://login.example.com"

    var cosePublicKey: [UInt8] {
        switch key {
        case .p256(let key): AuthenticatorOutput.coseKey(p256: key.publicKey)
        case .ed25519(let key): AuthenticatorOutput.coseKey(ed25519: key.publicKey)
        case .rsa(let key):
            CBOR.map([
                .init(.integer(1), .integer(3)), .init(.integer(3), .integer(-257)),
                .init(.integer(-1), .bytes(Array(try! key.publicKey.getKeyPrimitives().modulus))),
                .init(.integer(-2), .bytes(Array(try! key.publicKey.getKeyPrimitives().publicExponent))),
            ]).encoded
        }
    }

    var algorithm: COSEAlgorithm {
        switch key {
        case .p256: .es256
        case .ed25519: .eddsa
        case .rsa: .rs256
        }
    }

    func sign(_ data: [UInt8]) -> [UInt8] {
        switch key {
        case .p256(let key): Array(try! key.signature(for: data).derRepresentation)
        case .ed25519(let key): Array(try! key.signature(for: data))
        case .rsa(let key): Array(try! key.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    static func clientData(type: String, challenge: [UInt8], origin: String = origin, crossOrigin: Bool? = nil) -> [UInt8] {
        var json = #"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)""#
        if let crossOrigin { json += #","crossOrigin":\#(crossOrigin)"# }
        return Array((json + "}").utf8)
    }

    func registrationData(
        flags: AuthenticatorData.Flags = [.userPresent, .userVerified], rpID: String = rpID, signCount: UInt32 = 0
    ) -> [UInt8] {
        AuthenticatorOutput.authenticatorData(
            rpID: rpID, flags: flags, signCount: signCount, credential: (aaguid: aaguid, id: credentialID, publicKey: cosePublicKey))
    }

    /// A registration with `none` attestation, or `packed` self attestation, or a statement given.
    func register(
        challenge: [UInt8], format: String = "none", statement: CBOR? = nil, flags: AuthenticatorData.Flags = [.userPresent, .userVerified],
        rpID: String = rpID, origin: String = origin, type: String = "webauthn.create"
    ) -> RelyingParty.RegistrationResponse {
        let clientData = Self.clientData(type: type, challenge: challenge, origin: origin)
        let authData = registrationData(flags: flags, rpID: rpID)
        let attestationStatement: CBOR
        if let statement {
            attestationStatement = statement
        } else if format == "packed" {
            let signature = sign(authData + Array(SHA256.hash(data: clientData)))
            attestationStatement = .map([.init(.text("alg"), .integer(algorithm.rawValue)), .init(.text("sig"), .bytes(signature))])
        } else {
            attestationStatement = .map([])
        }
        let object = CBOR.map([
            .init(.text("fmt"), .text(format)), .init(.text("attStmt"), attestationStatement), .init(.text("authData"), .bytes(authData)),
        ])
        return .init(clientDataJSON: clientData, attestationObject: object.encoded, transports: ["usb", "bogus"])
    }

    func assert(
        challenge: [UInt8], signCount: UInt32, flags: AuthenticatorData.Flags = [.userPresent, .userVerified], rpID: String = rpID,
        origin: String = origin, type: String = "webauthn.get", tamper: Bool = false
    ) -> RelyingParty.AssertionResponse {
        let clientData = Self.clientData(type: type, challenge: challenge, origin: origin)
        let authData = AuthenticatorOutput.authenticatorData(rpID: rpID, flags: flags, signCount: signCount)
        var signature = sign(authData + Array(SHA256.hash(data: clientData)))
        if tamper { signature[signature.count / 2] ^= 0x01 }
        return .init(credentialID: credentialID, clientDataJSON: clientData, authenticatorData: authData, signature: signature, userHandle: nil)
    }
}

@Suite("WebAuthn relying party (W3C WebAuthn L3 §7)")
struct WebAuthnRelyingPartyTests {
    let party = RelyingParty(id: TestAuthenticator.rpID, origins: [TestAuthenticator.origin])
    let challenge = (0..<32).map { _ in UInt8.random(in: 0...255) }

    static let keys: [String] = ["ES256", "EdDSA", "RS256"]

    static func authenticator(_ name: String) throws -> TestAuthenticator {
        switch name {
        case "ES256": TestAuthenticator(key: .p256(.init()))
        case "EdDSA": TestAuthenticator(key: .ed25519(.init()))
        default: TestAuthenticator(key: .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048)))
        }
    }

    @Test("a credential registers with none and packed self attestation, then its assertions verify with a rising counter", arguments: keys)
    func registerAndAssert(algorithm: String) async throws {
        let authenticator = try Self.authenticator(algorithm)
        for format in ["none", "packed"] {
            let registered = try await party.verifyRegistration(
                authenticator.register(challenge: challenge, format: format), challenge: challenge, userVerification: .required)
            #expect(registered.credentialID == authenticator.credentialID)
            #expect(registered.publicKey.algorithm == authenticator.algorithm)
            #expect(registered.trust == (format == "none" ? .none : .selfAttested))
            #expect(registered.transports == ["usb"])
            let second = (0..<32).map { _ in UInt8.random(in: 0...255) }
            let assertion = try party.verifyAssertion(
                authenticator.assert(challenge: second, signCount: 5), challenge: second, publicKey: registered.publicKey,
                storedSignCount: 4, userVerification: .required)
            #expect(assertion.signCount == 5)
        }
    }

    @Test("registrations for another ceremony, challenge, origin or relying party, or without presence, are refused")
    func registrationRefusals() async throws {
        let authenticator = try Self.authenticator("ES256")
        let other = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let cases: [(RelyingParty.RegistrationResponse, WebAuthnError.Code, RelyingParty.UserVerification)] = [
            (authenticator.register(challenge: other), .invalidClientData, .preferred),
            (authenticator.register(challenge: challenge, origin: "https://evil.example"), .invalidClientData, .preferred),
            (authenticator.register(challenge: challenge, type: "webauthn.get"), .invalidClientData, .preferred),
            (authenticator.register(challenge: challenge, rpID: "evil.example"), .invalidAuthenticatorData, .preferred),
            (authenticator.register(challenge: challenge, flags: [.userVerified]), .invalidAuthenticatorData, .preferred),
            (authenticator.register(challenge: challenge, flags: [.userPresent]), .invalidAuthenticatorData, .required),
            (authenticator.register(challenge: challenge, flags: [.userPresent, .backedUp]), .invalidAuthenticatorData, .preferred),
            (authenticator.register(challenge: challenge, format: "tpm"), .unsupportedAttestation, .preferred),
            (authenticator.register(challenge: challenge, format: "none", statement: .map([.init(.text("x"), .null)])), .malformed, .preferred),
            (
                authenticator.register(
                    challenge: challenge, format: "packed",
                    statement: .map([.init(.text("alg"), .integer(-7)), .init(.text("sig"), .bytes(Array(repeating: 1, count: 70)))])),
                .invalidAttestation, .preferred
            ),
        ]
        for (response, code, verification) in cases {
            await #expect(throws: WebAuthnError.self) {
                do throws(WebAuthnError) {
                    _ = try await party.verifyRegistration(response, challenge: challenge, userVerification: verification)
                } catch {
                    #expect(error.code == code, "\(error)")
                    throw error
                }
            }
        }
        // A cross-origin frame's ceremony.
        let framed = RelyingParty.RegistrationResponse(
            clientDataJSON: TestAuthenticator.clientData(type: "webauthn.create", challenge: challenge, crossOrigin: true),
            attestationObject: authenticator.register(challenge: challenge).attestationObject)
        await #expect(throws: WebAuthnError.self) { try await party.verifyRegistration(framed, challenge: challenge, userVerification: .preferred) }
        // An algorithm the caller does not accept.
        await #expect(throws: WebAuthnError.self) {
            try await party.verifyRegistration(
                authenticator.register(challenge: challenge), challenge: challenge, userVerification: .preferred, algorithms: [.eddsa])
        }
    }

    @Test("assertions with a wrong signature, challenge, origin, RP, flags or a counter that does not rise are refused")
    func assertionRefusals() async throws {
        let authenticator = try Self.authenticator("ES256")
        let registered = try await party.verifyRegistration(
            authenticator.register(challenge: challenge), challenge: challenge, userVerification: .preferred)
        let other = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let cases: [(RelyingParty.AssertionResponse, WebAuthnError.Code)] = [
            (authenticator.assert(challenge: challenge, signCount: 9, tamper: true), .invalidSignature),
            (authenticator.assert(challenge: other, signCount: 9), .invalidClientData),
            (authenticator.assert(challenge: challenge, signCount: 9, origin: "https://login.example.com:8443"), .invalidClientData),
            (authenticator.assert(challenge: challenge, signCount: 9, type: "webauthn.create"), .invalidClientData),
            (authenticator.assert(challenge: challenge, signCount: 9, rpID: "example.com"), .invalidAuthenticatorData),
            (authenticator.assert(challenge: challenge, signCount: 9, flags: [.userVerified]), .invalidAuthenticatorData),
            (authenticator.assert(challenge: challenge, signCount: 9, flags: [.userPresent]), .invalidAuthenticatorData),
            (authenticator.assert(challenge: challenge, signCount: 7), .counterRegression),
            (authenticator.assert(challenge: challenge, signCount: 8), .counterRegression),
            (authenticator.assert(challenge: challenge, signCount: 0), .counterRegression),
        ]
        for (response, code) in cases {
            #expect(throws: WebAuthnError.self) {
                do throws(WebAuthnError) {
                    _ = try party.verifyAssertion(
                        response, challenge: challenge, publicKey: registered.publicKey, storedSignCount: 8, userVerification: .required)
                } catch {
                    #expect(error.code == code, "\(error)")
                    throw error
                }
            }
        }
        // An authenticator without a counter (zero on both sides) is fine.
        _ = try party.verifyAssertion(
            authenticator.assert(challenge: challenge, signCount: 0), challenge: challenge, publicKey: registered.publicKey,
            storedSignCount: 0, userVerification: .preferred)
    }

    // MARK: packed with a certificate chain

    struct Chain {
        let root: Certificate
        let leaf: Certificate
        let leafKey: P256.Signing.PrivateKey
    }

    static func chain(
        organizationalUnit: String = "Authenticator Attestation", leafIsCA: Bool = false, aaguid: [UInt8]? = nil,
        notValidAfter: Date = Date().addingTimeInterval(86_400 * 365)
    ) throws -> Chain {
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CountryName("DE")
            OrganizationName("Tessera Test")
            CommonName("Tessera Test Attestation Root")
        }
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: Date().addingTimeInterval(-86_400),
            notValidAfter: Date().addingTimeInterval(86_400 * 3650), issuer: rootName, subject: rootName,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)) },
            issuerPrivateKey: .init(rootKey))
        let leafKey = P256.Signing.PrivateKey()
        let leafName = try DistinguishedName {
            CountryName("DE")
            OrganizationName("Tessera Test")
            OrganizationalUnitName(organizationalUnit)
            CommonName("Tessera Test Key")
        }
        var extensions = try Certificate.Extensions {
            Critical(leafIsCA ? BasicConstraints.isCertificateAuthority(maxPathLength: nil) : BasicConstraints.notCertificateAuthority)
        }
        if let aaguid {
            var serializer = DER.Serializer()
            try serializer.serialize(ASN1OctetString(contentBytes: aaguid[...]))
            try extensions.append(Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4], critical: false, value: serializer.serializedBytes[...]))
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey), notValidBefore: Date().addingTimeInterval(-3600),
            notValidAfter: notValidAfter, issuer: rootName, subject: leafName, extensions: extensions, issuerPrivateKey: .init(rootKey))
        return Chain(root: root, leaf: leaf, leafKey: leafKey)
    }

    func packedFull(_ authenticator: TestAuthenticator, chain: Chain) throws -> RelyingParty.RegistrationResponse {
        let clientData = TestAuthenticator.clientData(type: "webauthn.create", challenge: challenge)
        let authData = authenticator.registrationData()
        let signature = try chain.leafKey.signature(for: authData + Array(SHA256.hash(data: clientData))).derRepresentation
        var serializer = DER.Serializer()
        try serializer.serialize(chain.leaf)
        return authenticator.register(
            challenge: challenge, format: "packed",
            statement: .map([
                .init(.text("alg"), .integer(-7)), .init(.text("sig"), .bytes(Array(signature))),
                .init(.text("x5c"), .array([.bytes(serializer.serializedBytes)])),
            ]))
    }

    @Test("packed attestation with a certificate: trusted when it chains to an anchor, refused when it does not")
    func packedCertificate() async throws {
        let authenticator = try Self.authenticator("ES256")
        let chain = try Self.chain(aaguid: authenticator.aaguid)
        let response = try packedFull(authenticator, chain: chain)
        // No anchors configured: the signature is checked, the certificate is not trusted.
        #expect(try await party.verifyRegistration(response, challenge: challenge, userVerification: .preferred).trust == .unverifiedCertificate)
        let trusted = try await party.verifyRegistration(
            response, challenge: challenge, userVerification: .preferred, attestation: .init(trustAnchors: [chain.root]))
        #expect(trusted.trust == .trustedCertificate)
        // Another anchor, or none and self attestation while anchors are required.
        let stranger = try Self.chain().root
        for (candidate, anchors) in [
            (response, [stranger]), (authenticator.register(challenge: challenge), [chain.root]),
            (authenticator.register(challenge: challenge, format: "packed"), [chain.root]),
        ] {
            await #expect(throws: WebAuthnError.self) {
                try await party.verifyRegistration(
                    candidate, challenge: challenge, userVerification: .preferred, attestation: .init(trustAnchors: anchors))
            }
        }
        // An expired certificate does not chain at the time of validation.
        let expired = try Self.chain(notValidAfter: Date().addingTimeInterval(3600))
        await #expect(throws: WebAuthnError.self) {
            try await party.verifyRegistration(
                try packedFull(authenticator, chain: expired), challenge: challenge, userVerification: .preferred,
                attestation: .init(trustAnchors: [expired.root], validationTime: Date().addingTimeInterval(7200)))
        }
    }

    @Test("attestation certificates that break §8.2.1 are refused")
    func certificateRequirements() async throws {
        let authenticator = try Self.authenticator("ES256")
        for chain in [
            try Self.chain(organizationalUnit: "Something Else"), try Self.chain(leafIsCA: true),
            try Self.chain(aaguid: Array(repeating: 7, count: 16)),
        ] {
            await #expect(throws: WebAuthnError.self) {
                try await party.verifyRegistration(
                    try packedFull(authenticator, chain: chain), challenge: challenge, userVerification: .preferred,
                    attestation: .init(trustAnchors: [chain.root]))
            }
        }
    }
}

@Suite("COSE keys and authenticator data")
struct COSEKeyTests {
    @Test("keys of other types, curves or sizes are refused")
    func refusals() {
        let x = CBOR.bytes(Array(repeating: 1, count: 32))
        let maps: [CBOR] = [
            .map([.init(.integer(1), .integer(2)), .init(.integer(3), .integer(-35)), .init(.integer(-1), .integer(2))]),  // ES384
            .map([.init(.integer(1), .integer(2)), .init(.integer(3), .integer(-7)), .init(.integer(-1), .integer(2)), .init(.integer(-2), x), .init(.integer(-3), x)]),
            .map([.init(.integer(1), .integer(1)), .init(.integer(3), .integer(-8)), .init(.integer(-1), .integer(7)), .init(.integer(-2), x)]),
            .map([
                .init(.integer(1), .integer(3)), .init(.integer(3), .integer(-257)), .init(.integer(-1), .bytes(Array(repeating: 0xC1, count: 128))),
                .init(.integer(-2), .bytes([1, 0, 1])),
            ]),
            .array([]), .map([]),
        ]
        for map in maps {
            #expect(throws: WebAuthnError.self) { try COSEPublicKey(encoded: map.encoded) }
        }
        // A point that is not on the curve.
        #expect(throws: WebAuthnError.self) {
            try COSEPublicKey(
                encoded: CBOR.map([
                    .init(.integer(1), .integer(2)), .init(.integer(3), .integer(-7)), .init(.integer(-1), .integer(1)),
                    .init(.integer(-2), x), .init(.integer(-3), x),
                ]).encoded)
        }
    }

    @Test("authenticator data: short, cut, trailing bytes and flag mismatches are refused")
    func authenticatorData() throws {
        let key = P256.Signing.PrivateKey()
        let full = AuthenticatorOutput.authenticatorData(
            rpID: "example.com", flags: [.userPresent], signCount: 3,
            credential: (aaguid: Array(repeating: 0, count: 16), id: [1, 2, 3], publicKey: AuthenticatorOutput.coseKey(p256: key.publicKey)))
        let parsed = try AuthenticatorData(full)
        #expect(parsed.signCount == 3)
        #expect(parsed.attestedCredential?.credentialID == [1, 2, 3])
        for bad in [Array(full.prefix(36)), Array(full.dropLast()), full + [0], Array(full.prefix(37))] {
            #expect(throws: WebAuthnError.self) { try AuthenticatorData(bad) }
        }
        var extensionFlag = AuthenticatorOutput.authenticatorData(rpID: "example.com", flags: [.userPresent, .extensionData], signCount: 1)
        #expect(throws: WebAuthnError.self) { try AuthenticatorData(extensionFlag) }
        extensionFlag += CBOR.map([.init(.text("credProtect"), .unsigned(2))]).encoded
        #expect(try AuthenticatorData(extensionFlag).extensions?["credProtect"] == .unsigned(2))
    }
}
