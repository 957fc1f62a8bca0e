/// The kinds of authentication factor an activation can enrol.
public enum FactorType: String, Codable, Sendable, CaseIterable, Comparable {
    /// The P-256 key bound to the installation (Secure Enclave on Apple platforms).
    case device
    /// A PIN that only the server can check.
    case pin
    /// A second P-256 key that the platform releases only after biometrics.
    case biometric
    /// A TOTP code (RFC 6238).
    case otp
    /// A WebAuthn credential: a security key or a passkey, checked by its assertion.
    case securitykey
    /// A sign-in at an external OpenID provider the tenant trusts (federation), linked to the user.
    case federation

    public static func < (lhs: FactorType, rhs: FactorType) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The RFC 8176 authentication method reference for this factor.
    public var authenticationMethodReference: String {
        switch self {
        case .device: "hwk"
        case .pin: "pin"
        case .biometric: "bio"
        case .otp: "otp"
        // A hardware-bound key by default; a synced passkey's login says `swk` (Grants.amr).
        case .securitykey: "hwk"
        // RFC 8176 registers no value for it; Tessera says `fed`.
        case .federation: "fed"
        }
    }
}

/// One combination of factors that must all be supplied together, e.g. device + PIN.
public struct FactorCombination: Hashable, Codable, Sendable, CustomStringConvertible {
    public let factors: [FactorType]

    /// Keeps the factors sorted and unique so that equal combinations compare equal.
    public init(_ factors: some Sequence<FactorType>) {
        self.factors = Array(Set(factors)).sorted()
    }

    public var description: String { factors.map(\.rawValue).joined(separator: "+") }

    public init(from decoder: any Decoder) throws {
        let factors = try decoder.singleValueContainer().decode([FactorType].self)
        guard !factors.isEmpty else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "empty factor combination"))
        }
        self.init(factors)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(factors)
    }
}

/// Alternatives of factor combinations: `[[device, pin], [device, biometric]]`.
///
/// Written as a string, alternatives are separated by commas and the factors of
/// one alternative joined by `+`: `"device+pin,device+biometric"`.
public struct AuthenticatorPolicy: Hashable, Codable, Sendable, CustomStringConvertible {
    public let alternatives: [FactorCombination]

    public static let standard = AuthenticatorPolicy(unchecked: [
        FactorCombination([.device, .pin]),
        FactorCombination([.device, .biometric]),
    ])

    /// The device alone: what a single sign-on session needs unless the tenant says otherwise.
    public static let device = AuthenticatorPolicy(unchecked: [FactorCombination([.device])])

    init(unchecked alternatives: [FactorCombination]) { self.alternatives = alternatives }

    public init(_ alternatives: [FactorCombination]) throws(PolicyError) {
        guard !alternatives.isEmpty else { throw PolicyError("the policy names no factor combination") }
        var seen = Set<FactorCombination>()
        self.alternatives = alternatives.filter { seen.insert($0).inserted }
    }

    public init(parsing text: String) throws(PolicyError) {
        var combinations: [FactorCombination] = []
        for alternative in text.split(separator: ",", omittingEmptySubsequences: false) {
            var factors: [FactorType] = []
            for name in alternative.split(separator: "+", omittingEmptySubsequences: false) {
                let trimmed = name.trimmingCharacters(in: " ")
                guard let factor = FactorType(rawValue: trimmed) else {
                    throw PolicyError("unknown factor '\(trimmed)' (known: device, pin, biometric, otp, securitykey)")
                }
                factors.append(factor)
            }
            combinations.append(FactorCombination(factors))
        }
        try self.init(combinations)
    }

    public var description: String { alternatives.map(\.description).joined(separator: ",") }

    /// The alternatives an activation with `enrolled` factors can satisfy, or the whole
    /// policy when none fits, so the app can tell the user what to enrol.
    public func filtered(toEnrolled enrolled: Set<FactorType>) -> [FactorCombination] {
        let possible = alternatives.filter { Set($0.factors).isSubset(of: enrolled) }
        return possible.isEmpty ? alternatives : possible
    }

    public func allows(_ combination: FactorCombination) -> Bool { alternatives.contains(combination) }

    /// Read and written as its text (`"device+pin,device+biometric"`), as the store's
    /// columns and the APIs hold it; text that is not a policy does not decode.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

public struct PolicyError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        var slice = self[...]
        while slice.first == set { slice.removeFirst() }
        while slice.last == set { slice.removeLast() }
        return String(slice)
    }
}
