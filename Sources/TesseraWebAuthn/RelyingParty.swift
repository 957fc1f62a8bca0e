import Crypto
import Foundation
import TesseraCrypto
import X509

/// The relying party's side of WebAuthn Level 3 (§7.1 registration, §7.2 authentication):
/// the checks a server makes on what a browser or an authenticator returns. It holds no
/// state: the caller keeps the challenge (single use, expiring) and the credential.
public struct RelyingParty: Sendable {
    /// The RP ID: a registrable domain (the issuer's host unless configured otherwise).
    public let id: String
    /// The origins a ceremony may come from (`https://host[:port]`, or `http://localhost…`).
    public let origins: Set<String>

    public init(id: String, origins: Set<String>) {
        self.id = id
        self.origins = origins
    }

    /// How much user verification a ceremony asks for.
    public enum UserVerification: String, Sendable, Codable {
        case required, preferred, discouraged
    }

    // MARK: Registration

    /// What `navigator.credentials.create()` (or an authenticator) returned.
    public struct RegistrationResponse: Sendable {
        public let clientDataJSON: [UInt8]
        public let attestationObject: [UInt8]
        public let transports: [String]

        public init(clientDataJSON: [UInt8], attestationObject: [UInt8], transports: [String] = []) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.transports = transports
        }
    }

    /// How far a registration's attestation was checked.
    public enum AttestationTrust: String, Sendable, Codable {
        /// Format `none`: nothing is known of the authenticator.
        case none
        /// `packed` self attestation: signed with the credential's own key.
        case selfAttested = "self"
        /// `packed` with a certificate whose signature verified, no trust anchor configured.
        case unverifiedCertificate = "certificate"
        /// `packed` with a certificate that chains to one of the tenant's trust anchors.
        case trustedCertificate = "trusted"
    }

    /// A registration that passed every check: what to store.
    public struct VerifiedRegistration: Sendable {
        public let credentialID: [UInt8]
        public let publicKey: COSEPublicKey
        public let signCount: UInt32
        public let aaguid: [UInt8]
        public let flags: AuthenticatorData.Flags
        public let format: String
        public let trust: AttestationTrust
        public let transports: [String]
    }

    /// Which attestations a registration may carry, and the anchors a certificate must
    /// chain to.
    public struct AttestationPolicy: Sendable {
        /// With anchors, only a `packed` certificate chain that ends at one of them is
        /// accepted (an enterprise that admits its own security keys only); without, any
        /// `none` or `packed` attestation whose signature verifies.
        public let trustAnchors: [Certificate]
        /// The time certificates are checked at.
        public let validationTime: Date

        public init(trustAnchors: [Certificate] = [], validationTime: Date = Date()) {
            self.trustAnchors = trustAnchors
            self.validationTime = validationTime
        }
    }

    /// Checks a registration (WebAuthn §7.1 steps 5–27) against the challenge it was given.
    public func verifyRegistration(
        _ response: RegistrationResponse, challenge: [UInt8], userVerification: UserVerification,
        algorithms: Set<COSEAlgorithm> = Set(COSEAlgorithm.allCases), attestation policy: AttestationPolicy = AttestationPolicy()
    ) async throws(WebAuthnError) -> VerifiedRegistration {
        try checkClientData(response.clientDataJSON, type: "webauthn.create", challenge: challenge)
        let object: CBOR
        do {
            object = try CBOR.decode(response.attestationObject)
        } catch {
            throw WebAuthnError(.malformed, "the attestation object is not CBOR: \(error)")
        }
        guard let format = object["fmt"]?.textValue, let statement = object["attStmt"], statement.mapValue != nil,
            let authDataBytes = object["authData"]?.bytesValue
        else { throw WebAuthnError(.malformed, "the attestation object lacks fmt, attStmt or authData") }
        let authenticatorData = try AuthenticatorData(authDataBytes)
        try checkAuthenticatorData(authenticatorData, userVerification: userVerification)
        guard let credential = authenticatorData.attestedCredential else {
            throw WebAuthnError(.malformed, "the registration's authenticator data carries no credential")
        }
        guard algorithms.contains(credential.publicKey.algorithm) else {
            throw WebAuthnError(.unsupportedAlgorithm, "\(credential.publicKey.algorithm) credentials are not accepted here")
        }
        let clientDataHash = Array(SHA256.hash(data: response.clientDataJSON))
        let trust = try await Attestation.verify(
            format: format, statement: statement, authenticatorData: authenticatorData, clientDataHash: clientDataHash, policy: policy)
        return VerifiedRegistration(
            credentialID: credential.credentialID, publicKey: credential.publicKey, signCount: authenticatorData.signCount,
            aaguid: credential.aaguid, flags: authenticatorData.flags, format: format, trust: trust,
            transports: response.transports.filter { Self.knownTransports.contains($0) })
    }

    /// The transports WebAuthn §5.8.4 names; others are dropped, not stored.
    static let knownTransports: Set<String> = ["usb", "nfc", "ble", "smart-card", "hybrid", "internal"]

    // MARK: Authentication

    /// What `navigator.credentials.get()` (or an authenticator) returned.
    public struct AssertionResponse: Sendable {
        public let credentialID: [UInt8]
        public let clientDataJSON: [UInt8]
        public let authenticatorData: [UInt8]
        public let signature: [UInt8]
        public let userHandle: [UInt8]?

        public init(credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?) {
            self.credentialID = credentialID
            self.clientDataJSON = clientDataJSON
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
        }
    }

    /// An assertion that passed every check.
    public struct VerifiedAssertion: Sendable {
        public let signCount: UInt32
        public let flags: AuthenticatorData.Flags
    }

    /// Checks an assertion (WebAuthn §7.2 steps 7–24) by the stored credential's key and
    /// counter. A counter that does not move forward (when either side is non-zero) is
    /// `counterRegression`: the credential may have been cloned, and the attempt fails.
    public func verifyAssertion(
        _ response: AssertionResponse, challenge: [UInt8], publicKey: COSEPublicKey, storedSignCount: UInt32,
        userVerification: UserVerification
    ) throws(WebAuthnError) -> VerifiedAssertion {
        try checkClientData(response.clientDataJSON, type: "webauthn.get", challenge: challenge)
        let authenticatorData = try AuthenticatorData(response.authenticatorData)
        try checkAuthenticatorData(authenticatorData, userVerification: userVerification)
        let signed = response.authenticatorData + Array(SHA256.hash(data: response.clientDataJSON))
        guard publicKey.isValidSignature(response.signature, for: signed) else {
            throw WebAuthnError(.invalidSignature, "the assertion's signature does not verify with the credential's key")
        }
        // [REQ:WebAuthn-L3 §7.2 step 22] a counter of zero on both sides means the authenticator keeps none.
        let count = authenticatorData.signCount
        if count != 0 || storedSignCount != 0 {
            guard count > storedSignCount else {
                throw WebAuthnError(.counterRegression, "the signature counter did not increase (\(count) after \(storedSignCount))")
            }
        }
        return VerifiedAssertion(signCount: count, flags: authenticatorData.flags)
    }

    // MARK: Shared checks

    struct ClientData: Decodable {
        let type: String
        let challenge: String
        let origin: String
        let crossOrigin: Bool?
        let topOrigin: String?
    }

    /// §7.1 steps 5–10 / §7.2 steps 10–14: the ceremony type, the challenge (in constant
    /// time) and the origin, and no cross-origin iframe.
    func checkClientData(_ json: [UInt8], type: String, challenge: [UInt8]) throws(WebAuthnError) {
        let clientData: ClientData
        do {
            clientData = try JSONDecoder().decode(ClientData.self, from: Data(json))
        } catch {
            throw WebAuthnError(.malformed, "clientDataJSON is not the client data WebAuthn defines")
        }
        guard clientData.type == type else {
            throw WebAuthnError(.invalidClientData, "the client data is for \(clientData.type.prefix(40)), not \(type)")
        }
        guard let received = Base64URL.decode(clientData.challenge), Secrets.constantTimeEquals(Data(received), Data(challenge)) else {
            throw WebAuthnError(.invalidClientData, "the client data is for another challenge")
        }
        guard origins.contains(clientData.origin) else {
            throw WebAuthnError(.invalidClientData, "the origin \(clientData.origin.prefix(200)) is not this relying party's")
        }
        guard clientData.crossOrigin != true, clientData.topOrigin == nil else {
            throw WebAuthnError(.invalidClientData, "ceremonies from a cross-origin frame are not accepted")
        }
    }

    /// §7.1 steps 13–16 / §7.2 steps 15–18: the RP ID hash, user presence, and user
    /// verification when required.
    func checkAuthenticatorData(_ data: AuthenticatorData, userVerification: UserVerification) throws(WebAuthnError) {
        let expected = Array(SHA256.hash(data: Data(id.utf8)))
        guard Secrets.constantTimeEquals(Data(data.rpIDHash), Data(expected)) else {
            throw WebAuthnError(.invalidAuthenticatorData, "the authenticator data is for another relying party")
        }
        guard data.flags.contains(.userPresent) else {
            throw WebAuthnError(.invalidAuthenticatorData, "the authenticator did not test for user presence")
        }
        if userVerification == .required, !data.flags.contains(.userVerified) {
            throw WebAuthnError(.invalidAuthenticatorData, "the authenticator did not verify the user, and this policy requires it")
        }
    }
}
