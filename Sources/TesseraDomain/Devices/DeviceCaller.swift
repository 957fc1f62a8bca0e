import Crypto
import Foundation
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// A device whose signed request token checked out. Its token id is spent in the
/// transaction that does the work (`spendToken` or `begin`), so a token is good for one
/// call; the activation here is only a first look (for a call that reads it again, one
/// this node kept: `DeviceKeyCache`), `begin` reads it again.
public struct DeviceCaller: Sendable {
    public let activation: ActivationRecord
    let tokenID: String
    let tokenExpiry: Int64
    /// Whether the token was signed by the activation's background key, which only reads
    /// pending requests and their state (`GET device/pending`, `GET
    /// device/authentications/{id}`); every other call needs the device key.
    public let background: Bool

    /// Records the token id; a second use of the same token is refused.
    public func spendToken(_ tx: StoreTransaction, now: Int64) async throws {
        guard try await tx.useDeviceTokenID(tokenID, activationID: activation.id, expiresAt: tokenExpiry, now: now) else {
            throw DomainError.invalidToken("the device token was used before")
        }
    }

    /// Spends the token and reads the activation as it is now, refusing it when it was
    /// removed or is locked (the pending lockout).
    public func begin(_ tx: StoreTransaction, now: Int64) async throws -> ActivationRecord {
        let (fresh, current) = try await tx.useDeviceTokenID(tokenID, reading: activation.id, expiresAt: tokenExpiry, now: now)
        guard fresh else { throw DomainError.invalidToken("the device token was used before") }
        return try await DeviceChecks.usable(current, tx: tx, now: now).activation
    }

    /// `begin`, also answering the activation's own user and the request the call is
    /// about (nil when its row is gone), read on PostgreSQL in the statement that spends
    /// the token.
    public func begin(_ tx: StoreTransaction, now: Int64, reading requestID: RequestID) async throws
        -> (activation: ActivationRecord, user: UserRecord?, request: AuthRequestRecord?)
    {
        let read = try await tx.useDeviceTokenID(tokenID, reading: activation.id, request: requestID, expiresAt: tokenExpiry, now: now)
        guard read.fresh else { throw DomainError.invalidToken("the device token was used before") }
        let (current, user) = try DeviceChecks.usable(read.activation, user: read.user, now: now)
        return (current, user, read.request)
    }
}

extension Domain {
    /// Checks a device's request token (`Authorization: Tessera-Device <JWS>`): signed by
    /// the activation's device key (`tessera-device+jwt`) or its background key
    /// (`tessera-background+jwt`), for this issuer, method and path, and short-lived.
    ///
    /// `readAgain`: the call reads the activation again in its transaction (`begin`), so a
    /// device key this node kept (`DeviceKeyCache`) may check the signature without a read
    /// here. A background token is always checked against the activation as read.
    public func authenticateDevice(token: String, method: String, path: String, tenant: TenantRecord, readAgain: Bool = false)
        async throws -> DeviceCaller
    {
        guard let (jws, sent, background) = Self.parseDeviceToken(token) else {
            throw DomainError.invalidToken("the device token is not valid")
        }
        let activation: ActivationRecord
        let claims: DeviceRequestClaims
        if background {
            // A stored key that does not decode is the server's failure, not the device's.
            guard let read = try await store.lookup({ try await $0.activation(id: ActivationID(sent.sub)) }),
                read.tenantID == tenant.id, read.status == .active, let key = try read.backgroundKey?.publicKey(),
                let verified = Self.verified(jws, by: key)
            else { throw DomainError.invalidToken("the device token is not valid") }
            (activation, claims) = (read, verified)
        } else {
            let found = try await verifiedByDeviceKey(ActivationID(sent.sub), tenant: tenant, kept: readAgain) { key in
                guard let claims = Self.verified(jws, by: key) else { throw DomainError.invalidToken("the device token is not valid") }
                return claims
            }
            guard let found else { throw DomainError.invalidToken("the device token is not valid") }
            (activation, claims) = found
        }
        try checkTimes(iat: Int64(claims.iat), exp: Int64(claims.exp), audience: claims.aud, issuer: issuer(forTenantNamed: tenant.name))
        guard claims.htm == method, claims.htu == path else { throw DomainError.invalidToken("the device token is for another call") }
        return DeviceCaller(activation: activation, tokenID: claims.jti, tokenExpiry: Int64(claims.exp), background: background)
    }

    /// The activation `id` names, of `tenant`, and what `verify` made of its device key
    /// (which it throws to refuse); nil when there is no such activation, or it was not
    /// active when read. With `kept`, a key this node kept (`DeviceKeyCache`) is used without
    /// a read: the caller reads the activation again in its transaction. A key read is kept
    /// once `verify` accepted it.
    func verifiedByDeviceKey<Verified>(
        _ id: ActivationID, tenant: TenantRecord, kept: Bool = true, _ verify: (P256.Signing.PublicKey) throws -> Verified
    ) async throws -> (activation: ActivationRecord, verified: Verified)? {
        if kept, let entry = deviceKeys.lookup(id, tenant: tenant.id) { return (entry.activation, try verify(entry.key)) }
        guard let read = try await store.lookup({ try await $0.activation(id: id) }), read.tenantID == tenant.id, read.status == .active
        else { return nil }
        // A stored key that does not decode is the server's failure, not the device's.
        let key = try DeviceChecks.deviceKey(of: read)
        let verified = try verify(key)
        deviceKeys.keep(read, key: key)
        return (read, verified)
    }

    /// The token's claims if `key` signed it.
    private static func verified(_ jws: UnverifiedJWS, by key: P256.Signing.PublicKey) -> DeviceRequestClaims? {
        try? jws.verified(with: key, as: DeviceRequestClaims.self).claims
    }

    /// A token's JWS and claims as sent (to find its activation), and whether it is a
    /// background token, or nil when it is neither kind.
    private static func parseDeviceToken(_ token: String) -> (UnverifiedJWS, DeviceRequestClaims, background: Bool)? {
        let jws: UnverifiedJWS
        let background: Bool
        if let device = try? CompactJWS.parse(token, type: JWSType.deviceToken) {
            (jws, background) = (device, false)
        } else if let reader = try? CompactJWS.parse(token, type: JWSType.backgroundToken) {
            (jws, background) = (reader, true)
        } else {
            return nil
        }
        guard let claims = try? jws.unverifiedClaims(as: DeviceRequestClaims.self) else { return nil }
        return (jws, claims, background)
    }

    /// The times and audience of a device-signed token: for this issuer, not expired, and
    /// short-lived (`DeviceChecks.maximumTokenLifetime`, with `clockSkew` of slack).
    public func checkTimes(iat: Int64, exp: Int64, audience: String, issuer: String) throws {
        let now = epochNow()
        guard audience == issuer else { throw DomainError.invalidToken("the token is for another audience") }
        guard exp > now else { throw DomainError.invalidToken("the token has expired") }
        // Bounds first, so that no arithmetic below can overflow on hostile values.
        guard iat <= now + DeviceChecks.clockSkew, iat >= now - DeviceChecks.maximumTokenLifetime - DeviceChecks.clockSkew, exp > iat,
            exp <= now + DeviceChecks.maximumTokenLifetime + DeviceChecks.clockSkew, exp - iat <= DeviceChecks.maximumTokenLifetime
        else { throw DomainError.invalidToken("the token's lifetime is not acceptable") }
    }
}

/// The `typ` of each JWS a device signs: one kind is never accepted as another.
public enum JWSType {
    public static let deviceToken = "tessera-device+jwt"
    /// A device token signed by the background key: it only reads pending requests.
    public static let backgroundToken = "tessera-background+jwt"
    public static let proof = "tessera-proof+jwt"
    public static let registration = "tessera-registration+jwt"
    public static let keyRegistration = "tessera-key+jwt"
}

/// Checks on what devices send: keys, JWS, PIN keys, TOTP secrets, activations.
public enum DeviceChecks {
    /// How far a device's clock may run ahead, and how long its signed tokens may live.
    public static let clockSkew: Int64 = 60
    public static let maximumTokenLifetime: Int64 = 300

    /// The activation inside a transaction (`read`, as just read in `tx`: still there,
    /// active and not locked) and its user (not disabled; nil only if its row is gone),
    /// read in `tx`: a caller that needs the user again in the same transaction uses this
    /// one instead of reading the row twice.
    public static func usable(_ read: ActivationRecord?, tx: StoreTransaction, now: Int64) async throws
        -> (activation: ActivationRecord, user: UserRecord?)
    {
        let current = try active(read, now: now)
        return try usable(current, user: try await tx.user(id: current.userID), now: now)
    }

    /// `usable`, with the activation's user read already (in the same statement).
    public static func usable(_ read: ActivationRecord?, user: UserRecord?, now: Int64) throws
        -> (activation: ActivationRecord, user: UserRecord?)
    {
        let current = try active(read, now: now)
        guard user?.disabledAt == nil else {
            throw DomainError(.forbidden, .accessDenied, "the user is disabled")
        }
        return (current, user)
    }

    /// The activation, still there, active and not locked.
    private static func active(_ read: ActivationRecord?, now: Int64) throws -> ActivationRecord {
        guard let current = read, current.status == .active else {
            throw DomainError.invalidToken("the activation is not active")
        }
        if let lock = current.lock(at: now) { throw DomainError.pendingLockout(lock) }
        return current
    }

    /// A PIN key as the device sends it: PBKDF2 output, 32 bytes, base64url.
    public static func pinKey(_ encoded: String?) throws -> Data {
        guard let encoded, let key = Base64URL.decode(encoded), key.count == 32 else {
            throw DomainError.invalidRequest("pin_key must be 32 bytes, base64url")
        }
        return key
    }

    /// A TOTP secret as the device sends it: 16 to 64 bytes, base64url.
    public static func totpSecret(_ encoded: String?) throws -> Data {
        guard let encoded, let secret = Base64URL.decode(encoded), (16...64).contains(secret.count) else {
            throw DomainError.invalidRequest("totp_secret must be 16 to 64 bytes, base64url")
        }
        return secret
    }

    /// Out of line: see `Attempts.parseProof`.
    @inline(never)
    public static func deviceKey(of activation: ActivationRecord) throws -> P256.Signing.PublicKey {
        try activation.deviceKey.publicKey()
    }

    /// A further key of an activation as the device sends it (field `name`): a P-256 key
    /// other than the activation's keys in `others`. A second factor is a second key, and
    /// the key a locked phone can use (the background key) is never one that approves.
    public static func distinctKey(_ jwk: PublicJWK, name: String, besides others: [P256.Signing.PublicKey]) throws
        -> P256.Signing.PublicKey
    {
        let key = try publicKey(jwk, name: name)
        guard !others.contains(where: { $0.rawRepresentation == key.rawRepresentation }) else {
            throw DomainError.invalidRequest("the \(name.replacingOccurrences(of: "_", with: " ")) must differ from the activation's other keys")
        }
        return key
    }

    public static func parseJWS(_ text: String, type: String) throws -> UnverifiedJWS {
        do {
            return try CompactJWS.parse(text, type: type)
        } catch {
            throw DomainError.invalidRequest("malformed JWS: \(error.message)")
        }
    }

    public static func publicKey(_ jwk: PublicJWK, name: String) throws -> P256.Signing.PublicKey {
        do {
            return try jwk.publicKey()
        } catch {
            throw DomainError.invalidRequest("\(name) is not a P-256 public key")
        }
    }
}


extension Optional {
    /// `map` for an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
