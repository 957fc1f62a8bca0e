import Crypto
import Foundation
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Authorization codes, refresh tokens and the tokens they are exchanged for. Every
/// grant — a code, a refresh token, an approved backchannel request — ends on one path:
/// `startSession` (a code, a backchannel request) or `rotate` (a refresh token) writes the
/// session's next refresh token in the transaction that spent the grant, and
/// `issueTokens` signs the ID and access tokens. The one exception is the usual code
/// redemption (`quickRedemption`), which checks the code by the same rules
/// (`codeRefusal`) and writes the same session and token (`session(of:…)`,
/// `refreshGrant`) in one statement. A session is one row: a refresh reads
/// and writes the same few rows on its ten-thousandth rotation as on its first.
public struct Grants: Sendable {
    let domain: Domain

    /// Lifetimes in seconds: codes, access and ID tokens, refresh tokens.
    public static let codeLifetime: Int64 = 60

    /// The `acr` of a combination: `urn:tessera:acr:device+pin`.
    public static func acr(for combination: FactorCombination) -> String { "urn:tessera:acr:\(combination)" }

    /// The user as the service knows them (`sub`): the user's id, or for a pairwise service
    /// HMAC-SHA256 of the id under the service's salt, base64url (OpenID Connect Core §8.1).
    public static func subject(of userID: UserID, for service: ServiceRecord) -> String {
        guard service.subjectType == .pairwise, let salt = service.pairwiseSalt.flatMap(Base64URL.decode) else { return userID.rawValue }
        return Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(userID.rawValue.utf8), using: SymmetricKey(data: salt))))
    }

    /// The role a login's factors were used in, by the service's roles.
    public static func role(of factors: [FactorType], for service: ServiceRecord) -> String? {
        service.roles.flatMap { ServiceRole.role(of: FactorCombination(factors), in: $0) }
    }

    /// The `amr` of the factors used (RFC 8176 where it has a value), plus `mfa` for two or more.
    /// A security key adds `user` (its user-presence test); a synced passkey (backup
    /// eligible) is a software-held key, `swk`, not `hwk`.
    public static func amr(for factors: [FactorType], securityKey: SecurityKeyRecord? = nil) -> [String] {
        var methods: [String] = []
        for factor in factors {
            let method = factor == .securitykey && securityKey?.backupEligible == true ? "swk" : factor.authenticationMethodReference
            if !methods.contains(method) { methods.append(method) }
            if factor == .securitykey, !methods.contains("user") { methods.append("user") }
        }
        return methods + (factors.count > 1 ? ["mfa"] : [])
    }

    /// Completes an approved login and writes its single-use authorization code, bound to
    /// the request's client, redirect URI, PKCE challenge and nonce; nil when the request
    /// was completed already (its code was issued).
    public static func issueCode(for record: AuthRequestRecord, tx: StoreTransaction, now: Int64) async throws -> String? {
        guard let serviceID = record.serviceID, let redirectURI = record.redirectURI, let userID = record.userID else {
            throw StoreError(.corrupt, "an approved login without service, redirect URI or user")
        }
        let code = Secrets.randomToken()
        let issued = try await tx.completeAuthRequest(
            id: record.id,
            issuing: GrantRecord(
                // The session's id: an identifier, which never begins with "-", since operators pass it to `tessera admin session end`.
                digest: Secrets.digest(code), kind: .code, familyID: SessionID(Secrets.identifier(byteCount: 16)),
                tenantID: record.tenantID, serviceID: serviceID, userID: userID, activationID: record.activationID, redirectURI: redirectURI, codeChallenge: record.codeChallenge,
                nonce: record.nonce, scope: record.scope, factors: record.factors ?? [],
                confirmedAttributes: record.confirmedAttributes ?? [], authTime: record.authTime ?? now,
                expiresAt: now + codeLifetime, usedAt: nil, revoked: false, securityKeyID: record.securityKeyID))
        return issued ? code : nil
    }

    // MARK: Code

    /// Redeems an authorization code once (RFC 6749 §4.1.3 with PKCE, RFC 7636).
    public func redeemCode(
        _ code: String, redirectURI: String?, codeVerifier: String?, client service: ServiceRecord, tenant: TenantRecord,
        dpop: DPoP.Proof? = nil
    ) async throws -> TokenResponse {
        try Self.requireProof(dpop, service: service)
        try await signingKeyReady(for: service, tenant: tenant)
        let now = domain.epochNow()
        let digest = Secrets.digest(code)
        if let quick = try await quickRedemption(
            digest: digest, redirectURI: redirectURI, codeVerifier: codeVerifier, service: service, tenant: tenant, now: now, dpop: dpop)
        {
            return try await issueTokens(quick, service: service, tenant: tenant, includeNonce: true, dpop: dpop)
        }
        let outcome: Outcome = try await domain.store.transaction { tx in
            guard let grant = try await tx.grant(digest: digest) else { throw DomainError.invalidGrant("the authorization code is not valid") }
            let refusal = Self.codeRefusal(grant, redirectURI: redirectURI, codeVerifier: codeVerifier, service: service, tenant: tenant, now: now)
            if let refusal, !refusal.spends { throw refusal.error }
            // [REQ:RFC6749-4.1.2] a code used twice revokes everything issued from it. The
            // revocation, like the spending of a code that fails its checks, commits before
            // the error is answered: a code gets exactly one try.
            guard try await tx.spendGrant(digest: digest, now: now) else {
                try await tx.endSessions(.session(grant.familyID), reason: .reuse, at: now)
                return .refused(DomainError.invalidGrant("the authorization code was used already"))
            }
            if let refusal { return .refused(refusal.error) }
            return try await startSession(
                Source(grant), scope: grant.scope, service: service, tenant: tenant, tx: tx, now: now,
                dpopJKT: Self.sessionBinding(dpop, service: service))
        }
        return try await issueTokens(outcome, service: service, tenant: tenant, includeNonce: true, dpop: dpop)
    }

    /// What is wrong with redeeming `grant` as a code, in the order the token endpoint
    /// answers it: refused as it is (`spends` false: not a code of this tenant, or another
    /// client's), or refused once it is spent (expired, another redirect URI, PKCE); nil
    /// when it may be redeemed. Both ways of redeeming ask this.
    static func codeRefusal(
        _ grant: GrantRecord, redirectURI: String?, codeVerifier: String?, service: ServiceRecord, tenant: TenantRecord, now: Int64
    ) -> (error: DomainError, spends: Bool)? {
        guard grant.kind == .code, grant.tenantID == tenant.id else { return (DomainError.invalidGrant("the authorization code is not valid"), false) }
        guard grant.serviceID == service.id else { return (DomainError.invalidGrant("the code was issued to another client"), false) }
        guard grant.expiresAt > now else { return (DomainError.invalidGrant("the authorization code has expired"), true) }
        guard redirectURI == grant.redirectURI else {
            return (DomainError.invalidGrant("redirect_uri does not match the authorization request"), true)
        }
        if let challenge = grant.codeChallenge {
            guard let codeVerifier else { return (DomainError.invalidGrant("code_verifier is missing"), true) }
            guard PKCE.verify(verifier: codeVerifier, challenge: challenge) else {
                return (DomainError.invalidGrant("code_verifier does not match the code challenge"), true)
            }
        } else if codeVerifier != nil {
            return (DomainError.invalidGrant("the authorization request had no code challenge"), true)
        }
        return nil
    }

    /// The usual redemption in two statements instead of a transaction of seven: the code
    /// is read and checked here (`codeRefusal`, as the transaction above checks it), then
    /// spent with its session and first refresh token written (`StoreTransaction.redeemCode`,
    /// one statement on PostgreSQL) if it is still unspent and its user enabled. Nil, with
    /// nothing written, for everything else — a refusal, a code spent meanwhile, a user
    /// disabled or gone, a passkey login (whose key is checked), a scope asking for groups,
    /// a service without refresh tokens — which the transaction above then spends and
    /// answers as it always did. What the transaction checks beyond `codeRefusal`
    /// (`startSession`'s user, `issueRefreshToken`'s key and groups) is either checked by
    /// `redeemCode`'s statement or sends the redemption there.
    private func quickRedemption(
        digest: String, redirectURI: String?, codeVerifier: String?, service: ServiceRecord, tenant: TenantRecord, now: Int64,
        dpop: DPoP.Proof?
    ) async throws -> Outcome? {
        guard service.allowedGrantTypes.contains(GrantType.refreshToken),
            let grant = try await domain.store.lookup({ try await $0.grant(digest: digest) }), grant.usedAt == nil, !grant.revoked,
            grant.securityKeyID == nil, !ScopeClaims.asksForGroups(grant.scope),
            Self.codeRefusal(grant, redirectURI: redirectURI, codeVerifier: codeVerifier, service: service, tenant: tenant, now: now) == nil
        else { return nil }
        let source = Source(grant)
        let session = Self.session(of: source, service: service, tenant: tenant, now: now, dpopJKT: Self.sessionBinding(dpop, service: service))
        let (token, refresh) = Self.refreshGrant(source, session: session, scope: grant.scope, service: service, now: now)
        let user = try await domain.store.compoundWrite { tx in
            try await tx.redeemCode(digest: digest, at: now, userID: grant.userID, session: session, refresh: refresh)
        }
        guard let user else { return nil }
        return .issued(Issuance(source: source, scope: grant.scope, user: user, securityKey: nil, refreshToken: token, groups: nil))
    }

    // MARK: Refresh

    /// Rotates a refresh token (RFC 6749 §6): each works once; a second use revokes the family.
    public func refresh(
        _ token: String, scope requested: String?, client service: ServiceRecord, tenant: TenantRecord, dpop: DPoP.Proof? = nil
    ) async throws -> TokenResponse {
        try Self.requireProof(dpop, service: service)
        try await signingKeyReady(for: service, tenant: tenant)
        let now = domain.epochNow()
        let digest = Secrets.digest(token)
        let outcome: Outcome = try await domain.store.transaction { tx in
            guard let grant = try await tx.grant(digest: digest), grant.kind == .refresh, grant.tenantID == tenant.id else {
                throw DomainError.invalidGrant("the refresh token is not valid")
            }
            guard grant.serviceID == service.id else { throw DomainError.invalidGrant("the refresh token was issued to another client") }
            // A public client's DPoP-bound refresh token needs a proof with its key; checked
            // before it is spent, so that a thief without the key cannot burn it.
            // The session is read once: within this transaction only the binding changes it
            // before `rotate`, whose update of the session refuses one that has ended since.
            let stored = try await tx.session(id: grant.familyID)
            let binding = stored?.dpopJKT
            if let bound = binding, dpop?.jkt != bound {
                throw DPoP.failure("the refresh token is bound to a DPoP key: send a proof signed with it")
            }
            // A public client's first proof binds the session from now on (RFC 9449 §5).
            if binding == nil, let jkt = Self.sessionBinding(dpop, service: service) {
                try await tx.bindSessionDPoP(id: grant.familyID, jkt: jkt)
            }
            // Rotation: each refresh token works once; a second use means it was copied, so
            // the whole session ends (committed before the error is answered).
            guard try await tx.spendGrant(digest: digest, now: now) else {
                try await tx.endSessions(.session(grant.familyID), reason: .reuse, at: now)
                return .refused(DomainError.invalidGrant("the refresh token was used already; its session is revoked"))
            }
            guard let session = stored, session.endedAt == nil else {
                return .refused(DomainError.invalidGrant("the refresh token was revoked"))
            }
            guard grant.expiresAt > now, session.isLive(at: now) else {
                return .refused(DomainError.invalidGrant("the refresh token has expired"))
            }
            var scope = grant.scope
            if let requested {
                let granted = Set(grant.scope.split(separator: " "))
                let asked = requested.split(separator: " ")
                guard !asked.isEmpty, Set(asked).isSubset(of: granted) else {
                    return .refused(DomainError(.invalid, .invalidScope, "the scope exceeds the original grant"))
                }
                scope = asked.joined(separator: " ")
            }
            return try await rotate(session, scope: scope, service: service, tx: tx, now: now)
        }
        return try await issueTokens(outcome, service: service, tenant: tenant, includeNonce: false, dpop: dpop)
    }

    /// The tenant's key for the service's ID-token algorithm exists before a grant is spent:
    /// making it afterwards could fail after the spend committed.
    func signingKeyReady(for service: ServiceRecord, tenant: TenantRecord) async throws {
        _ = try await domain.tokenIssuer(for: tenant, signingFor: service)
    }

    /// A service registered for DPoP-bound tokens gets none without a proof (RFC 9449 §5.2).
    static func requireProof(_ proof: DPoP.Proof?, service: ServiceRecord) throws {
        if service.dpopBound && proof == nil {
            throw DPoP.failure("this client's tokens are DPoP-bound: send a DPoP proof")
        }
    }

    /// What a new session is bound to: a public client's proof key (its refresh tokens then
    /// need proofs with it, RFC 9449 §5); a confidential client's refresh tokens are bound
    /// by its authentication instead.
    static func sessionBinding(_ proof: DPoP.Proof?, service: ServiceRecord) -> String? {
        service.isPublic ? proof?.jkt : nil
    }

    // MARK: The one path

    /// What a grant stands on: its session, its user and device, and what the user proved and confirmed.
    struct Source: Sendable {
        let familyID: SessionID
        let tenantID: TenantID
        let userID: UserID
        let activationID: ActivationID?
        let securityKeyID: SecurityKeyID?
        let nonce: String?
        let factors: [FactorType]
        let confirmedAttributes: [String]
        let authTime: Int64

        init(_ grant: GrantRecord) {
            self.init(
                familyID: grant.familyID, tenantID: grant.tenantID, userID: grant.userID, activationID: grant.activationID,
                securityKeyID: grant.securityKeyID, nonce: grant.nonce, factors: grant.factors,
                confirmedAttributes: grant.confirmedAttributes, authTime: grant.authTime)
        }

        init(_ session: SessionRecord) {
            self.init(
                familyID: session.id, tenantID: session.tenantID, userID: session.userID, activationID: session.activationID,
                securityKeyID: session.securityKeyID, nonce: nil, factors: session.factors,
                confirmedAttributes: session.confirmedAttributes, authTime: session.authTime)
        }

        init(
            familyID: SessionID, tenantID: TenantID, userID: UserID, activationID: ActivationID?, securityKeyID: SecurityKeyID? = nil,
            nonce: String?, factors: [FactorType], confirmedAttributes: [String], authTime: Int64
        ) {
            self.familyID = familyID
            self.tenantID = tenantID
            self.userID = userID
            self.activationID = activationID
            self.securityKeyID = securityKeyID
            self.nonce = nonce
            self.factors = factors
            self.confirmedAttributes = confirmedAttributes
            self.authTime = authTime
        }
    }

    struct Issuance: Sendable {
        let source: Source
        let scope: String
        let user: UserRecord
        /// The security key of a passkey login (its backup flag decides `swk` or `hwk`).
        let securityKey: SecurityKeyRecord?
        /// None for a service whose grant types leave out `refresh_token`.
        let refreshToken: String?
        /// The user's group names when the scope asks for them, read where the code or
        /// token was spent (nil otherwise).
        let groups: [String]?
    }

    enum Outcome: Sendable {
        case issued(Issuance)
        /// Refused after something was committed (a spent code, a revoked family).
        case refused(DomainError)
    }

    /// Starts the session a spent code or backchannel request gives, with the service's
    /// lifetimes (or the tenant's), and writes its first refresh token.
    func startSession(
        _ source: Source, scope: String, service: ServiceRecord, tenant: TenantRecord, tx: StoreTransaction, now: Int64,
        dpopJKT: String? = nil
    ) async throws -> Outcome {
        // Refused before the session is written: a refusal commits, and must leave no session behind.
        let user: UserRecord
        switch try await tokenHolder(source.userID, tx: tx) {
        case .success(let holder): user = holder
        case .failure(let refusal): return .refused(refusal)
        }
        let session = Self.session(of: source, service: service, tenant: tenant, now: now, dpopJKT: dpopJKT)
        try await tx.insertSession(session)
        return try await issueRefreshToken(source, user: user, session: session, scope: scope, service: service, tx: tx, now: now)
    }

    /// The session a grant starts, with the service's lifetimes (or the tenant's).
    static func session(of source: Source, service: ServiceRecord, tenant: TenantRecord, now: Int64, dpopJKT: String?) -> SessionRecord {
        var session = SessionRecord(
            id: source.familyID, tenantID: source.tenantID, serviceID: service.id, userID: source.userID,
            activationID: source.activationID, factors: source.factors, confirmedAttributes: source.confirmedAttributes,
            authTime: source.authTime, createdAt: now, expiresAt: now + (service.sessionLifetime ?? tenant.sessionLifetime),
            idleLifetime: service.sessionIdleLifetime ?? tenant.sessionIdleLifetime)
        session.securityKeyID = source.securityKeyID
        session.dpopJKT = dpopJKT
        return session
    }

    /// A session's next refresh token and its grant, which lives for the idle lifetime and
    /// never past the session's end.
    static func refreshGrant(_ source: Source, session: SessionRecord, scope: String, service: ServiceRecord, now: Int64)
        -> (token: String, grant: GrantRecord)
    {
        let token = Secrets.randomToken()
        return (
            token,
            GrantRecord(
                digest: Secrets.digest(token), kind: .refresh, familyID: source.familyID, tenantID: source.tenantID,
                serviceID: service.id, userID: source.userID, activationID: source.activationID, redirectURI: nil, codeChallenge: nil,
                nonce: nil, scope: scope, factors: source.factors, confirmedAttributes: source.confirmedAttributes,
                authTime: source.authTime, expiresAt: min(now + session.idleLifetime, session.expiresAt), usedAt: nil, revoked: false,
                securityKeyID: source.securityKeyID)
        )
    }

    /// Continues a live session with its next refresh token; the idle lifetime counts from now.
    func rotate(_ session: SessionRecord, scope: String, service: ServiceRecord, tx: StoreTransaction, now: Int64) async throws -> Outcome {
        // The session was read earlier in this transaction; an end committed since then
        // (a logout, a revocation, a reuse on another node) is seen here, before any token.
        guard try await tx.touchSession(id: session.id, at: now) else {
            return .refused(DomainError.invalidGrant("the refresh token was revoked"))
        }
        switch try await tokenHolder(session.userID, tx: tx) {
        case .success(let user):
            return try await issueRefreshToken(Source(session), user: user, session: session, scope: scope, service: service, tx: tx, now: now)
        case .failure(let refusal):
            return .refused(refusal)
        }
    }

    /// Writes the session's next refresh token in the same transaction that spent the
    /// code, the previous token or the backchannel request, so a concurrent reuse either
    /// sees it (and ends the session) or comes before it (and this spend fails). The token
    /// lives for the idle lifetime, never past the session's end.
    private func issueRefreshToken(
        _ source: Source, user: UserRecord, session: SessionRecord, scope: String, service: ServiceRecord, tx: StoreTransaction,
        now: Int64
    ) async throws -> Outcome {
        // A passkey login's key must still be there and trusted: removing it ends the
        // session, and a key marked suspicious gives no more tokens.
        var securityKey: SecurityKeyRecord?
        if let keyID = source.securityKeyID {
            guard let key = try await tx.securityKey(id: keyID), key.suspiciousAt == nil else {
                return .refused(DomainError.invalidGrant("the security key of this session was removed"))
            }
            securityKey = key
        }
        let groups = ScopeClaims.asksForGroups(scope) ? try await tx.memberships(of: [user.id]).map(\.displayName) : nil
        // A service whose grant types leave out refresh_token gets none: its session ends
        // with the access token's use.
        guard service.allowedGrantTypes.contains(GrantType.refreshToken) else {
            return .issued(Issuance(source: source, scope: scope, user: user, securityKey: securityKey, refreshToken: nil, groups: groups))
        }
        let (refreshToken, grant) = Self.refreshGrant(source, session: session, scope: scope, service: service, now: now)
        try await tx.insertGrant(grant)
        return .issued(Issuance(source: source, scope: scope, user: user, securityKey: securityKey, refreshToken: refreshToken, groups: groups))
    }

    /// The user tokens are issued to, or why there may be none (gone, or disabled).
    private func tokenHolder(_ userID: UserID, tx: StoreTransaction) async throws -> Result<UserRecord, DomainError> {
        guard let user = try await tx.user(id: userID) else { return .failure(DomainError.invalidGrant("the user no longer exists")) }
        return user.disabledAt == nil ? .success(user) : .failure(DomainError.invalidGrant("the user is disabled"))
    }

    /// Signs the ID token and the JWT access token (RFC 9068) of an issuance, or throws
    /// the refusal that was committed.
    func issueTokens(_ outcome: Outcome, service: ServiceRecord, tenant: TenantRecord, includeNonce: Bool, dpop: DPoP.Proof? = nil)
        async throws -> TokenResponse
    {
        let issuance: Issuance
        switch outcome {
        case .refused(let error): throw error
        case .issued(let issued): issuance = issued
        }
        let source = issuance.source
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let now = domain.epochNow()
        let factors = source.factors
        let confirmed = source.confirmedAttributes
        let userAttributes = issuance.user.attributes
        let released = userAttributes.filter { confirmed.contains($0.key) }
        let combination = FactorCombination(factors)
        let algorithm = Domain.idTokenAlgorithm(of: service)
        let issuerKeys = try await domain.tokenIssuer(for: tenant, signingFor: service)
        let subject = Self.subject(of: issuance.user.id, for: service)
        var idClaims = IDTokenClaims(
            iss: issuer, sub: subject, aud: service.clientID.rawValue, exp: Int(now + tenant.accessTokenLifetime), iat: Int(now),
            authTime: Int(source.authTime), nonce: includeNonce ? source.nonce : nil,
            amr: Self.amr(for: combination.factors, securityKey: issuance.securityKey),
            acr: Self.acr(for: combination), attributes: released)
        idClaims.sid = source.familyID.rawValue
        idClaims.role = Self.role(of: combination.factors, for: service)
        idClaims.groups = issuance.groups
        let accessLifetime = service.accessTokenLifetime ?? tenant.accessTokenLifetime
        var accessClaims = AccessTokenClaims(
            iss: issuer, sub: subject, aud: issuer, clientID: service.clientID.rawValue, exp: Int(now + accessLifetime),
            iat: Int(now), jti: Secrets.randomToken(byteCount: 16), scope: issuance.scope, authTime: Int(source.authTime),
            amr: idClaims.amr, acr: idClaims.acr, sid: source.familyID.rawValue)
        accessClaims.cnf = dpop.map { AccessTokenClaims.Confirmation(jkt: $0.jkt) }
        var response = TokenResponse(
            accessToken: try await issuerKeys.sign(accessClaims, type: "at+jwt"), expiresIn: accessLifetime,
            idToken: try await issuerKeys.sign(idClaims, algorithm: algorithm), refreshToken: issuance.refreshToken, scope: issuance.scope)
        if dpop != nil { response.tokenType = "DPoP" }
        return response
    }

    // MARK: UserInfo

    /// The claims the user confirmed to the service an access token was issued to
    /// (OpenID Core §5.3); `invalid_token` for a token that does not verify, is for
    /// another issuer, lacks `openid`, or whose session ended.
    public func userInfo(accessToken: String, tenant: TenantRecord, dpop: DPoP.Proof? = nil) async throws -> UserInfo {
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let invalid = DomainError.invalidToken("the access token is not valid")
        // A failure to load the keys is the server's, not the token's: only the check itself maps to invalid_token.
        let keys = try await domain.tokenIssuer(for: tenant)
        let claims: AccessTokenClaims
        do {
            claims = try await keys.verify(accessToken, as: AccessTokenClaims.self, now: domain.epochNow())
        } catch {
            throw invalid
        }
        guard claims.iss == issuer, claims.aud == issuer, claims.scope.split(separator: " ").contains("openid") else { throw invalid }
        // A DPoP-bound token works only with a proof of its key (and then only as DPoP);
        // a proof does not make a bearer token bound (RFC 9449 §7).
        guard claims.cnf?.jkt == dpop?.jkt else { throw invalid }
        let now = domain.epochNow()
        // A client-credentials token names no user.
        guard let sid = claims.sid else { throw invalid }
        let (session, user, service) = try await domain.store.read { tx in
            let session = try await tx.session(id: SessionID(sid))
            return (
                session, try await session.asyncMap { try await tx.user(id: $0.userID) } ?? nil,
                try await domain.service(clientID: ClientID(claims.clientID), in: tx)
            )
        }
        guard let session, session.isLive(at: now), let user, let service, service.id == session.serviceID,
            Self.subject(of: session.userID, for: service) == claims.sub
        else { throw invalid }
        let confirmed = session.confirmedAttributes
        var body = user.attributes.filter { confirmed.contains($0.key) }
        body["sub"] = claims.sub
        let groups = ScopeClaims.asksForGroups(claims.scope) ? try await domain.groupNames(of: user.id) : nil
        return UserInfo(claims: body, groups: groups)
    }
}

/// The userinfo answer: the confirmed attributes and `sub`, and under the `groups` scope
/// the names of the user's groups.
public struct UserInfo: Encodable, Sendable {
    public let claims: [String: String]
    public let groups: [String]?

    public subscript(claim: String) -> String? { claims[claim] }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for (name, value) in claims where name != ScopeClaims.groups { try container.encode(value, forKey: AnyKey(name)) }
        try container.encodeIfPresent(groups, forKey: AnyKey(ScopeClaims.groups))
    }
}

extension Domain {
    /// The names of the user's groups, in order.
    public func groupNames(of userID: UserID) async throws -> [String] {
        try await store.read { try await $0.memberships(of: [userID]) }.map(\.displayName)
    }
}

/// The token endpoint's answer (RFC 6749 §5.1, OpenID Core §3.1.3.3).
public struct TokenResponse: Codable, Sendable {
    public internal(set) var accessToken: String
    public var tokenType = "Bearer"
    public let expiresIn: Int64
    public internal(set) var idToken: String
    /// Absent for a service whose grant types leave out `refresh_token`.
    public internal(set) var refreshToken: String?
    public let scope: String

    enum CodingKeys: String, CodingKey {
        case scope
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case idToken = "id_token"
        case refreshToken = "refresh_token"
    }
}

extension Domain {
    public var grants: Grants { Grants(domain: self) }
}
