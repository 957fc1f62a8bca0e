/// An identifier carried as a string on the wire but never confused with another kind:
/// a `String` becomes one only by naming the kind (`UserID(text)`); a literal may stand
/// for one where the kind is already known.
public protocol StringIdentifier: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
where RawValue == String, StringLiteralType == String {
    init(rawValue: String)
}

extension StringIdentifier {
    public init(_ rawValue: String) { self.init(rawValue: rawValue) }
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

public struct TenantID: StringIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct UserID: StringIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct GroupID: StringIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct ServiceID: StringIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct ClientID: StringIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct ActivationID: StringIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// The id of one authentication request (the thing a QR code points at).
public struct RequestID: StringIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// A fresh, single-use value the device signs over; it changes after every attempt.
public struct Challenge: StringIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// The id of one session: what a login gave one service, kept alive by refresh tokens
/// (the `sid` of its ID and access tokens).
public struct SessionID: StringIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// The id of one registered WebAuthn credential (a security key or a passkey) as Tessera
/// names it in its APIs; the credential's own id (the authenticator's) is stored beside it.
public struct SecurityKeyID: StringIdentifier {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}
