import TesseraCore
import TesseraCrypto

// The domain's own values from the admin API's: parsed where a request enters the domain.
// The generated enums of fields that may be null have an empty case, which names nothing
// and is refused here like any unknown value.

/// A value the admin API documents by name, with the sentence that refuses any other.
protocol DocumentedValue: RawRepresentable where RawValue == String {
    static var refusal: String { get }
}

extension DocumentedValue {
    static func documented(_ text: String) throws -> Self {
        guard let value = Self(rawValue: text) else { throw DomainError.invalidRequest(refusal) }
        return value
    }

    static func documented<Wire: RawRepresentable>(_ wire: Wire) throws -> Self where Wire.RawValue == String {
        try documented(wire.rawValue)
    }
}

extension BackchannelMode: DocumentedValue {
    static var refusal: String { "backchannel_token_delivery_mode is poll or ping" }
}

extension SubjectType: DocumentedValue {
    static var refusal: String { "subject_type is public or pairwise" }
}

extension SigningAlgorithm: DocumentedValue {
    static var refusal: String { "id_token_signed_response_alg is ES256, RS256 or EdDSA" }
}

extension AuthenticatorPolicy {
    /// A policy as a request spells it (`"device+pin,device+biometric"`), refused with the
    /// name of the field that held it.
    static func documented(_ text: String, field: String) throws -> AuthenticatorPolicy {
        do {
            return try AuthenticatorPolicy(parsing: text)
        } catch {
            throw DomainError.invalidRequest("\(field): \(error)")
        }
    }
}

extension AdminRole: DocumentedValue {
    static var refusal: String { "role is admin, helpdesk, auditor or provisioner" }
}
