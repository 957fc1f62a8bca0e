import Crypto
import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords
import TesseraStore

/// Authentication attempts, whatever their purpose: a device claims a request, proves
/// a combination of factors once, or denies it. Finishing is where lockout counts: one
/// transaction per attempt reads the counter, verifies, and writes the outcome.
public struct Attempts: Sendable {
    let domain: Domain

    // MARK: Claim

    /// Takes up a request for the calling activation (and, for an activation merged with
    /// others, the user it names) and answers what to sign, with a fresh challenge.
    public func claim(requestID: RequestID, selection: ClaimRequest, caller: DeviceCaller, tenant: TenantRecord, logger: Logger)
        async throws -> AuthenticationChallenge
    {
        let activation = caller.activation
        let now = domain.epochNow()
        // Claims take turns with the activation's finishes and denials (see `finish`).
        let (challenge, notice) = try await domain.store.transaction(queue: Self.queue(activation.id)) {
            tx -> (AuthenticationChallenge, RequestNotice) in
            let (current, ownUser, read) = try await caller.begin(tx, now: now, reading: requestID)
            let authRequest = try Self.pending(read, tenant: tenant, now: now)
            // Account processes are started and answered by their own device only.
            guard authRequest.purpose == AuthenticationPurpose.login else { throw DomainError.notFound("authentication request") }
            if let owner = authRequest.activationID, owner != activation.id {
                throw DomainError.requestClaimed("another device has taken up this request")
            }
            // An activation merged with invitations may sign in as any of its users; a
            // service's backchannel request names its user, and only that user's devices see it.
            var userID = current.userID
            if authRequest.flow == .ciba {
                guard let bound = authRequest.userID, try await Self.users(of: current, tx: tx).contains(bound) else {
                    throw DomainError.notFound("authentication request")
                }
                userID = bound
            } else if let hint = authRequest.loginHint {
                // A browser login for one user (`login_hint`): only devices that stand for that user answer it.
                var hinted: UserID?
                for candidate in try await Self.users(of: current, tx: tx) {
                    if let user = try await tx.user(id: candidate), user.username == hint { hinted = user.id }
                }
                guard let hinted else {
                    throw DomainError(.forbidden, .accessDenied, "this sign-in request is for another user")
                }
                userID = hinted
            } else if let chosen = selection.userID, chosen != current.userID {
                guard try await tx.linkedUsers(activationID: current.id).contains(where: { $0.id == chosen }) else {
                    throw DomainError.invalidRequest("the activation does not stand for that user")
                }
                userID = chosen
            }
            let fresh = Secrets.randomToken()
            var claimed = authRequest
            claimed.challenge = fresh
            claimed.userID = userID
            claimed.activationID = activation.id
            // The user's other devices now show the request as taken up here: the claim's
            // statement tells the other nodes.
            var notice = RequestNotice(claimed, service: nil, answered: false)
            guard
                try await tx.claimAuthRequest(
                    id: authRequest.id, activationID: activation.id, userID: userID, challenge: fresh, notifying: notice.keys,
                    on: EventKey.channel)
            else {
                throw DomainError.requestClaimed("another device has taken up this request")
            }
            notice.told = true
            return (try await userInformation(claimed, activation: current, tenant: tenant, tx: tx, known: ownUser), notice)
        }
        await domain.announce(notice, logger: logger)
        return challenge
    }

    // MARK: Finish

    /// Verifies one signed submission and answers the purpose's result, or `lockout`.
    ///
    /// The envelope's signature is checked before anything counts against the activation
    /// (a stranger cannot lock a user out by sending garbage); then one transaction,
    /// queued behind the activation's other claims, finishes and denials, reads the
    /// counters, refuses a locked activation, checks the combination against the policy
    /// before any proof, spends the challenge, verifies the proofs, and writes the outcome.
    ///
    /// The challenge is spent before any proof is looked at, so nothing that can still
    /// fail (a parallel claim replacing the challenge, say) comes between a verified
    /// proof and its counted outcome: a wrong guess is either refused unseen or counted,
    /// never verified and then rolled back.
    /// `encrypted`: the body came as a JWE to the tenant's encryption key, as a service of
    /// the gematik profile requires of the signed challenge.
    public func finish(requestID: RequestID, input: FinishRequest, encrypted: Bool = false, tenant: TenantRecord, logger: Logger)
        async throws -> Finished
    {
        let (activation, proof) = try await verifiedEnvelope(input, requestID: requestID, tenant: tenant)
        let claims = proof.claims
        let policy = tenant.lockoutPolicy
        let now = domain.now()
        let epoch = Int64(now.timeIntervalSince1970)
        // Attempts on one activation take turns: its failure counter is exact however many
        // arrive at once, on however many nodes.
        let (answer, notice, purpose) = try await domain.store.transaction(queue: Self.queue(activation.id)) {
            tx -> (Approval?, RequestNotice?, AuthenticationPurpose) in
            // The proof's id and its challenge are spent as the activation, its user and the
            // request are read (one statement on PostgreSQL); an activation that cannot be
            // used is refused first, and like every refusal below rolls the spends back.
            let read = try await tx.useDeviceTokenID(
                claims.jti, reading: activation.id, request: requestID, spendingChallenge: claims.chal, expiresAt: Int64(claims.exp),
                now: epoch)
            let (current, ownUser) = try DeviceChecks.usable(read.activation, user: read.user, now: epoch)
            guard read.fresh else { throw DomainError.invalidGrant("this proof was submitted before") }
            let attempt = try await checkedAttempt(
                try Self.pending(read.request, tenant: tenant, now: epoch), claims: claims, activation: current, tenant: tenant, tx: tx,
                now: epoch)
            // The gematik profile: the signed challenge travels encrypted (thrown, so nothing of the attempt stays).
            if attempt.service?.gematikProfile == true, !encrypted {
                throw DomainError.invalidRequest(
                    "this service uses the gematik profile: send the signed challenge as a JWE to puk_idp_enc (Content-Type application/jose)")
            }
            // [REQ:DESIGN single-use challenges] spent whatever the outcome, before any proof
            // (by the read above, which found it as the request's challenge).
            guard read.challengeSpent else { throw DomainError.invalidGrant("the proof's challenge was used or replaced") }
            // Number matching: a wrong pick (or none) ends the login; it guesses no secret,
            // so it counts against no factor.
            if let expected = attempt.request.matchCode, !Secrets.constantTimeEquals(expected, claims.match ?? "") {
                return (nil, try await endMismatched(attempt, activation: current, tenant: tenant, tx: tx, at: epoch), attempt.request.purpose)
            }
            // The activation's security key, when the combination asks for it.
            let securityKey =
                attempt.combination.factors.contains(.securitykey)
                ? try await current.securityKeyID.asyncMap { try await tx.securityKey(id: $0) } ?? nil : nil
            let verification = try verifyFactors(
                attempt.combination, claims: claims, proof: proof, biometricProof: input.biometricProof, activation: current,
                securityKey: securityKey, tenant: tenant, now: now)
            switch verification.securityKey {
            case .passed(let key, let signCount, let backedUp):
                if verification.passed { try await tx.recordSecurityKeyUse(id: key, signCount: signCount, backedUp: backedUp, at: epoch) }
            case .counterRegression(let key):
                try await tx.markSecurityKeySuspicious(id: key, at: epoch)
            case .failed, nil:
                break
            }
            let history = HistoryRecord(
                id: orderedID(), tenantID: tenant.id, activationID: current.id,
                userID: attempt.request.userID ?? current.userID, requestID: requestID, service: attempt.service?.name,
                purpose: attempt.request.purpose, outcome: .approved, factors: attempt.combination.factors,
                at: epoch)
            if verification.passed {
                let (approval, notice) = try await approve(
                    attempt, claims: claims, verification: verification, activation: current, ownUser: ownUser, tenant: tenant,
                    history: history, tx: tx, at: now)
                return (approval, notice, attempt.request.purpose)
            }
            let (response, notice) = try await countFailure(
                attempt, verification: verification, policy: policy, activation: current, tenant: tenant, history: history,
                tx: tx, at: now)
            return (Approval(response: response), notice, attempt.request.purpose)
        }
        if let notice { await domain.announce(notice, logger: logger) }
        guard let answer else {
            logger.notice("number matching failed: login ended", metadata: ["tenant": "\(tenant.name)", "activation_id": "\(activation.id)"])
            throw DomainError(
                .forbidden, .accessDenied, "the number picked is not the one the sign-in page shows: this sign-in was cancelled")
        }
        var outcome = answer.response
        // Signed after the commit: the tenant's keys may have to be read from the store.
        if let claims = answer.identityToken {
            outcome.login?.identityToken = try await domain.tokenIssuer(for: tenant).sign(claims)
        }
        logger.info(
            "authentication attempt",
            metadata: ["tenant": "\(tenant.name)", "activation_id": "\(activation.id)", "outcome": "\(outcome.result.rawValue)"])
        var lock: LockoutInformation?
        if outcome.result == .lockout, let information = outcome.lockout,
            information.isPermanent || (information.lockedUntil.map { $0 > now } ?? false)
        {
            lock = information
        }
        return Finished(response: outcome, purpose: purpose, lockSet: lock)
    }

    /// The answer of an attempt, and the claims of the identity token it gives the app,
    /// which is signed once the transaction has committed.
    struct Approval: Sendable {
        var response: FinishResponse
        var identityToken: IDTokenClaims? = nil
    }

    /// A finished attempt: the device's answer, the request's purpose, and the lock the
    /// attempt set (a failure within the free attempts sets none).
    public struct Finished: Sendable {
        public let response: FinishResponse
        public let purpose: AuthenticationPurpose
        public let lockSet: LockoutInformation?
    }

    /// The submission's envelope: well-formed, signed by the device key of an activation of
    /// the tenant (active when it was read; the transaction reads it again), for this
    /// request, issuer and time.
    private func verifiedEnvelope(_ input: FinishRequest, requestID: RequestID, tenant: TenantRecord) async throws
        -> (ActivationRecord, VerifiedJWS<AuthenticationProofClaims>)
    {
        let (jws, sent) = try Self.parseProof(input.proof)
        // The transaction reads the activation again: a device key this node kept may check the proof.
        let found = try await domain.verifiedByDeviceKey(ActivationID(sent.sub), tenant: tenant) { try Self.verify(jws, by: $0) }
        guard let (activation, proof) = found else { throw DomainError.invalidToken("unknown or inactive activation") }
        let claims = proof.claims
        guard claims.rid == requestID.rawValue else { throw DomainError.invalidRequest("the proof is for another request") }
        try domain.checkTimes(
            iat: Int64(claims.iat), exp: Int64(claims.exp), audience: claims.aud, issuer: domain.issuer(forTenantNamed: tenant.name))
        return (activation, proof)
    }

    /// The proof as sent, before any key is looked at: its claims name the activation whose
    /// key must have signed it.
    ///
    /// These checks stay out of line: inlined into the async function above, their typed
    /// throws (`CryptoError`) crashed Swift 6.3.1's optimiser (coroutine splitting) in
    /// release builds.
    @inline(never)
    private static func parseProof(_ text: String) throws -> (UnverifiedJWS, AuthenticationProofClaims) {
        let jws = try DeviceChecks.parseJWS(text, type: JWSType.proof)
        do {
            return (jws, try jws.unverifiedClaims(as: AuthenticationProofClaims.self))
        } catch {
            throw DomainError.invalidRequest("the proof does not have the expected claims")
        }
    }

    @inline(never)
    private static func verify(_ jws: UnverifiedJWS, by key: P256.Signing.PublicKey) throws -> VerifiedJWS<AuthenticationProofClaims> {
        do {
            return try jws.verified(with: key, as: AuthenticationProofClaims.self)
        } catch {
            throw DomainError.invalidToken("the proof is not signed by the activation's device key")
        }
    }

    /// An attempt whose request, combination, attributes and challenge checked out: what
    /// is left is to verify the proofs.
    struct Attempt {
        let request: AuthRequestRecord
        let service: ServiceRecord?
        let combination: FactorCombination
        /// The single sign-on session a combination below the service's policy stands on.
        let session: SSOSessionRecord?
    }

    /// `authRequest`: the request as just read in `tx`, still open (`pending`).
    private func checkedAttempt(
        _ authRequest: AuthRequestRecord, claims: AuthenticationProofClaims, activation: ActivationRecord, tenant: TenantRecord,
        tx: StoreTransaction, now: Int64
    ) async throws -> Attempt {
        guard authRequest.activationID == activation.id else {
            throw DomainError.requestClaimed("this device has not taken up the request")
        }
        let service = try await authRequest.serviceID.asyncMap { try await domain.service(id: $0, in: tx) } ?? nil
        guard authRequest.serviceID == nil || service != nil else { throw StoreError(.corrupt, "request without service") }
        // The combination is checked against the policy before any proof.
        let combination = FactorCombination(claims.comb)
        let policies = try await loginPolicies(for: authRequest, tenant: tenant, tx: tx, service: service)
        // Fewer factors than the service asks for stand on the single sign-on session.
        let session = policies.base.allows(combination) ? nil : policies.sso.flatMap { $0.0.allows(combination) ? $0.1 : nil }
        guard policies.base.allows(combination) || session != nil else {
            throw DomainError.invalidRequest("the combination \(combination) is not allowed by the policy")
        }
        guard Set(combination.factors).isSubset(of: activation.enrolledFactors) else {
            throw DomainError.invalidRequest("the combination \(combination) needs factors this activation has not enrolled")
        }
        let requested = service.map { ScopeClaims.requestedAttributes(of: $0, scope: authRequest.scope) } ?? []
        guard Set(claims.attrs).isSubset(of: Set(requested)) else {
            throw DomainError.invalidRequest("the proof confirms attributes the service did not request")
        }
        guard let expected = authRequest.challenge, Secrets.constantTimeEquals(expected, claims.chal) else {
            throw DomainError.invalidGrant("the proof's challenge was used or replaced")
        }
        return Attempt(request: authRequest, service: service, combination: combination, session: session)
    }

    /// Every proof held (the challenge spent already, by the read): the success is
    /// recorded, and the request approved (a login), or handed to its account process.
    /// `ownUser`: the activation's own user as read earlier in `tx`.
    private func approve(
        _ attempt: Attempt, claims: AuthenticationProofClaims, verification: Verification, activation: ActivationRecord,
        ownUser: UserRecord?, tenant: TenantRecord, history: HistoryRecord, tx: StoreTransaction, at date: Date
    ) async throws -> (Approval, RequestNotice?) {
        let now = Int64(date.timeIntervalSince1970)
        let authRequest = attempt.request
        // A success resets the counts of the factors it proved, and only those: a one-time
        // code buys no more PIN guesses.
        let failures = activation.failures.succeeding(attempt.combination.factors)
        // Within a single sign-on session the login stands on the session's full login:
        // its factors and its time (OpenID `auth_time`); a full login starts the session
        // (or starts it again).
        let session = attempt.session
        let factors = session?.factors ?? attempt.combination.factors
        let authTime = session?.authTime ?? now
        var securityKeyID: SecurityKeyID?
        if session == nil, case .passed(let key, _, _) = verification.securityKey { securityKeyID = key }
        var notice: RequestNotice?
        if let service = attempt.service, authRequest.purpose == .login {
            // A login also writes its history entry here (an account process writes its
            // own), and tells the other nodes in the same statement.
            var told = RequestNotice(authRequest, service: service, answered: true)
            try await tx.approveLogin(
                id: authRequest.id, factors: factors, confirmedAttributes: claims.attrs.sorted(), authTime: authTime, securityKeyID: securityKeyID,
                activationID: activation.id, failures: failures, now: now, totpStep: verification.totpStep, history: history,
                notifying: told.keys, on: EventKey.channel)
            told.told = true
            notice = told
        } else {
            try await tx.recordSuccessfulUse(activationID: activation.id, failures: failures, now: now, totpStep: verification.totpStep)
            try await tx.approveAuthRequest(
                id: authRequest.id, factors: factors, confirmedAttributes: claims.attrs.sorted(), authTime: authTime, securityKeyID: securityKeyID)
        }
        // Only a login beyond the single sign-on policy starts a session: one that the
        // session's own combinations would allow proves nothing more. The device gets the
        // session's token for native single sign-on (a restarted session replaces it).
        var ssoToken: String?
        let ssoExpiry = now + Int64(tenant.ssoLifetime)
        if session == nil, Self.startsSSOSession(authRequest, tenant: tenant), let ssoPolicy = tenant.ssoPolicy,
            !ssoPolicy.allows(attempt.combination)
        {
            let token = Secrets.randomToken()
            try await tx.startSSOSession(
                SSOSessionRecord(
                    activationID: activation.id, userID: authRequest.userID ?? activation.userID, tenantID: tenant.id,
                    factors: attempt.combination.factors, authTime: now, expiresAt: ssoExpiry, tokenDigest: Secrets.digest(token)))
            ssoToken = token
        }
        let purpose = authRequest.purpose
        guard let service = attempt.service, purpose == .login else {
            let result = try await domain.accountProcesses.approved(
                authRequest, purpose: purpose, activation: activation, tenant: tenant, history: history, tx: tx, now: now)
            return (Approval(response: result), nil)
        }
        try await Self.recordAnswer(authRequest, outcome: .approved, tx: tx, at: now)
        let userID = authRequest.userID ?? activation.userID
        let user = try await Self.user(userID, known: ownUser, tx: tx)
        let confirmed = (user?.attributes ?? [:]).filter { claims.attrs.contains($0.key) }
        let role = Grants.role(of: factors, for: service)
        let subject = Grants.subject(of: userID, for: service)
        let identityToken =
            authRequest.flow == .ciba && service.appIdentityToken
            ? stepUpIdentityToken(
                authRequest, service: service, subject: subject, factors: factors, authTime: authTime,
                attributes: confirmed, role: role, tenant: tenant, now: now)
            : nil
        // An in-app login goes on to its authorization code; the others are done.
        let result = FinishResponse(
            result: authRequest.flow == .inApp ? .serviceLogin : .userLogin,
            login: LoginSummary(
                service: ServiceInformation(clientID: service.clientID, name: service.name),
                username: user?.username ?? "", factors: attempt.combination.factors,
                authenticatedAt: date, role: role, subject: subject, attributes: confirmed, ssoToken: ssoToken,
                ssoExpiresAt: ssoToken.map { _ in Date(timeIntervalSince1970: TimeInterval(ssoExpiry)) }))
        return (Approval(response: result, identityToken: identityToken), notice)
    }

    /// The claims of the identity token a backchannel request answered on the phone gives the app
    /// (VeridiumID's IdentityToken): an ID token for the service, naming the request
    /// (`auth_req_id`), which the app's server verifies offline with the issuer's JWKS.
    private func stepUpIdentityToken(
        _ request: AuthRequestRecord, service: ServiceRecord, subject: String, factors: [FactorType], authTime: Int64,
        attributes: [String: String], role: String?, tenant: TenantRecord, now: Int64
    ) -> IDTokenClaims {
        let combination = FactorCombination(factors)
        var claims = IDTokenClaims(
            iss: domain.issuer(forTenantNamed: tenant.name), sub: subject, aud: service.clientID.rawValue,
            exp: Int(now + tenant.accessTokenLifetime), iat: Int(now), authTime: Int(authTime), nonce: nil,
            amr: Grants.amr(for: combination.factors), acr: Grants.acr(for: combination), attributes: attributes)
        claims.role = role
        claims.authRequestID = request.id.rawValue
        return claims
    }

    /// A proof failed: the attempt counts once against each guessable factor of its
    /// combination, whichever was wrong, and says nothing about which; it also ends the
    /// activation's single sign-on sessions. The device gets a fresh challenge to try again
    /// with once the lock allows. Nothing after the count can fail on its own account: the
    /// challenge was spent before the proofs were verified.
    private func countFailure(
        _ attempt: Attempt, verification: Verification, policy: LockoutPolicy, activation: ActivationRecord, tenant: TenantRecord,
        history: HistoryRecord, tx: StoreTransaction, at date: Date
    ) async throws -> (FinishResponse, RequestNotice?) {
        let authRequest = attempt.request
        var failed = activation
        failed.failures = activation.failures.failing(attempt.combination.factors)
        let lock = policy.lock(afterFailures: failed.failedAttempts, at: date)
        try await tx.recordFailure(
            activationID: activation.id, failures: failed.failures,
            lockedUntil: lock?.lockedUntilEpoch,
            permanentlyLocked: lock?.isPermanent ?? false)
        try await tx.endSSOSessions(activationID: activation.id)
        if let step = verification.totpStep { try await tx.spendTOTPStep(activationID: activation.id, step: step) }
        let next = Secrets.randomToken()
        try await tx.replaceChallenge(requestID: authRequest.id, with: next)
        var retried = authRequest
        retried.challenge = next
        // A wait that outlasts the request extends it, so the device can retry this very
        // login once the wait is over (and the browser keeps waiting): up to a request
        // lifetime past the wait, never beyond `maximumRequestLife` from its start.
        if let until = lock?.lockedUntilEpoch, lock?.isPermanent != true {
            let wanted = until + domain.settings.requestLifetime
            let extended = min(wanted, authRequest.createdAt + Self.maximumRequestLife)
            if extended > authRequest.expiresAt {
                try await tx.extendAuthRequest(id: authRequest.id, expiresAt: extended)
                retried.expiresAt = extended
            }
        }
        if lock?.isPermanent == true {
            try await Notices.send(
                .locked, tx: tx, domain: domain, tenantID: tenant.id, userID: activation.userID, details: ["device": activation.alias ?? ""],
                at: Int64(date.timeIntervalSince1970))
            try await tx.setAuthRequestStatus(id: authRequest.id, status: .locked)
            try await Self.recordAnswer(authRequest, outcome: .locked, tx: tx, at: Int64(date.timeIntervalSince1970))
        }
        var failedEntry = history
        failedEntry.outcome = lock?.isPermanent == true ? .locked : .failed
        try await tx.insertHistory(failedEntry)
        let result = FinishResponse(
            result: .lockout,
            lockout: lock ?? LockoutInformation(isPermanent: false, lockedUntil: date),
            userInformation: try await userInformation(retried, activation: failed, tenant: tenant, tx: tx))
        // A permanent lock ends a backchannel request: its service learns so.
        return (result, RequestNotice(authRequest, service: attempt.service, answered: lock?.isPermanent == true))
    }

    /// The user picked another number than the page shows: the login ends as denied, with
    /// a failed entry in the history, and the page learns at once.
    private func endMismatched(_ attempt: Attempt, activation: ActivationRecord, tenant: TenantRecord, tx: StoreTransaction, at now: Int64)
        async throws -> RequestNotice
    {
        let authRequest = attempt.request
        try await tx.setAuthRequestStatus(id: authRequest.id, status: .denied)
        try await Self.recordAnswer(authRequest, outcome: .failed, tx: tx, at: now)
        try await tx.insertHistory(
            HistoryRecord(
                id: orderedID(), tenantID: tenant.id, activationID: activation.id, userID: authRequest.userID ?? activation.userID,
                requestID: authRequest.id, service: attempt.service?.name, purpose: authRequest.purpose, outcome: .failed,
                factors: attempt.combination.factors, at: now))
        return RequestNotice(authRequest, service: attempt.service, answered: true)
    }

    struct Verification {
        let passed: Bool
        let totpStep: Int64?
        /// The security key's outcome, when the combination had one.
        var securityKey: Passkeys.DeviceAssertion? = nil
    }

    /// Checks each factor's proof; every factor is checked, so the time taken does not
    /// tell which one failed.
    private func verifyFactors(
        _ combination: FactorCombination, claims: AuthenticationProofClaims, proof: VerifiedJWS<AuthenticationProofClaims>, biometricProof: String?,
        activation: ActivationRecord, securityKey: SecurityKeyRecord?, tenant: TenantRecord, now: Date
    ) throws -> Verification {
        var passed = true
        var totpStep: Int64?
        var securityKeyOutcome: Passkeys.DeviceAssertion?
        for factor in combination.factors {
            switch factor {
            case .device:
                break  // the envelope's signature, checked before the transaction
            case .federation:
                passed = false  // proved at an external provider in a browser, never by a device
            case .pin:
                let key = SymmetricKey(
                    data: try domain.box.open(activation.sealedPinKey, context: SealingContext.pinKey(activationID: activation.id)))
                let proofBytes = claims.pin.flatMap { Base64URL.decode($0) } ?? Data()
                if !PinProof.verify(proof: proofBytes, key: key, requestID: claims.rid, challenge: claims.chal) { passed = false }
            case .biometric:
                // A missing or unreadable biometric proof is a failed factor, counted like a
                // wrong PIN; a stored key that does not decode is a corrupt row.
                guard let biometricKey = activation.biometricKey, let biometricProof,
                    let second = try? CompactJWS.parse(biometricProof, type: JWSType.proof), second.unverifiedPayload == proof.payload
                else {
                    passed = false
                    continue
                }
                let key = try biometricKey.publicKey()
                if (try? second.verifiedPayload(with: key)) == nil { passed = false }
            case .otp:
                guard let sealed = activation.sealedTOTPSecret, let code = claims.otp else {
                    passed = false
                    continue
                }
                let totp = TOTP(secret: try domain.box.open(sealed, context: SealingContext.totpSecret(activationID: activation.id)))
                if let step = totp.matchingStep(for: code, at: now, lastUsedStep: activation.totpLastStep) {
                    totpStep = step
                } else {
                    passed = false
                }
            case .securitykey:
                // The assertion of the activation's enrolled key, over the challenge derived
                // from this attempt (it rides inside the device-signed proof).
                let outcome = try domain.passkeys.verifyDeviceAssertion(claims.sk, key: securityKey, claims: claims, tenant: tenant)
                if case .passed = outcome {} else { passed = false }
                securityKeyOutcome = outcome
            }
        }
        return Verification(passed: passed, totpStep: totpStep, securityKey: securityKeyOutcome)
    }

    // MARK: Deny

    /// The user said no on the device that took the request up. Answers the request's purpose.
    @discardableResult
    public func deny(requestID: RequestID, caller: DeviceCaller, tenant: TenantRecord, logger: Logger) async throws
        -> AuthenticationPurpose
    {
        let activation = caller.activation
        let now = domain.epochNow()
        let (notice, purpose) = try await domain.store.transaction(queue: Self.queue(activation.id)) {
            tx -> (RequestNotice, AuthenticationPurpose) in
            try await caller.spendToken(tx, now: now)
            let authRequest = try await pendingRequest(requestID, tenant: tenant, tx: tx, now: now)
            guard authRequest.activationID == activation.id else {
                throw DomainError.requestClaimed("this device has not taken up the request")
            }
            try await tx.setAuthRequestStatus(id: requestID, status: .denied)
            try await Self.recordAnswer(authRequest, outcome: .denied, tx: tx, at: now)
            _ = try await tx.rotateChallenge(requestID: requestID, expected: authRequest.challenge ?? "", next: nil)
            let service = try await authRequest.serviceID.asyncMap { try await domain.service(id: $0, in: tx) } ?? nil
            try await tx.insertHistory(
                HistoryRecord(
                    id: orderedID(), tenantID: tenant.id, activationID: activation.id,
                    userID: authRequest.userID, requestID: requestID, service: service?.name, purpose: authRequest.purpose,
                    outcome: .denied, factors: [], at: now))
            return (RequestNotice(authRequest, service: service, answered: true), authRequest.purpose)
        }
        await domain.announce(notice, logger: logger)
        return purpose
    }

    // MARK: Shared

    /// A backchannel (CIBA) request's answer, for the webhooks (`ciba.answered`): written in
    /// the answer's transaction. Other flows record nothing here.
    static func recordAnswer(_ request: AuthRequestRecord, outcome: AttemptOutcome, tx: StoreTransaction, at now: Int64) async throws {
        guard request.flow == .ciba else { return }
        var data = ["request_id": request.id.rawValue, "outcome": outcome.rawValue]
        if let userID = request.userID { data["user_id"] = userID.rawValue }
        try await tx.insertEvent(EventRecord(id: "evc_" + orderedID(), tenantID: request.tenantID, type: "ciba.answered", data: data, at: now))
    }


    /// The request if it can still be answered (not answered yet and not expired).
    private func pendingRequest(_ id: RequestID, tenant: TenantRecord, tx: StoreTransaction, now: Int64) async throws -> AuthRequestRecord {
        try Self.pending(try await tx.authRequest(id: id), tenant: tenant, now: now)
    }

    /// A request as read (nil: no such row), if it is the tenant's, open and not expired.
    private static func pending(_ read: AuthRequestRecord?, tenant: TenantRecord, now: Int64) throws -> AuthRequestRecord {
        guard let authRequest = read, authRequest.tenantID == tenant.id else {
            throw DomainError.notFound("authentication request")
        }
        guard authRequest.status == .pending || authRequest.status == .claimed else {
            throw DomainError.invalidRequest("the authentication request was answered already (\(authRequest.status))")
        }
        guard authRequest.expiresAt > now else {
            throw DomainError(.invalid, .expiredToken, "the authentication request has expired")
        }
        return authRequest
    }

    /// What the device shows and signs for a request: the service, the attributes, the
    /// combinations it may use, the challenge.
    /// `known`: a user already read in `tx` (the activation's own), used when it is the one
    /// the request is for.
    func userInformation(
        _ authRequest: AuthRequestRecord, activation: ActivationRecord, tenant: TenantRecord, tx: StoreTransaction, known: UserRecord? = nil
    ) async throws -> AuthenticationChallenge {
        let purpose = authRequest.purpose
        let record = try await authRequest.serviceID.asyncMap { try await domain.service(id: $0, in: tx) } ?? nil
        let policy = try await authenticatorPolicy(for: authRequest, tenant: tenant, tx: tx, service: record)
        var service: ServiceInformation?
        var requested: [RequestedAttribute] = []
        if authRequest.serviceID != nil {
            guard let record, let user = try await Self.user(authRequest.userID ?? activation.userID, known: known, tx: tx)
            else { throw StoreError(.corrupt, "request without service or user") }
            let userAttributes = user.attributes
            service = ServiceInformation(clientID: record.clientID, name: record.name)
            requested = ScopeClaims.requestedAttributes(of: record, scope: authRequest.scope).map {
                RequestedAttribute(name: $0, value: userAttributes[$0])
            }
        }
        // Where the browser of a login is, and the number its page shows among decoys: what
        // the user needs to refuse a login someone else started.
        let origin = authRequest.originAddress.map { address in
            BrowserOrigin(
                address: address, network: BrowserOrigin.network(of: address), userAgent: authRequest.originAgent,
                startedAt: Date(timeIntervalSince1970: TimeInterval(authRequest.createdAt)))
        }
        return AuthenticationChallenge(
            requestID: authRequest.id, purpose: purpose,
            challenge: Challenge(authRequest.challenge ?? ""), audience: domain.issuer(forTenantNamed: tenant.name),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(authRequest.expiresAt)), service: service,
            requestedAttributes: requested, requestedAuthenticators: policy.filtered(toEnrolled: activation.enrolledFactors),
            process: authRequest.process?.description, bindingMessage: authRequest.bindingMessage, origin: origin,
            numberChoices: authRequest.matchCode.map { BrowserLogins.numberChoices(including: $0, requestID: authRequest.id) } ?? [],
            securityKey: activation.securityKeyID == nil ? nil : try await domain.passkeys.deviceAssertionRequest(for: activation, tenant: tenant, tx: tx))
    }

    /// A login follows its service's policy (narrowed to the `acr_values` of a backchannel
    /// request), plus the tenant's single sign-on combinations while the activation's
    /// session lasts; an account process the tenant's policy for processes.
    func authenticatorPolicy(for authRequest: AuthRequestRecord, tenant: TenantRecord, tx: StoreTransaction, service: ServiceRecord?)
        async throws -> AuthenticatorPolicy
    {
        let (base, sso) = try await loginPolicies(for: authRequest, tenant: tenant, tx: tx, service: service)
        guard let (ssoPolicy, _) = sso else { return base }
        // The fewer factors first: within the session they are what the device is asked for.
        return try AuthenticatorPolicy(ssoPolicy.alternatives + base.alternatives.filter { !ssoPolicy.allows($0) })
    }

    /// The request's own policy, and the single sign-on policy with the session that
    /// allows it, when one applies: a browser login that did not ask for a fresh login
    /// (`prompt=login`), on an activation whose session for the user is live, not older
    /// than the request's `max_age`, and stands on factors this service's policy allows.
    /// `service` is the request's service, which the caller has read in the same
    /// transaction (claim and finish need it anyway; reading it once saves a row decode).
    func loginPolicies(for authRequest: AuthRequestRecord, tenant: TenantRecord, tx: StoreTransaction, service: ServiceRecord?) async throws
        -> (base: AuthenticatorPolicy, sso: (AuthenticatorPolicy, SSOSessionRecord)?)
    {
        if let requested = authRequest.acrPolicy { return (requested, nil) }
        guard authRequest.serviceID != nil else { return (tenant.processPolicy, nil) }
        guard let service, service.id == authRequest.serviceID else { throw StoreError(.corrupt, "request without service") }
        let base = service.policy
        let now = domain.epochNow()
        guard Self.takesPartInSSO(authRequest, tenant: tenant), let ssoPolicy = tenant.ssoPolicy, authRequest.ssoAllowed,
            let activationID = authRequest.activationID, let userID = authRequest.userID,
            let session = try await tx.ssoSession(activationID: activationID, userID: userID, now: now),
            authRequest.maxAge.map({ now - session.authTime <= $0 }) ?? true,
            base.allows(FactorCombination(session.factors))
        else { return (base, nil) }
        return (base, (ssoPolicy, session))
    }

    /// A browser login uses the activation's single sign-on session, where the tenant
    /// has them; in-app logins use it only through `device/sso/code`, and backchannel
    /// step-ups and account processes neither start nor use one.
    static func takesPartInSSO(_ authRequest: AuthRequestRecord, tenant: TenantRecord) -> Bool {
        startsSSOSession(authRequest, tenant: tenant) && authRequest.flow == nil
    }

    /// A full login starts a single sign-on session when the tenant has them: a browser
    /// login (which later browser logins use), or an in-app login (whose token gets the app
    /// codes for further services, `device/sso/code`).
    static func startsSSOSession(_ authRequest: AuthRequestRecord, tenant: TenantRecord) -> Bool {
        tenant.ssoLifetime > 0 && tenant.ssoPolicy != nil && authRequest.serviceID != nil
            && (authRequest.flow == nil || authRequest.flow == .inApp) && authRequest.purpose == AuthenticationPurpose.login
    }

    /// The longest a request may live, extended by lockout waits: two hours from its start.
    public static let maximumRequestLife: Int64 = 7_200

    /// The user `id`: `known` when it is that user (read earlier in the same transaction),
    /// else read now.
    static func user(_ id: UserID, known: UserRecord?, tx: StoreTransaction) async throws -> UserRecord? {
        if let known, known.id == id { return known }
        return try await tx.user(id: id)
    }

    /// The queue an activation's claims, finishes and denials take turns on: one at a
    /// time, on however many nodes, so its failure counts are exact and a request's
    /// challenge changes under no attempt that is being verified.
    static func queue(_ activation: ActivationID) -> String { "activation:\(activation)" }

    /// The users an activation stands for: its own and those it was merged with.
    static func users(of activation: ActivationRecord, tx: StoreTransaction) async throws -> [UserID] {
        [activation.userID] + (try await tx.linkedUsers(activationID: activation.id)).map(\.id)
    }
}

extension Domain {
    public var attempts: Attempts { Attempts(domain: self) }
}
