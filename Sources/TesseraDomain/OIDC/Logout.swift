import Foundation
import JWTKit
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Logout: a service sends the browser to the end-session endpoint (OpenID Connect
/// RP-Initiated Logout 1.0), and every service that registered a back-channel logout URI
/// hears, by a signed `logout_token`, of each of its sessions that ends — by logout, by an
/// operator, by the user, or because the device, the passkey or the user went (OpenID
/// Connect Back-Channel Logout 1.0).
///
/// In Tessera the user's device, not a browser cookie, carries a login; the OpenID
/// Provider's own session is the device's single sign-on session. Logging out therefore
/// ends the session the ID token names and that device's single sign-on session for the
/// user, so the next login, at any service, needs the full factors again. The user's
/// sessions at other services stay: each stood on a login of its own.
public struct Logout: Sendable {
    let domain: Domain

    /// What the end-session endpoint was asked (OpenID RP-Initiated Logout §2).
    public struct Request: Sendable {
        public var idTokenHint: String?
        public var clientID: String?
        public var postLogoutRedirectURI: String?
        public var state: String?
        public var uiLocales: String?

        public init(_ parameters: [String: String]) {
            idTokenHint = parameters["id_token_hint"]
            clientID = parameters["client_id"]
            postLogoutRedirectURI = parameters["post_logout_redirect_uri"]
            state = parameters["state"]
            uiLocales = parameters["ui_locales"]
        }
    }

    /// How a logout ends for the browser.
    public struct Outcome: Sendable {
        /// Where the browser goes back to, with `state`; nil: the server shows that the user is signed out.
        public let redirectURI: String?
        public let state: String?
        /// The service's name, when known.
        public let serviceName: String?
        /// Whether a session ended (false: it had ended already, or no hint named one).
        public let ended: Bool
        /// Whether a valid hint named a sign-in (ended now or before): the user is signed out of it.
        public let signedOut: Bool
    }

    /// Refused before anything changed: shown to the user, never redirected.
    public static let invalidLogout = DomainError.Code("invalid_request")

    public func endSession(_ request: Request, tenant: TenantRecord, logger: Logger) async throws -> Outcome {
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        guard (request.state?.count ?? 0) <= 1024, (request.idTokenHint?.count ?? 0) <= 16_384 else {
            throw DomainError.invalidRequest("state is limited to 1024 characters, id_token_hint to 16 KiB")
        }
        var hint: IDTokenHintClaims?
        if let token = request.idTokenHint {
            // The signature is checked, the expiry is not: a logout may come long after the login.
            do {
                hint = try await domain.tokenIssuer(for: tenant).verify(token, as: IDTokenHintClaims.self)
            } catch {
                throw DomainError.invalidRequest("id_token_hint is not an ID token this issuer signed")
            }
            guard hint?.iss == issuer else { throw DomainError.invalidRequest("id_token_hint was issued by another issuer") }
        }
        // The service: the one the hint was issued to, which client_id (when given) must name.
        var clientID = request.clientID
        if let hint {
            guard hint.aud.count == 1, let audience = hint.aud.first else {
                throw DomainError.invalidRequest("id_token_hint must have exactly one audience")
            }
            if let clientID, clientID != audience { throw DomainError.invalidRequest("id_token_hint was issued to another client") }
            clientID = audience
        }
        let service = try await clientID.asyncMap { id in try await domain.service(clientID: ClientID(id)) } ?? nil
        if clientID != nil, service?.tenantID != tenant.id {
            throw DomainError.invalidRequest("the service is not registered here")
        }
        if let uri = request.postLogoutRedirectURI {
            // [REQ:DESIGN exact redirect URIs] string equality against the service's registration.
            // RP-Initiated Logout §2: no redirection without an ID token that names the service.
            guard let service, hint != nil else { throw DomainError.invalidRequest("post_logout_redirect_uri needs id_token_hint") }
            guard (service.postLogoutRedirectURIs ?? []).contains(uri) else {
                throw DomainError.invalidRequest("post_logout_redirect_uri is not registered for the service")
            }
        }
        var ended = false
        if let hint, let service, let sid = hint.sid {
            let now = domain.epochNow()
            ended = try await domain.store.transaction { tx in
                // The session the token names, if it is this service's and the subject is its user's.
                guard let session = try await tx.session(id: SessionID(sid)), session.tenantID == tenant.id,
                    session.serviceID == service.id, Grants.subject(of: session.userID, for: service) == hint.sub
                else { return false }
                let count = try await tx.endSessions(.session(session.id), reason: .logout, at: now)
                if let activationID = session.activationID {
                    try await tx.endSSOSession(activationID: activationID, userID: session.userID)
                }
                return count > 0
            }
            if ended {
                logger.info("session ended by logout", metadata: ["tenant": "\(tenant.name)", "client_id": "\(service.clientID)"])
            }
        }
        return Outcome(
            redirectURI: request.postLogoutRedirectURI, state: request.state, serviceName: service?.name, ended: ended,
            signedOut: hint != nil)
    }

    // MARK: Back-channel logout

    /// A logout token ready to post to a service.
    public struct Delivery: Sendable {
        public let noticeID: String
        public let uri: String
        public let logoutToken: String
        public let attempts: Int
        public let clientID: String
        /// The `traceparent` of the request that ended the session.
        public let traceParent: String?
    }

    /// How long a delivery may take before another node tries the notice again.
    static let lease: Int64 = 60
    /// Attempts before a notice is given up: with the waits below, about a day.
    public static let maximumAttempts = 10

    /// The wait after the n-th failed attempt: 5 s, 20 s, 80 s, … at most an hour.
    public static func backoff(afterAttempt attempt: Int) -> Int64 {
        min(3600, 5 * Int64(1 << min(2 * max(0, attempt - 1), 20)))
    }

    /// The notices due now, taken by this node, with their signed logout tokens. A notice
    /// whose service or tenant went (or stopped back-channel logout) is dropped.
    public func takeDue(limit: Int = 32) async throws -> [Delivery] {
        let now = domain.epochNow()
        // Most looks find nothing: a read decides whether a transaction is worth it.
        guard try await domain.store.read({ try await $0.hasDueLogoutNotices(now: now) }) else { return [] }
        let notices = try await domain.store.transaction { tx in
            try await tx.takeDueLogoutNotices(now: now, lease: Self.lease, limit: limit)
        }
        var deliveries: [Delivery] = []
        for notice in notices {
            // One notice that cannot be prepared waits its back-off alone; the others go out.
            do {
                let (service, tenant) = try await domain.store.read { tx in
                    (try await tx.service(id: notice.serviceID), try await tx.tenant(id: notice.tenantID))
                }
                guard let service, let tenant, let uri = service.backchannelLogoutURI else {
                    try await delivered(noticeID: notice.id)
                    continue
                }
                let algorithm = Domain.idTokenAlgorithm(of: service)
                let claims = LogoutTokenClaims(
                    iss: domain.issuer(forTenantNamed: tenant.name), aud: service.clientID.rawValue, iat: Int(now), exp: Int(now + 120),
                    jti: Secrets.randomToken(byteCount: 16), sub: Grants.subject(of: notice.userID, for: service), sid: notice.sessionID.rawValue)
                let token = try await domain.tokenIssuer(for: tenant, signingFor: service).sign(claims, type: "logout+jwt", algorithm: algorithm)
                deliveries.append(
                    Delivery(noticeID: notice.id, uri: uri, logoutToken: token, attempts: notice.attempts, clientID: service.clientID.rawValue,
                        traceParent: notice.traceParent))
            } catch {
                _ = try? await failed(noticeID: notice.id, attempts: notice.attempts)
            }
        }
        return deliveries
    }

    /// The service answered 200 (or the notice is given up): it is not sent again.
    public func delivered(noticeID: String) async throws {
        try await domain.store.transaction { try await $0.deleteLogoutNotice(id: noticeID) }
    }

    /// The service did not answer 200: tried again after the back-off, or given up after
    /// `maximumAttempts`. Returns whether it will be tried again.
    public func failed(_ delivery: Delivery) async throws -> Bool {
        try await failed(noticeID: delivery.noticeID, attempts: delivery.attempts)
    }

    /// A notice whose attempt (counted when it was taken) came to nothing.
    func failed(noticeID: String, attempts: Int) async throws -> Bool {
        guard attempts < Self.maximumAttempts else {
            try await delivered(noticeID: noticeID)
            return false
        }
        let next = domain.epochNow() + Self.backoff(afterAttempt: attempts)
        try await domain.store.transaction { try await $0.postponeLogoutNotice(id: noticeID, until: next) }
        return true
    }
}

/// A logout token (OpenID Back-Channel Logout §2.4): a JWT with `events`, never a `nonce`.
public struct LogoutTokenClaims: JWTPayload, Equatable {
    public static let event = "http://schemas.openid.net/event/backchannel-logout"

    public var iss: String
    public var aud: String
    public var iat: Int
    public var exp: Int
    public var jti: String
    public var sub: String
    public var sid: String
    public var events: [String: [String: String]] = [Self.event: [:]]

    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension Domain {
    public var logout: Logout { Logout(domain: self) }
}
