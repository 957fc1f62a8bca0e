import Foundation
import TesseraCore
import TesseraCrypto

/// A FIDO2 authenticator the SDK can drive for the `securitykey` factor: CTAP2's
/// `authenticatorMakeCredential` and `authenticatorGetAssertion` (WebAuthn L3 §6.3.2–§6.3.3).
/// The SDK is the WebAuthn client: it writes the client data, hashes it, and hands the
/// authenticator only the hash, the relying party and the credentials.
///
/// Conform a USB, NFC or BLE transport (or a platform API) to this protocol to use a
/// hardware key; `SoftwareSecurityKey` is the SDK's own authenticator in software.
public protocol SecurityKeyAuthenticator: Sendable {
    /// Creates a credential for `rpID` and `userHandle`; its attestation object as WebAuthn defines it.
    func makeCredential(_ request: MakeCredentialRequest) async throws -> MadeCredential
    /// Signs `authenticatorData ‖ clientDataHash` with one of the allowed credentials.
    func getAssertion(_ request: GetAssertionRequest) async throws -> SecurityKeyAssertion
}

/// The inputs of `authenticatorMakeCredential`.
public struct MakeCredentialRequest: Sendable {
    public let clientDataHash: [UInt8]
    public let rpID: String
    public let userHandle: [UInt8]
    public let userName: String
    /// COSE algorithms in the relying party's order of preference.
    public let algorithms: [Int64]
    /// Credentials of this user the authenticator must not hold already.
    public let excludeCredentialIDs: [[UInt8]]
    public let requireUserVerification: Bool

    public init(
        clientDataHash: [UInt8], rpID: String, userHandle: [UInt8], userName: String, algorithms: [Int64], excludeCredentialIDs: [[UInt8]],
        requireUserVerification: Bool
    ) {
        self.clientDataHash = clientDataHash
        self.rpID = rpID
        self.userHandle = userHandle
        self.userName = userName
        self.algorithms = algorithms
        self.excludeCredentialIDs = excludeCredentialIDs
        self.requireUserVerification = requireUserVerification
    }
}

/// What `authenticatorMakeCredential` returned.
public struct MadeCredential: Sendable {
    public let credentialID: [UInt8]
    /// The attestation object (CBOR: `fmt`, `attStmt`, `authData`).
    public let attestationObject: [UInt8]
    public let transports: [String]

    public init(credentialID: [UInt8], attestationObject: [UInt8], transports: [String]) {
        self.credentialID = credentialID
        self.attestationObject = attestationObject
        self.transports = transports
    }
}

/// The inputs of `authenticatorGetAssertion`.
public struct GetAssertionRequest: Sendable {
    public let clientDataHash: [UInt8]
    public let rpID: String
    public let allowCredentialIDs: [[UInt8]]
    public let requireUserVerification: Bool

    public init(clientDataHash: [UInt8], rpID: String, allowCredentialIDs: [[UInt8]], requireUserVerification: Bool) {
        self.clientDataHash = clientDataHash
        self.rpID = rpID
        self.allowCredentialIDs = allowCredentialIDs
        self.requireUserVerification = requireUserVerification
    }
}

/// What `authenticatorGetAssertion` returned.
public struct SecurityKeyAssertion: Sendable {
    public let credentialID: [UInt8]
    public let authenticatorData: [UInt8]
    public let signature: [UInt8]
    public let userHandle: [UInt8]?

    public init(credentialID: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?) {
        self.credentialID = credentialID
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// The `securitykey` factor: the activation's security key's assertion over this
/// request's challenge. Create it with `Authenticator.securityKeyFactor(for:using:)`.
public struct SecurityKeyFactor: AuthenticationFactor {
    /// Always `.securitykey`.
    public var type: FactorType { .securitykey }
    let assertion: WebAuthnJSON.AssertionCredential
}

/// A FIDO2 authenticator in software: P-256 credentials with a signature counter,
/// `packed` self attestation, kept in a JSON file readable by its owner only (or in
/// memory). It tests for user presence by being called, and reports the user as verified
/// only when it was made with `verifiesUser` (the embedding program checked a PIN or
/// biometrics before calling it). It is as strong as the file it lives in: for tests and
/// for machines without a hardware key.
public actor SoftwareSecurityKey: SecurityKeyAuthenticator {
    struct Credential: Codable {
        let id: [UInt8]
        let rpID: String
        let userHandle: [UInt8]
        let privateKey: Data
        var counter: UInt32
    }

    /// The AAGUID this authenticator reports: all zeros, "not disclosed".
    public static let aaguid = [UInt8](repeating: 0, count: 16)
    private let file: URL?
    private let verifiesUser: Bool
    private var credentials: [Credential]

    /// - Parameters:
    ///   - file: where credentials are kept (created with mode 0600); nil keeps them in memory.
    ///   - verifiesUser: whether the caller verified the user before each use (UV).
    public init(file: URL?, verifiesUser: Bool = true) throws {
        self.file = file
        self.verifiesUser = verifiesUser
        if let file, FileManager.default.fileExists(atPath: file.path) {
            credentials = try JSONDecoder().decode([Credential].self, from: Data(contentsOf: file))
        } else {
            credentials = []
        }
    }

    /// How many credentials it holds.
    public var count: Int { credentials.count }

    public func makeCredential(_ request: MakeCredentialRequest) async throws -> MadeCredential {
        guard request.algorithms.contains(COSEAlgorithm.es256.rawValue) else {
            throw TesseraKitError.securityKey("the relying party accepts no ES256 credential")
        }
        guard !request.requireUserVerification || verifiesUser else { throw TesseraKitError.securityKey("the user was not verified") }
        // CTAP2: a credential in the exclude list means this authenticator is registered already.
        guard !credentials.contains(where: { held in request.excludeCredentialIDs.contains(held.id) && held.rpID == request.rpID }) else {
            throw TesseraKitError.securityKey("this security key is registered for the user already")
        }
        let key = SoftwareCredentialKey()
        let id = Array(Secrets.randomBytes(32))
        let flags: AuthenticatorFlags = verifiesUser ? [.userPresent, .userVerified] : [.userPresent]
        let authenticatorData = AuthenticatorOutput.authenticatorData(
            rpID: request.rpID, flags: flags, signCount: 0, credential: (aaguid: Self.aaguid, id: id, publicKey: key.cosePublicKey))
        let signature = try key.sign(authenticatorData + request.clientDataHash)
        let object = CBOR.map([
            .init(.text("fmt"), .text("packed")),
            .init(
                .text("attStmt"),
                .map([.init(.text("alg"), .integer(COSEAlgorithm.es256.rawValue)), .init(.text("sig"), .bytes(signature))])),
            .init(.text("authData"), .bytes(authenticatorData)),
        ])
        credentials.append(Credential(id: id, rpID: request.rpID, userHandle: request.userHandle, privateKey: key.rawRepresentation, counter: 0))
        try await save()
        return MadeCredential(credentialID: id, attestationObject: object.encoded, transports: ["internal"])
    }

    public func getAssertion(_ request: GetAssertionRequest) async throws -> SecurityKeyAssertion {
        guard !request.requireUserVerification || verifiesUser else { throw TesseraKitError.securityKey("the user was not verified") }
        guard
            let index = credentials.firstIndex(where: { held in
                held.rpID == request.rpID && (request.allowCredentialIDs.isEmpty || request.allowCredentialIDs.contains(held.id))
            })
        else { throw TesseraKitError.securityKey("this security key holds no credential for \(request.rpID)") }
        credentials[index].counter += 1
        // Taken before the write: another assertion may count on while this one waits for it.
        let credential = credentials[index]
        try await save()
        let flags: AuthenticatorFlags = verifiesUser ? [.userPresent, .userVerified] : [.userPresent]
        let authenticatorData = AuthenticatorOutput.authenticatorData(rpID: request.rpID, flags: flags, signCount: credential.counter)
        let key = try SoftwareCredentialKey(rawRepresentation: credential.privateKey)
        let signature = try key.sign(authenticatorData + request.clientDataHash)
        return SecurityKeyAssertion(
            credentialID: credential.id, authenticatorData: authenticatorData, signature: signature, userHandle: credential.userHandle)
    }

    /// Writes the credentials on a thread of its own (`BlockingWork`). The actor may take
    /// another call while a write waits on the disk, so each write carries its state's
    /// generation and one already overtaken by a newer state on disk is skipped.
    private func save() async throws {
        guard let file else { return }
        let data = try JSONEncoder().encode(credentials)
        generation += 1
        let state = generation
        try await BlockingWork.run { [writer] in try writer.write(data, generation: state, to: file) }
    }

    private var generation: UInt64 = 0
    private let writer = NewestWrite()

    /// Writes a file from the newest state only, one write at a time.
    private final class NewestWrite: Sendable {
        private let written = Locked<UInt64>(0)

        func write(_ data: Data, generation: UInt64, to file: URL) throws {
            try written.withLock { last in
                guard generation > last else { return }
                try OwnerOnlyFile.replace(file, with: data)
                last = generation
            }
        }
    }
}

extension Authenticator {
    /// Asks `securityKey` for the `securitykey` factor of a claimed request: an assertion
    /// by the credential enrolled for this activation, over a challenge derived from the
    /// request (so it proves this attempt only).
    ///
    /// ```swift
    /// var info = try await authenticator.start(url: scannedURL)
    /// try info.sign(factor: DeviceFactor())
    /// try info.sign(factor: try await authenticator.securityKeyFactor(for: info, using: yubiKey))
    /// ```
    public func securityKeyFactor(for information: AuthenticationUserInformation, using securityKey: any SecurityKeyAuthenticator)
        async throws -> SecurityKeyFactor
    {
        guard let request = information.securityKey, let credentialID = Base64URL.decode(request.credentialID) else {
            throw TesseraKitError.securityKey("this activation has no security key enrolled")
        }
        guard let origin = DeviceCeremony.origin(ofIssuer: information.audience) else {
            throw TesseraKitError.transport("the issuer \(information.audience) has no origin")
        }
        let challenge = DeviceCeremony.assertionChallenge(
            requestID: information.requestID.rawValue, challenge: information.challenge.rawValue, audience: information.audience)
        let clientData = DeviceCeremony.clientDataJSON(type: "webauthn.get", challenge: challenge, origin: origin)
        let assertion = try await securityKey.getAssertion(
            GetAssertionRequest(
                clientDataHash: DeviceCeremony.clientDataHash(clientData), rpID: request.rpID, allowCredentialIDs: [Array(credentialID)],
                requireUserVerification: request.userVerification == "required"))
        return SecurityKeyFactor(
            assertion: WebAuthnJSON.AssertionCredential(
                id: Base64URL.encode(assertion.credentialID), rawId: Base64URL.encode(assertion.credentialID),
                response: .init(
                    clientDataJSON: Base64URL.encode(clientData), authenticatorData: Base64URL.encode(assertion.authenticatorData),
                    signature: Base64URL.encode(assertion.signature), userHandle: assertion.userHandle.map { Base64URL.encode($0) })))
    }
}
