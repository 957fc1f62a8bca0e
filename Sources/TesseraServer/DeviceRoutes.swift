import Crypto
import Foundation
import Hummingbird
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraStore

/// The device API under `{issuer}/device`: activation, and claiming, finishing or
/// denying authentication requests. docs/PROTOCOL.md has the exchanges.
struct DeviceRoutes {
    let state: ServerState

    /// How far a device's clock may run ahead, and how long its signed tokens may live.
    static let clockSkew: Int64 = 60
    static let maximumTokenLifetime: Int64 = 300

    func register(on router: Router<BasicRequestContext>) {
        let device = router.group("t/:tenant/device")
        device.post("activation/start", use: startActivation)
        device.post("activation/complete", use: completeActivation)
        device.post("authentications/:request/claim", use: claim)
        device.post("authentications/:request/finish", use: finish)
        device.post("authentications/:request/deny", use: deny)
        device.get("authentications/:request", use: requestState)
        device.get("pending", use: pending)
        device.post("push", use: registerPush)
        device.delete("push", use: removePush)
        device.post("in-app", use: startInApp)
        device.post("in-app/:request/code", use: inAppCode)
        let processes = ProcessRoutes(state: state, device: self)
        device.post("processes", use: processes.start)
        device.post("processes/:request/complete", use: processes.complete)
        device.get("history", use: processes.history)
    }

    // MARK: Activation

    @Sendable func startActivation(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let tenant = try await state.tenant(named: context.parameters.get("tenant") ?? "")
        let input = try await RequestDecoding.json(ActivationStartRequest.self, from: request)
        let (invitation, user) = try await usableInvitation(code: input.code, tenant: tenant)
        return JSONResponse.make(
            ActivationOffer(
                issuer: state.issuer(forTenantNamed: tenant.name), tenant: tenant.name, username: user.username,
                pinSalt: invitation.pinSalt, expiresAt: Date(timeIntervalSince1970: TimeInterval(invitation.expiresAt)),
                mergeable: invitation.sealedPinKey == nil))
    }

    func usableInvitation(code: String, tenant: TenantRecord) async throws -> (InvitationRecord, UserRecord) {
        let now = state.epochNow()
        let found: (InvitationRecord, UserRecord)? = try await state.store.read { tx in
            guard let invitation = try await tx.invitation(codeDigest: Secrets.digest(code)), invitation.tenantID == tenant.id,
                let user = try await tx.user(id: invitation.userID)
            else { return nil }
            return (invitation, user)
        }
        guard let (invitation, user) = found else {
            throw DomainError(.invalid, .invalidGrant, "the activation code is not valid")
        }
        guard invitation.usedAt == nil else { throw DomainError(.invalid, .invalidGrant, "the activation code was used already") }
        guard invitation.expiresAt > now else { throw DomainError(.invalid, .expiredToken, "the activation code has expired") }
        guard invitation.failedAttempts < InvitationRecord.maximumFailures else {
            throw DomainError(.invalid, .invalidGrant, "the activation code is void after too many wrong PINs")
        }
        return (invitation, user)
    }

    @Sendable func completeActivation(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let tenant = try await state.tenant(named: context.parameters.get("tenant") ?? "")
        let issuer = state.issuer(forTenantNamed: tenant.name)
        let input = try await RequestDecoding.json(ActivationCompleteRequest.self, from: request)
        let jws = try parseJWS(input.registration)
        let registration: ActivationRegistration
        do {
            registration = try jws.unverifiedClaims(as: ActivationRegistration.self)
        } catch {
            throw DomainError.invalidRequest("the registration does not have the expected claims")
        }
        // Proof of possession: the registration is signed by the key it registers.
        let deviceKey = try publicKey(registration.deviceKey, name: "device_key")
        do {
            _ = try jws.verifiedPayload(with: deviceKey)
        } catch {
            throw DomainError(.invalid, .invalidRequest, "the registration is not signed by the device key")
        }
        try checkTimes(iat: Int64(registration.iat), exp: Int64(registration.exp), audience: registration.aud, issuer: issuer)
        var biometricKey: P256.Signing.PublicKey?
        if let biometricJWK = registration.biometricKey {
            let key = try publicKey(biometricJWK, name: "biometric_key")
            guard let second = input.biometricRegistration, let secondJWS = try? CompactJWS.parse(second),
                secondJWS.unverifiedPayload == jws.unverifiedPayload, (try? secondJWS.verifiedPayload(with: key)) != nil
            else { throw DomainError.invalidRequest("the registration is not signed by the biometric key") }
            biometricKey = key
        }
        let pinKey = try Self.pinKey(registration.pinKey)
        let totpSecret = try registration.totpSecret.map(Self.totpSecret)
        if let alias = registration.alias, alias.count > 128 { throw DomainError.invalidRequest("alias is longer than 128 characters") }

        let (invitation, user) = try await usableInvitation(code: registration.code, tenant: tenant)
        let now = state.epochNow()
        // Activation data made on another device carries the PIN the user chose there:
        // the link alone is not enough, and wrong guesses use the code up.
        if let sealedExpected = invitation.sealedPinKey {
            guard try await state.store.transaction({ try await $0.reserveInvitationAttempt(id: invitation.id) }) else {
                throw DomainError(.invalid, .invalidGrant, "the activation code is void after too many wrong PINs")
            }
            let expected = try state.box.open(sealedExpected, context: SealingContext.invitationPinKey(invitationID: invitation.id))
            guard Secrets.constantTimeEquals(expected, pinKey) else {
                throw DomainError(.invalid, .invalidGrant, "the PIN does not match the one chosen for this activation data")
            }
        }
        let activationID = Secrets.identifier(byteCount: 16)
        let record = ActivationRecord(
            id: activationID, tenantID: tenant.id, userID: user.id, alias: registration.alias ?? invitation.alias,
            deviceKey: try JSONCoding.string(PublicJWK(deviceKey)),
            biometricKey: try biometricKey.map { try JSONCoding.string(PublicJWK($0)) },
            sealedPinKey: try state.box.seal(pinKey, context: SealingContext.pinKey(activationID: activationID)),
            sealedTOTPSecret: try totpSecret.map { try state.box.seal($0, context: SealingContext.totpSecret(activationID: activationID)) },
            totpLastStep: nil, failedAttempts: 0, lockedUntil: nil, permanentlyLocked: 0, status: "active",
            createdAt: now, lastUsedAt: nil)
        // The invitation is spent and the activation written in one transaction: a crash
        // leaves either both or neither.
        try await state.store.transaction { tx in
            guard try await tx.consumeInvitation(id: invitation.id, now: now) else {
                throw DomainError(.invalid, .invalidGrant, "the activation code was used already")
            }
            try await tx.insertActivation(record)
            try await Audit.record(
                tx, tenantID: tenant.id, actor: .activation(activationID), action: "activation.create", target: activationID,
                details: ["user_id": user.id, "factors": record.enrolledFactors.sorted().map(\.rawValue).joined(separator: ",")], at: now)
            // Moving to a new device: the old activation goes once the new one exists.
            if let retired = invitation.retiresActivationID, try await tx.activation(id: retired) != nil {
                try await tx.copyLinkedUsers(from: retired, to: activationID)
                _ = try await tx.deleteActivation(id: retired)
                try await Audit.record(
                    tx, tenantID: tenant.id, actor: .activation(activationID), action: "activation.retire", target: retired,
                    details: ["replaced_by": activationID], at: now)
            }
        }
        context.logger.info("activation created", metadata: ["tenant": "\(tenant.name)", "activation_id": "\(activationID)"])
        return JSONResponse.make(
            ActivationReceipt(
                activationID: ActivationID(activationID), issuer: issuer, tenant: tenant.name, userID: UserID(user.id),
                username: user.username, factors: record.enrolledFactors.sorted()),
            status: .created)
    }

    // MARK: Authentication

    @Sendable func claim(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let tenant = try await state.tenant(named: context.parameters.get("tenant") ?? "")
        let requestID = context.parameters.get("request") ?? ""
        let caller = try await authenticateDevice(request, tenant: tenant)
        let selection = try await RequestDecoding.optionalJSON(ClaimRequest.self, from: request) ?? ClaimRequest(userID: nil)
        let activation = caller.activation
        let now = state.epochNow()
        let (challenge, notice) = try await state.store.transaction { tx -> (AuthenticationChallenge, RequestNotice?) in
            let current = try await caller.begin(tx, now: now)
            let authRequest = try await pendingRequest(requestID, tenant: tenant, tx: tx, now: now)
            // Account processes are started and answered by their own device only.
            guard authRequest.purpose == AuthenticationPurpose.login.rawValue else { throw DomainError.notFound("authentication request") }
            if let owner = authRequest.activationID, owner != activation.id {
                throw DomainError(.conflict, .requestClaimed, "another device has taken up this request")
            }
            // An activation merged with invitations may sign in as any of its users; a
            // service's backchannel request names its user, and only that user's devices see it.
            var userID = current.userID
            if authRequest.flow == RequestFlow.ciba.rawValue {
                guard let bound = authRequest.userID, try await Self.users(of: current, tx: tx).contains(bound) else {
                    throw DomainError.notFound("authentication request")
                }
                userID = bound
            } else if let chosen = selection.userID?.rawValue, chosen != current.userID {
                guard try await tx.linkedUsers(activationID: current.id).contains(where: { $0.id == chosen }) else {
                    throw DomainError.invalidRequest("the activation does not stand for that user")
                }
                userID = chosen
            }
            let fresh = Secrets.randomToken()
            guard try await tx.claimAuthRequest(id: authRequest.id, activationID: activation.id, userID: userID, challenge: fresh) else {
                throw DomainError(.conflict, .requestClaimed, "another device has taken up this request")
            }
            var claimed = authRequest
            claimed.challenge = fresh
            claimed.userID = userID
            claimed.activationID = activation.id
            return (
                try await userInformation(claimed, activation: current, tenant: tenant, tx: tx),
                // The user's other devices now show the request as taken up here.
                RequestNotice(claimed, service: nil, answered: false)
            )
        }
        if let notice { await state.domain.notifier.deliver(notice, logger: context.logger) }
        return JSONResponse.make(challenge)
    }

    /// The request if it can still be answered (not answered yet and not expired).
    private func pendingRequest(_ id: String, tenant: TenantRecord, tx: StoreTransaction, now: Int64) async throws
        -> AuthRequestRecord
    {
        guard let authRequest = try await tx.authRequest(id: id), authRequest.tenantID == tenant.id else {
            throw DomainError.notFound("authentication request")
        }
        guard authRequest.status == "pending" || authRequest.status == "claimed" else {
            throw DomainError(.invalid, .invalidRequest, "the authentication request was answered already (\(authRequest.status))")
        }
        guard authRequest.expiresAt > now else {
            throw DomainError(.invalid, .expiredToken, "the authentication request has expired")
        }
        return authRequest
    }

    func userInformation(
        _ authRequest: AuthRequestRecord, activation: ActivationRecord, tenant: TenantRecord, tx: StoreTransaction
    ) async throws -> AuthenticationChallenge {
        let purpose = AuthenticationPurpose(rawValue: authRequest.purpose) ?? .login
        let policy = try await authenticatorPolicy(for: authRequest, tenant: tenant, tx: tx)
        var service: ServiceInformation?
        var requested: [RequestedAttribute] = []
        if let serviceID = authRequest.serviceID {
            guard let record = try await tx.service(id: serviceID), let user = try await tx.user(id: authRequest.userID ?? activation.userID)
            else { throw StoreError(.corrupt, "request without service or user") }
            let userAttributes = try JSONCoding.decode([String: String].self, user.attributes)
            service = ServiceInformation(clientID: ClientID(record.clientID), name: record.name)
            requested = try JSONCoding.decode([String].self, record.attributes).map { RequestedAttribute(name: $0, value: userAttributes[$0]) }
        }
        return AuthenticationChallenge(
            requestID: RequestID(authRequest.id), purpose: purpose,
            challenge: Challenge(authRequest.challenge ?? ""), audience: state.issuer(forTenantNamed: tenant.name),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(authRequest.expiresAt)), service: service,
            requestedAttributes: requested, requestedAuthenticators: policy.filtered(toEnrolled: activation.enrolledFactors),
            process: try ProcessParameters.read(authRequest)?.description, bindingMessage: authRequest.bindingMessage)
    }

    /// A login follows its service's policy (narrowed to the `acr_values` of a backchannel
    /// request), plus the tenant's single sign-on combinations while the activation's
    /// session lasts; an account process the tenant's policy for processes.
    func authenticatorPolicy(for authRequest: AuthRequestRecord, tenant: TenantRecord, tx: StoreTransaction) async throws
        -> AuthenticatorPolicy
    {
        let (base, sso) = try await loginPolicies(for: authRequest, tenant: tenant, tx: tx)
        guard let (ssoPolicy, _) = sso else { return base }
        // The fewer factors first: within the session they are what the device is asked for.
        return try AuthenticatorPolicy(ssoPolicy.alternatives + base.alternatives.filter { !ssoPolicy.allows($0) })
    }

    /// The request's own policy, and the single sign-on policy with the session that
    /// allows it, when one applies: a browser login that did not ask for a fresh login
    /// (`prompt=login`), on an activation whose session for the user is live, not older
    /// than the request's `max_age`, and stands on factors this service's policy allows.
    func loginPolicies(for authRequest: AuthRequestRecord, tenant: TenantRecord, tx: StoreTransaction) async throws
        -> (base: AuthenticatorPolicy, sso: (AuthenticatorPolicy, SSOSessionRecord)?)
    {
        if let requested = authRequest.acrPolicy { return (try AuthenticatorPolicy(parsing: requested), nil) }
        guard let serviceID = authRequest.serviceID else { return (try AuthenticatorPolicy(parsing: tenant.processPolicy), nil) }
        guard let service = try await tx.service(id: serviceID) else { throw StoreError(.corrupt, "request without service") }
        let base = try AuthenticatorPolicy(parsing: service.policy)
        let now = state.epochNow()
        guard Self.takesPartInSSO(authRequest, tenant: tenant), let ssoText = tenant.ssoPolicy, authRequest.ssoAllowed != 0,
            let activationID = authRequest.activationID, let userID = authRequest.userID,
            let session = try await tx.ssoSession(activationID: activationID, userID: userID, now: now),
            authRequest.maxAge.map({ now - session.authTime <= $0 }) ?? true,
            base.allows(FactorCombination(try JSONCoding.decode([FactorType].self, session.factors)))
        else { return (base, nil) }
        return (base, (try AuthenticatorPolicy(parsing: ssoText), session))
    }

    /// Single sign-on is for browser logins of tenants that allow it; in-app logins,
    /// backchannel step-ups and account processes neither start nor use a session.
    static func takesPartInSSO(_ authRequest: AuthRequestRecord, tenant: TenantRecord) -> Bool {
        tenant.ssoLifetime > 0 && tenant.ssoPolicy != nil && authRequest.serviceID != nil && authRequest.flow == nil
            && authRequest.purpose == AuthenticationPurpose.login.rawValue
    }

    @Sendable func finish(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let tenant = try await state.tenant(named: context.parameters.get("tenant") ?? "")
        let issuer = state.issuer(forTenantNamed: tenant.name)
        let requestID = context.parameters.get("request") ?? ""
        let input = try await RequestDecoding.json(FinishRequest.self, from: request)
        let jws = try parseJWS(input.proof)
        let unverified: AuthenticationProofClaims
        do {
            unverified = try jws.unverifiedClaims(as: AuthenticationProofClaims.self)
        } catch {
            throw DomainError.invalidRequest("the proof does not have the expected claims")
        }
        guard let activation = try await state.store.read({ try await $0.activation(id: unverified.sub) }),
            activation.tenantID == tenant.id, activation.status == "active"
        else { throw DomainError(.unauthenticated, .invalidToken, "unknown or inactive activation") }
        // The envelope must come from the device key before anything counts against the
        // activation: a stranger cannot lock a user out by sending garbage.
        do {
            _ = try jws.verifiedPayload(with: try deviceKey(of: activation))
        } catch {
            throw DomainError(.unauthenticated, .invalidToken, "the proof is not signed by the activation's device key")
        }
        let claims = unverified
        guard claims.rid == requestID else { throw DomainError.invalidRequest("the proof is for another request") }
        try checkTimes(iat: Int64(claims.iat), exp: Int64(claims.exp), audience: claims.aud, issuer: issuer)

        let policy = try state.lockoutPolicy(of: tenant)
        let now = state.now()
        let epoch = Int64(now.timeIntervalSince1970)
        // Attempts on one activation take turns: its failure counter is exact however many
        // arrive at once, on however many nodes.
        let (outcome, notice) = try await state.store.transaction(queue: "activation:\(activation.id)") {
            tx -> (FinishResponse, RequestNotice?) in
                // Read the counter, refuse a locked activation, verify, and write the outcome
                // and the spent challenge in one transaction: parallel attempts queue here.
                let current = try await Self.usableActivation(activation.id, tx: tx, now: epoch)
                guard try await tx.useDeviceTokenID(claims.jti, activationID: current.id, expiresAt: Int64(claims.exp), now: epoch)
                else { throw DomainError.invalidGrant("this proof was submitted before") }
                let authRequest = try await pendingRequest(requestID, tenant: tenant, tx: tx, now: epoch)
                guard authRequest.activationID == current.id else {
                    throw DomainError(.conflict, .requestClaimed, "this device has not taken up the request")
                }
                let service = try await authRequest.serviceID.asyncMap { try await tx.service(id: $0) } ?? nil
                guard authRequest.serviceID == nil || service != nil else { throw StoreError(.corrupt, "request without service") }
                // The combination is checked against the policy before any proof.
                let combination = FactorCombination(claims.comb)
                let policies = try await loginPolicies(for: authRequest, tenant: tenant, tx: tx)
                // Fewer factors than the service asks for stand on the single sign-on session.
                let session = policies.base.allows(combination) ? nil : policies.sso.flatMap { $0.0.allows(combination) ? $0.1 : nil }
                guard policies.base.allows(combination) || session != nil else {
                    throw DomainError.invalidRequest("the combination \(combination) is not allowed by the policy")
                }
                guard Set(combination.factors).isSubset(of: current.enrolledFactors) else {
                    throw DomainError.invalidRequest("the combination \(combination) needs factors this activation has not enrolled")
                }
                let requested = try service.map { try JSONCoding.decode([String].self, $0.attributes) } ?? []
                guard Set(claims.attrs).isSubset(of: Set(requested)) else {
                    throw DomainError.invalidRequest("the proof confirms attributes the service did not request")
                }
                // [REQ:DESIGN single-use challenges] the challenge is spent whatever the outcome.
                guard let expected = authRequest.challenge, Secrets.constantTimeEquals(expected, claims.chal) else {
                    throw DomainError.invalidGrant("the proof's challenge was used or replaced")
                }
                let verification = try verifyFactors(
                    combination, claims: claims, proof: jws, biometricProof: input.biometricProof, activation: current,
                    now: now)
                let history = HistoryRecord(
                    id: orderedID(), tenantID: tenant.id, activationID: current.id,
                    userID: authRequest.userID ?? current.userID, requestID: requestID, service: service?.name,
                    purpose: authRequest.purpose, outcome: "approved", factors: try JSONCoding.string(combination.factors), at: epoch)
                if verification.passed {
                    guard try await tx.rotateChallenge(requestID: requestID, expected: expected, next: nil) else {
                        throw DomainError.invalidGrant("the proof's challenge was used or replaced")
                    }
                    try await tx.recordSuccessfulUse(activationID: current.id, now: epoch, totpStep: verification.totpStep)
                    // Within a single sign-on session the login stands on the session's full
                    // login: its factors and its time (OpenID `auth_time`); a full login
                    // starts the session (or starts it again).
                    try await tx.approveAuthRequest(
                        id: requestID, factors: session?.factors ?? (try JSONCoding.string(combination.factors)),
                        confirmedAttributes: try JSONCoding.string(claims.attrs.sorted()), authTime: session?.authTime ?? epoch)
                    // Only a login beyond the single sign-on policy starts a session: one that the
                    // session's own combinations would allow proves nothing more.
                    if session == nil, Self.takesPartInSSO(authRequest, tenant: tenant),
                        let ssoPolicy = tenant.ssoPolicy.flatMap({ try? AuthenticatorPolicy(parsing: $0) }), !ssoPolicy.allows(combination)
                    {
                        try await tx.startSSOSession(
                            SSOSessionRecord(
                                activationID: current.id, userID: authRequest.userID ?? current.userID, tenantID: tenant.id,
                                factors: try JSONCoding.string(combination.factors), authTime: epoch,
                                expiresAt: epoch + Int64(tenant.ssoLifetime)))
                    }
                    let purpose = AuthenticationPurpose(rawValue: authRequest.purpose) ?? .login
                    guard let service, purpose == .login else {
                        let result = try await ProcessRoutes(state: state, device: self).approved(
                            authRequest, purpose: purpose, activation: current, tenant: tenant, history: history, tx: tx, now: epoch)
                        return (result, nil)
                    }
                    try await tx.insertHistory(history)
                    let user = try await tx.user(id: authRequest.userID ?? current.userID)
                    // An in-app login goes on to its authorization code; the others are done.
                    let result = FinishResponse(
                        result: authRequest.flow == RequestFlow.inApp.rawValue ? .serviceLogin : .userLogin,
                        login: LoginSummary(
                            service: ServiceInformation(clientID: ClientID(service.clientID), name: service.name),
                            username: user?.username ?? "", factors: combination.factors, authenticatedAt: now))
                    return (result, RequestNotice(authRequest, service: service, answered: true))
                }
                // A failed attempt counts once, whichever factor was wrong, and says nothing about
                // which; it also ends the activation's single sign-on sessions.
                try await tx.endSSOSessions(activationID: current.id)
                let failures = current.failedAttempts + 1
                let lock = policy.lock(afterFailures: failures, at: now)
                try await tx.updateLockout(
                    activationID: current.id, failedAttempts: failures,
                    lockedUntil: lock?.lockedUntil.map { Int64($0.timeIntervalSince1970.rounded(.up)) },
                    permanentlyLocked: lock?.isPermanent ?? false)
                if let step = verification.totpStep { try await tx.spendTOTPStep(activationID: current.id, step: step) }
                let next = Secrets.randomToken()
                guard try await tx.rotateChallenge(requestID: requestID, expected: expected, next: next) else {
                    throw DomainError.invalidGrant("the proof's challenge was used or replaced")
                }
                var retried = authRequest
                retried.challenge = next
                if lock?.isPermanent == true { try await tx.setAuthRequestStatus(id: requestID, status: "locked") }
                var failedEntry = history
                failedEntry.outcome = lock?.isPermanent == true ? "locked" : "failed"
                try await tx.insertHistory(failedEntry)
                var failed = current
                failed.failedAttempts = failures
                let result = FinishResponse(
                    result: .lockout, lockout: lock ?? LockoutInformation(isPermanent: false, lockedUntil: now),
                    userInformation: try await userInformation(retried, activation: failed, tenant: tenant, tx: tx))
                // A permanent lock ends a backchannel request: its service learns so.
                return (
                    result,
                    RequestNotice(authRequest, service: service, answered: lock?.isPermanent == true)
                )
            }
        if let notice { await state.domain.notifier.deliver(notice, logger: context.logger) }
        recordMetrics(outcome, purpose: unverifiedPurpose(outcome), now: now)
        context.logger.info(
            "authentication attempt",
            metadata: ["tenant": "\(tenant.name)", "activation_id": "\(activation.id)", "outcome": "\(outcome.result.rawValue)"])
        return JSONResponse.make(outcome)
    }

    /// Counts an answered attempt (and a lock it set) in the metrics.
    func recordMetrics(_ outcome: FinishResponse, purpose: String, now: Date) {
        guard outcome.result == .lockout, let lockout = outcome.lockout else {
            return state.metrics.authentication(purpose: purpose, outcome: "approved")
        }
        if lockout.isPermanent {
            state.metrics.authentication(purpose: purpose, outcome: "locked")
            state.metrics.lockout(permanent: true)
        } else {
            state.metrics.authentication(purpose: purpose, outcome: "failed")
            if let until = lockout.lockedUntil, until > now { state.metrics.lockout(permanent: false) }
        }
    }

    /// The purpose an answer is for, as far as it tells (a login, or an account process).
    func unverifiedPurpose(_ outcome: FinishResponse) -> String {
        if let purpose = outcome.process?.purpose ?? outcome.userInformation?.purpose { return purpose.rawValue }
        return outcome.result == .apiAccessMergeComplete ? AuthenticationPurpose.merge.rawValue : AuthenticationPurpose.login.rawValue
    }

    struct Verification {
        let passed: Bool
        let totpStep: Int64?
    }

    private func verifyFactors(
        _ combination: FactorCombination, claims: AuthenticationProofClaims, proof: UnverifiedJWS, biometricProof: String?,
        activation: ActivationRecord, now: Date
    ) throws -> Verification {
        var passed = true
        var totpStep: Int64?
        for factor in combination.factors {
            switch factor {
            case .device:
                break  // the envelope's signature, checked before the transaction
            case .pin:
                let key = SymmetricKey(data: try state.box.open(activation.sealedPinKey, context: SealingContext.pinKey(activationID: activation.id)))
                let proofBytes = claims.pin.flatMap { Base64URL.decode($0) } ?? Data()
                if !PinProof.verify(proof: proofBytes, key: key, requestID: claims.rid, challenge: claims.chal) { passed = false }
            case .biometric:
                guard let keyJSON = activation.biometricKey, let biometricProof,
                    let second = try? CompactJWS.parse(biometricProof), second.unverifiedPayload == proof.unverifiedPayload,
                    let key = try? JSONCoding.decode(PublicJWK.self, keyJSON).publicKey(),
                    (try? second.verifiedPayload(with: key)) != nil
                else {
                    passed = false
                    continue
                }
            case .otp:
                guard let sealed = activation.sealedTOTPSecret, let code = claims.otp else {
                    passed = false
                    continue
                }
                let totp = TOTP(secret: try state.box.open(sealed, context: SealingContext.totpSecret(activationID: activation.id)))
                if let step = totp.matchingStep(for: code, at: now, lastUsedStep: activation.totpLastStep) {
                    totpStep = step
                } else {
                    passed = false
                }
            }
        }
        return Verification(passed: passed, totpStep: totpStep)
    }

    @Sendable func deny(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let tenant = try await state.tenant(named: context.parameters.get("tenant") ?? "")
        let requestID = context.parameters.get("request") ?? ""
        let caller = try await authenticateDevice(request, tenant: tenant)
        let activation = caller.activation
        let now = state.epochNow()
        let (notice, purpose) = try await state.store.transaction { tx -> (RequestNotice?, String) in
            try await caller.spendToken(tx, now: now)
            let authRequest = try await pendingRequest(requestID, tenant: tenant, tx: tx, now: now)
            guard authRequest.activationID == activation.id else {
                throw DomainError(.conflict, .requestClaimed, "this device has not taken up the request")
            }
            try await tx.setAuthRequestStatus(id: requestID, status: "denied")
            _ = try await tx.rotateChallenge(requestID: requestID, expected: authRequest.challenge ?? "", next: nil)
            let service = try await authRequest.serviceID.asyncMap { try await tx.service(id: $0) } ?? nil
            try await tx.insertHistory(
                HistoryRecord(
                    id: orderedID(), tenantID: tenant.id, activationID: activation.id,
                    userID: authRequest.userID, requestID: requestID, service: service?.name, purpose: authRequest.purpose,
                    outcome: "denied", factors: "[]", at: now))
            return (RequestNotice(authRequest, service: service, answered: true), authRequest.purpose)
        }
        if let notice { await state.domain.notifier.deliver(notice, logger: context.logger) }
        state.metrics.authentication(purpose: purpose, outcome: "denied")
        return JSONResponse.make(["status": AuthenticationStatus.denied.rawValue])
    }

    // MARK: Device authentication

    /// A device whose token checked out; its token id is spent in the caller's transaction.
    struct DeviceCaller {
        let activation: ActivationRecord
        let tokenID: String
        let tokenExpiry: Int64

        /// Records the token id; a second use of the same token is refused.
        func spendToken(_ tx: StoreTransaction, now: Int64) async throws {
            guard try await tx.useDeviceTokenID(tokenID, activationID: activation.id, expiresAt: tokenExpiry, now: now) else {
                throw DomainError(.unauthenticated, .invalidToken, "the device token was used before")
            }
        }

        /// Spends the token and reads the activation as it is now, refusing it when it
        /// was removed or is locked (the pending lockout).
        func begin(_ tx: StoreTransaction, now: Int64) async throws -> ActivationRecord {
            try await spendToken(tx, now: now)
            return try await DeviceRoutes.usableActivation(activation.id, tx: tx, now: now)
        }
    }

    /// The activation inside a transaction: still there, active and not locked.
    static func usableActivation(_ id: String, tx: StoreTransaction, now: Int64) async throws -> ActivationRecord {
        guard let current = try await tx.activation(id: id), current.status == "active" else {
            throw DomainError(.unauthenticated, .invalidToken, "the activation is not active")
        }
        if let lock = LockState(current, now: now).information { throw DomainError.pendingLockout(lock) }
        return current
    }

    /// Checks `Authorization: Tessera-Device <JWS>`: signed by the activation's device key,
    /// for this issuer, method and path, and short-lived. The caller spends its `jti`
    /// in the transaction that does the work, so a token is good for one call.
    func authenticateDevice(_ request: Request, tenant: TenantRecord) async throws -> DeviceCaller {
        guard let header = request.headers[.authorization], header.hasPrefix("Tessera-Device ") else {
            throw DomainError(.unauthenticated, .invalidToken, "the device API needs a Tessera-Device token")
        }
        guard let jws = try? CompactJWS.parse(String(header.dropFirst("Tessera-Device ".count))),
            let claims = try? jws.unverifiedClaims(as: DeviceRequestClaims.self),
            let activation = try await state.store.read({ try await $0.activation(id: claims.sub) }),
            activation.tenantID == tenant.id, activation.status == "active",
            (try? jws.verifiedPayload(with: try deviceKey(of: activation))) != nil
        else { throw DomainError(.unauthenticated, .invalidToken, "the device token is not valid") }
        try checkTimes(iat: Int64(claims.iat), exp: Int64(claims.exp), audience: claims.aud, issuer: state.issuer(forTenantNamed: tenant.name))
        guard claims.htm == request.method.rawValue, claims.htu == request.uri.path else {
            throw DomainError(.unauthenticated, .invalidToken, "the device token is for another call")
        }
        return DeviceCaller(activation: activation, tokenID: claims.jti, tokenExpiry: Int64(claims.exp))
    }

    /// A PIN key as the device sends it: PBKDF2 output, 32 bytes, base64url.
    static func pinKey(_ encoded: String?) throws -> Data {
        guard let encoded, let key = Base64URL.decode(encoded), key.count == 32 else {
            throw DomainError.invalidRequest("pin_key must be 32 bytes, base64url")
        }
        return key
    }

    /// A TOTP secret as the device sends it: 16 to 64 bytes, base64url.
    static func totpSecret(_ encoded: String?) throws -> Data {
        guard let encoded, let secret = Base64URL.decode(encoded), (16...64).contains(secret.count) else {
            throw DomainError.invalidRequest("totp_secret must be 16 to 64 bytes, base64url")
        }
        return secret
    }

    func deviceKey(of activation: ActivationRecord) throws -> P256.Signing.PublicKey {
        try JSONCoding.decode(PublicJWK.self, activation.deviceKey).publicKey()
    }

    func parseJWS(_ text: String) throws -> UnverifiedJWS {
        do {
            return try CompactJWS.parse(text)
        } catch {
            throw DomainError.invalidRequest("malformed JWS: \(error.message)")
        }
    }

    func publicKey(_ jwk: DeviceJWK, name: String) throws -> P256.Signing.PublicKey {
        do {
            return try PublicJWK(kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y).publicKey()
        } catch {
            throw DomainError.invalidRequest("\(name) is not a P-256 public key")
        }
    }

    func checkTimes(iat: Int64, exp: Int64, audience: String, issuer: String) throws {
        let now = state.epochNow()
        guard audience == issuer else { throw DomainError(.unauthenticated, .invalidToken, "the token is for another audience") }
        guard exp > now else { throw DomainError(.unauthenticated, .invalidToken, "the token has expired") }
        // Bounds first, so that no arithmetic below can overflow on hostile values.
        guard iat <= now + Self.clockSkew, iat >= now - Self.maximumTokenLifetime - Self.clockSkew, exp > iat,
            exp <= now + Self.maximumTokenLifetime + Self.clockSkew, exp - iat <= Self.maximumTokenLifetime
        else {
            throw DomainError(.unauthenticated, .invalidToken, "the token's lifetime is not acceptable")
        }
    }
}

/// The lock an activation is under right now, if any.
struct LockState {
    let information: LockoutInformation?

    init(_ activation: ActivationRecord, now: Int64) {
        if activation.permanentlyLocked == 1 {
            information = LockoutInformation(isPermanent: true, lockedUntil: nil)
        } else if let until = activation.lockedUntil, until > now {
            information = LockoutInformation(isPermanent: false, lockedUntil: Date(timeIntervalSince1970: TimeInterval(until)))
        } else {
            information = nil
        }
    }
}

extension PublicJWK {
    init(kty: String, crv: String, x: String, y: String) throws {
        let data = try JSONEncoder().encode(["kty": kty, "crv": crv, "x": x, "y": y])
        self = try JSONDecoder().decode(PublicJWK.self, from: data)
    }
}

extension Optional {
    /// `map` for an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
