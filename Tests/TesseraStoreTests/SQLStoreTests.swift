import Foundation
import Logging
import TesseraCore
import TesseraRecords
import TesseraStore
import TesseraTesting
import Testing

/// The store on SQLite, or on a fresh PostgreSQL database when `TESSERA_TEST_DATABASE_URL`
/// is set (as `.ci/run` does for its second pass).
@Suite("SQL store")
struct SQLStoreTests {
    /// Where a test's store lives: a SQLite file, or a PostgreSQL database.
    static func temporaryPath() async throws -> String {
        if let url = try await TestDatabase.fresh() { return url }
        return FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).sqlite").path
    }

    func withStore(path: String? = nil, _ body: (SQLStore) async throws -> Void) async throws {
        try await TestDatabase.withStore(at: try await path.asyncDefault { try await Self.temporaryPath() }, body)
    }

    func seed(_ tx: StoreTransaction) async throws {
        try await tx.insertTenant(TenantRecord(id: "t1", name: "demo", lockoutPolicy: .standard, processPolicy: try AuthenticatorPolicy(parsing: "device+pin"), createdAt: 1))
        try await tx.insertUser(UserRecord(id: "u1", tenantID: "t1", username: "alice", attributes: [:], createdAt: 1))
        try await tx.insertService(
            ServiceRecord(
                id: "s1", tenantID: "t1", clientID: "c1", name: "S", secretDigest: nil, isPublic: true,
                redirectURIs: [], policy: try AuthenticatorPolicy(parsing: "device+pin"), attributes: [], createdAt: 1))
    }

    @Test("the dashboard's figures for every tenant come from one grouped read: counts now, logins and failures per hour")
    func tenantFigures() async throws {
        try await withStore { store in
            let now: Int64 = 1_000_000
            try await store.transaction { tx in
                try await seed(tx)
                try await tx.insertTenant(
                    TenantRecord(id: "t2", name: "other", lockoutPolicy: .standard, processPolicy: .standard, createdAt: 1))
                try await tx.insertUser(UserRecord(id: "u2", tenantID: "t1", username: "bob", attributes: [:], createdAt: 1))
                try await tx.insertUser(UserRecord(id: "u3", tenantID: "t2", username: "carol", attributes: [:], createdAt: 1))
                for (id, user, locked) in [("a1", "u1", false), ("a2", "u2", true)] as [(ActivationID, UserID, Bool)] {
                    try await tx.insertActivation(
                        ActivationRecord(
                            id: id, tenantID: "t1", userID: user, alias: nil, deviceKey: PublicJWK(kty: "EC"), biometricKey: nil,
                            sealedPinKey: "x", sealedTOTPSecret: nil, totpLastStep: nil, failedAttempts: locked ? 3 : 0,
                            lockedUntil: locked ? now + 60 : nil, permanentlyLocked: false, status: .active, createdAt: 1, lastUsedAt: nil))
                }
                // Two logins in the last hour, a failure and a lock three hours ago, one login
                // a day and more ago (outside), and an account process (not a login).
                let entries: [(Int64, AttemptOutcome, AuthenticationPurpose)] = [
                    (now - 10, .approved, .login), (now - 3000, .approved, .login), (now - 3 * 3600 - 5, .failed, .login),
                    (now - 3 * 3600 - 9, .locked, .login), (now - 25 * 3600, .approved, .login), (now - 20, .completed, .changePin),
                ]
                for (index, (at, outcome, purpose)) in entries.enumerated() {
                    try await tx.insertHistory(
                        HistoryRecord(
                            id: "h\(index)", tenantID: "t1", activationID: "a1", userID: "u1", requestID: RequestID("r\(index)"), service: nil,
                            purpose: purpose, outcome: outcome, factors: [.device], at: at))
                }
            }
            let figures = try await store.read { try await $0.tenantFigures(now: now, hours: 24) }
            let demo = try #require(figures["t1"])
            #expect(demo.users == 2)
            #expect(demo.activations == 2)
            #expect(demo.lockedActivations == 1)
            #expect(demo.loginsPerHour.count == 24 && demo.loginsPerHour.last == 2 && demo.loginsPerHour.reduce(0, +) == 2)
            #expect(demo.failuresPerHour.reduce(0, +) == 2)
            #expect(demo.failuresPerHour[24 - 4] == 2, "three hours and some seconds ago is the fourth hour from the end")
            #expect(figures["t2"]?.users == 1)
            #expect(figures["t2"]?.activations == 0)
        }
    }

    @Test("migrations are applied once and the schema survives a reopen")
    func migrations() async throws {
        let path = try await Self.temporaryPath()
        try await withStore(path: path) { store in
            #expect(try await store.schemaVersion() == SQLStore.latestSchemaVersion)
            try await store.transaction { try await seed($0) }
        }
        try await TestDatabase.withStore(at: path) { (reopened: SQLStore) async throws in
            #expect(try await reopened.schemaVersion() == SQLStore.latestSchemaVersion)
            #expect(try await reopened.read { try await $0.tenant(named: "demo") }?.id == "t1")
        }
    }

    @Test("a lookup reads what is committed with one statement and refuses a second; a read sees one snapshot of several")
    func lookupAndRead() async throws {
        try await withStore { store in
            #expect(try await store.lookup { try await $0.tenant(named: "demo") } == nil)
            try await store.transaction { try await seed($0) }
            #expect(try await store.lookup { try await $0.tenant(named: "demo") }?.id == "t1")
            #expect(try await store.lookup { try await $0.service(clientID: "c1") }?.tenantID == "t1")
            let error = await #expect(throws: StoreError.self) {
                try await store.lookup { tx in
                    _ = try await tx.tenant(named: "demo")
                    return try await tx.user(id: "u1")
                }
            }
            #expect(error?.code == .corrupt)
            let (tenant, user) = try await store.read { tx in (try await tx.tenant(named: "demo"), try await tx.user(id: "u1")) }
            #expect(tenant?.id == "t1" && user?.username == "alice")
        }
    }

    @Test("a write commits its one statement by itself; a conflict writes nothing; a second statement is refused before it runs")
    func singleStatementWrites() async throws {
        try await withStore { store in
            try await store.transaction { try await seed($0) }
            let bob = UserRecord(id: "u2", tenantID: "t1", username: "bob", attributes: [:], createdAt: 2)
            try await store.write { try await $0.insertUser(bob) }
            #expect(try await store.lookup { try await $0.user(id: "u2") }?.username == "bob")
            let conflict = await #expect(throws: StoreError.self) { try await store.write { try await $0.insertUser(bob) } }
            #expect(conflict?.code == .conflict)
            let carol = UserRecord(id: "u3", tenantID: "t1", username: "carol", attributes: [:], createdAt: 3)
            let dave = UserRecord(id: "u4", tenantID: "t1", username: "dave", attributes: [:], createdAt: 4)
            let second = await #expect(throws: StoreError.self) {
                try await store.write { tx in
                    try await tx.insertUser(carol)
                    try await tx.insertUser(dave)
                }
            }
            #expect(second?.code == .corrupt)
            #expect(try await store.lookup { try await $0.user(id: "u4") } == nil)
            // The first statement: committed by itself on PostgreSQL, rolled back with its
            // transaction on SQLite, as `write` says.
            let first = try await store.lookup { try await $0.user(id: "u3") }
            #expect((first != nil) == (TestDatabase.postgresURL != nil))
        }
    }

    @Test("statements run prepared and still run after another connection changed the schema under them")
    func schemaChangedUnderPreparedStatements() async throws {
        let path = try await Self.temporaryPath()
        try await withStore(path: path) { store in
            try await store.transaction { try await seed($0) }
            // On PostgreSQL a statement is prepared the first time it runs on a connection;
            // a prepared SELECT * must not keep the old result type once another node's
            // migration added a column (PostgreSQL refuses it), so the store prepares its
            // statements anew and runs the transaction, read or lookup again. Each kind of
            // call comes first after a change, with its statement prepared before it.
            func prepareAll() async throws {
                #expect(try await store.lookup { try await $0.tenant(named: "demo") }?.id == "t1")
                #expect(try await store.read { try await $0.user(id: "u1") }?.username == "alice")
                #expect(try await store.transaction { try await $0.tenant(named: "demo") }?.id == "t1")
            }
            try await prepareAll()
            try await TestDatabase.runOutside("ALTER TABLE tenants ADD COLUMN later_a TEXT", on: path)
            #expect(try await store.transaction { try await $0.tenant(named: "demo") }?.id == "t1")
            try await prepareAll()
            try await TestDatabase.runOutside("ALTER TABLE users ADD COLUMN later_b TEXT", on: path)
            #expect(try await store.read { try await $0.user(id: "u1") }?.username == "alice")
            try await prepareAll()
            try await TestDatabase.runOutside("ALTER TABLE tenants ADD COLUMN later_c TEXT", on: path)
            #expect(try await store.lookup { try await $0.tenant(named: "demo") }?.id == "t1")
            // Writes go on as well.
            try await store.transaction { tx in
                try await tx.insertUser(UserRecord(id: "u2", tenantID: "t1", username: "bob", attributes: [:], createdAt: 2))
            }
            #expect(try await store.lookup { try await $0.user(tenantID: "t1", username: "bob") }?.id == "u2")
        }
    }

    @Test("a device call's read (token id, activation, user, request: one statement on PostgreSQL) gives what the separate reads give")
    func deviceCallRead() async throws {
        try await withStore { store in
            let request = AuthRequestRecord(
                id: "r1", tenantID: "t1", serviceID: "s1", purpose: .login, status: .claimed, challenge: "c", activationID: "a1",
                userID: "u1", redirectURI: "https://s.example/cb", state: nil, nonce: "n", codeChallenge: "x", scope: "openid",
                browserDigest: nil, confirmedAttributes: ["email"], factors: [.device, .pin], authTime: 7,
                acrPolicy: try AuthenticatorPolicy(parsing: "device+pin"), ssoAllowed: true, maxAge: 60, originAddress: "192.0.2.1",
                createdAt: 1, expiresAt: 99)
            try await store.transaction { tx in
                try await seed(tx)
                try await tx.insertActivation(
                    ActivationRecord(
                        id: "a1", tenantID: "t1", userID: "u1", alias: "phone", deviceKey: PublicJWK(kty: "EC"), biometricKey: nil,
                        sealedPinKey: "x", sealedTOTPSecret: nil, totpLastStep: 3, failedAttempts: 2, lockedUntil: nil, permanentlyLocked: false,
                        status: .active, createdAt: 1, lastUsedAt: 5))
                try await tx.insertAuthRequest(request)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            func same<T: Encodable>(_ one: T?, _ other: T?) throws -> Bool {
                try encoder.encode(one) == encoder.encode(other)
            }
            let (activation, user, stored) = try await store.read { tx in
                (try await tx.activation(id: "a1"), try await tx.user(id: "u1"), try await tx.authRequest(id: "r1"))
            }
            let read = try await store.transaction { tx in
                try await tx.useDeviceTokenID("j1", reading: "a1", request: "r1", expiresAt: 100, now: 1)
            }
            #expect(read.fresh && activation != nil && user != nil && stored != nil)
            #expect(try same(read.activation, activation))
            #expect(try same(read.user, user))
            #expect(try same(read.request, stored))
            // A spent id, a request that is not there, an activation that is not there.
            let again = try await store.transaction { tx in
                try await tx.useDeviceTokenID("j1", reading: "a1", request: "r2", expiresAt: 100, now: 1)
            }
            #expect(!again.fresh && again.request == nil)
            #expect(try same(again.activation, activation))
            let gone = try await store.transaction { tx in
                try await tx.useDeviceTokenID("j2", reading: "a2", request: "r1", expiresAt: 100, now: 1)
            }
            #expect(gone.fresh && gone.activation == nil && gone.user == nil)
            #expect(try same(gone.request, stored))
            #expect(!read.challengeSpent && !gone.challengeSpent)
            // Spending the challenge: another one leaves it; the request's own is spent, and
            // the read shows the request as it was (with it); once spent, it is gone.
            let wrong = try await store.transaction { tx in
                try await tx.useDeviceTokenID("j3", reading: "a1", request: "r1", spendingChallenge: "d", expiresAt: 100, now: 1)
            }
            #expect(wrong.fresh && !wrong.challengeSpent)
            #expect(try await store.read { try await $0.authRequest(id: "r1") }?.challenge == "c")
            let spent = try await store.transaction { tx in
                try await tx.useDeviceTokenID("j4", reading: "a1", request: "r1", spendingChallenge: "c", expiresAt: 100, now: 1)
            }
            #expect(spent.fresh && spent.challengeSpent)
            #expect(try same(spent.request, stored))
            #expect(try await store.read { try await $0.authRequest(id: "r1") }.map { $0.challenge == nil } == true)
            let twice = try await store.transaction { tx in
                try await tx.useDeviceTokenID("j5", reading: "a1", request: "r1", spendingChallenge: "c", expiresAt: 100, now: 1)
            }
            #expect(twice.fresh && !twice.challengeSpent && twice.request?.challenge == nil)
            // A refusal after the read (a thrown error) rolls the spends back.
            try await store.transaction { tx in try await tx.replaceChallenge(requestID: "r1", with: "e") }
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                try await store.transaction { tx in
                    _ = try await tx.useDeviceTokenID("j6", reading: "a1", request: "r1", spendingChallenge: "e", expiresAt: 100, now: 1)
                    throw Refused()
                }
            }
            #expect(try await store.read { try await $0.authRequest(id: "r1") }?.challenge == "e")
        }
    }

    @Test("one statement bound with a NULL, then a value, then a NULL again writes what it was given each time")
    func nullAndValueBinds() async throws {
        try await withStore { store in
            try await store.transaction { tx in
                try await seed(tx)
                try await tx.insertActivation(
                    ActivationRecord(
                        id: "a1", tenantID: "t1", userID: "u1", alias: nil, deviceKey: PublicJWK(kty: "EC"), biometricKey: nil, sealedPinKey: "x",
                        sealedTOTPSecret: nil, totpLastStep: nil, failedAttempts: 0, lockedUntil: nil, permanentlyLocked: false,
                        status: .active, createdAt: 1, lastUsedAt: nil))
            }
            // `totp_last_step = COALESCE(step, totp_last_step)`: a NULL leaves the step as it was.
            for (step, expected) in [(nil, nil), (41, 41), (nil, 41), (42, 42)] as [(Int64?, Int64?)] {
                try await store.transaction { tx in
                    try await tx.recordSuccessfulUse(activationID: "a1", failures: FactorFailures(pin: 1), now: 5, totpStep: step)
                }
                let activation = try await store.lookup { try await $0.activation(id: "a1") }
                #expect(activation?.totpLastStep == expected && activation?.lastUsedAt == 5)
            }
        }
    }

    @Test("a second row with the same unique key is a conflict, classified by result code, and writes nothing")
    func uniqueConflict() async throws {
        try await withStore { store in
            try await store.transaction { try await seed($0) }
            let error = await #expect(throws: StoreError.self) {
                try await store.transaction { tx in
                    try await tx.insertUser(UserRecord(id: "u2", tenantID: "t1", username: "bob", attributes: [:], createdAt: 2))
                    try await tx.insertUser(UserRecord(id: "u3", tenantID: "t1", username: "alice", attributes: [:], createdAt: 2))
                }
            }
            #expect(error?.code == .conflict)
            #expect(try await store.read { try await $0.user(tenantID: "t1", username: "bob") } == nil)
        }
    }

    @Test("a failed transaction writes nothing")
    func rollback() async throws {
        struct Abort: Error {}
        try await withStore { store in
            await #expect(throws: Abort.self) {
                try await store.transaction { tx in
                    try await seed(tx)
                    throw Abort()
                }
            }
            let tenants = try await store.read { try await $0.tenants() }
            #expect(tenants.isEmpty)
        }
    }

    @Test("many transactions at once: each that throws writes nothing, every other one is committed and survives a reopen")
    func concurrentTransactions() async throws {
        struct Abort: Error {}
        let path = try await Self.temporaryPath()
        try await withStore(path: path) { store in
            try await store.transaction { try await seed($0) }
            // On SQLite these queue for the one connection and share commits.
            let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<200 {
                    group.addTask {
                        do {
                            try await store.transaction { tx in
                                try await tx.insertUser(
                                    UserRecord(id: UserID("u-\(index)"), tenantID: "t1", username: "user\(index)", attributes: [:], createdAt: 1))
                                if index % 3 == 0 { throw Abort() }
                            }
                            return (index, true)
                        } catch {
                            return (index, false)
                        }
                    }
                }
                return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            for index in 0..<200 {
                #expect(outcomes[index] == (index % 3 != 0), "transaction \(index)")
            }
        }
        let reopened = try await TestDatabase.withStore(at: path) { reopened in
            for index in 0..<200 {
                let user = try await reopened.read { try await $0.user(id: UserID("u-\(index)")) }
                #expect((user != nil) == (index % 3 != 0), "user \(index) after reopening")
            }
            return reopened
        }
        // A closed SQLite store refuses work instead of touching a closed connection.
        if !path.hasPrefix("postgres") {
            await #expect(throws: StoreError.self) { try await reopened.read { try await $0.tenants() } }
        }
    }

    @Test("duplicate keys are conflicts")
    func conflicts() async throws {
        try await withStore { store in
            try await store.transaction { try await seed($0) }
            await #expect(throws: StoreError.self) {
                try await store.transaction { tx in
                    try await tx.insertTenant(TenantRecord(id: "t2", name: "demo", lockoutPolicy: .standard, processPolicy: try AuthenticatorPolicy(parsing: "device+pin"), createdAt: 1))
                }
            }
        }
    }

    @Test("codes and invitations are spent exactly once, even when spent in parallel")
    func singleUse() async throws {
        try await withStore { store in
            try await store.transaction { tx in
                try await seed(tx)
                try await tx.insertInvitation(
                    InvitationRecord(
                        id: "i1", tenantID: "t1", userID: "u1", codeDigest: "d", pinSalt: "s", expiresAt: 100, usedAt: nil,
                        createdAt: 1))
                try await tx.insertGrant(
                    GrantRecord(
                        digest: "g1", kind: .code, familyID: "f1", tenantID: "t1", serviceID: "s1", userID: "u1", activationID: nil,
                        redirectURI: nil, codeChallenge: nil, nonce: nil, scope: "openid", factors: [],
                        confirmedAttributes: [], authTime: 1, expiresAt: 100, usedAt: nil, revoked: false))
            }
            let spends = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { try await store.transaction { try await $0.spendGrant(digest: "g1", now: 2) } } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(spends == 1)
            #expect(try await store.transaction { try await $0.consumeInvitation(id: "i1", now: 200) } == false, "expired")
            #expect(try await store.transaction { try await $0.consumeInvitation(id: "i1", now: 50) } == true)
            #expect(try await store.transaction { try await $0.consumeInvitation(id: "i1", now: 51) } == false, "spent")
        }
    }

    @Test("ending the sessions a device started ends them once and leaves the others live")
    func sessionsEnd() async throws {
        try await withStore { store in
            try await store.transaction { tx in
                try await seed(tx)
                for (id, activation) in [("f1", "a1"), ("f2", "a1"), ("f3", "a2")] {
                    try await tx.insertSession(
                        SessionRecord(
                            id: SessionID(id), tenantID: "t1", serviceID: "s1", userID: "u1", activationID: ActivationID(activation),
                            factors: [.device, .pin], confirmedAttributes: [], authTime: 1, createdAt: 1, expiresAt: 1_000, idleLifetime: 100))
                }
            }
            let ended = try await store.transaction { try await $0.endSessions(.activation("a1"), reason: .deviceRemoved, at: 5) }
            #expect(ended == 2)
            #expect(try await store.transaction { try await $0.endSessions(.activation("a1"), reason: .deviceRemoved, at: 6) } == 0)
            let first = try #require(try await store.read { try await $0.session(id: "f1") })
            #expect(first.endedAt == 5 && first.endReason == .deviceRemoved && !first.isLive(at: 6))
            let other = try #require(try await store.read { try await $0.session(id: "f3") })
            #expect(other.isLive(at: 6) && !other.isLive(at: 101), "the idle lifetime counts from the last refresh")
            // Removing a device ends its sessions, and those from before devices were recorded.
            try await store.transaction { tx in
                try await tx.insertActivation(
                    ActivationRecord(
                        id: "a9", tenantID: "t1", userID: "u1", alias: nil, deviceKey: PublicJWK(kty: "EC"), biometricKey: nil, sealedPinKey: "x",
                        sealedTOTPSecret: nil, totpLastStep: nil, failedAttempts: 0, lockedUntil: nil, permanentlyLocked: false,
                        status: .active, createdAt: 1, lastUsedAt: nil))
                try await tx.insertSession(
                    SessionRecord(
                        id: "legacy", tenantID: "t1", serviceID: "s1", userID: "u1", activationID: nil, factors: [.device],
                        confirmedAttributes: [], authTime: 1, createdAt: 1, expiresAt: 1_000, idleLifetime: 100))
                #expect(try await tx.deleteActivation(id: "a9", at: 7))
            }
            #expect(try await store.read { try await $0.session(id: "legacy") }?.endReason == .deviceRemoved)
            #expect(try await store.transaction { try await $0.touchSession(id: "f3", at: 90) })
            #expect(try await store.transaction { try await $0.touchSession(id: "f1", at: 90) } == false, "an ended session is not refreshed")
            #expect(try await store.read { try await $0.session(id: "f1") }?.lastRefreshedAt == 1)
            #expect(try await store.read { try await $0.session(id: "f3") }?.isLive(at: 150) == true)
            #expect(try await store.read { try await $0.session(id: "f3") }?.isLive(at: 1_000) == false, "the absolute lifetime holds")
        }
    }

    @Test("a device token id is accepted once")
    func tokenIDs() async throws {
        try await withStore { store in
            let first = try await store.transaction { try await $0.useDeviceTokenID("j", activationID: "a", expiresAt: 10, now: 1) }
            let second = try await store.transaction { try await $0.useDeviceTokenID("j", activationID: "a", expiresAt: 10, now: 2) }
            #expect(first)
            #expect(!second, "a replayed token id")
        }
    }

    @Test("an activation's expired token ids are cleared by its own later calls, its live ones kept")
    func expiredTokenIDsCleared() async throws {
        try await withStore { store in
            let count = { try await store.read { try await $0.rowCounts() }["device_token_ids"] ?? -1 }
            try await store.transaction { tx in
                for index in 0..<20 { _ = try await tx.useDeviceTokenID("old-\(index)", activationID: "a", expiresAt: 50, now: 1) }
                _ = try await tx.useDeviceTokenID("other", activationID: "b", expiresAt: 50, now: 1)
            }
            #expect(try await count() == 21)
            // One call in eight sweeps, at random: after 200 calls the odds that none did are below 1e-11.
            for index in 0..<200 {
                let fresh = try await store.transaction { try await $0.useDeviceTokenID("new-\(index)", activationID: "a", expiresAt: 500, now: 100) }
                #expect(fresh)
            }
            #expect(try await count() == 201, "a's 20 expired ids went; b's (another activation's) and a's 200 live ones stay")
            let replay = try await store.transaction { try await $0.useDeviceTokenID("new-7", activationID: "a", expiresAt: 500, now: 101) }
            #expect(!replay, "a live id is still refused a second time")
        }
    }
}

extension Optional {
    func asyncDefault(_ make: () async throws -> Wrapped) async rethrows -> Wrapped {
        if let self { return self }
        return try await make()
    }
}
