import Foundation

/// A role of a service: a name for some of the factor combinations its policy allows
/// (`standard` for `device+pin,device+biometric`, `strong` for `device+pin+biometric`).
/// A login's role is the first role, in the service's order, whose combinations include
/// the one used; the device's result and the ID token name it.
public struct ServiceRole: Codable, Sendable, Hashable {
    public var name: String
    /// Its factor combinations (written in the policy syntax, comma separated).
    public var policy: AuthenticatorPolicy

    public init(name: String, policy: AuthenticatorPolicy) {
        self.name = name
        self.policy = policy
    }

    /// The role a combination was used in, or nil when no role names it.
    public static func role(of combination: FactorCombination, in roles: [ServiceRole]) -> String? {
        roles.first { $0.policy.allows(combination) }?.name
    }
}

/// What a service sees as a user's `sub`: the user's id (`public`), or an identifier of
/// the user for this service alone (`pairwise`, OpenID Connect Core §8.1), so services
/// cannot join what they know about a user.
public enum SubjectType: String, Codable, Sendable, CaseIterable {
    case `public`
    case pairwise
}
