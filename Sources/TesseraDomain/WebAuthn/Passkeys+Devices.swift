import Foundation
import TesseraCore
import TesseraCrypto
import TesseraStore
import TesseraWebAuthn

/// A security key as a device's factor (`device+securitykey`): the device is the WebAuthn
/// client, registering the key in an `add_factor` process and asking it for an assertion
/// in each proof. The challenges are derived from the request (`DeviceCeremony`): a
/// process's registration is good once (the process completes once), an assertion for
/// one attempt (the request's challenge is replaced after every attempt).
extension Passkeys {
    /// What the device creates the credential with, in an approved `add_factor` process.
    func deviceRegistrationOptions(user: UserRecord, requestID: RequestID, tenant: TenantRecord, tx: StoreTransaction) async throws
        -> WebAuthnJSON.CreationOptions
    {
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let existing = try await tx.securityKeys(userID: user.id)
        return WebAuthnJSON.CreationOptions(
            challenge: Base64URL.encode(DeviceCeremony.registrationChallenge(requestID: requestID.rawValue, audience: issuer)),
            rp: .init(id: relyingParty(for: tenant).id, name: tenant.name),
            user: .init(id: Self.userHandle(user.id), name: user.username, displayName: user.attributes["name"] ?? user.username),
            pubKeyCredParams: [COSEAlgorithm.es256, .eddsa, .rs256].map { .init(alg: $0.rawValue) },
            timeout: Int(Self.ceremonyLifetime) * 1000,
            excludeCredentials: existing.map { .init(id: $0.credentialID, transports: $0.transports.isEmpty ? nil : $0.transports) },
            authenticatorSelection: .init(residentKey: "preferred", userVerification: RelyingParty.UserVerification.preferred.rawValue),
            attestation: tenant.webAuthnTrustAnchors == nil ? "none" : "direct")
    }

    /// Checks a registration a device sends to complete its `add_factor` process, and the
    /// record to write (in the completing transaction).
    func verifyDeviceRegistration(
        _ credential: WebAuthnJSON.RegistrationCredential, name: String?, requestID: RequestID, userID: UserID, activation: ActivationRecord,
        tenant: TenantRecord
    ) async throws -> (SecurityKeyRecord, RelyingParty.VerifiedRegistration) {
        let response = try Self.registrationResponse(credential)
        let keyName = try Self.checkedName(name)
        let anchors = try tenant.webAuthnTrustAnchors.map { try TrustAnchors.certificates(pem: $0) } ?? []
        let challenge = DeviceCeremony.registrationChallenge(requestID: requestID.rawValue, audience: domain.issuer(forTenantNamed: tenant.name))
        let verified: RelyingParty.VerifiedRegistration
        do {
            verified = try await relyingParty(for: tenant).verifyRegistration(
                response, challenge: challenge, userVerification: .preferred,
                attestation: .init(trustAnchors: anchors, validationTime: domain.now()))
        } catch {
            throw DomainError(.invalid, Self.invalidCredential, error.message)
        }
        let now = domain.epochNow()
        let record = SecurityKeyRecord(
            id: SecurityKeyID(Secrets.identifier(byteCount: 16)), tenantID: tenant.id, userID: userID,
            credentialID: Base64URL.encode(verified.credentialID), publicKey: Base64URL.encode(verified.publicKey.encoded),
            algorithm: verified.publicKey.algorithm.rawValue, signCount: Int64(verified.signCount), aaguid: Self.uuid(verified.aaguid),
            transports: verified.transports, backupEligible: verified.flags.contains(.backupEligible),
            backedUp: verified.flags.contains(.backedUp), userVerified: verified.flags.contains(.userVerified),
            attestation: verified.trust.rawValue, name: keyName ?? "Security key of \(activation.alias ?? "a device")", createdAt: now)
        return (record, verified)
    }

    /// What a device is told to ask its security key for, when its activation has one.
    func deviceAssertionRequest(for activation: ActivationRecord, tenant: TenantRecord, tx: StoreTransaction) async throws
        -> SecurityKeyRequest?
    {
        guard let keyID = activation.securityKeyID, let key = try await tx.securityKey(id: keyID) else { return nil }
        return SecurityKeyRequest(
            rpID: relyingParty(for: tenant).id, credentialID: key.credentialID, transports: key.transports,
            userVerification: RelyingParty.UserVerification.preferred.rawValue)
    }

    /// How a device's security-key proof turned out.
    enum DeviceAssertion: Sendable {
        case passed(key: SecurityKeyID, signCount: Int64, backedUp: Bool)
        case failed
        /// The counter went backwards: the key is marked suspicious, and the factor fails.
        case counterRegression(SecurityKeyID)
    }

    /// Checks the assertion a proof carries against the activation's key, bound to the
    /// request's challenge. Anything wrong is a failed factor (counted like a wrong PIN).
    func verifyDeviceAssertion(
        _ credential: WebAuthnJSON.AssertionCredential?, key: SecurityKeyRecord?, claims: AuthenticationProofClaims, tenant: TenantRecord
    ) -> DeviceAssertion {
        guard let credential, let key, key.suspiciousAt == nil, let response = try? Self.assertionResponse(credential),
            Base64URL.encode(response.credentialID) == key.credentialID,
            let publicKey = try? COSEPublicKey(encoded: Array(Base64URL.decode(key.publicKey) ?? Data()))
        else { return .failed }
        if let handle = response.userHandle, !Secrets.constantTimeEquals(handle, Array(key.userID.rawValue.utf8)) { return .failed }
        let challenge = DeviceCeremony.assertionChallenge(requestID: claims.rid, challenge: claims.chal, audience: claims.aud)
        do {
            let verified = try relyingParty(for: tenant).verifyAssertion(
                response, challenge: challenge, publicKey: publicKey, storedSignCount: UInt32(clamping: key.signCount),
                userVerification: .preferred)
            return .passed(key: key.id, signCount: Int64(verified.signCount), backedUp: verified.flags.contains(.backedUp))
        } catch {
            return error.code == .counterRegression ? .counterRegression(key.id) : .failed
        }
    }
}
