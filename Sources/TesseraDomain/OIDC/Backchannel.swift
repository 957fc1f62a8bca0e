import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// OpenID Connect Client-Initiated Backchannel Authentication (CIBA 1.0), poll and ping
/// modes: a service asks from its server for a known user's approval; every device of
/// the user sees the request; the service collects the tokens at the token endpoint.
public struct Backchannel: Sendable {
    let domain: Domain

    public static let grantType = "urn:openid:params:grant-type:ciba"
    /// The longest `requested_expiry` a service may ask for, in seconds.
    public static let maximumExpiry = 600
    public static let maximumBindingMessage = 128
    public static let maximumNotificationToken = 1024
    /// What each `slow_down` adds to a request's interval (CIBA §11 and RFC 8628 §3.5).
    static let slowDownStep = 5

    /// `POST {issuer}/bc-authorize` (CIBA §7): one hint, scope, `binding_message`,
    /// `acr_values`, `requested_expiry` and, for ping, `client_notification_token`.
    public func authenticate(_ form: BackchannelAuthenticationRequest, client service: ServiceRecord, tenant: TenantRecord, logger: Logger)
        async throws -> BackchannelAuthenticationResponse
    {
        guard service.isConfidential, let mode = service.backchannelMode else {
            throw DomainError(.invalid, .unauthorizedClient, "this client is not registered for backchannel authentication")
        }
        if form.request != nil { throw DomainError.invalidRequest("signed authentication requests are not supported") }
        guard (form.scope?.count ?? 0) <= Validation.maximumScopeLength else {
            throw DomainError(.invalid, .invalidScope, "the scope is limited to \(Validation.maximumScopeLength) characters")
        }
        let scopes = (form.scope ?? "").split(separator: " ").map(String.init)
        guard scopes.contains("openid") else { throw DomainError(.invalid, .invalidScope, "the scope must include openid") }

        // Who the hint names is looked at last, after every other check, and answered alike
        // whether the user is unknown, disabled or has no device: a client cannot tell them apart.
        let user = try await hintedUser(form, tenant: tenant, service: service)
        let bindingMessage = try Self.bindingMessage(form.bindingMessage)
        let servicePolicy = service.policy
        let policy = try Self.requestedPolicy(form.acrValues, allowedBy: servicePolicy)
        var lifetime = Int(domain.settings.requestLifetime)
        if let requested = form.requestedExpiry {
            guard let seconds = Int(requested), (1...Self.maximumExpiry).contains(seconds) else {
                throw DomainError.invalidRequest("requested_expiry must be 1 to \(Self.maximumExpiry) seconds")
            }
            lifetime = seconds
        }
        // An identifier never begins with "-", so `tessera device approve ID` reads it as an argument.
        let requestID = RequestID(Secrets.identifier(byteCount: 16))
        var sealedToken: String?
        if mode == .ping {
            guard let token = form.clientNotificationToken, (1...Self.maximumNotificationToken).contains(token.count),
                Self.isBearerToken(token)
            else {
                throw DomainError.invalidRequest(
                    "ping mode needs a client_notification_token: a bearer token (RFC 6750 §2.1) of at most \(Self.maximumNotificationToken) characters")
            }
            sealedToken = try domain.box.seal(Data(token.utf8), context: SealingContext.notificationToken(requestID: requestID))
        }
        let now = domain.epochNow()
        let interval = domain.settings.backchannelInterval
        // One user's requests are counted one at a time (on PostgreSQL, on every node).
        let userKey = user?.id ?? UserID("")
        try await domain.store.transaction(queue: "backchannel-user:\(userKey)") { tx in
            // The same queries whether or not the hint named someone, and one answer.
            let devices = try await tx.activeActivationIDs(userID: userKey)
            let open = try await tx.openBackchannelRequests(userIDs: [userKey], now: now)
            guard let user, !devices.isEmpty else { throw Self.unknownUser }
            // A service cannot flood a user's devices with prompts (push bombing).
            // Per service, so one service cannot use up a user's requests for the others.
            guard open.filter({ $0.serviceID == service.id }).count < Self.maximumOpenPerService, open.count < Self.maximumOpenPerUser
            else {
                throw DomainError(
                    .forbidden, .accessDenied,
                    "the user has too many requests open (\(Self.maximumOpenPerService) from this service, \(Self.maximumOpenPerUser) in all): wait until they are answered or expire")
            }
            try await tx.insertAuthRequest(
                AuthRequestRecord(
                    id: requestID, tenantID: tenant.id, serviceID: service.id, purpose: AuthenticationPurpose.login,
                    status: AuthenticationStatus.pending, challenge: nil, activationID: nil, userID: user.id,
                    redirectURI: nil, state: nil, nonce: nil, codeChallenge: nil, scope: scopes.joined(separator: " "),
                    browserDigest: nil, confirmedAttributes: nil, factors: nil, authTime: nil, flow: .ciba,
                    bindingMessage: bindingMessage, acrPolicy: policy, sealedNotificationToken: sealedToken,
                    pollInterval: interval, lastPolledAt: nil, createdAt: now, expiresAt: now + Int64(lifetime)))
        }
        guard let user else { throw Self.unknownUser }
        // The user's devices: their long polls see the request, their push targets are woken.
        await domain.announce(
            RequestNotice(
                keys: [EventKey.user(user.id)],
                wake: PushWake(
                    userID: user.id, issuer: domain.issuer(forTenantNamed: tenant.name), requestID: requestID, serviceName: service.name,
                    expiresAt: now + Int64(lifetime))), logger: logger)
        logger.info(
            "backchannel authentication requested",
            metadata: ["tenant": "\(tenant.name)", "client_id": "\(service.clientID)", "mode": "\(mode.rawValue)"])
        return BackchannelAuthenticationResponse(authReqID: requestID, expiresIn: lifetime, interval: interval)
    }

    /// The one answer for a hint that names no user who can be asked (unknown, disabled,
    /// or without an activated device): CIBA's `unknown_user_id`, the same for all three.
    static var unknownUser: DomainError {
        DomainError(.invalid, .unknownUserID, "the hint does not name a user who can be asked")
    }

    /// Open backchannel requests one user may have at a time from one service, and over all services.
    public static let maximumOpenPerService = 5
    public static let maximumOpenPerUser = 20

    /// The user named by exactly one hint: `login_hint` (the username) or `id_token_hint`
    /// (an ID token this issuer signed); nil when it names no enabled user of the tenant.
    private func hintedUser(_ form: BackchannelAuthenticationRequest, tenant: TenantRecord, service: ServiceRecord) async throws -> UserRecord? {
        guard [form.loginHint, form.idTokenHint, form.loginHintToken].compactMap({ $0 }).count == 1 else {
            throw DomainError.invalidRequest("give exactly one of login_hint and id_token_hint")
        }
        let userID: String
        if let username = form.loginHint {
            guard let user = try await domain.store.read({ try await $0.user(tenantID: tenant.id, username: username) }),
                user.disabledAt == nil
            else { return nil }
            return user
        } else if let hint = form.idTokenHint {
            let claims: IDTokenHintClaims
            let keys = try await domain.tokenIssuer(for: tenant)
            do {
                claims = try await keys.verify(hint, as: IDTokenHintClaims.self)
            } catch {
                throw DomainError.invalidRequest("id_token_hint is not an ID token signed by this issuer")
            }
            guard claims.iss == domain.issuer(forTenantNamed: tenant.name) else {
                throw DomainError.invalidRequest("id_token_hint was issued by another issuer")
            }
            // An ID token issued to this client (CIBA §7.1), not an access token or another client's token.
            guard claims.aud.contains(service.clientID.rawValue) else {
                throw DomainError.invalidRequest("id_token_hint was not issued to this client")
            }
            if service.subjectType == .pairwise {
                // A pairwise `sub` names the user only through the session it was issued in.
                let session = try await claims.sid.asyncMap { sid in try await domain.store.read { try await $0.session(id: SessionID(sid)) } } ?? nil
                guard let session, session.serviceID == service.id, Grants.subject(of: session.userID, for: service) == claims.sub else {
                    return nil
                }
                userID = session.userID.rawValue
            } else {
                userID = claims.sub
            }
        } else {
            throw DomainError.invalidRequest("login_hint_token is not supported; use login_hint or id_token_hint")
        }
        guard let user = try await domain.store.read({ try await $0.user(id: UserID(userID)) }), user.tenantID == tenant.id,
            user.disabledAt == nil
        else { return nil }
        return user
    }

    /// RFC 6750 §2.1 `b64token`: what can travel in an `Authorization: Bearer` header.
    public static func isBearerToken(_ text: String) -> Bool {
        let body = text.drop(while: { $0 != "=" })
        let head = text.prefix(text.count - body.count)
        return !head.isEmpty && body.allSatisfy { $0 == "=" }
            && head.unicodeScalars.allSatisfy { scalar in
                (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))) || "-._~+/".unicodeScalars.contains(scalar)
            }
    }

    public static func bindingMessage(_ text: String?) throws -> String? {
        guard let text else { return nil }
        // No control, format (bidirectional overrides, zero-width) or separator characters:
        // the device must show exactly what the service shows.
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        guard (1...maximumBindingMessage).contains(text.count),
            !text.unicodeScalars.contains(where: { hidden.contains($0.properties.generalCategory) })
        else {
            throw DomainError(.invalid, DomainError.Code("invalid_binding_message"),
                "binding_message must be 1 to \(maximumBindingMessage) characters without control characters")
        }
        return text
    }

    /// `acr_values` as factor combinations (`urn:tessera:acr:device+pin …`), each of
    /// which the service's policy must allow; nil when absent (the service's policy applies).
    public static func requestedPolicy(_ text: String?, allowedBy servicePolicy: AuthenticatorPolicy) throws -> AuthenticatorPolicy? {
        guard let text else { return nil }
        let prefix = Grants.acr(for: FactorCombination([]))
        var combinations: [String] = []
        for value in text.split(separator: " ") {
            guard value.hasPrefix(prefix) else {
                throw DomainError.invalidRequest("acr_values: \(value.prefix(64)) is not a factor combination of this server")
            }
            combinations.append(String(value.dropFirst(prefix.count)))
        }
        let policy: AuthenticatorPolicy
        do {
            policy = try AuthenticatorPolicy(parsing: combinations.joined(separator: ","))
        } catch {
            throw DomainError.invalidRequest("acr_values: \(error)")
        }
        for combination in policy.alternatives where !servicePolicy.allows(combination) {
            throw DomainError.invalidRequest("acr_values: \(combination) is not allowed by the service's policy")
        }
        return policy
    }

    // MARK: Token endpoint grant

    /// The `urn:openid:params:grant-type:ciba` grant (CIBA §10.1, §11): the tokens once
    /// the user approved, or why not yet (`authorization_pending`, `slow_down`) or not at all.
    public func redeem(authReqID: String?, client service: ServiceRecord, tenant: TenantRecord, dpop: DPoP.Proof? = nil) async throws
        -> TokenResponse
    {
        guard service.backchannelMode != nil, service.isConfidential else {
            throw DomainError(.invalid, .unauthorizedClient, "this client is not registered for backchannel authentication")
        }
        try Grants.requireProof(dpop, service: service)
        try await domain.grants.signingKeyReady(for: service, tenant: tenant)
        guard let requestID = authReqID else { throw DomainError.invalidRequest("auth_req_id is missing") }
        let now = domain.epochNow()
        let grants = domain.grants
        let outcome: Grants.Outcome = try await domain.store.transaction { tx in
            guard let record = try await tx.authRequest(id: RequestID(requestID)), record.flow == .ciba, record.tenantID == tenant.id,
                record.serviceID == service.id, let userID = record.userID
            else { throw DomainError.invalidGrant("auth_req_id is not valid for this client") }
            switch record.status {
            case .pending, .claimed:
                guard record.expiresAt > now else { throw Self.expired }
                let interval = record.pollInterval ?? domain.settings.backchannelInterval
                // Polling faster than the interval earns a longer one; either answer commits
                // the time of this request. Times are whole seconds: one second of slack
                // keeps a client that waits exactly the interval out of trouble.
                if let last = record.lastPolledAt, now + 1 < last + Int64(interval) {
                    try await tx.recordPoll(id: record.id, at: now, interval: interval + Self.slowDownStep)
                    return .refused(
                        DomainError(.invalid, .slowDown, "poll at most every \(interval + Self.slowDownStep) seconds"))
                }
                try await tx.recordPoll(id: record.id, at: now, interval: interval)
                return .refused(DomainError(.invalid, .authorizationPending, "the user has not answered yet"))
            case .approved:
                guard record.expiresAt > now else { throw Self.expired }
                guard try await tx.completeAuthRequest(id: record.id) else { throw Self.used }
                // The approved request starts a session, as a code does.
                let source = Grants.Source(
                    familyID: SessionID(Secrets.identifier(byteCount: 16)), tenantID: tenant.id, userID: userID,
                    activationID: record.activationID, nonce: nil, factors: record.factors ?? [],
                    confirmedAttributes: record.confirmedAttributes ?? [], authTime: record.authTime ?? now)
                return try await grants.startSession(source, scope: record.scope, service: service, tenant: tenant, tx: tx, now: now)
            case .denied:
                throw DomainError(.invalid, .accessDenied, "the user declined the request")
            case .locked:
                throw DomainError(.invalid, .accessDenied, "the device is locked after too many failed attempts")
            case .expired:
                throw Self.expired
            case .completed:
                throw Self.used
            }
        }
        return try await grants.issueTokens(outcome, service: service, tenant: tenant, includeNonce: false, dpop: dpop)
    }

    static let expired = DomainError(.invalid, .expiredToken, "the backchannel request expired before the user answered")
    static let used = DomainError.invalidGrant("the tokens for this auth_req_id were issued already")
}

/// The answer to a backchannel authentication request (CIBA §7.3).
public struct BackchannelAuthenticationResponse: Codable, Sendable {
    public let authReqID: RequestID
    public let expiresIn: Int
    public let interval: Int

    enum CodingKeys: String, CodingKey {
        case interval
        case authReqID = "auth_req_id"
        case expiresIn = "expires_in"
    }
}

extension Domain {
    public var backchannel: Backchannel { Backchannel(domain: self) }
}
