import Crypto
import Foundation

/// WebAuthn ceremonies a device (the SDK, as the WebAuthn client of a security key) runs
/// for an authentication request: their challenges are derived from the request, so the
/// server needs no state of its own for them and each is good for that request only.
public enum DeviceCeremony {
    /// The challenge of a security key's assertion in a device's proof: bound to the
    /// request, its current challenge (single use, replaced after every attempt) and the
    /// issuer, so an assertion is worth one attempt at one request.
    public static func assertionChallenge(requestID: String, challenge: String, audience: String) -> [UInt8] {
        digest(["tessera securitykey assertion", requestID, challenge, audience])
    }

    /// The challenge of a security key's registration in an `add_factor` process: bound
    /// to the process (approved once, completed once) and the issuer.
    public static func registrationChallenge(requestID: String, audience: String) -> [UInt8] {
        digest(["tessera securitykey registration", requestID, audience])
    }

    /// The origin a device's client data names: the issuer's scheme, host and port, the
    /// origin the tenant's login page has too.
    public static func origin(ofIssuer issuer: String) -> String? {
        guard let components = URLComponents(string: issuer), let scheme = components.scheme, let host = components.host else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    /// WebAuthn's client data as a client writes it (§5.8.1.1's serialization).
    public static func clientDataJSON(type: String, challenge: [UInt8], origin: String) -> [UInt8] {
        func quoted(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        let json = "{\"type\":\(quoted(type)),\"challenge\":\(quoted(Base64URL.encode(challenge))),\"origin\":\(quoted(origin)),\"crossOrigin\":false}"
        return Array(json.utf8)
    }

    private static func digest(_ parts: [String]) -> [UInt8] {
        var hasher = SHA256()
        for part in parts {
            hasher.update(data: Array(part.utf8))
            hasher.update(data: [0])
        }
        return Array(hasher.finalize())
    }
}

extension DeviceCeremony {
    /// SHA-256 of a ceremony's client data: what the authenticator signs over.
    public static func clientDataHash(_ clientDataJSON: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: clientDataJSON)) }
}

/// The key of one credential of a software authenticator (P-256, ES256): made, kept as
/// its raw scalar, and used to sign as an authenticator does (DER signatures).
public struct SoftwareCredentialKey: Sendable {
    private let key: P256.Signing.PrivateKey

    public init() { key = P256.Signing.PrivateKey() }

    public init(rawRepresentation: Data) throws { key = try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation) }

    public var rawRepresentation: Data { key.rawRepresentation }

    /// The public key in COSE form, for the attested credential data.
    public var cosePublicKey: [UInt8] { AuthenticatorOutput.coseKey(p256: key.publicKey) }

    /// An ECDSA signature over `data` with SHA-256, DER-encoded as WebAuthn carries it.
    public func sign(_ data: [UInt8]) throws -> [UInt8] { Array(try key.signature(for: data).derRepresentation) }
}
