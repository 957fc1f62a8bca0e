/// A public key as a JSON Web Key (RFC 7517): the one JWK type of the device protocol (a
/// device's and a biometric key), the tenant's JWKS, DPoP proofs and the gematik
/// profile's encryption key. EC P-256 (`crv`, `x`, `y`), RSA (`n`, `e`) or OKP Ed25519
/// (`crv`, `x`); absent members are left out when it is written. TesseraCrypto reads a
/// P-256 key from it and computes its thumbprint.
public struct PublicJWK: Codable, Hashable, Sendable {
    public var kty: String
    public var crv: String?
    public var x: String?
    public var y: String?
    public var n: String?
    public var e: String?
    public var kid: String?
    public var use: String?
    public var alg: String?

    /// The members only a private (or symmetric) key has: a key that carries them is refused
    /// where a public key is expected (a DPoP proof's header, a client's registered keys).
    public static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    public init(
        kty: String, crv: String? = nil, x: String? = nil, y: String? = nil, n: String? = nil, e: String? = nil, kid: String? = nil,
        use: String? = nil, alg: String? = nil
    ) {
        self.kty = kty
        self.crv = crv
        self.x = x
        self.y = y
        self.n = n
        self.e = e
        self.kid = kid
        self.use = use
        self.alg = alg
    }
}
