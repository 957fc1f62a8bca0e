import Foundation
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraTesting
import TesseraTestSupport
import Testing

#if canImport(Glibc)
import Glibc
import TesseraAdminAPI
#endif

/// The keys a tenant's JWKS publishes (at the issuer of `scenario`, or a node's own URL).
private func publishedKeys(_ scenario: Scenario) async throws -> Set<PublicJWK> {
    struct KeySet: Decodable { let keys: [PublicJWK] }
    let response = try await scenario.http.get("\(scenario.issuer)/jwks")
    guard response.status == 200 else { throw TestSupportError("jwks: \(response.status) \(response.text)") }
    return Set(try JSONDecoder().decode(KeySet.self, from: response.body).keys)
}

private func publishedKids(_ scenario: Scenario) async throws -> Set<String> {
    Set(try await publishedKeys(scenario).compactMap(\.kid))
}

/// The token response of a device + PIN login to `service`.
private func loginTokens(_ scenario: Scenario, _ service: Scenario.Service, device: TestDevice) async throws -> [String: Any] {
    let (login, code) = try await approvedLogin(scenario, service, device: device)
    let response = try await scenario.redeem(code: code, service: service, verifier: login.verifier)
    guard response.status == 200 else { throw TestSupportError("token: \(response.status) \(response.text)") }
    return try response.json()
}

/// Whether `condition` holds within `limit`, asked every 100 ms.
func eventually(within limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(100))
    }
    return try await condition()
}

@Suite("Signing-key and master-key rotation", .tags(.live), .timeLimit(.minutes(5)))
struct KeyRotationTests {
    @Test("a rotated signing key signs new tokens; older keys verify until retired; the active key cannot be retired")
    func signingKeyRotation() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("rita")
            let (device, _) = try await activateDevice(scenario, username: "rita")
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            let keys = "\(server.baseURL)/admin/tenants/\(scenario.tenant)/signing-keys"
            let userinfo = "\(scenario.issuer)/userinfo"

            let before = try await loginTokens(scenario, service, device: device)
            let oldIDToken = try #require(before["id_token"] as? String)
            let oldAccessToken = try #require(before["access_token"] as? String)
            let oldKid = try #require(try CompactJWS.parse(oldIDToken).header.kid)
            let listed = try await scenario.http.get(keys, headers: admin)
            #expect(listed.status == 200, "\(listed.text)")
            let listedKeys = try listed.json()["keys"] as? [[String: Any]] ?? []
            #expect(listedKeys.compactMap { $0["kid"] as? String } == [oldKid])
            #expect(listedKeys.first?["active"] as? Bool == true)
            #expect(listedKeys.first?["created_at"] is NSNumber)
            #expect(Set(listedKeys.first?.keys.map { $0 } ?? []) == ["kid", "algorithm", "active", "created_at"], "no private material")
            #expect(listedKeys.first?["algorithm"] as? String == "ES256")

            let rotated = try await scenario.http.send("POST", keys, headers: admin)
            #expect(rotated.status == 201, "\(rotated.text)")
            let rotation = try rotated.json()
            let newKid = try #require(rotation["kid"] as? String)
            #expect(newKid != oldKid)
            #expect(rotation["active"] as? Bool == true)
            var states: [String: Bool] = [:]
            for key in rotation["keys"] as? [[String: Any]] ?? [] {
                if let kid = key["kid"] as? String { states[kid] = key["active"] as? Bool }
            }
            #expect(states == [oldKid: false, newKid: true], "the new key is the only active one")
            #expect(try await publishedKids(scenario) == [oldKid, newKid])

            // New tokens carry the new kid; those from before still verify, offline and at /userinfo.
            let after = try await loginTokens(scenario, service, device: device)
            let newIDToken = try #require(after["id_token"] as? String)
            #expect(try CompactJWS.parse(newIDToken).header.kid == newKid)
            _ = try await verifyIDToken(newIDToken, scenario: scenario, clientID: service.clientID)
            _ = try await verifyIDToken(oldIDToken, scenario: scenario, clientID: service.clientID)
            #expect(try await scenario.http.get(userinfo, headers: ["Authorization": "Bearer \(oldAccessToken)"]).status == 200)

            // The active key cannot be retired; a kid the tenant does not have is not found.
            let refused = try await scenario.http.send("DELETE", "\(keys)/\(newKid)", headers: admin)
            #expect(refused.status == 409, "\(refused.text)")
            #expect(try refused.json()["error"] as? String == "conflict")
            #expect(try await scenario.http.send("DELETE", "\(keys)/unknown-kid", headers: admin).status == 404)
            #expect(try await publishedKids(scenario) == [oldKid, newKid])

            // Retiring the old key takes it out of the JWKS, and what it signed stops verifying.
            let retired = try await scenario.http.send("DELETE", "\(keys)/\(oldKid)", headers: admin)
            #expect(retired.status == 200, "\(retired.text)")
            #expect(try retired.json()["retired"] as? String == oldKid)
            #expect(try await publishedKids(scenario) == [newKid])
            #expect(try await scenario.http.get(userinfo, headers: ["Authorization": "Bearer \(oldAccessToken)"]).status == 401)
            let newAccessToken = try #require(after["access_token"] as? String)
            #expect(try await scenario.http.get(userinfo, headers: ["Authorization": "Bearer \(newAccessToken)"]).status == 200)
            #expect(try await scenario.http.send("DELETE", "\(keys)/\(oldKid)", headers: admin).status == 404)

            // The admin token is needed, as for every admin route.
            #expect(try await scenario.http.send("POST", keys).status == 401)
            #expect(try await scenario.http.get(keys).status == 401)
            #expect(try await publishedKids(scenario) == [newKid])

            let audit = try await scenario.audit()
            #expect(audit.contains { $0.action == "signing_key.rotate" && $0.target == newKid })
            #expect(audit.contains { $0.action == "signing_key.retire" && $0.target == oldKid })
            device.remove()
        }
    }

    @Test("a key published ahead is in the JWKS at once and signs only once activated")
    func publishThenActivate() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("paula")
            let (device, _) = try await activateDevice(scenario, username: "paula")
            defer { device.remove() }
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            let keys = "\(server.baseURL)/admin/tenants/\(scenario.tenant)/signing-keys"
            let oldKid = try #require(try await publishedKids(scenario).first)

            // Bad bodies are refused and make no key.
            for body in ["{", "{\"activate\": \"no\"}", "[]"] {
                let refused = try await scenario.http.send("POST", keys, headers: admin, body: Data(body.utf8))
                #expect(refused.status == 400, "\(body): \(refused.text)")
            }
            #expect(try await publishedKids(scenario) == [oldKid])

            let published = try await scenario.http.postJSON(keys, ["activate": false], headers: admin)
            #expect(published.status == 201, "\(published.text)")
            let newKid = try #require(try published.json()["kid"] as? String)
            #expect(try published.json()["active"] as? Bool == false)
            #expect(try await publishedKids(scenario) == [oldKid, newKid], "published at once")
            let meanwhile = try #require(try await loginTokens(scenario, service, device: device)["id_token"] as? String)
            #expect(try CompactJWS.parse(meanwhile).header.kid == oldKid, "the old key still signs")

            #expect(try await scenario.http.send("POST", "\(keys)/unknown-kid/activate", headers: admin).status == 404)
            #expect(try await scenario.http.send("POST", "\(keys)/\(newKid)/activate").status == 401)
            let activated = try await scenario.http.send("POST", "\(keys)/\(newKid)/activate", headers: admin)
            #expect(activated.status == 200, "\(activated.text)")
            #expect(try activated.json()["activated"] as? String == newKid)
            var states: [String: Bool] = [:]
            for key in try activated.json()["keys"] as? [[String: Any]] ?? [] {
                if let kid = key["kid"] as? String { states[kid] = key["active"] as? Bool }
            }
            #expect(states == [oldKid: false, newKid: true])
            let after = try #require(try await loginTokens(scenario, service, device: device)["id_token"] as? String)
            #expect(try CompactJWS.parse(after).header.kid == newKid)
            _ = try await verifyIDToken(meanwhile, scenario: scenario, clientID: service.clientID)
            _ = try await verifyIDToken(after, scenario: scenario, clientID: service.clientID)
            // Activating the active key again changes nothing.
            #expect(try await scenario.http.send("POST", "\(keys)/\(newKid)/activate", headers: admin).status == 200)
            #expect(try await scenario.http.send("DELETE", "\(keys)/\(newKid)", headers: admin).status == 409)

            let audit = try await scenario.audit()
            #expect(audit.contains { $0.action == "signing_key.publish" && $0.target == newKid })
            #expect(audit.contains { $0.action == "signing_key.activate" && $0.target == newKid })
        }
    }

    @Test("tessera admin tenant rotate-key, keys, activate-key and retire-key")
    func signingKeyCommands() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let tenant = scenario.tenant
            let admin = ["TESSERA_SERVER": server.baseURL, "TESSERA_ADMIN_TOKEN": server.adminToken]

            let listed = try await tessera(["admin", "tenant", "keys", "--tenant", tenant, "--json"], environment: admin)
            #expect(listed.0 == 0, "\(listed.2)")
            let first = try #require((listed.1["keys"] as? [[String: Any]])?.first?["kid"] as? String, "\(listed.2)")
            let rotated = try await tessera(["admin", "tenant", "rotate-key", "--tenant", tenant, "--json"], environment: admin)
            #expect(rotated.0 == 0 && rotated.1["active"] as? Bool == true, "\(rotated.2)")
            let second = try #require(rotated.1["kid"] as? String, "\(rotated.2)")
            let printed = try await tessera(["admin", "tenant", "rotate-key", "--tenant", tenant], environment: admin)
            let third = printed.2.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(printed.0 == 0 && !third.isEmpty && ![first, second].contains(third), "\(printed.2)")

            let text = try await tessera(["admin", "tenant", "keys", "--tenant", tenant], environment: admin)
            let lines = text.2.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(text.2)")
            #expect(lines.contains { $0.hasPrefix("\(third)\tactive\t") }, "\(text.2)")
            #expect(lines.contains { $0.hasPrefix("\(first)\tinactive\t") }, "\(text.2)")
            #expect(try await publishedKids(scenario) == [first, second, third])

            let refused = try await tessera(["admin", "tenant", "retire-key", "--tenant", tenant, "--kid", third], environment: admin)
            #expect(refused.0 != 0 && refused.2.contains("409"), "\(refused.2)")
            let retired = try await tessera(
                ["admin", "tenant", "retire-key", "--tenant", tenant, "--kid", first, "--json"], environment: admin)
            #expect(retired.0 == 0 && retired.1["retired"] as? String == first, "\(retired.2)")
            let left = try await tessera(["admin", "tenant", "retire-key", "--tenant", tenant, "--kid", second], environment: admin)
            #expect(left.0 == 0 && left.2.hasPrefix("\(third)\tactive\t"), "\(left.2)")
            #expect(try await publishedKids(scenario) == [third])

            let ahead = try await tessera(["admin", "tenant", "rotate-key", "--tenant", tenant, "--publish-only", "--json"], environment: admin)
            #expect(ahead.0 == 0 && ahead.1["active"] as? Bool == false, "\(ahead.2)")
            let fourth = try #require(ahead.1["kid"] as? String, "\(ahead.2)")
            #expect(try await publishedKids(scenario) == [third, fourth])
            let activated = try await tessera(["admin", "tenant", "activate-key", "--tenant", tenant, "--kid", fourth], environment: admin)
            let states = activated.2.split(separator: "\n").map(String.init)
            #expect(activated.0 == 0 && states.count == 2, "\(activated.2)")
            #expect(states.contains { $0.hasPrefix("\(fourth)\tactive\t") } && states.contains { $0.hasPrefix("\(third)\tinactive\t") })
            let unknown = try await tessera(["admin", "tenant", "activate-key", "--tenant", tenant, "--kid", "-nope"], environment: admin)
            #expect(unknown.0 != 0 && unknown.2.contains("404"), "\(unknown.2)")
        }
    }

    @Test("a node whose master key is not the one the database was first sealed with refuses to start, even with no tenant yet")
    func sealedDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-seal-\(UUID().uuidString)")
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-seal-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        let port = try TestServerPort.free(restartable: true)
        let database = try await TestDatabase.fresh()
        let databaseArguments = database.map { ["--database", $0] } ?? []
        let token = "seal-test-admin-token-\(UUID().uuidString)"
        let keyFile = directory.appendingPathComponent("master.key")

        // The first node seals the empty database (no tenant, no signing key) and stops.
        let first = try await serve(directory: directory, port: port, database: database, token: token)
        first.terminate()
        try await first.waitForExit()
        let original = try Data(contentsOf: keyFile)
        let refusedServe = { (dataDirectory: URL) in
            try await tessera(
                ["serve", "--port", "\(port)", "--data-dir", dataDirectory.path] + databaseArguments,
                environment: ["TESSERA_ADMIN_TOKEN": token])
        }
        if database != nil {
            // A second node with a data directory (and master key) of its own: refused.
            let other = try await refusedServe(elsewhere)
            #expect(other.0 != 0 && other.2.contains("not the one this database was first sealed with"), "\(other.2)")
        }
        // The same data directory with another master key: refused, and the seal is unchanged.
        try Data((Base64URL.encode(Secrets.randomBytes(32)) + "\n").utf8).write(to: keyFile)
        let wrong = try await refusedServe(directory)
        #expect(wrong.0 != 0 && wrong.2.contains("not the one this database was first sealed with"), "\(wrong.2)")
        // With its own key back, the node starts.
        try original.write(to: keyFile)
        let again = try await serve(directory: directory, port: port, database: database, token: token)
        again.terminate()
        try await again.waitForExit()
    }

    @Test("tessera rekey seals every secret under a new master key; after a restart logins, OTP and the JWKS are as before")
    func rekey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-rekey-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try TestServerPort.free(restartable: true)
        let database = try await TestDatabase.fresh()
        let databaseArguments = database.map { ["--database", $0] } ?? []
        let token = "rekey-test-admin-token-\(UUID().uuidString)"
        let keyFile = directory.appendingPathComponent("master.key")
        let previousFile = directory.appendingPathComponent("master.key.previous")
        let nextFile = directory.appendingPathComponent("master.key.next")

        let missing = try await tessera(["rekey", "--data-dir", directory.path] + databaseArguments)
        #expect(missing.0 != 0 && missing.2.contains("master.key"), "no data directory yet: \(missing.2)")

        let first = try await serve(directory: directory, port: port, database: database, token: token)
        defer { if first.isRunning { first.terminate() } }
        let scenario = try await Scenario.make(baseURL: "http://127.0.0.1:\(port)", adminToken: token)
        let service = try await scenario.createService(policy: "device+pin,device+otp")
        try await scenario.createUser("otto", attributes: ["preferred_username": "otto"])
        let (device, _) = try await activateDevice(scenario, username: "otto", otp: true)
        defer { device.remove() }
        // A federation whose client secret is sealed: the tenant signs its own users in
        // as an external provider would, linked by the preferred_username it releases.
        let callback = "\(scenario.issuer)/authorize/federation/callback"
        let federating = try await scenario.createService(policy: "device+pin,federation", redirectURI: "http://127.0.0.1:9/fed")
        let asClient = try await scenario.createService(
            policy: "device+pin", attributes: ["preferred_username"], redirectURI: callback, name: "Itself")
        let provider = try await scenario.http.postJSON(
            "\(scenario.baseURL)/admin/tenants/\(scenario.tenant)/identity-providers",
            [
                "name": "itself", "display_name": "Itself", "discovery_url": "\(scenario.issuer)/.well-known/openid-configuration",
                "client_id": asClient.clientID, "client_secret": try #require(asClient.clientSecret), "link_claim": "preferred_username",
                "link_field": "username",
            ], headers: ["Authorization": "Bearer \(token)"])
        #expect(provider.status == 201, "\(provider.text)")
        let keysBefore = try await publishedKeys(scenario)
        let original = try Data(contentsOf: keyFile)

        // While a server runs on the data directory, rekey refuses and changes nothing.
        let busy = try await tessera(["rekey", "--data-dir", directory.path] + databaseArguments)
        #expect(busy.0 != 0 && busy.2.contains("stop every node"), "\(busy.2)")
        #expect(try Data(contentsOf: keyFile) == original)
        #expect(!FileManager.default.fileExists(atPath: nextFile.path))
        if database != nil {
            // So does a rekey from another machine's data directory (the same master key)
            // while a node serves the database.
            let elsewhere = directory.appendingPathComponent("elsewhere")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            try original.write(to: elsewhere.appendingPathComponent("master.key"))
            let remote = try await tessera(["rekey", "--data-dir", elsewhere.path] + databaseArguments)
            #expect(remote.0 != 0 && remote.2.contains("stop every node"), "\(remote.2)")
            #expect(try Data(contentsOf: elsewhere.appendingPathComponent("master.key")) == original)
            #expect(!FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("master.key.next").path))
        }
        first.terminate()
        try await first.waitForExit()

        // A server does not start while a rekey holds the data directory.
        // `tessera serve` run to its end: these starts are expected to be refused.
        let refusedServe = { (dataDirectory: URL) in
            try await tessera(
                ["serve", "--port", "\(port)", "--data-dir", dataDirectory.path] + databaseArguments,
                environment: ["TESSERA_ADMIN_TOKEN": token])
        }
        let held = try lockExclusively(directory.appendingPathComponent("tessera.lock"))
        let blocked = try await refusedServe(directory)
        close(held)
        #expect(blocked.0 != 0 && blocked.2.contains("a tessera rekey is running"), "\(blocked.2)")
        if let database {
            // Nor does a node elsewhere while a rekey holds the database's serving lock.
            let elsewhere = directory.appendingPathComponent("elsewhere")
            let waiting = try await TestDatabase.holdingServingLock(on: database) { try await refusedServe(elsewhere) }
            #expect(waiting.0 != 0 && waiting.2.contains("a tessera rekey is running"), "\(waiting.2)")
        }

        // Under a master key that does not open the data, rekey fails and changes nothing.
        let wrong = Data((Base64URL.encode(Secrets.randomBytes(32)) + "\n").utf8)
        try wrong.write(to: keyFile)
        let refused = try await tessera(["rekey", "--data-dir", directory.path, "--json"] + databaseArguments)
        #expect(refused.0 != 0, "\(refused.2)")
        #expect(try Data(contentsOf: keyFile) == wrong)
        #expect(!FileManager.default.fileExists(atPath: nextFile.path))
        #expect(!FileManager.default.fileExists(atPath: previousFile.path))
        try original.write(to: keyFile)

        let rekeyed = try await tessera(["rekey", "--data-dir", directory.path, "--json"] + databaseArguments)
        #expect(rekeyed.0 == 0, "\(rekeyed.2)")
        let counts = rekeyed.1["resealed"] as? [String: Any] ?? [:]
        #expect(counts["signing_keys"] as? Int == 1, "\(rekeyed.2)")
        #expect(counts["activation_pin_keys"] as? Int == 1)
        #expect(counts["activation_totp_secrets"] as? Int == 1)
        #expect(counts["invitation_pin_keys"] as? Int == 0)
        #expect(counts["ciba_notification_tokens"] as? Int == 0)
        #expect(counts["identity_provider_secrets"] as? Int == 1)
        #expect(try Data(contentsOf: keyFile) != original, "a new master key")
        #expect(try Data(contentsOf: previousFile) == original, "the old one kept beside it")
        #expect(!FileManager.default.fileExists(atPath: nextFile.path))
        for file in [keyFile, previousFile] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(file.lastPathComponent)")
        }

        // A node given the old master key after the rekey does not start.
        let renewed = try Data(contentsOf: keyFile)
        try original.write(to: keyFile)
        let stale = try await refusedServe(directory)
        #expect(stale.0 != 0 && stale.2.contains("does not open the database's signing keys"), "\(stale.2)")
        try renewed.write(to: keyFile)

        // Restarted on the new key: the same JWKS; the signing key, PIN key and TOTP secret open.
        let second = try await serve(directory: directory, port: port, database: database, token: token)
        defer { if second.isRunning { second.terminate() } }
        #expect(try await publishedKeys(scenario) == keysBefore)
        let tokens = try await loginTokens(scenario, service, device: device)
        let idToken = try #require(tokens["id_token"] as? String)
        let kid = try CompactJWS.parse(idToken).header.kid
        #expect(kid != nil && keysBefore.contains { $0.kid == kid }, "signed with the key from before")
        _ = try await verifyIDToken(idToken, scenario: scenario, clientID: service.clientID)
        let login = try await scenario.openLogin(service)
        let information = try await device.authenticator.start(url: login.authenticationURL)
        #expect(try await signAndFinish(information, device: device, factors: [.device, .otp]).isUserLogin)
        // The re-sealed client secret opens: the provider redeems the federation's code.
        let federated = try await scenario.openLogin(federating)
        let start = try await scenario.http.get(
            "\(scenario.issuer)/authorize/federation?request=\(try #require(Scenario.attribute("data-request", in: federated.page)))&provider=itself",
            headers: ["Cookie": federated.cookie])
        let back = try await FederationTests.signInAtProvider(try #require(start.header("Location")), provider: scenario, device: device)
        let finished = try await scenario.http.get(back, headers: ["Cookie": try FederationTests.cookies(after: start, login: federated.cookie)])
        #expect(finished.status == 302 && finished.header("Location") == federated.completeURL, "\(finished.status) \(finished.text)")
        second.terminate()
        try await second.waitForExit()
    }
}

/// Two nodes on one PostgreSQL database: a change to a tenant's keys made on one node is
/// what the other publishes and signs with, long before its cache would expire.
@Suite("Signing-key rotation on several nodes", .tags(.live, .cluster), .timeLimit(.minutes(5)),
    .enabled(if: TestDatabase.postgresURL != nil, "needs PostgreSQL; runs in the suite's PostgreSQL pass"))
struct ClusterKeyRotationTests {
    @Test("a key rotated or retired on one node is what every node publishes and signs with")
    func everyNode() async throws {
        let cluster = try await TestCluster.start(nodes: 2)
        do {
            try await rotateAcrossNodes(cluster)
            await cluster.stop()
        } catch {
            await cluster.stop()
            throw error
        }
    }

    func rotateAcrossNodes(_ cluster: TestCluster) async throws {
        let scenario = try await Scenario.make(baseURL: cluster.baseURL, adminToken: cluster.adminToken)
        let nodes = cluster.nodeURLs.map { Scenario(baseURL: $0, adminToken: cluster.adminToken, tenant: scenario.tenant) }
        let admin = ["Authorization": "Bearer \(cluster.adminToken)"]
        let service = try await scenario.createService()
        try await scenario.createUser("nia")
        let (device, _) = try await activateDevice(scenario, username: "nia")
        defer { device.remove() }

        // Both nodes have built (and cached) the tenant's issuer.
        let original = try await publishedKids(nodes[0])
        #expect(try await publishedKids(nodes[1]) == original)
        let oldKid = try #require(original.first)

        let rotated = try await nodes[0].http.send(
            "POST", "\(cluster.nodeURLs[0])/admin/tenants/\(scenario.tenant)/signing-keys", headers: admin)
        let newKid = try #require(try rotated.json()["kid"] as? String, "\(rotated.text)")
        let heard = try await eventually { try await publishedKids(nodes[1]) == [oldKid, newKid] }
        #expect(heard, "node B publishes the key node A made")

        // Node B signs with it: a login completed and redeemed there.
        let login = try await scenario.openLogin(service)
        let information = try await device.authenticator.start(url: login.authenticationURL)
        #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
        let onB = login.via(cluster.nodeURLs[1], instead: cluster.baseURL)
        let code = try #require(try await nodes[1].complete(onB)["code"])
        let tokens = try await nodes[1].redeem(code: code, service: service, verifier: login.verifier).json()
        let idToken = try #require(tokens["id_token"] as? String, "\(tokens)")
        #expect(try CompactJWS.parse(idToken).header.kid == newKid)

        // Retired on node B: node A stops publishing it.
        let retired = try await nodes[1].http.send(
            "DELETE", "\(cluster.nodeURLs[1])/admin/tenants/\(scenario.tenant)/signing-keys/\(oldKid)", headers: admin)
        #expect(retired.status == 200, "\(retired.text)")
        let dropped = try await eventually { try await publishedKids(nodes[0]) == [newKid] }
        #expect(dropped, "node A drops the key node B retired")
    }
}

/// Holds an exclusive flock on `file`, as `tessera rekey` does, until the descriptor is closed.
private func lockExclusively(_ file: URL) throws -> Int32 {
    let descriptor = open(file.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
        throw TestSupportError("cannot lock \(file.path)")
    }
    return descriptor
}
