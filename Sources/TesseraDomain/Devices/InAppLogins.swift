import Foundation
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// In-app login: an app on the device logs its user in to the app's own backend. The
/// request is the browser login's, minus the browser: started and claimed by the device
/// in one call, signed and finished as usual, and ending in an authorization code bound
/// to the backend's PKCE challenge, which only the backend (holding the verifier) redeems.
public struct InAppLogins: Sendable {
    let domain: Domain
    static let maximumStateLength = 1024

    public func start(_ input: InAppAuthenticationStart, caller: DeviceCaller, tenant: TenantRecord) async throws
        -> AuthenticationChallenge
    {
        let (service, scopes) = try await checked(input, tenant: tenant)
        let now = domain.epochNow()
        let challenge = try await domain.store.transaction { tx -> AuthenticationChallenge in
            let current = try await caller.begin(tx, now: now)
            let userID = try await Self.user(input.userID, of: current, tx: tx)
            let record = AuthRequestRecord(
                id: RequestID(Secrets.randomToken(byteCount: 16)), tenantID: tenant.id, serviceID: service.id,
                purpose: AuthenticationPurpose.login, status: AuthenticationStatus.claimed,
                challenge: Secrets.randomToken(), activationID: current.id, userID: userID, redirectURI: input.redirectURI,
                state: input.state, nonce: input.nonce, codeChallenge: input.codeChallenge, scope: scopes.joined(separator: " "),
                browserDigest: nil, confirmedAttributes: nil, factors: nil, authTime: nil, flow: .inApp,
                createdAt: now, expiresAt: now + domain.settings.requestLifetime)
            try await tx.insertAuthRequest(record)
            return try await domain.attempts.userInformation(record, activation: current, tenant: tenant, tx: tx)
        }
        return challenge
    }

    /// The user an in-app login is for: the activation's own, or one merged into it.
    private static func user(_ chosen: UserID?, of activation: ActivationRecord, tx: StoreTransaction) async throws -> UserID {
        guard let chosen, chosen != activation.userID else { return activation.userID }
        guard try await Attempts.users(of: activation, tx: tx).contains(chosen) else {
            throw DomainError.invalidRequest("the activation does not stand for that user")
        }
        return chosen
    }

    /// An in-app login's service, redirect URI, PKCE challenge, scope, state and nonce,
    /// checked before anything is written.
    private func checked(_ input: InAppAuthenticationStart, tenant: TenantRecord) async throws -> (ServiceRecord, [String]) {
        guard let service = try await domain.service(clientID: ClientID(input.clientID)), service.tenantID == tenant.id
        else { throw DomainError(.invalid, .invalidClient, "the service is not registered with this issuer") }
        // [REQ:DESIGN exact redirect URIs] the code is bound to a registered URI, compared exactly.
        guard service.redirectURIs.contains(input.redirectURI) else {
            throw DomainError.invalidRequest("redirect_uri is not registered for the service")
        }
        guard input.codeChallengeMethod == "S256", PKCE.isWellFormedChallenge(input.codeChallenge) else {
            throw DomainError.invalidRequest("an in-app login needs an S256 code_challenge from the app's backend")
        }
        guard input.scope.count <= Validation.maximumScopeLength else {
            throw DomainError(.invalid, .invalidScope, "the scope is limited to \(Validation.maximumScopeLength) characters")
        }
        let scopes = input.scope.split(separator: " ").map(String.init)
        guard scopes.contains("openid") else { throw DomainError(.invalid, .invalidScope, "the scope must include openid") }
        guard (input.state?.count ?? 0) <= Self.maximumStateLength, (input.nonce?.count ?? 0) <= Self.maximumStateLength else {
            throw DomainError.invalidRequest("state and nonce are limited to \(Self.maximumStateLength) characters")
        }
        return (service, scopes)
    }

    /// `POST {issuer}/device/sso/code`: native single sign-on (gematik's
    /// `refresh(ssoToken)`). An authorization code for a further service of the tenant,
    /// standing on the activation's live single sign-on session: the token the device got
    /// after its full login, presented in a call the device key signs (the device
    /// factor), where the tenant's single sign-on policy allows the device alone and the
    /// session's login meets the service's policy. The code is the in-app login's:
    /// bound to the redirect URI and the PKCE challenge, redeemed by whoever holds the
    /// verifier.
    public func singleSignOnCode(_ input: SingleSignOnCodeRequest, caller: DeviceCaller, tenant: TenantRecord) async throws
        -> InAppAuthorizationCode
    {
        let (service, scopes) = try await checked(input.login, tenant: tenant)
        // The console and the account page manage credentials: they take fresh factors
        // under the tenant's process policy, never the device alone.
        guard !WebSessions.isBuiltIn(service.clientID) else {
            throw DomainError(.forbidden, .accessDenied, "the server's own sign-in services take no single sign-on")
        }
        let attributes = Set(input.attributes ?? [])
        guard attributes.isSubset(of: Set(service.attributes)) else {
            throw DomainError.invalidRequest("attributes names attributes the service did not request")
        }
        guard let ssoPolicy = tenant.ssoPolicy, tenant.ssoLifetime > 0,
            ssoPolicy.allows(FactorCombination([.device]))
        else {
            throw DomainError(.forbidden, .accessDenied, "this tenant's single sign-on does not stand on the device alone")
        }
        let now = domain.epochNow()
        let (code, record) = try await domain.store.transaction { tx -> (String, AuthRequestRecord) in
            let current = try await caller.begin(tx, now: now)
            let userID = try await Self.user(input.login.userID, of: current, tx: tx)
            guard let session = try await tx.ssoSession(activationID: current.id, userID: userID, now: now),
                let digest = session.tokenDigest, Secrets.constantTimeEquals(digest, Secrets.digest(input.ssoToken))
            else {
                throw DomainError.invalidGrant("the single sign-on token is not valid (ended, expired or replaced): log in with factors")
            }
            guard (service.policy).allows(FactorCombination(session.factors)) else {
                throw DomainError(
                    .forbidden, .accessDenied, "the single sign-on session's login does not meet this service's policy: log in with its factors")
            }
            guard let user = try await tx.user(id: userID), user.disabledAt == nil else {
                throw DomainError(.forbidden, .accessDenied, "the user is disabled")
            }
            let record = AuthRequestRecord(
                id: RequestID(Secrets.randomToken(byteCount: 16)), tenantID: tenant.id, serviceID: service.id,
                purpose: AuthenticationPurpose.login, status: AuthenticationStatus.approved, challenge: nil, activationID: current.id,
                userID: userID, redirectURI: input.login.redirectURI, state: input.login.state, nonce: input.login.nonce,
                codeChallenge: input.login.codeChallenge, scope: scopes.joined(separator: " "), browserDigest: nil,
                confirmedAttributes: attributes.sorted(), factors: session.factors, authTime: session.authTime, flow: .inApp,
                createdAt: now, expiresAt: now + Grants.codeLifetime)
            try await tx.insertAuthRequest(record)
            guard let code = try await Grants.issueCode(for: record, tx: tx, now: now) else {
                throw StoreError(.corrupt, "a new request was completed already")
            }
            try await tx.insertHistory(
                HistoryRecord(
                    id: orderedID(), tenantID: tenant.id, activationID: current.id, userID: userID, requestID: record.id,
                    service: service.name, purpose: .login, outcome: .approved, factors: [.device], at: now))
            return (code, record)
        }
        return InAppAuthorizationCode(
            code: code, state: record.state, issuer: domain.issuer(forTenantNamed: tenant.name), redirectURI: record.redirectURI ?? "",
            expiresAt: Date(timeIntervalSince1970: TimeInterval(now + Grants.codeLifetime)))
    }

    /// `POST {issuer}/device/in-app/{request}/code`: the approved request's authorization
    /// code, once, to the activation that signed it.
    public func code(requestID: RequestID, caller: DeviceCaller, tenant: TenantRecord) async throws -> InAppAuthorizationCode {
        let now = domain.epochNow()
        let (code, record) = try await domain.store.transaction { tx -> (String, AuthRequestRecord) in
            try await caller.spendToken(tx, now: now)
            guard let record = try await tx.authRequest(id: requestID), record.tenantID == tenant.id, record.flow == .inApp,
                record.activationID == caller.activation.id
            else { throw DomainError.notFound("in-app authentication request") }
            switch record.status {
            case .approved:
                guard record.expiresAt > now else { throw DomainError(.invalid, .expiredToken, "the in-app login expired") }
                guard let code = try await Grants.issueCode(for: record, tx: tx, now: now) else {
                    throw DomainError.invalidGrant("the authorization code was fetched already")
                }
                return (code, record)
            case .completed:
                throw DomainError.invalidGrant("the authorization code was fetched already")
            case .pending, .claimed:
                guard record.expiresAt > now else { throw DomainError(.invalid, .expiredToken, "the in-app login expired") }
                throw DomainError.invalidRequest("the in-app login is not approved yet")
            case .denied, .locked:
                throw DomainError(.invalid, .accessDenied, "the in-app login was not approved")
            case .expired:
                throw DomainError(.invalid, .expiredToken, "the in-app login expired")
            }
        }
        return InAppAuthorizationCode(
                code: code, state: record.state, issuer: domain.issuer(forTenantNamed: tenant.name), redirectURI: record.redirectURI ?? "",
                expiresAt: Date(timeIntervalSince1970: TimeInterval(now + Grants.codeLifetime)))
    }
}

extension Domain {
    public var inApp: InAppLogins { InAppLogins(domain: self) }
}
