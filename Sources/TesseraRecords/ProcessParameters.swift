import TesseraCore

/// What an account process was started with, kept on its request.
public struct ProcessParameters: Codable, Sendable, Equatable {
    public var factor: FactorType?
    /// `merge`: the digest of the invitation's code.
    public var invitationDigest: String?
    public var username: String?
    public var target: ActivationID?
    public var targetAlias: String?
    /// `change_pin` and `new_activation_data`: the salt of the new PIN key.
    public var pinSalt: String?

    enum CodingKeys: String, CodingKey {
        case factor, username, target
        case invitationDigest = "invitation_digest"
        case targetAlias = "target_alias"
        case pinSalt = "pin_salt"
    }

    public init() {}

    public var description: ProcessDescription {
        ProcessDescription(factor: factor, username: username, target: target, targetAlias: targetAlias)
    }
}
