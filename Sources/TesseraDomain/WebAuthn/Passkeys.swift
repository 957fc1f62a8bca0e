import Crypto
import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore
import TesseraWebAuthn

/// Security keys and passkeys (WebAuthn L3): registering one for a user (from the account
/// page, or from an invitation opened in a browser), signing in with one on a login page,
/// and listing and removing them. Every ceremony's challenge is fresh, single use (taken
/// by the answer whatever its outcome) and expires after `ceremonyLifetime`.
public struct Passkeys: Sendable {
    let domain: Domain

    /// Seconds a ceremony's challenge lives; browsers get the same as their timeout.
    public static let ceremonyLifetime: Int64 = 300
    /// How many credentials one user may register.
    public static let maximumPerUser = 20

    public static let invalidCredential = DomainError.Code("invalid_credential")

    // MARK: The relying party

    /// The tenant's relying party: its RP ID is the tenant's own (`webauthn_rp_id`), or the
    /// server's (`--webauthn-rp-id`), or the host of the public URL (the issuer's host);
    /// the one origin is the public URL's.
    public func relyingParty(for tenant: TenantRecord) -> RelyingParty {
        let components = URLComponents(string: domain.settings.publicURL)
        let host = components?.host ?? "localhost"
        var origin = "\(components?.scheme ?? "https")://\(host)"
        if let port = components?.port { origin += ":\(port)" }
        return RelyingParty(id: tenant.webAuthnRPID ?? domain.settings.relyingPartyID ?? host, origins: [origin])
    }

    /// Whether `id` may be an RP ID for the public URL: its host, or a parent domain of it
    /// with at least two labels (browsers refuse a public suffix such as `com`).
    public func isValidRelyingPartyID(_ id: String) -> Bool {
        let host = domain.settings.publicHost
        guard !id.isEmpty, id.count <= 253, id == id.lowercased(), !id.hasPrefix("."), !id.hasSuffix(".") else { return false }
        return host == id || (host.hasSuffix("." + id) && id.contains("."))
    }

    // MARK: Registration

    /// Who a registration is for and what asked for it.
    public enum Registrant: Sendable {
        /// A user signed in on their account page, in that page's session.
        case accountPage(user: UserRecord, webSession: WebSessionRecord)
        /// The holder of an operator's invitation, opened in a browser.
        case invitation(code: String)
    }

    /// Options for `navigator.credentials.create()`: a fresh challenge for the user, their
    /// registered credentials excluded, a discoverable credential (a passkey) preferred.
    public func registrationOptions(for registrant: Registrant, tenant: TenantRecord) async throws -> WebAuthnJSON.CreationOptions {
        let now = domain.epochNow()
        let (user, invitationID, webSession) = try await resolve(registrant, tenant: tenant, now: now)
        let challenge = Base64URL.encode(Secrets.randomBytes(32))
        let existing = try await domain.store.transaction { tx in
            try await tx.insertCeremony(
                CeremonyRecord(
                    challenge: challenge, tenantID: tenant.id, kind: .registration, userID: user.id, requestID: nil,
                    invitationID: invitationID, webSession: webSession, userVerification: RelyingParty.UserVerification.preferred.rawValue,
                    createdAt: now, expiresAt: now + Self.ceremonyLifetime))
            return try await tx.securityKeys(userID: user.id)
        }
        return creationOptions(challenge: challenge, user: user, existing: existing, tenant: tenant)
    }

    /// What a credential for `user` is created with: ES256, EdDSA or RS256; the user's keys
    /// excluded; a discoverable credential (a passkey) and user verification preferred;
    /// attestation asked for only when the tenant checks it against trust anchors.
    func creationOptions(challenge: String, user: UserRecord, existing: [SecurityKeyRecord], tenant: TenantRecord)
        -> WebAuthnJSON.CreationOptions
    {
        WebAuthnJSON.CreationOptions(
            challenge: challenge, rp: .init(id: relyingParty(for: tenant).id, name: tenant.name),
            user: .init(id: Self.userHandle(user.id), name: user.username, displayName: user.attributes["name"] ?? user.username),
            pubKeyCredParams: [COSEAlgorithm.es256, .eddsa, .rs256].map { .init(alg: $0.rawValue) },
            timeout: Int(Self.ceremonyLifetime) * 1000,
            excludeCredentials: existing.map { .init(id: $0.credentialID, transports: $0.transports.isEmpty ? nil : $0.transports) },
            authenticatorSelection: .init(residentKey: "preferred", userVerification: RelyingParty.UserVerification.preferred.rawValue),
            attestation: tenant.webAuthnTrustAnchors == nil ? "none" : "direct")
    }

    /// Checks a registration against its challenge and the tenant's attestation policy;
    /// the record to store for it.
    func verifiedKey(
        _ response: RelyingParty.RegistrationResponse, challenge: [UInt8], userVerification: RelyingParty.UserVerification,
        userID: UserID, name: String?, tenant: TenantRecord, logger: Logger? = nil
    ) async throws -> SecurityKeyRecord {
        let anchors = try tenant.webAuthnTrustAnchors.map { try TrustAnchors.certificates(pem: $0) } ?? []
        let verified: RelyingParty.VerifiedRegistration
        do {
            verified = try await relyingParty(for: tenant).verifyRegistration(
                response, challenge: challenge, userVerification: userVerification,
                attestation: .init(trustAnchors: anchors, validationTime: domain.now()))
        } catch {
            logger?.info("security key registration refused", metadata: ["tenant": "\(tenant.name)", "reason": "\(error.code.rawValue)"])
            throw DomainError(.invalid, Self.invalidCredential, error.message)
        }
        return SecurityKeyRecord(
            id: SecurityKeyID(Secrets.identifier(byteCount: 16)), tenantID: tenant.id, userID: userID,
            credentialID: Base64URL.encode(verified.credentialID), publicKey: Base64URL.encode(verified.publicKey.encoded),
            algorithm: verified.publicKey.algorithm.rawValue, signCount: Int64(verified.signCount), aaguid: Self.uuid(verified.aaguid),
            transports: verified.transports, backupEligible: verified.flags.contains(.backupEligible),
            backedUp: verified.flags.contains(.backedUp), userVerified: verified.flags.contains(.userVerified),
            attestation: verified.trust.rawValue, name: name ?? Self.defaultName(verified), createdAt: domain.epochNow())
    }

    /// Writes a new key: its credential id is new in the tenant, and its user has fewer
    /// than `maximumPerUser` (checked first: on PostgreSQL a failed insert ends the transaction).
    static func insert(_ key: SecurityKeyRecord, tx: StoreTransaction) async throws {
        guard try await tx.securityKey(tenantID: key.tenantID, credentialID: key.credentialID) == nil else {
            throw DomainError.conflict("this credential is registered already")
        }
        guard try await tx.securityKeys(userID: key.userID).count < maximumPerUser else {
            throw DomainError.conflict("a user may register at most \(maximumPerUser) security keys")
        }
        try await tx.insertSecurityKey(key)
    }

    /// The user handle of a user's credentials: the user id's UTF-8 bytes, base64url.
    static func userHandle(_ id: UserID) -> String { Base64URL.encode(Data(id.rawValue.utf8)) }

    private func resolve(_ registrant: Registrant, tenant: TenantRecord, now: Int64) async throws -> (UserRecord, String?, String?) {
        switch registrant {
        case .accountPage(let user, let webSession):
            return (user, nil, webSession.digest)
        case .invitation(let code):
            let (invitation, user) = try await domain.operatorInvitation(code: code, tenant: tenant, now: now)
            return (user, invitation.id, nil)
        }
    }

    /// Registers the credential `navigator.credentials.create()` returned for the
    /// registrant's challenge. An invitation is spent by it.
    public func register(
        _ credential: WebAuthnJSON.RegistrationCredential, name: String?, registrant: Registrant, tenant: TenantRecord,
        actor: Audit.Actor? = nil, logger: Logger
    ) async throws -> SecurityKeyView {
        let now = domain.epochNow()
        let response = try Self.registrationResponse(credential)
        let challenge = try Self.challenge(in: response.clientDataJSON)
        let keyName = try Self.checkedName(name)
        let ceremony = try await domain.store.transaction { tx in
            try await tx.takeCeremony(challenge: challenge, tenantID: tenant.id, now: now)
        }
        let (user, invitationID, webSession) = try await resolve(registrant, tenant: tenant, now: now)
        // The challenge answers only what it was given for: this user, this invitation or page session.
        guard let ceremony, ceremony.kind == .registration, ceremony.userID == user.id, ceremony.invitationID == invitationID,
            ceremony.webSession == webSession, let expected = Base64URL.decode(ceremony.challenge)
        else { throw DomainError(.invalid, Self.invalidCredential, "the registration's challenge is unknown, spent or expired") }
        var record = try await verifiedKey(
            response, challenge: Array(expected),
            userVerification: RelyingParty.UserVerification(rawValue: ceremony.userVerification) ?? .preferred, userID: user.id,
            name: keyName, tenant: tenant, logger: logger)
        try await domain.store.transaction { tx in
            if case .accountPage(_, let webSession) = registrant {
                // What opened the page's session, still there: the key is removed with it. A
                // page opened otherwise (at another provider) adds none: nothing would take it away.
                guard let page = try await tx.webSession(digest: webSession.digest), page.endedAt == nil else {
                    throw DomainError(.unauthenticated, .accessDenied, "the page's session has ended: sign in again")
                }
                if let activationID = page.activationID {
                    guard try await tx.activation(id: activationID) != nil else {
                        throw DomainError(.unauthenticated, .accessDenied, "the device you signed in with is gone: sign in again")
                    }
                    record.originActivationID = activationID
                } else if let keyID = try await tx.session(id: page.sessionID)?.securityKeyID, try await tx.securityKey(id: keyID) != nil {
                    record.originSecurityKeyID = keyID
                } else {
                    throw DomainError(
                        .forbidden, .accessDenied, "a passkey is added after signing in with a device or a passkey, which it then belongs to")
                }
            }
            if let invitationID {
                guard try await tx.consumeInvitation(id: invitationID, now: now) else {
                    throw DomainError.invalidGrant("the invitation was used already")
                }
            }
            try await Self.insert(record, tx: tx)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: actor ?? .user(user.id), action: .securityKeyEnrol,
                target: record.id.rawValue,
                details: [
                    "user_id": user.id.rawValue, "name": record.name,
                    "algorithm": COSEAlgorithm(rawValue: record.algorithm)?.description ?? String(record.algorithm),
                    "attestation": record.attestation, "via": invitationID == nil ? "account_page" : "invitation",
                ], at: now)
            try await Notices.send(.passkeyAdded, tx: tx, domain: domain, tenantID: tenant.id, userID: user.id, details: ["passkey": record.name], at: now)
        }
        logger.notice("passkey registered", metadata: ["tenant": "\(tenant.name)", "security_key_id": "\(record.id)"])
        return SecurityKeyView(record)
    }

    static func checkedName(_ name: String?) throws -> String? {
        guard let name else { return nil }
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        guard trimmed.count <= 64, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw DomainError.invalidRequest("a security key's name is at most 64 characters, without control characters")
        }
        return trimmed
    }

    static func defaultName(_ verified: RelyingParty.VerifiedRegistration) -> String {
        verified.flags.contains(.backupEligible) ? "Passkey" : "Security key"
    }

    static func uuid(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return "" }
        let hex = bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }

    static func registrationResponse(_ credential: WebAuthnJSON.RegistrationCredential) throws -> RelyingParty.RegistrationResponse {
        guard credential.type == "public-key", let clientData = Base64URL.decode(credential.response.clientDataJSON),
            let attestation = Base64URL.decode(credential.response.attestationObject)
        else { throw DomainError.invalidRequest("the credential is not a public-key credential in WebAuthn's JSON form") }
        return RelyingParty.RegistrationResponse(
            clientDataJSON: Array(clientData), attestationObject: Array(attestation),
            transports: Array((credential.response.transports ?? []).prefix(8)))
    }

    /// The challenge a response's client data names, to find its ceremony by; the
    /// relying party compares it again, with everything else, before anything is trusted.
    static func challenge(in clientDataJSON: [UInt8]) throws -> String {
        struct Named: Decodable { let challenge: String }
        guard let named = try? JSONDecoder().decode(Named.self, from: Data(clientDataJSON)), Base64URL.isURLSafe(named.challenge),
            named.challenge.count <= 128
        else { throw DomainError.invalidRequest("clientDataJSON does not name a challenge") }
        return named.challenge
    }

    // MARK: Signing in on the login page

    /// Options for `navigator.credentials.get()` on a login page, for the browser that
    /// started the request. With a username, the user's credentials are allowed (security
    /// keys that are not discoverable); without, any passkey of the tenant (and the
    /// browser may offer them as autofill).
    public func loginOptions(_ request: AuthRequestRecord, username: String?, tenant: TenantRecord) async throws -> WebAuthnJSON.RequestOptions {
        let now = domain.epochNow()
        try await checkPasskeyLogin(request, tenant: tenant, now: now)
        let challenge = Base64URL.encode(Secrets.randomBytes(32))
        // The request's login_hint names the user when the page does not.
        let named = (request.loginHint ?? username).flatMap { $0.isEmpty ? nil : $0 }
        let allowed: [SecurityKeyRecord] = try await domain.store.transaction { tx in
            try await tx.insertCeremony(
                CeremonyRecord(
                    challenge: challenge, tenantID: tenant.id, kind: .authentication, userID: nil, requestID: request.id, invitationID: nil,
                    webSession: nil, userVerification: RelyingParty.UserVerification.required.rawValue, createdAt: now,
                    expiresAt: min(now + Self.ceremonyLifetime, request.expiresAt)))
            guard let named else { return [] }
            // The same statements for a name that is nobody's: its answer tells nothing.
            let user = try await tx.user(tenantID: tenant.id, username: named)
            return try await tx.securityKeys(userID: user?.id ?? UserID(""))
        }
        var credentials = allowed.map { WebAuthnJSON.CredentialDescriptor(id: $0.credentialID, transports: $0.transports.isEmpty ? nil : $0.transports) }
        if let named, credentials.isEmpty { credentials = fakeCredentials(username: named, tenant: tenant) }
        return WebAuthnJSON.RequestOptions(
            challenge: challenge, rpId: relyingParty(for: tenant).id, timeout: Int(Self.ceremonyLifetime) * 1000,
            allowCredentials: credentials, userVerification: RelyingParty.UserVerification.required.rawValue)
    }

    /// Credential ids for a name with no passkey (nobody's, or a user without one), made
    /// from a key derived from the master key and the same on every call for that name, so
    /// that the options do not tell who has an account. Their shape varies by name as real
    /// users' does: one or two ids (most users have one), 16 to 64 bytes long, with the
    /// transports authenticators report. No authenticator holds them; an assertion for
    /// them is refused as for any unknown id.
    func fakeCredentials(username: String, tenant: TenantRecord) -> [WebAuthnJSON.CredentialDescriptor] {
        let key = domain.box.derivedKey(label: "passkey-options-decoys")
        func mac(_ label: String) -> [UInt8] {
            Array(HMAC<SHA256>.authenticationCode(for: Data("\(tenant.id)\n\(label)\n\(username)".utf8), using: key))
        }
        let shape = mac("shape")
        let count = shape[0] % 4 == 0 ? 2 : 1
        return (0..<count).map { index in
            let length = Self.decoyLengths[Int(shape[1 + index]) % Self.decoyLengths.count]
            let bytes = (mac("\(index)") + mac("\(index)+")).prefix(length)
            let transports = Self.decoyTransports[Int(shape[3 + index]) % Self.decoyTransports.count]
            return .init(id: Base64URL.encode(Data(bytes)), transports: transports)
        }
    }

    /// Credential id lengths authenticators use (security keys 16 to 64 bytes, platform passkeys 16 to 32).
    static let decoyLengths = [16, 20, 32, 32, 48, 64]
    /// Transports as authenticators report them at registration (some report none).
    static let decoyTransports: [[String]?] = [["internal"], ["hybrid", "internal"], ["usb"], ["nfc", "usb"], ["internal"], nil]

    /// A login request a passkey may answer: pending, and its service's policy has the
    /// alternative `securitykey` on its own. Answers the service.
    @discardableResult
    private func checkPasskeyLogin(_ request: AuthRequestRecord, tenant: TenantRecord, now: Int64) async throws -> ServiceRecord {
        guard let serviceID = request.serviceID, let service = try await domain.service(id: serviceID),
            Self.allowsPasskeyLogin(policy: request.acrPolicy ?? service.policy)
        else { throw DomainError(.forbidden, .accessDenied, "this service does not accept a passkey alone") }
        guard BrowserLogins.effectiveStatus(request, now: now) == .pending else {
            throw DomainError.requestClaimed("the sign-in request was taken up by a device or has ended")
        }
        return service
    }

    /// Whether a policy lets a passkey sign in alone (the alternative `securitykey`).
    public static func allowsPasskeyLogin(policy: AuthenticatorPolicy) -> Bool {
        policy.allows(FactorCombination([.securitykey]))
    }

    /// Approves a login request with the assertion `navigator.credentials.get()`
    /// returned; the page then completes it as after a device's approval. A counter that
    /// went backwards marks the credential suspicious (committed) and fails the login.
    public func login(
        _ credential: WebAuthnJSON.AssertionCredential, request: AuthRequestRecord, tenant: TenantRecord, logger: Logger
    ) async throws {
        let now = domain.epochNow()
        let service = try await checkPasskeyLogin(request, tenant: tenant, now: now)
        let response = try Self.assertionResponse(credential)
        let challenge = try Self.challenge(in: response.clientDataJSON)
        let party = relyingParty(for: tenant)
        enum Outcome {
            case approved(SecurityKeyRecord)
            case refused(DomainError)
        }
        let outcome: Outcome = try await domain.store.transaction { tx in
            guard let ceremony = try await tx.takeCeremony(challenge: challenge, tenantID: tenant.id, now: now),
                ceremony.kind == .authentication, ceremony.requestID == request.id, let expected = Base64URL.decode(ceremony.challenge)
            else { return .refused(DomainError(.invalid, Self.invalidCredential, "the sign-in's challenge is unknown, spent or expired")) }
            guard let key = try await tx.securityKey(tenantID: tenant.id, credentialID: Base64URL.encode(response.credentialID)),
                let user = try await tx.user(id: key.userID), user.tenantID == tenant.id
            else { return .refused(DomainError(.invalid, Self.invalidCredential, "this passkey is not registered here")) }
            if let handle = response.userHandle, !Secrets.constantTimeEquals(handle, Array(user.id.rawValue.utf8)) {
                return .refused(DomainError(.invalid, Self.invalidCredential, "the passkey's user handle is not its user's"))
            }
            guard key.suspiciousAt == nil else {
                return .refused(DomainError(.forbidden, .accessDenied, "this passkey is blocked: its counter went backwards once"))
            }
            guard user.disabledAt == nil else { return .refused(DomainError(.forbidden, .accessDenied, "the user is disabled")) }
            if let hint = request.loginHint, hint != user.username {
                return .refused(DomainError(.forbidden, .accessDenied, "this sign-in request is for another user"))
            }
            let publicKey = try COSEPublicKey(encoded: Array(Base64URL.decode(key.publicKey) ?? Data()))
            let verified: RelyingParty.VerifiedAssertion
            do throws(WebAuthnError) {
                verified = try party.verifyAssertion(
                    response, challenge: Array(expected), publicKey: publicKey, storedSignCount: UInt32(clamping: key.signCount),
                    userVerification: RelyingParty.UserVerification(rawValue: ceremony.userVerification) ?? .required)
            } catch {
                if error.code == .counterRegression { try await tx.markSecurityKeySuspicious(id: key.id, at: now) }
                logger.info("passkey sign-in refused", metadata: ["tenant": "\(tenant.name)", "reason": "\(error.code.rawValue)"])
                return .refused(DomainError(.invalid, Self.invalidCredential, error.message))
            }
            try await tx.recordSecurityKeyUse(
                id: key.id, signCount: Int64(verified.signCount), backedUp: verified.flags.contains(.backedUp), at: now)
            guard
                try await tx.approveAuthRequest(
                    id: request.id, userID: user.id, securityKeyID: key.id, factors: [.securitykey],
                    confirmedAttributes: ScopeClaims.requestedAttributes(of: service, scope: request.scope), authTime: now)
            else { return .refused(DomainError.requestClaimed("the sign-in request was taken up by a device or has ended")) }
            return .approved(key)
        }
        switch outcome {
        case .refused(let error): throw error
        case .approved(let key):
            logger.info("passkey sign-in", metadata: ["tenant": "\(tenant.name)", "security_key_id": "\(key.id)"])
            var approved = request
            approved.status = .approved
            await domain.announce(RequestNotice(approved, service: service, answered: true), logger: logger)
        }
    }

    static func assertionResponse(_ credential: WebAuthnJSON.AssertionCredential) throws -> RelyingParty.AssertionResponse {
        guard credential.type == "public-key", let rawID = Base64URL.decode(credential.rawId), !rawID.isEmpty,
            rawID.count <= AuthenticatorData.maximumCredentialIDLength,
            let clientData = Base64URL.decode(credential.response.clientDataJSON),
            let authenticatorData = Base64URL.decode(credential.response.authenticatorData),
            let signature = Base64URL.decode(credential.response.signature)
        else { throw DomainError.invalidRequest("the credential is not a public-key assertion in WebAuthn's JSON form") }
        var userHandle: [UInt8]?
        if let handle = credential.response.userHandle, !handle.isEmpty {
            guard let decoded = Base64URL.decode(handle) else { throw DomainError.invalidRequest("userHandle is not base64url") }
            userHandle = Array(decoded)
        }
        return RelyingParty.AssertionResponse(
            credentialID: Array(rawID), clientDataJSON: Array(clientData), authenticatorData: Array(authenticatorData),
            signature: Array(signature), userHandle: userHandle)
    }

    // MARK: Listing and removing

    public func list(user id: UserID, tenant: TenantRecord) async throws -> [SecurityKeyView] {
        try await domain.store.read { tx in
            guard let user = try await tx.user(id: id), user.tenantID == tenant.id else { throw DomainError.notFound("user") }
            return try await tx.securityKeys(userID: user.id).map(SecurityKeyView.init)
        }
    }

    /// Removes a user's credential; the sessions its logins started end with it, and the
    /// passkeys added from an account page it signed in to go too.
    public func remove(_ id: SecurityKeyID, user userID: UserID, tenant: TenantRecord, actor: Audit.Actor, via: String, logger: Logger)
        async throws
    {
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            guard let key = try await tx.securityKey(id: id), key.userID == userID, key.tenantID == tenant.id,
                try await tx.deleteSecurityKey(id: id)
            else { throw DomainError.notFound("security key '\(id.rawValue.prefix(64))'") }
            let ended = try await tx.endSessions(.securityKey(id), reason: .securityKeyRemoved, at: now)
            let added = try await tx.deleteSecurityKeys(addedBy: .securityKey(id), at: now)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: actor, action: .securityKeyRemove, target: id.rawValue,
                details: [
                    "user_id": userID.rawValue, "name": key.name, "sessions_ended": String(ended),
                    "keys_added_from_it_removed": String(added.count), "via": via,
                ], at: now)
        }
        logger.notice("security key removed", metadata: ["tenant": "\(tenant.name)", "security_key_id": "\(id)"])
    }
}

/// A registered security key or passkey as the APIs show it (never its key material).
public struct SecurityKeyView: Codable, Sendable, Equatable {
    public let id: SecurityKeyID
    public let userID: UserID
    public let name: String
    public let credentialID: String
    public let algorithm: String
    public let aaguid: String
    public let transports: [String]
    public let backupEligible: Bool
    public let backedUp: Bool
    public let attestation: String
    public let signCount: Int64
    public let suspicious: Bool
    public let createdAt: Date
    public let lastUsedAt: Date?

    init(_ record: SecurityKeyRecord) {
        id = record.id
        userID = record.userID
        name = record.name
        credentialID = record.credentialID
        algorithm = COSEAlgorithm(rawValue: record.algorithm)?.description ?? String(record.algorithm)
        aaguid = record.aaguid
        transports = record.transports
        backupEligible = record.backupEligible
        backedUp = record.backedUp
        attestation = record.attestation
        signCount = record.signCount
        suspicious = record.suspiciousAt != nil
        createdAt = Date(timeIntervalSince1970: TimeInterval(record.createdAt))
        lastUsedAt = record.lastUsedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    enum CodingKeys: String, CodingKey {
        case id, name, algorithm, aaguid, transports, attestation, suspicious
        case userID = "user_id"
        case credentialID = "credential_id"
        case backupEligible = "backup_eligible"
        case backedUp = "backed_up"
        case signCount = "sign_count"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}

extension Domain {
    public var passkeys: Passkeys { Passkeys(domain: self) }
}
