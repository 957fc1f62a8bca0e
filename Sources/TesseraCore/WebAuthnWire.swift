/// WebAuthn's JSON forms (WebAuthn L3 §5.1.8–§5.1.10, §5.4–§5.5): what a browser's
/// `PublicKeyCredential.toJSON()` sends and what `parseCreationOptionsFromJSON` /
/// `parseRequestOptionsFromJSON` read. Binary values are base64url without padding.
public enum WebAuthnJSON {
    public struct RelyingPartyEntity: Codable, Sendable, Hashable {
        public let id: String
        public let name: String
        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    public struct UserEntity: Codable, Sendable, Hashable {
        public let id: String
        public let name: String
        public let displayName: String
        public init(id: String, name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }
    }

    public struct CredentialParameters: Codable, Sendable, Hashable {
        public var type = "public-key"
        public let alg: Int64
        public init(alg: Int64) { self.alg = alg }
    }

    public struct CredentialDescriptor: Codable, Sendable, Hashable {
        public var type = "public-key"
        public let id: String
        public let transports: [String]?
        public init(id: String, transports: [String]?) {
            self.id = id
            self.transports = transports
        }
    }

    public struct AuthenticatorSelection: Codable, Sendable, Hashable {
        public let residentKey: String
        public let requireResidentKey: Bool
        public let userVerification: String
        public init(residentKey: String, userVerification: String) {
            self.residentKey = residentKey
            self.requireResidentKey = residentKey == "required"
            self.userVerification = userVerification
        }
    }

    /// `PublicKeyCredentialCreationOptionsJSON`.
    public struct CreationOptions: Codable, Sendable, Hashable {
        public let challenge: String
        public let rp: RelyingPartyEntity
        public let user: UserEntity
        public let pubKeyCredParams: [CredentialParameters]
        public let timeout: Int
        public let excludeCredentials: [CredentialDescriptor]
        public let authenticatorSelection: AuthenticatorSelection
        public let attestation: String

        public init(
            challenge: String, rp: RelyingPartyEntity, user: UserEntity, pubKeyCredParams: [CredentialParameters], timeout: Int,
            excludeCredentials: [CredentialDescriptor], authenticatorSelection: AuthenticatorSelection, attestation: String
        ) {
            self.challenge = challenge
            self.rp = rp
            self.user = user
            self.pubKeyCredParams = pubKeyCredParams
            self.timeout = timeout
            self.excludeCredentials = excludeCredentials
            self.authenticatorSelection = authenticatorSelection
            self.attestation = attestation
        }
    }

    /// `PublicKeyCredentialRequestOptionsJSON`.
    public struct RequestOptions: Codable, Sendable, Hashable {
        public let challenge: String
        public let rpId: String
        public let timeout: Int
        public let allowCredentials: [CredentialDescriptor]
        public let userVerification: String

        public init(challenge: String, rpId: String, timeout: Int, allowCredentials: [CredentialDescriptor], userVerification: String) {
            self.challenge = challenge
            self.rpId = rpId
            self.timeout = timeout
            self.allowCredentials = allowCredentials
            self.userVerification = userVerification
        }
    }

    /// `RegistrationResponseJSON`.
    public struct RegistrationCredential: Codable, Sendable, Hashable {
        public struct Response: Codable, Sendable, Hashable {
            public let clientDataJSON: String
            public let attestationObject: String
            public let transports: [String]?
            public init(clientDataJSON: String, attestationObject: String, transports: [String]?) {
                self.clientDataJSON = clientDataJSON
                self.attestationObject = attestationObject
                self.transports = transports
            }
        }
        public let id: String
        public let rawId: String
        public let type: String
        public let response: Response

        public init(id: String, rawId: String, type: String = "public-key", response: Response) {
            self.id = id
            self.rawId = rawId
            self.type = type
            self.response = response
        }
    }

    /// `AuthenticationResponseJSON`.
    public struct AssertionCredential: Codable, Sendable, Hashable {
        public struct Response: Codable, Sendable, Hashable {
            public let clientDataJSON: String
            public let authenticatorData: String
            public let signature: String
            public let userHandle: String?
            public init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String?) {
                self.clientDataJSON = clientDataJSON
                self.authenticatorData = authenticatorData
                self.signature = signature
                self.userHandle = userHandle
            }
        }
        public let id: String
        public let rawId: String
        public let type: String
        public let response: Response

        public init(id: String, rawId: String, type: String = "public-key", response: Response) {
            self.id = id
            self.rawId = rawId
            self.type = type
            self.response = response
        }
    }
}
