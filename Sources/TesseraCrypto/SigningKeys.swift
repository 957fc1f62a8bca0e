import Crypto
import Foundation
import TesseraCore

/// A P-256 key held in memory and stored by its owner (the file key store).
public struct SoftwareSigningKey: P256Signer {
    private let key: P256.Signing.PrivateKey

    public init() { key = P256.Signing.PrivateKey() }

    public init(rawRepresentation: Data) throws(CryptoError) {
        do {
            key = try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation)
        } catch {
            throw CryptoError(.invalidKey, "not a P-256 private key")
        }
    }

    public var rawRepresentation: Data { key.rawRepresentation }
    public var publicKey: P256.Signing.PublicKey { key.publicKey }

    public func es256Signature(for data: Data) throws -> Data {
        try key.signature(for: data).rawRepresentation
    }
}

extension P256Signer {
    public var publicJWK: PublicJWK { PublicJWK(publicKey) }
}

#if canImport(CryptoKit) && canImport(Security) && canImport(LocalAuthentication)
import CryptoKit
import LocalAuthentication
import Security

/// A key inside the Secure Enclave: the private key never exists outside the chip;
/// `dataRepresentation` is an opaque handle only this device can use.
@available(macOS 12, iOS 15, *)
public struct SecureEnclaveSigningKey: P256Signer {
    private let key: SecureEnclave.P256.Signing.PrivateKey

    public static var isAvailable: Bool { SecureEnclave.isAvailable }

    /// A new key; `authenticationContext`, an evaluated `LAContext`, lets a key that
    /// needs biometrics sign at once without a second prompt.
    public init(accessControl: SecAccessControl? = nil, authenticationContext: LAContext? = nil) throws {
        if let accessControl {
            key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: accessControl, authenticationContext: authenticationContext)
        } else {
            key = try SecureEnclave.P256.Signing.PrivateKey()
        }
    }

    public init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws {
        key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: dataRepresentation, authenticationContext: authenticationContext)
    }

    public var dataRepresentation: Data { key.dataRepresentation }
    public var publicKey: P256.Signing.PublicKey { key.publicKey }

    public func es256Signature(for data: Data) throws -> Data {
        try key.signature(for: data).rawRepresentation
    }
}
#endif
