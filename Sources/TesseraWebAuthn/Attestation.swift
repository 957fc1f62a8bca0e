import Crypto
import Foundation
import SwiftASN1
import TesseraCrypto
// The fixed validation time is the server's injected clock, so tests can check chains at a known instant.
@_spi(FixedExpiryValidationTime) import X509

/// Attestation statement formats (WebAuthn §8): `none` (§8.7) and `packed` (§8.2) with
/// self attestation or a certificate chain. Every other format is refused by name.
enum Attestation {
    /// The FIDO extension that carries an attestation certificate's AAGUID.
    static let aaguidExtension: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]

    static func verify(
        format: String, statement: CBOR, authenticatorData: AuthenticatorData, clientDataHash: [UInt8],
        policy: RelyingParty.AttestationPolicy
    ) async throws(WebAuthnError) -> RelyingParty.AttestationTrust {
        switch format {
        case "none":
            guard statement.mapValue?.isEmpty == true else {
                throw WebAuthnError(.malformed, "a none attestation carries an empty statement")
            }
            guard policy.trustAnchors.isEmpty else {
                throw WebAuthnError(.invalidAttestation, "this tenant admits only authenticators attested by its trust anchors")
            }
            return .none
        case "packed":
            return try await packed(statement, authenticatorData: authenticatorData, clientDataHash: clientDataHash, policy: policy)
        default:
            throw WebAuthnError(
                .unsupportedAttestation, "the attestation format \(format.prefix(40)) is not supported (none and packed are)")
        }
    }

    /// §8.2.2's verification procedure.
    static func packed(
        _ statement: CBOR, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], policy: RelyingParty.AttestationPolicy
    ) async throws(WebAuthnError) -> RelyingParty.AttestationTrust {
        guard let credential = authenticatorData.attestedCredential else {
            throw WebAuthnError(.malformed, "a packed attestation without a credential")
        }
        guard let algorithmValue = statement["alg"]?.integerValue, let signature = statement["sig"]?.bytesValue else {
            throw WebAuthnError(.malformed, "a packed attestation statement needs alg and sig")
        }
        guard let algorithm = COSEAlgorithm(rawValue: algorithmValue) else {
            throw WebAuthnError(.unsupportedAlgorithm, "the attestation's algorithm \(algorithmValue) is not supported")
        }
        let signed = authenticatorData.raw + clientDataHash
        guard let chain = statement["x5c"] else {
            // Self attestation: signed by the credential's own key, with its own algorithm.
            guard algorithm == credential.publicKey.algorithm else {
                throw WebAuthnError(.invalidAttestation, "a self attestation's algorithm differs from the credential's")
            }
            guard credential.publicKey.isValidSignature(signature, for: signed) else {
                throw WebAuthnError(.invalidAttestation, "the self attestation's signature does not verify")
            }
            guard policy.trustAnchors.isEmpty else {
                throw WebAuthnError(.invalidAttestation, "this tenant admits only authenticators attested by its trust anchors")
            }
            return .selfAttested
        }
        guard let encodedCertificates = chain.arrayValue?.compactMap(\.bytesValue), !encodedCertificates.isEmpty,
            encodedCertificates.count == chain.arrayValue?.count, encodedCertificates.count <= 8
        else { throw WebAuthnError(.malformed, "x5c must be one to eight DER certificates") }
        let certificates: [Certificate]
        do {
            certificates = try encodedCertificates.map { try Certificate(derEncoded: $0) }
        } catch {
            throw WebAuthnError(.malformed, "an x5c certificate is not DER X.509")
        }
        let leaf = certificates[0]
        let signatureAlgorithm: Certificate.SignatureAlgorithm =
            switch algorithm {
            case .es256: .ecdsaWithSHA256
            case .eddsa: .ed25519
            case .rs256: .sha256WithRSAEncryption
            }
        guard leaf.publicKey.isValidSignature(signature, for: signed, signatureAlgorithm: signatureAlgorithm) else {
            throw WebAuthnError(.invalidAttestation, "the attestation's signature does not verify with its certificate")
        }
        try checkAttestationCertificate(leaf, aaguid: credential.aaguid)
        guard !policy.trustAnchors.isEmpty else { return .unverifiedCertificate }
        var verifier = Verifier(rootCertificates: CertificateStore(policy.trustAnchors)) {
            RFC5280Policy(fixedExpiryValidationTime: policy.validationTime)
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(certificates.dropFirst()))
        guard case .validCertificate = result else {
            throw WebAuthnError(.invalidAttestation, "the attestation certificate does not chain to a trust anchor of this tenant")
        }
        return .trustedCertificate
    }

    /// §8.2.1's requirements on the attestation certificate.
    static func checkAttestationCertificate(_ certificate: Certificate, aaguid: [UInt8]) throws(WebAuthnError) {
        guard certificate.version == .v3 else { throw WebAuthnError(.invalidAttestation, "the attestation certificate is not X.509 v3") }
        let unit = certificate.subject.flatMap { $0 }.first { $0.type == .RDNAttributeType.organizationalUnitName }
        guard let unit, String(unit.value) == "Authenticator Attestation" else {
            throw WebAuthnError(.invalidAttestation, "the attestation certificate's OU is not \"Authenticator Attestation\"")
        }
        let required: [ASN1ObjectIdentifier] = [.RDNAttributeType.countryName, .RDNAttributeType.organizationName, .RDNAttributeType.commonName]
        for type in required where !certificate.subject.flatMap({ $0 }).contains(where: { $0.type == type }) {
            throw WebAuthnError(.invalidAttestation, "the attestation certificate's subject lacks C, O or CN")
        }
        let constraints: BasicConstraints?
        do {
            constraints = try certificate.extensions.basicConstraints
        } catch {
            throw WebAuthnError(.invalidAttestation, "the attestation certificate's basic constraints are malformed")
        }
        if case .isCertificateAuthority = constraints {
            throw WebAuthnError(.invalidAttestation, "the attestation certificate is a CA certificate")
        }
        if let fidoExtension = certificate.extensions[oid: aaguidExtension] {
            guard !fidoExtension.critical else { throw WebAuthnError(.invalidAttestation, "the AAGUID extension is marked critical") }
            // An OCTET STRING holding the 16 bytes.
            let value: ASN1OctetString
            do {
                value = try ASN1OctetString(derEncoded: fidoExtension.value)
            } catch {
                throw WebAuthnError(.invalidAttestation, "the certificate's AAGUID extension is malformed")
            }
            guard Array(value.bytes) == aaguid else {
                throw WebAuthnError(.invalidAttestation, "the certificate's AAGUID differs from the authenticator data's")
            }
        }
    }
}
