import Crypto
import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Activation: a device looks at an invitation, then registers its keys and PIN key
/// against it. docs/PROTOCOL.md has the exchange.
public struct Activations: Sendable {
    let domain: Domain

    /// What an invitation offers: the user, the PIN salt, whether it can be merged.
    public func offer(code: String, tenant: TenantRecord) async throws -> ActivationOffer {
        let (invitation, user) = try await usableInvitation(code: code, tenant: tenant)
        return ActivationOffer(
            issuer: domain.issuer(forTenantNamed: tenant.name), tenant: tenant.name, username: user.username,
            pinSalt: invitation.pinSalt, expiresAt: Date(timeIntervalSince1970: TimeInterval(invitation.expiresAt)),
            mergeable: invitation.sealedPinKey == nil)
    }

    /// The invitation a code names, if it can still be used, and its user.
    public func usableInvitation(code: String, tenant: TenantRecord) async throws -> (InvitationRecord, UserRecord) {
        let now = domain.epochNow()
        let found: (InvitationRecord, UserRecord)? = try await domain.store.read { tx in
            guard let invitation = try await tx.invitation(codeDigest: Secrets.digest(code)), invitation.tenantID == tenant.id,
                let user = try await tx.user(id: invitation.userID)
            else { return nil }
            return (invitation, user)
        }
        guard let (invitation, user) = found else { throw DomainError.invalidGrant("the activation code is not valid") }
        guard invitation.usedAt == nil else { throw DomainError.invalidGrant("the activation code was used already") }
        guard user.disabledAt == nil else { throw DomainError(.forbidden, .accessDenied, "the user is disabled") }
        guard invitation.expiresAt > now else { throw DomainError(.invalid, .expiredToken, "the activation code has expired") }
        guard invitation.failedAttempts < InvitationRecord.maximumFailures else {
            throw DomainError.invalidGrant("the activation code is void after too many wrong PINs")
        }
        return (invitation, user)
    }

    /// Checks the registration (signed by the key it registers, and by the biometric key
    /// when it has one), spends the invitation and writes the activation.
    public func complete(_ input: ActivationCompleteRequest, tenant: TenantRecord, logger: Logger) async throws -> ActivationReceipt {
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let jws = try DeviceChecks.parseJWS(input.registration, type: JWSType.registration)
        let sent: ActivationRegistration
        do {
            sent = try jws.unverifiedClaims(as: ActivationRegistration.self)
        } catch {
            throw DomainError.invalidRequest("the registration does not have the expected claims")
        }
        // Proof of possession: the registration is signed by the key it registers.
        let deviceKey = try DeviceChecks.publicKey(sent.deviceKey, name: "device_key")
        let signed: VerifiedJWS<ActivationRegistration>
        do {
            signed = try jws.verified(with: deviceKey, as: ActivationRegistration.self)
        } catch {
            throw DomainError.invalidRequest("the registration is not signed by the device key")
        }
        let registration = signed.claims
        try domain.checkTimes(iat: Int64(registration.iat), exp: Int64(registration.exp), audience: registration.aud, issuer: issuer)
        var biometricKey: P256.Signing.PublicKey?
        if let biometricJWK = registration.biometricKey {
            // A second factor is a second key: the device key cannot stand in for biometrics.
            let key = try DeviceChecks.distinctKey(biometricJWK, name: "biometric_key", besides: [deviceKey])
            guard let second = input.biometricRegistration, let secondJWS = try? CompactJWS.parse(second, type: JWSType.registration),
                secondJWS.unverifiedPayload == signed.payload, (try? secondJWS.verifiedPayload(with: key)) != nil
            else { throw DomainError.invalidRequest("the registration is not signed by the biometric key") }
            biometricKey = key
        }
        // The background key is vouched for by the device key's signature over the
        // registration; it may only read, so it needs no signature of its own. It must be
        // a key of its own: one kept where a locked phone can use it.
        let backgroundKey = try registration.backgroundKey.map {
            try DeviceChecks.distinctKey($0, name: "background_key", besides: [deviceKey, biometricKey].compactMap { $0 })
        }
        let pinKey = try DeviceChecks.pinKey(registration.pinKey)
        let totpSecret = try registration.totpSecret.map(DeviceChecks.totpSecret)
        if let alias = registration.alias {
            guard alias.count <= 128, !alias.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw DomainError.invalidRequest("alias is at most 128 characters, without control characters")
            }
        }

        let (invitation, user) = try await usableInvitation(code: registration.code, tenant: tenant)
        let now = domain.epochNow()
        // Activation data made on another device carries the PIN the user chose there:
        // the link alone is not enough, and wrong guesses use the code up.
        if let sealedExpected = invitation.sealedPinKey {
            guard try await domain.store.transaction({ try await $0.reserveInvitationAttempt(id: invitation.id) }) else {
                throw DomainError.invalidGrant("the activation code is void after too many wrong PINs")
            }
            let expected = try domain.box.open(sealedExpected, context: SealingContext.invitationPinKey(invitationID: invitation.id))
            guard Secrets.constantTimeEquals(expected, pinKey) else {
                throw DomainError.invalidGrant("the PIN does not match the one chosen for this activation data")
            }
        }
        let activationID = ActivationID(Secrets.identifier(byteCount: 16))
        let record = ActivationRecord(
            id: activationID, tenantID: tenant.id, userID: user.id, alias: registration.alias ?? invitation.alias,
            deviceKey: PublicJWK(deviceKey), biometricKey: biometricKey.map { PublicJWK($0) },
            sealedPinKey: try domain.box.seal(pinKey, context: SealingContext.pinKey(activationID: activationID)),
            sealedTOTPSecret: try totpSecret.map { try domain.box.seal($0, context: SealingContext.totpSecret(activationID: activationID)) },
            totpLastStep: nil, failedAttempts: 0, lockedUntil: nil, permanentlyLocked: false, status: .active,
            createdAt: now, lastUsedAt: nil, backgroundKey: backgroundKey.map { PublicJWK($0) })
        // The invitation is spent and the activation written in one transaction: a crash
        // leaves either both or neither.
        try await domain.store.transaction { tx in
            guard try await tx.consumeInvitation(id: invitation.id, now: now) else {
                throw DomainError.invalidGrant("the activation code was used already")
            }
            try await tx.insertActivation(record)
            // A new device lifts a lock that wrong recovery codes started.
            try await tx.setRecoveryLock(userID: user.id, failures: 0, lockedUntil: nil)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: .activation(activationID), action: .activationCreate, target: activationID.rawValue,
                details: ["user_id": user.id.rawValue, "factors": record.enrolledFactors.sorted().map(\.rawValue).joined(separator: ",")], at: now)
            try await Notices.send(.deviceAdded, tx: tx, domain: domain, tenantID: tenant.id, userID: user.id, details: ["device": record.alias ?? ""], at: now)
            // Moving to a new device: the old activation goes once the new one exists.
            if let retired = invitation.retiresActivationID, try await tx.activation(id: retired) != nil {
                try await tx.copyLinkedUsers(from: retired, to: activationID)
                // Passkeys the old device's account page added belong to the new device now.
                try await tx.moveSecurityKeyOrigin(from: retired, to: activationID)
                _ = try await tx.deleteActivation(id: retired, at: now)
                try await Audit.record(
                    tx, tenantID: tenant.id, actor: .activation(activationID), action: .activationRetire, target: retired.rawValue,
                    details: ["replaced_by": activationID.rawValue], at: now)
            }
        }
        logger.info("activation created", metadata: ["tenant": "\(tenant.name)", "activation_id": "\(activationID)"])
        return ActivationReceipt(
            activationID: activationID, issuer: issuer, tenant: tenant.name, userID: user.id,
            username: user.username, factors: record.enrolledFactors.sorted(), backgroundKey: backgroundKey == nil ? nil : true)
    }
}

extension Domain {
    public var activations: Activations { Activations(domain: self) }
}
