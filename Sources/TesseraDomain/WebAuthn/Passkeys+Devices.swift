import Foundation
import TesseraCore
import TesseraCrypto
import TesseraRecords
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
        return creationOptions(
            challenge: Base64URL.encode(DeviceCeremony.registrationChallenge(requestID: requestID.rawValue, audience: issuer)), user: user,
            existing: try await tx.securityKeys(userID: user.id), tenant: tenant)
    }

    /// Checks a registration a device sends to complete its `add_factor` process, and the
    /// record to write (in the completing transaction).
    func verifyDeviceRegistration(
        _ credential: WebAuthnJSON.RegistrationCredential, name: String?, requestID: RequestID, userID: UserID, activation: ActivationRecord,
        tenant: TenantRecord
    ) async throws -> SecurityKeyRecord {
        let challenge = DeviceCeremony.registrationChallenge(requestID: requestID.rawValue, audience: domain.issuer(forTenantNamed: tenant.name))
        return try await verifiedKey(
            try Self.registrationResponse(credential), challenge: challenge, userVerification: .preferred, userID: userID,
            name: try Self.checkedName(name) ?? "Security key of \(activation.alias ?? "a device")", tenant: tenant)
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
    /// request's challenge. Anything wrong with the assertion is a failed factor (counted
    /// like a wrong PIN); a stored key that no longer decodes is the server's fault, a
    /// corrupt row that fails the attempt and counts nothing.
    func verifyDeviceAssertion(
        _ credential: WebAuthnJSON.AssertionCredential?, key: SecurityKeyRecord?, claims: AuthenticationProofClaims, tenant: TenantRecord
    ) throws -> DeviceAssertion {
        guard let key else { return .failed }
        let publicKey: COSEPublicKey
        do {
            guard let encoded = Base64URL.decode(key.publicKey) else { throw StoreError(.corrupt, "not base64url") }
            publicKey = try COSEPublicKey(encoded: Array(encoded))
        } catch {
            throw StoreError(.corrupt, "security key \(key.id) has a stored public key that does not decode")
        }
        guard let credential, key.suspiciousAt == nil, let response = try? Self.assertionResponse(credential),
            Base64URL.encode(response.credentialID) == key.credentialID
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
