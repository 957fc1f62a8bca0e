import Foundation
import Logging
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// The browser sessions of the web console (`/console`) and of a user's account page
/// (`/t/{tenant}/account`). Both sign in as relying parties of the server's own OpenID
/// Connect: an authorization request with PKCE, state and nonce to a built-in public
/// service, the device login its page shows, the code redeemed and the ID token checked.
/// A session lives while its idle and absolute lifetimes last, its user is enabled (and,
/// for the console, still an operator), and the OpenID Connect session of that login
/// has not ended: revoking the device that signed in ends the browser's session too.
public struct WebSessions: Sendable {
    let domain: Domain

    /// The built-in tenant of the console's operators.
    public static let operatorsTenant = "operators"
    public static let consoleClientID = ClientID("tessera-console")
    static let accountClientPrefix = "tessera-account-"

    public struct Lifetimes: Sendable {
        public let idle: Int64
        public let absolute: Int64
    }

    public static func lifetimes(_ kind: WebSessionKind) -> Lifetimes {
        switch kind {
        case .console: Lifetimes(idle: 15 * 60, absolute: 8 * 3600)
        case .account: Lifetimes(idle: 15 * 60, absolute: 3600)
        }
    }

    /// Where the sign-in returns to: the console's callback, or the tenant's account page's.
    public func redirectURI(_ kind: WebSessionKind, tenant: TenantRecord) -> String {
        switch kind {
        case .console: "\(domain.settings.publicURL)/console/callback"
        case .account: "\(domain.issuer(forTenantNamed: tenant.name))/account/callback"
        }
    }

    /// Whether a service is one of the server's own sign-in clients, which the admin API
    /// and the console do not change or delete.
    public static func isBuiltIn(_ clientID: ClientID) -> Bool {
        clientID == consoleClientID || clientID.rawValue.hasPrefix(accountClientPrefix)
    }

    func clientID(_ kind: WebSessionKind, tenant: TenantRecord) -> ClientID {
        switch kind {
        case .console: Self.consoleClientID
        case .account: ClientID(Self.accountClientPrefix + tenant.id.rawValue)
        }
    }

    /// The tenant the console's operators belong to; made when `creating` and missing.
    public func operatorsTenant(creating: Bool, logger: Logger) async throws -> TenantRecord? {
        if let tenant = try? await domain.tenant(named: Self.operatorsTenant) { return tenant }
        guard creating else { return nil }
        do {
            _ = try await domain.administration().createTenant(.init(name: Self.operatorsTenant), logger: logger)
        } catch let error as DomainError where error.kind == .conflict {
            // Made by another caller meanwhile.
        }
        return try await domain.tenant(named: Self.operatorsTenant)
    }

    /// The built-in service a sign-in goes through: made on first use, its one redirect
    /// URI kept to the current public URL. A public client: PKCE protects its codes. The
    /// sessions of its logins last as long as the browser sessions they open (they are
    /// never refreshed), so a user's list of sessions says when they end.
    func service(_ kind: WebSessionKind, tenant: TenantRecord) async throws -> ServiceRecord {
        let clientID = clientID(kind, tenant: tenant)
        let redirectURI = redirectURI(kind, tenant: tenant)
        let lifetime = Self.lifetimes(kind).absolute
        let now = domain.epochNow()
        // Signing in to pages that manage credentials takes the factors an account process takes.
        let policy = tenant.processPolicy
        func current(_ service: ServiceRecord) -> Bool {
            service.redirectURIs == [redirectURI] && service.sessionLifetime == lifetime && service.sessionIdleLifetime == lifetime
                && service.numberMatching && service.policy == policy
        }
        let existing = try await domain.service(clientID: clientID)
        if let existing, existing.tenantID == tenant.id, current(existing) { return existing }
        let (service, written) = try await domain.store.transaction { tx -> (ServiceRecord, Bool) in
            if var service = try await tx.service(clientID: clientID), service.tenantID == tenant.id {
                if current(service) { return (service, false) }
                service.redirectURIs = [redirectURI]
                service.sessionLifetime = lifetime
                service.sessionIdleLifetime = lifetime
                // Operators and users pick the page's number (services made before it existed too).
                service.numberMatching = true
                service.policy = policy
                try await tx.updateService(service)
                try await Audit.record(
                    tx, tenantID: tenant.id, actor: .system, action: .serviceUpdate, target: clientID.rawValue,
                    details: ["redirect_uris": redirectURI, "policy": policy.description], at: now)
                return (service, true)
            }
            let service = try Administration.checkedService(
                ServiceRecord(
                    id: ServiceID(Secrets.identifier(byteCount: 12)), tenantID: tenant.id, clientID: clientID,
                    name: kind == .console ? "Tessera console" : "Tessera account", secretDigest: nil, isPublic: true,
                    redirectURIs: [redirectURI], policy: policy, attributes: [],
                    backchannelMode: nil, notificationEndpoint: nil, sessionLifetime: lifetime, sessionIdleLifetime: lifetime,
                    numberMatching: true, createdAt: now), allowsPrivateOutbound: false)
            try await tx.insertService(service)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: .system, action: .serviceCreate, target: clientID.rawValue,
                details: ["name": service.name, "policy": service.policy.description, "public": "true"], at: now)
            return (service, true)
        }
        if written { await domain.servicesChanged(logger: nil) }
        return service
    }

    /// A sign-in under way: where the browser goes, and what it keeps (in a cookie) for
    /// the callback.
    public struct SignIn: Sendable {
        public let authorizationURL: String
        public let state: String
        public let nonce: String
        public let verifier: String
        /// When it started: the ID token's `auth_time` must not be earlier.
        public let startedAt: Int64

        public init(authorizationURL: String, state: String, nonce: String, verifier: String, startedAt: Int64) {
            self.authorizationURL = authorizationURL
            self.state = state
            self.nonce = nonce
            self.verifier = verifier
            self.startedAt = startedAt
        }
    }

    /// What the browser keeps for the callback, sealed under the master key: the browser
    /// cannot move the start time back to pass off an older login as this one.
    public func sealed(_ signIn: SignIn, _ kind: WebSessionKind) throws -> String {
        let text = [signIn.state, signIn.nonce, signIn.verifier, String(signIn.startedAt)].joined(separator: ".")
        return try domain.box.seal(Data(text.utf8), context: Self.signInContext(kind))
    }

    /// The sign-in a browser kept, or nil when the value was not sealed here for `kind`.
    public func unsealed(_ value: String, _ kind: WebSessionKind) -> SignIn? {
        guard value.count <= 1024, let data = try? domain.box.open(value, context: Self.signInContext(kind)) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: ".").map(String.init)
        guard parts.count == 4, let startedAt = Int64(parts[3]) else { return nil }
        return SignIn(authorizationURL: "", state: parts[0], nonce: parts[1], verifier: parts[2], startedAt: startedAt)
    }

    static func signInContext(_ kind: WebSessionKind) -> String { "web-sign-in:\(kind.rawValue)" }

    public func start(_ kind: WebSessionKind, tenant: TenantRecord) async throws -> SignIn {
        let service = try await service(kind, tenant: tenant)
        let state = Secrets.randomToken(byteCount: 16)
        let nonce = Secrets.randomToken(byteCount: 16)
        let verifier = PKCE.makeVerifier()
        let parameters = [
            ("response_type", "code"), ("client_id", service.clientID.rawValue), ("redirect_uri", redirectURI(kind, tenant: tenant)),
            ("scope", "openid"), ("state", state), ("nonce", nonce),
            ("code_challenge", PKCE.challenge(forVerifier: verifier)), ("code_challenge_method", "S256"),
            // Both pages manage credentials: fresh factors, never single sign-on (the
            // authorization endpoint enforces it for these clients whatever the URL says).
            ("prompt", "login"),
        ]
        let query = parameters.map { "\($0.0)=\(FormEncoding.component($0.1))" }.joined(separator: "&")
        return SignIn(
            authorizationURL: "\(domain.issuer(forTenantNamed: tenant.name))/authorize?\(query)", state: state, nonce: nonce,
            verifier: verifier, startedAt: domain.epochNow())
    }

    /// A browser's session, once it signed in.
    public struct Opened: Sendable {
        /// Goes into the session cookie; the store keeps its digest.
        public let secret: String
        public let session: WebSessionRecord
    }

    public static let notOperator = DomainError.Code("not_an_operator")

    /// How long a sign-in may take from its start to the callback, in seconds.
    public static let signInLifetime: Int64 = 900

    /// A sign-in whose login is older than it, or weaker than the tenant's process policy.
    static let notFresh = DomainError(.forbidden, .accessDenied, "this sign-in needs fresh factors as an account process does: start again")

    /// Whether an ID token's `amr` names every factor of one of the policy's combinations
    /// (a security key as `hwk`, or `swk` for a synced passkey).
    static func methods(_ amr: [String], meet policy: AuthenticatorPolicy) -> Bool {
        let methods = Set(amr)
        return policy.alternatives.contains { alternative in
            alternative.factors.allSatisfy { factor in
                factor == .securitykey ? !methods.isDisjoint(with: ["hwk", "swk"]) : methods.contains(factor.authenticationMethodReference)
            }
        }
    }

    /// The callback: checks `state` against the one the browser kept, redeems the code
    /// with the PKCE verifier, checks the ID token (signature, issuer, audience, nonce),
    /// and opens the session.
    public func finish(
        _ kind: WebSessionKind, tenant: TenantRecord, code: String?, state: String?, kept: SignIn?, logger: Logger
    ) async throws -> Opened {
        let now = domain.epochNow()
        guard let kept, let state, Secrets.constantTimeEquals(state, kept.state), now - kept.startedAt <= Self.signInLifetime,
            kept.startedAt <= now + 60
        else {
            throw DomainError(.forbidden, .accessDenied, "this sign-in was not started in this browser, or it is stale: start again")
        }
        guard let code else { throw DomainError.invalidRequest("the sign-in returned no code") }
        let service = try await service(kind, tenant: tenant)
        let tokens = try await domain.grants.redeemCode(
            code, redirectURI: redirectURI(kind, tenant: tenant), codeVerifier: kept.verifier, client: service, tenant: tenant)
        let keys = try await domain.tokenIssuer(for: tenant)
        let issuer = domain.issuer(forTenantNamed: tenant.name)
        let identity: IDTokenClaims
        let access: AccessTokenClaims
        do {
            identity = try await keys.verify(tokens.idToken, as: IDTokenClaims.self, now: domain.epochNow())
            access = try await keys.verify(tokens.accessToken, as: AccessTokenClaims.self, now: domain.epochNow())
        } catch {
            throw DomainError(.unauthenticated, .accessDenied, "the ID token did not verify")
        }
        guard let sid = access.sid else { throw DomainError(.unauthenticated, .accessDenied, "the access token names no session") }
        let sessionID = SessionID(sid)
        let ours =
            identity.iss == issuer && identity.aud == service.clientID.rawValue && access.sub == identity.sub
            && identity.nonce.map { Secrets.constantTimeEquals($0, kept.nonce) } == true
        // Fresh factors under the tenant's process policy: a login made for this sign-in
        // (not a single sign-on session's older one) whose methods a process would take.
        let policy = tenant.processPolicy
        let fresh = Int64(identity.authTime) >= kept.startedAt && Self.methods(identity.amr, meet: policy)
        let lifetimes = Self.lifetimes(kind)
        let secret = Secrets.randomToken()
        let userID = UserID(identity.sub)
        enum Decision {
            case opened(WebSessionRecord)
            case refused(DomainError)
        }
        let decision: Decision = try await domain.store.transaction { tx in
            // A refused sign-in leaves no session behind: the code's redemption began one.
            func refuse(_ error: DomainError) async throws -> Decision {
                _ = try await tx.endSessions(.session(sessionID), reason: .revoked, at: now)
                return .refused(error)
            }
            guard ours else { return try await refuse(DomainError(.unauthenticated, .accessDenied, "the ID token is not this sign-in's")) }
            guard fresh, let session = try await tx.session(id: sessionID), session.endedAt == nil,
                policy.allows(FactorCombination(session.factors))
            else { return try await refuse(Self.notFresh) }
            if kind == .console, try await tx.consoleOperator(userID: userID) == nil {
                return try await refuse(DomainError(.forbidden, Self.notOperator, "this account is not an operator of the console"))
            }
            let record = WebSessionRecord(
                digest: Secrets.digest(secret), kind: kind, tenantID: tenant.id, userID: userID, activationID: session.activationID,
                sessionID: sessionID, csrf: Secrets.randomToken(), createdAt: now, expiresAt: now + lifetimes.absolute,
                idleLifetime: lifetimes.idle)
            try await tx.insertWebSession(record)
            return .opened(record)
        }
        switch decision {
        case .refused(let error):
            logger.info("web sign-in refused", metadata: ["kind": "\(kind.rawValue)", "reason": "\(error.message)"])
            throw error
        case .opened(let record):
            logger.info("web session opened", metadata: ["kind": "\(kind.rawValue)", "user_id": "\(userID)"])
            return Opened(secret: secret, session: record)
        }
    }

    /// A live session: its record, user, tenant and (for the console) operator.
    public struct Current: Sendable {
        public let session: WebSessionRecord
        public let user: UserRecord
        public let tenant: TenantRecord
        public let consoleOperator: ConsoleOperatorRecord?

        /// What an operator may do: its role, over its tenant or all, audited by name.
        /// None for an operator limited to the operators' tenant (made before that was
        /// refused): only a global admin administers it, and it is all such a one could reach.
        public var caller: AdminCaller? {
            guard let consoleOperator, consoleOperator.scopeTenantID != tenant.id else { return nil }
            return AdminCaller(role: consoleOperator.role, tenantID: consoleOperator.scopeTenantID, keyID: nil, operatorName: user.username)
        }

        /// Whether a form's token is the session's (compared in constant time).
        public func checks(csrf token: String?) -> Bool {
            guard let token else { return false }
            return Secrets.constantTimeEquals(token, session.csrf)
        }
    }

    /// The live session the cookie's secret opens, or nil (signed out, expired, idle, or
    /// ended with its device login).
    public func current(_ kind: WebSessionKind, secret: String?, tenant expected: TenantRecord? = nil) async throws -> Current? {
        guard let secret, !secret.isEmpty, secret.count <= 128 else { return nil }
        let now = domain.epochNow()
        let digest = Secrets.digest(secret)
        let found: Current? = try await domain.store.read { tx in
            guard let record = try await tx.webSession(digest: digest), record.kind == kind, record.endedAt == nil,
                now < record.expiresAt, now < record.lastSeenAt + record.idleLifetime
            else { return nil }
            if let expected, expected.id != record.tenantID { return nil }
            guard let login = try await tx.session(id: record.sessionID), login.endedAt == nil,
                let user = try await tx.user(id: record.userID), user.disabledAt == nil,
                let tenant = try await tx.tenant(id: record.tenantID)
            else { return nil }
            var consoleOperator: ConsoleOperatorRecord?
            if kind == .console {
                guard let found = try await tx.consoleOperator(userID: user.id) else { return nil }
                consoleOperator = found
            }
            return Current(session: record, user: user, tenant: tenant, consoleOperator: consoleOperator)
        }
        // The idle lifetime counts from the last page; written at most every 30 s.
        if let found, now - found.session.lastSeenAt >= 30 {
            try await domain.store.transaction { try await $0.touchWebSession(digest: digest, at: now) }
        }
        return found
    }

    /// Signs out: the browser's session ends, and with it the device login it stood on.
    public func signOut(_ current: Current, logger: Logger) async throws {
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            _ = try await tx.endWebSession(digest: current.session.digest, at: now)
            try await tx.endSessions(.session(current.session.sessionID), reason: .revoked, at: now)
        }
        logger.info("web session ended", metadata: ["kind": "\(current.session.kind.rawValue)", "user_id": "\(current.user.id)"])
    }

    // MARK: Operators

    /// Makes the operators' tenant if missing, the user if missing, gives it `role`
    /// (limited to `scope` if named), and invites a device: the link to activate it.
    package func addOperator(
        _ input: Components.Schemas.AddConsoleUser, by caller: AdminCaller, logger: Logger
    ) async throws -> Components.Schemas.ConsoleUserInvitation {
        try caller.check(.manage, global: true)
        let username = input.username, scope = input.tenant
        let role = try input.role.map { try AdminRole.documented($0) } ?? .admin
        guard role != .provisioner else { throw DomainError.invalidRequest("provisioner is a role for admin keys, not operators") }
        // Checked before anything is made: a refused request leaves nothing behind.
        guard Validation.isUsername(username) else {
            throw DomainError.invalidRequest("a username is 1 to 128 characters, without control characters or outer spaces")
        }
        var scopeTenant: TenantRecord?
        if let scope { scopeTenant = try await domain.tenant(named: scope) }
        if scopeTenant?.name == Self.operatorsTenant {
            throw DomainError.invalidRequest("an operator cannot be limited to the operators' tenant: only an admin of every tenant administers it")
        }
        guard let tenant = try await operatorsTenant(creating: true, logger: logger) else {
            throw DomainError(.internal, .serverError, "the operators' tenant could not be made")
        }
        let administration = domain.administration(as: caller)
        if try await domain.store.read({ try await $0.user(tenantID: tenant.id, username: username) }) == nil {
            do {
                _ = try await administration.createUser(.init(username: username, attributes: nil), tenant: tenant, logger: logger)
            } catch let error as DomainError where error.kind == .conflict {}
        }
        guard let user = try await domain.store.read({ try await $0.user(tenantID: tenant.id, username: username) }) else {
            throw DomainError.notFound("user '\(username.prefix(128))'")
        }
        let now = domain.epochNow()
        try await domain.store.transaction { tx in
            try await tx.saveConsoleOperator(
                ConsoleOperatorRecord(userID: user.id, tenantID: tenant.id, role: role, scopeTenantID: scopeTenant?.id, createdAt: now))
            try await Audit.record(
                tx, tenantID: tenant.id, actor: caller.actor, action: .operatorSave, target: user.id.rawValue,
                details: ["username": username, "role": role.rawValue, "tenant": scopeTenant?.name ?? "*"], at: now)
        }
        let invitation = try await administration.invite(.init(username: username, ttlSeconds: nil), tenant: tenant, logger: logger)
        guard let url = invitation.url else { throw DomainError(.internal, .serverError, "an operator's invitation came without its link") }
        return .init(username: username, role: role.rawValue, tenant: scopeTenant?.name, url: url, expiresAt: invitation.expiresAt)
    }
}

extension Domain {
    public var webSessions: WebSessions { WebSessions(domain: self) }
}
