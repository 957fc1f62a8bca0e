import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraTesting
import Testing
@testable import TesseraKit

/// Sends a device's calls to one node directly instead of through the proxy, so that a
/// test knows which node answered.
struct NodeTransport: HTTPTransport {
    let proxy: String
    let node: String
    let inner = ClientTransport()

    func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        var request = request
        request.url = URL(string: request.url.absoluteString.replacingOccurrences(of: proxy, with: node)) ?? request.url
        return try await inner.send(request)
    }
}

/// Two nodes on one PostgreSQL database behind nginx behave as one server. Runs in the
/// PostgreSQL pass of scripts/test.sh (a cluster needs a shared database).
@Suite("Several nodes as one server", .tags(.live, .cluster), .timeLimit(.minutes(5)),
    .enabled(if: TestDatabase.postgresURL != nil, "needs PostgreSQL; runs in the suite's PostgreSQL pass"))
struct MultiNodeTests {
    func withCluster(_ body: (TestCluster) async throws -> Void) async throws {
        let cluster = try await TestCluster.start(nodes: 2)
        do {
            try await body(cluster)
            await cluster.stop()
        } catch {
            await cluster.stop()
            throw error
        }
    }

    /// The answer to an attempt that waited longer than the bound for its activation's
    /// turn (more than a loaded machine drains in time): 503 with `Retry-After`, and
    /// nothing counted, which the tests check against the stored counter.
    func isBusy(_ response: TestHTTP.Response) -> Bool {
        response.status == 503 && response.header("Retry-After") != nil
            && (try? response.json())?["error"] as? String == "temporarily_unavailable"
    }

    /// A finish body with a wrong PIN for each claimed request, signed like the SDK would
    /// (one PBKDF2 of the wrong PIN serves them all, as the salt is the activation's).
    func wrongPINFinishes(_ claimed: [AuthenticationUserInformation], device: TestDevice) async throws
        -> [(AuthenticationUserInformation, Data)]
    {
        let activation = try #require(claimed.first?.activation)
        let wrongKey = try PinProof.deriveKeyData(pin: "0000", salt: try #require(Base64URL.decode(activation.pinSalt)))
        let signer = try await device.authenticator.registry.signer(activation.deviceKeyLabel)
        return try claimed.map { information in
            let now = Int(Date().timeIntervalSince1970)
            let claims = AuthenticationProofClaims(
                rid: information.requestID.rawValue, chal: information.challenge.rawValue, aud: information.audience,
                sub: activation.id.rawValue, comb: [.device, .pin], attrs: [],
                pin: Base64URL.encode(
                    PinProof.proof(keyData: wrongKey, requestID: information.requestID.rawValue, challenge: information.challenge.rawValue)),
                otp: nil, iat: now, exp: now + 120, jti: Secrets.randomToken(byteCount: 16))
            let proof = try CompactJWS.sign(
                payload: try WireCoding.encoder().encode(claims), header: JWSHeader(typ: "tessera-proof+jwt", kid: activation.id.rawValue),
                signer: signer)
            return (information, try WireCoding.encoder().encode(FinishRequest(proof: proof, biometricProof: nil)))
        }
    }

    func authenticator(_ device: TestDevice, _ cluster: TestCluster, node: Int) -> Authenticator {
        Authenticator(
            keyStore: device.keyStore, transport: NodeTransport(proxy: cluster.baseURL, node: cluster.nodeURLs[node]),
            biometrics: device.biometrics)
    }

    @Test("a service changed on one node holds on the other too: a rotated secret, then the service removed")
    func serviceChangesReachEveryNode() async throws {
        try await withCluster { cluster in
            let scenario = try await Scenario.make(baseURL: cluster.baseURL, adminToken: cluster.adminToken)
            let nodes = cluster.nodeURLs.map { Scenario(baseURL: $0, adminToken: cluster.adminToken, tenant: scenario.tenant) }
            let admin = ["Authorization": "Bearer \(cluster.adminToken)"]
            let service = try await scenario.createService()
            /// Whether a node takes the client's secret: a refresh with an unknown token is a
            /// 400 (invalid_grant) after the client is authenticated, a 401 before.
            func accepts(_ node: Int, _ secret: String?) async throws -> Bool {
                let credentials = Scenario.Service(clientID: service.clientID, clientSecret: secret, redirectURI: service.redirectURI)
                let status = try await nodes[node].tokenRequest(["grant_type": "refresh_token", "refresh_token": "unknown"], service: credentials).status
                #expect(status == 400 || status == 401)
                return status == 400
            }
            // Both nodes have read (and keep) the service.
            #expect(try await accepts(0, service.clientSecret))
            #expect(try await accepts(1, service.clientSecret))

            let rotated = try await nodes[0].http.send(
                "POST", "\(cluster.nodeURLs[0])/admin/tenants/\(scenario.tenant)/services/\(service.clientID)/secret", headers: admin)
            let secret = try #require(try rotated.json()["client_secret"] as? String, "\(rotated.text)")
            #expect(try await !accepts(0, service.clientSecret), "the node that rotated refuses the old secret at once")
            #expect(try await accepts(0, secret))
            #expect(try await eventually { try await !accepts(1, service.clientSecret) }, "the other node hears of it")
            #expect(try await accepts(1, secret))

            let removed = try await nodes[1].http.send(
                "DELETE", "\(cluster.nodeURLs[1])/admin/tenants/\(scenario.tenant)/services/\(service.clientID)", headers: admin)
            #expect(removed.status == 204 || removed.status == 200, "\(removed.text)")
            #expect(try await !accepts(1, secret))
            #expect(try await eventually { try await !accepts(0, secret) }, "the other node forgets the removed service")
        }
    }

    @Test("a login started on one node finishes on the other; the page, the device and codes see one server")
    func oneServer() async throws {
        try await withCluster { cluster in
            let scenario = try await Scenario.make(baseURL: cluster.baseURL, adminToken: cluster.adminToken)
            let nodeA = Scenario(baseURL: cluster.nodeURLs[0], adminToken: cluster.adminToken, tenant: scenario.tenant)
            let nodeB = Scenario(baseURL: cluster.nodeURLs[1], adminToken: cluster.adminToken, tenant: scenario.tenant)
            let service = try await scenario.createService(backchannelMode: "poll")
            try await scenario.createUser("ann")
            let (device, _) = try await activateDevice(scenario, username: "ann")
            let onB = authenticator(device, cluster, node: 1)
            let onA = authenticator(device, cluster, node: 0)

            // The browser opens the login on node A and long-polls its status there.
            let login = try await nodeA.openLogin(service)
            let statusOnA = login.via(cluster.nodeURLs[0], instead: cluster.baseURL).statusURL
            let started = ContinuousClock.now
            let waiting = Task {
                try await nodeA.http.get(statusOnA + "&wait=25&known=pending", headers: ["Cookie": login.cookie]).json()["status"] as? String
            }
            try await Task.sleep(for: .milliseconds(300))
            // The device takes it up on node B: node A's long poll hears of it (LISTEN/NOTIFY).
            let information = try await onB.start(url: login.authenticationURL)
            #expect(try await waiting.value == "claimed")
            #expect(ContinuousClock.now - started < .seconds(20), "woken by the other node, not by the wait's end")
            // Finished through the proxy, on whichever node it picks.
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)

            // The browser completes on node B; the code is spent once across both nodes.
            let pageOnB = login.via(cluster.nodeURLs[1], instead: cluster.baseURL)
            #expect(try await nodeB.status(pageOnB)["status"] as? String == "approved")
            let code = try #require(try await nodeB.complete(pageOnB)["code"])
            async let first = nodeA.redeem(code: code, service: service, verifier: login.verifier)
            async let second = nodeB.redeem(code: code, service: service, verifier: login.verifier)
            let statuses = try await [first.status, second.status].sorted()
            #expect(statuses == [200, 400], "one node redeems the code, the other refuses it")

            // A device long-polling node A hears of a step-up started on node B.
            var updates = onA.pendingRequestUpdates(wait: 20).makeAsyncIterator()
            #expect(try await updates.next()?.isEmpty == true)
            let asked = ContinuousClock.now
            let response = try await nodeB.tokenRequest(["scope": "openid", "login_hint": "ann"], service: service, endpoint: "bc-authorize")
            let id = try #require(try response.json()["auth_req_id"] as? String)
            #expect(try await updates.next()?.map(\.requestID.rawValue) == [id])
            #expect(ContinuousClock.now - asked < .seconds(15), "woken by the other node, not by the wait's end")
            device.remove()
        }
    }

    @Test("100 wrong PINs at once on two nodes: exactly the policy's allowance counts, then the lock holds")
    func parallelLockout() async throws {
        try await withCluster { cluster in
            let scenario = try await Scenario.make(
                baseURL: cluster.baseURL, adminToken: cluster.adminToken, lockout: .init(freeAttempts: 3, waits: [600], permanentAfter: 10))
            let service = try await scenario.createService(policy: "device+pin")
            try await scenario.createUser("bea")
            let (device, _) = try await activateDevice(scenario, username: "bea")

            // 100 logins, each claimed (a challenge of its own), then all answered at once.
            var claimed: [AuthenticationUserInformation] = []
            for _ in 0..<100 {
                let login = try await scenario.openLogin(service)
                claimed.append(try await device.authenticator.start(url: login.authenticationURL))
            }
            // The proofs are made first, then sent together, alternating between the nodes.
            let requests = try await wrongPINFinishes(claimed, device: device).map { ($0.0.requestID.rawValue, $0.1) }
            let http = TestHTTP()
            let outcomes = await withTaskGroup(of: String.self) { group -> [String] in
                for (index, (requestID, body)) in requests.enumerated() {
                    group.addTask {
                        let node = cluster.nodeURLs[index % 2]
                        let url = "\(node)/t/\(scenario.tenant)/device/authentications/\(requestID)/finish"
                        guard let response = try? await http.send("POST", url, headers: ["Content-Type": "application/json"], body: body)
                        else { return "no answer" }
                        if isBusy(response) { return "busy" }
                        switch (response.status, (try? response.json())?["result"] as? String) {
                        case (200, "lockout"): return "counted"
                        case (423, _): return "refused while locked"
                        default: return "\(response.status) \(response.text)"
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let counts = Dictionary(outcomes.map { ($0, 1) }, uniquingKeysWith: +)
            #expect(counts["counted"] == 4, "three free attempts and the one that locks: \(counts)")
            // On a loaded machine the last in line may wait past the bound: 503, nothing counted.
            #expect(counts["refused while locked", default: 0] + counts["busy", default: 0] == 96, "\(counts)")
            #expect(counts["refused while locked", default: 0] > 0, "the lock refuses the attempts after it: \(counts)")
            let record = try #require(try await scenario.activations(username: "bea").first)
            #expect(record.failedAttempts == 4)
            #expect(record.lockedUntil != nil)
            device.remove()
        }
    }

    @Test("wrong PINs raced by re-claims and denials of the same requests on two nodes: every verified guess counts, exactly the policy's allowance")
    func racedLockout() async throws {
        try await withCluster { cluster in
            let scenario = try await Scenario.make(
                baseURL: cluster.baseURL, adminToken: cluster.adminToken, lockout: .init(freeAttempts: 5, waits: [600], permanentAfter: 20))
            let service = try await scenario.createService(policy: "device+pin")
            try await scenario.createUser("rex")
            let (device, _) = try await activateDevice(scenario, username: "rex")
            var claimed: [AuthenticationUserInformation] = []
            var links: [URL] = []
            for _ in 0..<60 {
                let login = try await scenario.openLogin(service)
                links.append(login.authenticationURL)
                claimed.append(try await device.authenticator.start(url: login.authenticationURL))
            }
            let requests = try await wrongPINFinishes(claimed, device: device)
            // Each proof races a fresh claim of its own request (which replaces the challenge
            // it signed) and, for every third, the device's denial of it.
            let http = TestHTTP()
            let urls = links
            // A signed finish, sent as it is to one node or the other.
            @Sendable func finish(_ information: AuthenticationUserInformation, _ body: Data, on node: Int) async throws -> TestHTTP.Response {
                let url = "\(cluster.nodeURLs[node % 2])/t/\(scenario.tenant)/device/authentications/\(information.requestID.rawValue)/finish"
                return try await http.send("POST", url, headers: ["Content-Type": "application/json"], body: body)
            }
            let outcomes = await withTaskGroup(of: String?.self) { group -> [String] in
                for (index, (information, body)) in requests.enumerated() {
                    group.addTask {
                        guard let response = try? await finish(information, body, on: index) else { return "no answer" }
                        if isBusy(response) { return "busy" }
                        let json = try? response.json()
                        switch (response.status, json?["result"] as? String, json?["error"] as? String) {
                        case (200, "lockout", _): return "counted"
                        case (423, _, _): return "refused while locked"
                        case (400, _, "invalid_grant"), (400, _, "invalid_request"): return "refused unseen"
                        default: return "\(response.status) \(response.text)"
                        }
                    }
                    group.addTask {
                        _ = try? await device.authenticator.start(url: urls[index])
                        return nil
                    }
                    if index % 3 == 0 {
                        group.addTask {
                            try? await device.authenticator.deny(information)
                            return nil
                        }
                    }
                }
                return await group.reduce(into: []) { if let outcome = $1 { $0.append(outcome) } }
            }
            let counts = Dictionary(outcomes.map { ($0, 1) }, uniquingKeysWith: +)
            let raced = try #require(try await scenario.activations(username: "rex").first)
            #expect(Set(counts.keys).isSubset(of: ["counted", "refused while locked", "refused unseen", "busy"]), "\(counts)")
            // Every guess that was verified counted, and none beyond the lock.
            var counted = counts["counted", default: 0]
            #expect(raced.failedAttempts == counted, "\(raced.failedAttempts) stored: \(counts)")
            #expect(counted <= 6, "\(counts)")
            // How many proofs the race let through depends on timing: most may be answered
            // busy (the other node held the activation's queue) or lose to their re-claim.
            // Guesses go on one at a time, each busy answer sent again as a device would
            // after Retry-After, until the lock: it comes at exactly the policy's allowance.
            var guesses = 0
            while counted < 6 && guesses < 30 {
                guesses += 1
                let login = try await scenario.openLogin(service)
                let information = try await device.authenticator.start(url: login.authenticationURL)
                let (_, body) = try #require(try await wrongPINFinishes([information], device: device).first)
                var response = try await finish(information, body, on: guesses)
                for _ in 0..<50 where isBusy(response) {
                    try await Task.sleep(for: .milliseconds(100))
                    response = try await finish(information, body, on: guesses)
                }
                #expect(response.status == 200 && (try? response.json())?["result"] as? String == "lockout", "\(response.status) \(response.text)")
                if response.status == 200 { counted += 1 }
            }
            let record = try #require(try await scenario.activations(username: "rex").first)
            #expect(record.failedAttempts == counted, "\(record.failedAttempts) stored, \(counted) counted: \(counts)")
            #expect(record.failedAttempts == 6, "five free attempts and the one that locks: \(counts)")
            #expect(record.lockedUntil != nil)
            device.remove()
        }
    }

    @Test("attempts on an activation whose queue another node holds fail fast with 503 and Retry-After; the node serves others meanwhile")
    func heldQueue() async throws {
        try await withCluster { cluster in
            let scenario = try await Scenario.make(baseURL: cluster.baseURL, adminToken: cluster.adminToken)
            let service = try await scenario.createService(policy: "device+pin")
            try await scenario.createUser("hot")
            try await scenario.createUser("cold")
            let (hot, _) = try await activateDevice(scenario, username: "hot")
            let (cold, _) = try await activateDevice(scenario, username: "cold")
            let login = try await scenario.openLogin(service)
            let information = try await hot.authenticator.start(url: login.authenticationURL)
            let activationID = information.activation.id.rawValue
            let node = authenticator(hot, cluster, node: 0)
            let outcome = try await TestDatabase.holdingQueueLock("activation:\(activationID)", on: cluster.database) {
                // Twelve attempts at once on node 0: two wait on connections for the lock, the
                // rest in memory; all give up within the bounds.
                let started = ContinuousClock.now
                let answers = await withTaskGroup(of: String.self) { group -> [String] in
                    for _ in 0..<12 {
                        group.addTask {
                            do {
                                _ = try await signAndFinish(information, device: hot, factors: [.device, .pin], authenticator: node)
                                return "answered"
                            } catch TesseraKitError.server(let status, let code, _) {
                                return "\(status) \(code)"
                            } catch {
                                return "\(error)"
                            }
                        }
                    }
                    // Meanwhile another user logs in through the same node.
                    group.addTask {
                        do {
                            _ = try await approvedLogin(scenario, service, device: cold)
                            return "other login done after \(ContinuousClock.now - started)"
                        } catch {
                            return "other login failed: \(error)"
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                return (answers, ContinuousClock.now - started)
            }
            let (answers, elapsed) = outcome
            #expect(answers.filter { $0 == "503 temporarily_unavailable" }.count == 12, "\(answers)")
            #expect(answers.contains { $0.hasPrefix("other login done") }, "\(answers)")
            #expect(elapsed < .seconds(30), "bounded waits: \(elapsed)")
            // Nothing counted while busy; once the lock is free the attempt goes through.
            #expect(try await scenario.activations(username: "hot").first?.failedAttempts == 0)
            let retried = try await hot.authenticator.start(url: login.authenticationURL)
            #expect(try await signAndFinish(retried, device: hot, factors: [.device, .pin]).isUserLogin)
            hot.remove()
            cold.remove()
        }
    }
}
