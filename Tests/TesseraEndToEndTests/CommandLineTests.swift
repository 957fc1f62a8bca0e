import Foundation
import Testing
import TesseraBuildInfo
import TesseraCrypto
import TesseraStore
import TesseraTesting

/// The `tessera` executable built next to this test bundle.
let tesseraBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tessera").path

/// Runs `tessera` and decodes its `--json` output.
func tessera(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, [String: Any], String) {
    let result = try await Program.run(tesseraBinary, arguments, environment: environment)
    let object = (try? JSONSerialization.jsonObject(with: Data(result.output.utf8))) as? [String: Any] ?? [:]
    return (result.status, object, result.output + result.errors)
}

@Suite("The tessera command line against tessera serve", .tags(.live), .timeLimit(.minutes(5)))
struct CommandLineTests {
    /// `tessera serve` in a child process; returns it with the admin token it printed.
    /// `database`: a PostgreSQL URL (from `TestDatabase.fresh()`), or nil for SQLite.
    func startServe(dataDirectory: URL, port: Int, database: String?, arguments: [String] = []) async throws -> (ChildProcess, String?, OutputBuffer) {
        let process = try await ChildProcess.start(
            tesseraBinary,
            ["serve", "--port", "\(port)", "--data-dir", dataDirectory.path, "--log-level", "warning"]
                + (database.map { ["--database", $0, "--database-connections", "4"] } ?? []) + arguments,
            environment: ["TESSERA_ADMIN_TOKEN": nil], collectOutput: true)
        let lines = process.output
        let http = TestHTTP()
        for _ in 0..<100 {
            if (try? await http.get("http://127.0.0.1:\(port)/health"))?.status == 200 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let token = lines.text.split(separator: "\n").first { $0.contains("TESSERA_ADMIN_TOKEN=") }
            .map { String($0.split(separator: "=").last ?? "") }
        return (process, token, lines)
    }

    /// A `tessera serve` of its own for one test: its URL, the generated admin token, the
    /// environment `tessera admin` needs, and a directory for device stores.
    struct Serve {
        let server: String
        let token: String
        let admin: [String: String]
        let directory: URL
        /// The PostgreSQL database of the run, or nil on SQLite.
        let database: String?
        func store(_ name: String) -> String { directory.appendingPathComponent(name).path }
    }

    /// Runs `body` against a fresh `tessera serve`, which is stopped (and its data removed)
    /// whatever happens.
    func withServe(arguments: [String] = [], _ body: (Serve) async throws -> Void) async throws {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-cli-\(UUID().uuidString)")
        let port = try TestServerPort.free(restartable: true)
        let server = "http://127.0.0.1:\(port)"
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let database = try await TestDatabase.fresh()
        let (process, generated, _) = try await startServe(dataDirectory: dataDirectory, port: port, database: database, arguments: arguments)
        defer { if process.isRunning { process.terminate() } }
        let token = try #require(generated, "the first start prints a generated admin token")
        try await body(
            Serve(
                server: server, token: token, admin: ["TESSERA_SERVER": server, "TESSERA_ADMIN_TOKEN": token], directory: dataDirectory,
                database: database))
        process.terminate()
        try await process.waitForExit()
    }

    @Test("tessera --version names the build (git describe and the commit); tessera health exits 0 when /ready answers, 1 when nothing does")
    func versionAndHealth() async throws {
        let (status, _, version) = try await tessera(["--version"])
        #expect(status == 0)
        #expect(version.trimmingCharacters(in: .whitespacesAndNewlines) == BuildInfo.summary)
        #expect(BuildInfo.version != "unknown" && BuildInfo.commit.count == 40, "built from a git checkout: \(BuildInfo.summary)")
        let head = try await Program.run("/usr/bin/git", ["-C", URL(fileURLWithPath: #filePath).deletingLastPathComponent().path, "rev-parse", "HEAD"])
        if head.status == 0 { #expect(head.output.trimmingCharacters(in: .whitespacesAndNewlines) == BuildInfo.commit) }

        try await withServe { serve in
            let (ready, _, quiet) = try await tessera(["health", "--url", serve.server])
            #expect(ready == 0 && quiet.isEmpty, "\(quiet)")
            #expect(try await tessera(["health", "--url", "\(serve.server)/ready"]).0 == 0)
        }
        let closed = try TestServerPort.free()
        let (down, _, said) = try await tessera(["health", "--url", "http://127.0.0.1:\(closed)", "--timeout", "2"])
        #expect(down == 1 && said.contains("no answer"), "\(said)")
        let (bad, _, _) = try await tessera(["health", "--url", "ftp://example.com"])
        #expect(bad == 64)
    }

    @Test("under systemd (Type=notify) tessera serve sends READY=1 once it serves and STOPPING=1 when it begins to stop")
    func systemdNotify() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("notify.sock").path
        let listener = try await ChildProcess.start(
            "/usr/bin/env", ["python3", Python.interopDirectory().appendingPathComponent("notify_socket.py").path, socket, "60"],
            collectOutput: true)
        defer { if listener.isRunning { listener.kill() } }
        for _ in 0..<100 where !listener.output.text.contains("listening") { try await Task.sleep(for: .milliseconds(50)) }
        let port = try TestServerPort.free()
        let serve = try await ChildProcess.start(
            tesseraBinary,
            ["serve", "--port", "\(port)", "--data-dir", directory.appendingPathComponent("data").path, "--log-level", "warning"],
            environment: ["NOTIFY_SOCKET": socket, "TESSERA_ADMIN_TOKEN": "notify-test-admin-token"], collectOutput: true)
        defer { if serve.isRunning { serve.terminate() } }
        for _ in 0..<100 where !listener.output.text.contains("READY=1") { try await Task.sleep(for: .milliseconds(100)) }
        #expect(listener.output.text.contains("READY=1|STATUS=listening on 127.0.0.1:\(port)|MAINPID=\(serve.processIdentifier)"), "\(listener.output.text)")
        // Ready means serving: /ready answers at once.
        #expect(try await TestHTTP().get("http://127.0.0.1:\(port)/ready").status == 200)
        serve.terminate()
        try await serve.waitForExit()
        try await listener.waitForExit()
        #expect(listener.terminationStatus == 0 && listener.output.text.contains("STOPPING=1"), "\(listener.output.text)")
    }

    @Test("tessera serve runs on a database a later release migrated additively, and exits 78 on one past its schema (the packaged unit does not restart on it), naming both releases")
    func schemaNewerThanBuild() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try TestServerPort.free()
        let token = "schema-test-admin-token"
        let first = try await serve(directory: directory, port: port, database: nil, token: token)
        first.terminate()
        try await first.waitForExit()
        // What a later release's migration leaves behind: a version this build does not
        // know, with the oldest schema that may still run on it.
        func recordLaterMigration(_ version: Int, compatibleFrom: Int, by release: String) async throws {
            let insert = try await Program.run(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('INSERT INTO schema_migrations VALUES (?, 0, ?, ?)', (int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])); c.commit()",
                    directory.appendingPathComponent("tessera.sqlite").path, "\(version)", "\(compatibleFrom)", release,
                ])
            try #require(insert.status == 0, "\(insert.errors)")
        }
        // Additive (a rolling upgrade's newer node migrated): this build serves and is ready.
        try await recordLaterMigration(99_999, compatibleFrom: SQLStore.latestSchemaVersion, by: "v98.0.0")
        let beside = try await serve(directory: directory, port: port, database: nil, token: token)
        beside.terminate()
        try await beside.waitForExit()
        // Past this build's schema: refused, exit 78.
        try await recordLaterMigration(100_000, compatibleFrom: 100_000, by: "v99.0.0")
        let refused = try await Program.run(
            tesseraBinary, ["serve", "--port", "\(port)", "--data-dir", directory.path, "--log-level", "critical"],
            environment: ["TESSERA_ADMIN_TOKEN": token])
        #expect(refused.status == 78, "\(refused.output)\(refused.errors)")
        #expect(
            refused.errors.contains("schema is version 100000 and needs a build of schema 100000 or later (v99.0.0 or later)")
                && refused.errors.contains("\(BuildInfo.version), knows schema \(SQLStore.latestSchemaVersion)"), "\(refused.errors)")
    }

    @Test("SIGHUP makes tessera serve load its TLS certificate and key again")
    func tlsReloadOnHangUp() async throws {
        let tls = try await TLSSwap.make()
        defer { tls.remove() }
        let port = try TestServerPort.free()
        let process = try await ChildProcess.start(
            tesseraBinary,
            [
                "serve", "--port", "\(port)", "--data-dir", tls.directory.appendingPathComponent("data").path, "--log-level", "warning",
                "--tls-certificate", tls.certificate.path, "--tls-key", tls.key.path, "--tls-watch-interval", "0",
            ], environment: ["TESSERA_ADMIN_TOKEN": "tls-hup-admin-token"], collectOutput: true)
        defer { if process.isRunning { process.terminate() } }
        #expect(try await tls.serves(tls.first, port: port, within: 20), "\(process.output.text)")
        #expect(tls.swapCertificate() && tls.swapKey())
        // No file watch: the old pair stays until the signal.
        #expect(try await tls.serves(tls.first, port: port))
        process.hangUp()
        #expect(try await tls.serves(tls.certificate, port: port, within: 10), "\(process.output.text)")
        #expect(process.isRunning, "SIGHUP does not stop the server")
        process.terminate()
        try await process.waitForExit()
    }

    @Test("serve, admin and device commands: invite, activate, lockout, login, unlock, restart")
    func walkthrough() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-cli-\(UUID().uuidString)")
        let store = dataDirectory.appendingPathComponent("device").path
        let port = try TestServerPort.free(restartable: true)
        let server = "http://127.0.0.1:\(port)"
        defer { try? FileManager.default.removeItem(at: dataDirectory) }

        let database = try await TestDatabase.fresh()
        let (process, generated, _) = try await startServe(dataDirectory: dataDirectory, port: port, database: database)
        // Whatever fails below, no server is left running after the test.
        defer { if process.isRunning { process.terminate() } }
        let token = try #require(generated, "the first start prints a generated admin token")
        let attributes = try FileManager.default.attributesOfItem(atPath: dataDirectory.appendingPathComponent("master.key").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let admin = ["TESSERA_SERVER": server, "TESSERA_ADMIN_TOKEN": token]

        let tenant = try await tessera(["admin", "tenant", "create", "demo", "--lockout-free-attempts", "0", "--lockout-waits", "5,60"], environment: admin)
        #expect(tenant.0 == 0, "\(tenant.2)")
        #expect(tenant.2.trimmingCharacters(in: .whitespacesAndNewlines) == "\(server)/t/demo")
        let service = try await tessera(
            ["admin", "service", "create", "--tenant", "demo", "--name", "Demo", "--redirect-uri", "http://127.0.0.1:9/cb",
             "--policy", "device+pin", "--attributes", "email", "--json"], environment: admin)
        let clientID = try #require(service.1["client_id"] as? String, "\(service.2)")
        let clientSecret = try #require(service.1["client_secret"] as? String)
        #expect(try await tessera(["admin", "user", "create", "--tenant", "demo", "--username", "alice", "--attribute", "email=a@example.com"], environment: admin).0 == 0)
        let invite = try await tessera(["admin", "invite", "--tenant", "demo", "--username", "alice", "--json"], environment: admin)
        let url = try #require(invite.1["url"] as? String, "\(invite.2)")

        let activation = try await tessera(["device", "activate", url, "--pin", "2468", "--alias", "laptop", "--store", store, "--json"])
        #expect(activation.0 == 0, "\(activation.2)")
        let activationID = try #require(activation.1["activation_id"] as? String)
        let reused = try await tessera(["device", "activate", url, "--pin", "2468", "--store", store + "2"])
        #expect(reused.0 != 0, "an invitation works once")
        let users = try await Program.run(tesseraBinary, ["device", "users", "--store", store])
        #expect(users.output.contains("demo\talice\t\(activationID)"))

        let scenario = Scenario(baseURL: server, adminToken: token, tenant: "demo")
        let login = try await scenario.openLogin(.init(clientID: clientID, clientSecret: clientSecret, redirectURI: "http://127.0.0.1:9/cb"))
        // The service asks for number matching (the default): without the page's number the
        // command refuses before signing anything.
        let matchCode = try #require(login.matchCode, "the login page shows a number")
        let unpicked = try await tessera(["device", "login", login.authenticationURL.absoluteString, "--pin", "0000", "--store", store])
        #expect(unpicked.0 == 1 && unpicked.2.contains("--number"), "\(unpicked.2)")
        let wrong = try await tessera(
            ["device", "login", login.authenticationURL.absoluteString, "--pin", "0000", "--number", matchCode, "--store", store, "--json"])
        #expect(wrong.0 == 3)
        #expect(wrong.1["result"] as? String == "lockout")
        #expect(wrong.1["isPermanent"] as? Bool == false)
        #expect(wrong.1["lockedUntil"] != nil)
        let listed = try await tessera(["admin", "activation", "list", "--tenant", "demo", "--username", "alice", "--json"], environment: admin)
        #expect(((listed.1["activations"] as? [[String: Any]])?.first?["failed_attempts"] as? Int) == 1)
        let unlocked = try await tessera(["admin", "activation", "unlock", activationID], environment: admin)
        #expect(unlocked.0 == 0, "\(unlocked.2)")
        // The right PIN, with the link read from the page's QR code as a camera would.
        let image = dataDirectory.appendingPathComponent("login-qr.pgm")
        try Data(try ZBar.pgm(fromSVGIn: login.page)).write(to: image)
        let right = try await tessera(
            ["device", "login", "--qr-image", image.path, "--pin", "2468", "--factors", "device,pin", "--number", matchCode, "--store", store, "--json"])
        #expect(right.0 == 0, "\(right.2)")
        #expect(right.1["result"] as? String == "userLogin")
        let code = try #require(try await scenario.complete(login)["code"])
        let tokens = try await scenario.redeem(code: code, service: .init(clientID: clientID, clientSecret: clientSecret, redirectURI: "http://127.0.0.1:9/cb"), verifier: login.verifier)
        #expect(tokens.status == 200)

        // SIGTERM stops the server cleanly; a restart keeps everything and prints no new token.
        process.terminate()
        try await process.waitForExit()
        #expect(process.exitedNormally && process.terminationStatus == 0)
        let (again, secondToken, _) = try await startServe(dataDirectory: dataDirectory, port: port, database: database)
        defer { if again.isRunning { again.terminate() } }
        #expect(secondToken == nil)
        let tenants = try await tessera(["admin", "tenant", "list"], environment: admin)
        #expect(tenants.2.contains("demo\t\(server)/t/demo"))
        again.terminate()
        try await again.waitForExit()
    }

    @Test("account processes from the command line: change-pin, add-factor, new-activation, devices, merge, history, unregister, delete, audit")
    func accountProcesses() async throws {
        try await withServe { serve in
            let (laptop, phone, admin) = (serve.store("laptop"), serve.store("phone"), serve.admin)

            #expect(try await tessera(["admin", "tenant", "create", "acme"], environment: admin).0 == 0)
            #expect(try await tessera(["admin", "user", "create", "--tenant", "acme", "--username", "alice"], environment: admin).0 == 0)
            #expect(try await tessera(["admin", "user", "create", "--tenant", "acme", "--username", "alice.work"], environment: admin).0 == 0)
            let invite = try await tessera(["admin", "invite", "--tenant", "acme", "--username", "alice", "--json"], environment: admin)
            let activated = try await tessera(["device", "activate", try #require(invite.1["url"] as? String, "\(invite.2)"), "--pin", "2468", "--alias", "laptop", "--store", laptop, "--json"])
            let laptopID = try #require(activated.1["activation_id"] as? String, "\(activated.2)")

            // A wrong PIN in a process is a lockout like in a login (exit code 3).
            let wrong = try await tessera(["device", "change-pin", "--pin", "0000", "--new-pin", "1111", "--store", laptop, "--json"])
            #expect(wrong.0 == 3 && wrong.1["result"] as? String == "lockout", "\(wrong.2)")
            let changed = try await tessera(["device", "change-pin", "--pin", "2468", "--new-pin", "13579", "--store", laptop, "--json"])
            #expect(changed.1["result"] as? String == "apiAccessChangePin", "\(changed.2)")
            let otp = try await tessera(["device", "add-factor", "otp", "--pin", "13579", "--store", laptop, "--json"])
            #expect(otp.1["result"] as? String == "apiAccessAddFactor", "\(otp.2)")
            #expect(Set(otp.1["factors"] as? [String] ?? []) == ["device", "otp", "pin"])
            #expect((otp.1["otpauth_uri"] as? String)?.hasPrefix("otpauth://") == true)

            let moved = try await tessera(["device", "new-activation", "--pin", "13579", "--new-pin", "97531", "--alias", "phone", "--store", laptop, "--json"])
            #expect(moved.1["result"] as? String == "apiAccessRequestNewActivationData", "\(moved.2)")
            let phoneActivation = try await tessera(["device", "activate", try #require(moved.1["url"] as? String), "--pin", "97531", "--store", phone, "--json"])
            let phoneID = try #require(phoneActivation.1["activation_id"] as? String, "\(phoneActivation.2)")

            let devices = try await tessera(["device", "devices", "--pin", "13579", "--store", laptop, "--json"])
            #expect(devices.1["result"] as? String == "apiAccessListDevices", "\(devices.2)")
            let rows = devices.1["devices"] as? [[String: Any]] ?? []
            #expect(Set(rows.compactMap { $0["activation_id"] as? String }) == [laptopID, phoneID])
            #expect(rows.first { $0["current"] as? Bool == true }?["alias"] as? String == "laptop")

            // An invitation opened on a device that holds an activation is merged into it.
            let work = try await tessera(["admin", "invite", "--tenant", "acme", "--username", "alice.work", "--json"], environment: admin)
            let merged = try await tessera(["device", "activate", try #require(work.1["url"] as? String), "--pin", "13579", "--store", laptop, "--json"])
            #expect(merged.1["result"] as? String == "apiAccessMergeComplete", "\(merged.2)")
            #expect(merged.1["idm_identifier"] is String)
            let users = try await Program.run(tesseraBinary, ["device", "users", "--store", laptop])
            #expect(users.output.contains("acme\talice\t\(laptopID)") && users.output.contains("acme\talice.work\t\(laptopID)"), "\(users.output)")

            let unregistered = try await tessera(["device", "unregister", phoneID, "--pin", "13579", "--store", laptop, "--json"])
            #expect(unregistered.1["result"] as? String == "apiAccessUnregisterDevice", "\(unregistered.2)")
            #expect(unregistered.1["removed"] as? String == phoneID)

            let history = try await tessera(["device", "history", "--store", laptop, "--json"])
            let purposes = (history.1["entries"] as? [[String: Any]] ?? []).compactMap { $0["purpose"] as? String }
            for purpose in ["change_pin", "add_factor", "new_activation_data", "list_devices", "merge", "unregister_device"] {
                #expect(purposes.contains(purpose), "history has \(purpose): \(history.2)")
            }

            let deleted = try await tessera(["device", "delete", "--pin", "13579", "--store", laptop, "--json"])
            #expect(deleted.1["result"] as? String == "apiAccessDelete", "\(deleted.2)")
            #expect(try await Program.run(tesseraBinary, ["device", "users", "--store", laptop]).output.isEmpty)

            let audit = try await tessera(["admin", "audit", "--tenant", "acme", "--json"], environment: admin)
            let actions = (audit.1["entries"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
            for action in ["pin.change", "factor.add", "activation_data.create", "activation.merge", "activation.unregister", "activation.delete"] {
                #expect(actions.contains(action), "audit has \(action): \(audit.2)")
            }
            let text = try await tessera(["admin", "audit", "--tenant", "acme"], environment: admin)
            #expect(text.2.contains("activation:\(laptopID)\tactivation.delete"))
        }
    }

    @Test("push step-up from the command line: service --backchannel-mode, device pending --wait, approve, deny")
    func backchannel() async throws {
        try await withServe { serve in
            let (phone, server, token, admin) = (serve.store("phone"), serve.server, serve.token, serve.admin)

            let bank = try await tessera(["admin", "tenant", "create", "bank"], environment: admin)
            #expect(bank.0 == 0, "\(bank.2)")
            let refused = try await tessera(
                ["admin", "service", "create", "--tenant", "bank", "--name", "Teller", "--backchannel-mode", "ping"], environment: admin)
            #expect(refused.0 != 0, "ping mode needs --notification-endpoint")
            let created = try await tessera(
                ["admin", "service", "create", "--tenant", "bank", "--name", "Teller", "--backchannel-mode", "poll", "--policy", "device+pin",
                 "--role", "teller=device+pin", "--app-identity-token", "--json"], environment: admin)
            #expect(created.1["backchannel_token_delivery_mode"] as? String == "poll", "\(created.2)")
            let service = Scenario.Service(
                clientID: try #require(created.1["client_id"] as? String), clientSecret: created.1["client_secret"] as? String, redirectURI: "")
            #expect(try await tessera(["admin", "user", "create", "--tenant", "bank", "--username", "olga"], environment: admin).0 == 0)
            let invite = try await tessera(["admin", "invite", "--tenant", "bank", "--username", "olga", "--json"], environment: admin)
            let activated = try await tessera(["device", "activate", try #require(invite.1["url"] as? String, "\(invite.2)"), "--pin", "2468", "--store", phone])
            #expect(activated.0 == 0, "\(activated.2)")

            // The device waits for a request; the service's server starts one meanwhile.
            let waiting = Task { try await Program.run(tesseraBinary, ["device", "pending", "--wait", "60", "--store", phone, "--json"]) }
            try await Task.sleep(for: .milliseconds(500))
            let scenario = Scenario(baseURL: server, adminToken: token, tenant: "bank")
            let started = try await scenario.tokenRequest(
                ["scope": "openid", "login_hint": "olga", "binding_message": "Withdraw 100"], service: service, endpoint: "bc-authorize")
            let id = try #require(try started.json()["auth_req_id"] as? String, "\(started.text)")
            let listed = try await waiting.value
            let object = (try? JSONSerialization.jsonObject(with: Data(listed.output.utf8))) as? [String: Any] ?? [:]
            let rows = object["requests"] as? [[String: Any]] ?? []
            #expect(rows.count == 1 && rows.first?["id"] as? String == id, "\(listed.output)\(listed.errors)")
            #expect(rows.first?["service"] as? String == "Teller")
            #expect(rows.first?["binding_message"] as? String == "Withdraw 100")
            let text = try await tessera(["device", "pending", "--store", phone])
            #expect(text.2.hasPrefix("\(id)\tTeller\tWithdraw 100\tolga\t"), "\(text.2)")

            let approved = try await tessera(["device", "approve", id, "--pin", "2468", "--store", phone, "--json"])
            #expect(approved.0 == 0 && approved.1["result"] as? String == "userLogin", "\(approved.2)")
            // The step-up's identity token for the app, and the role its factors were used in.
            #expect(approved.1["role"] as? String == "teller" && (approved.1["identityToken"] as? String)?.split(separator: ".").count == 3)
            let tokens = try await scenario.tokenRequest(["grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": id], service: service)
            let idToken = try tokens.json()["id_token"] as? String
            #expect(tokens.status == 200 && idToken != nil, "\(tokens.text)")
            let again = try await tessera(["device", "approve", id, "--pin", "2468", "--store", phone])
            #expect(again.0 == 1 && again.2.contains("authenticated"), "answered already: \(again.2)")

            let second = try await scenario.tokenRequest(["scope": "openid", "login_hint": "olga"], service: service, endpoint: "bc-authorize")
            let secondID = try #require(try second.json()["auth_req_id"] as? String)
            let denied = try await tessera(["device", "deny", secondID, "--store", phone, "--json"])
            #expect(denied.0 == 0 && denied.1["result"] as? String == "denied", "\(denied.2)")
            let refusal = try await scenario.tokenRequest(["grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": secondID], service: service)
            #expect(try refusal.json()["error"] as? String == "access_denied")
            #expect(try await tessera(["device", "pending", "--store", phone, "--json"]).1["requests"] as? [Any] != nil)
        }
    }

    @Test("in-app login and tokens from the command line: in-app-login prints the backend's code, token keeps and refreshes")
    func inAppAndTokens() async throws {
        try await withServe { serve in
            let (phone, server, token, admin) = (serve.store("phone"), serve.server, serve.token, serve.admin)

            #expect(try await tessera(["admin", "tenant", "create", "shop"], environment: admin).0 == 0)
            let backend = try await tessera(
                ["admin", "service", "create", "--tenant", "shop", "--name", "Shop backend", "--redirect-uri", "https://shop.example/cb",
                 "--json"], environment: admin)
            let backendService = Scenario.Service(
                clientID: try #require(backend.1["client_id"] as? String), clientSecret: backend.1["client_secret"] as? String,
                redirectURI: "https://shop.example/cb")
            let app = try await tessera(
                ["admin", "service", "create", "--tenant", "shop", "--name", "Shop app", "--redirect-uri", "com.shop.app:/cb", "--public",
                 "--json"], environment: admin)
            let appID = try #require(app.1["client_id"] as? String)
            #expect(try await tessera(["admin", "user", "create", "--tenant", "shop", "--username", "pia"], environment: admin).0 == 0)
            let invite = try await tessera(["admin", "invite", "--tenant", "shop", "--username", "pia", "--json"], environment: admin)
            #expect(try await tessera(["device", "activate", try #require(invite.1["url"] as? String, "\(invite.2)"), "--pin", "2468", "--store", phone]).0 == 0)

            let verifier = PKCE.makeVerifier()
            let login = try await tessera(
                ["device", "in-app-login", "--client-id", backendService.clientID, "--redirect-uri", backendService.redirectURI,
                 "--code-challenge", PKCE.challenge(forVerifier: verifier), "--state", "st", "--pin", "2468", "--store", phone, "--json"])
            #expect(login.0 == 0 && login.1["result"] as? String == "serviceLogin", "\(login.2)")
            #expect(login.1["state"] as? String == "st")
            let code = try #require(login.1["code"] as? String)
            let scenario = Scenario(baseURL: server, adminToken: token, tenant: "shop")
            let redeemed = try await scenario.redeem(code: code, service: backendService, verifier: verifier)
            #expect(redeemed.status == 200, "\(redeemed.text)")

            let none = try await tessera(["device", "token", "--user", "pia", "--store", phone, "--json"])
            #expect(none.0 == 4 && none.1["status"] as? String == "noTokenDataAvailable", "\(none.2)")
            let first = try await tessera(
                ["device", "token", "--user", "pia", "--client-id", appID, "--redirect-uri", "com.shop.app:/cb", "--pin", "2468", "--store", phone,
                 "--json"])
            #expect(first.0 == 0 && first.1["status"] as? String == "ok", "\(first.2)")
            let access = try #require(first.1["access_token"] as? String)
            // DPoP-bound by default: as a bearer token it is refused.
            #expect(first.1["token_type"] as? String == "DPoP")
            let userinfo = try await TestHTTP().get("\(server)/t/shop/userinfo", headers: ["Authorization": "Bearer \(access)"])
            #expect(userinfo.status == 401)
            let kept = try await tessera(["device", "token", "--user", "pia", "--store", phone])
            #expect(kept.0 == 0 && kept.2.hasPrefix("status: ok\naccess_token: "), "\(kept.2)")
        }
    }

    @Test("tessera bench enrols devices and drives complete login, CIBA and refresh flows, with a summary, and holds long polls")
    func bench() async throws {
        // One address sends every flow, so the server runs as docs/PERFORMANCE.md says a
        // measured one does: without the per-address and per-client rate limits (at 200
        // refreshes a second the per-address bucket of 100/s ran dry in a CI run).
        try await withServe(arguments: ["--rate-limit-per-address", "0", "--rate-limit-per-client", "0"]) { serve in
            for flow in ["login", "ciba", "refresh"] {
                let result = try await tessera(
                    ["bench", "--tenant", "bench", "--devices", "2", "--concurrency", "2", "--duration", "2", "--flow", flow, "--json"],
                    environment: serve.admin)
                #expect(result.0 == 0, "\(result.2)")
                #expect(result.1["flow"] as? String == flow)
                #expect((result.1["completed"] as? Int ?? 0) > 0, "\(flow) completed flows: \(result.2)")
                #expect((result.1["errors"] as? [String: Any])?.isEmpty == true, "\(flow): \(result.2)")
                let latency = result.1["latency_ms"] as? [String: Any]
                #expect((latency?["p99.9"] as? Double ?? 0) >= (latency?["p50"] as? Double ?? 1))
                // CPU per flow: the server's from two readings of its /metrics, the bench's own.
                let cpu = try #require(result.1["cpu_ms"] as? [String: Any], "\(result.2)")
                let server = try #require(cpu["server_ms_per_flow"] as? Double, "\(cpu)")
                let user = try #require(cpu["server_user_ms_per_flow"] as? Double)
                let system = try #require(cpu["server_system_ms_per_flow"] as? Double)
                #expect(server > 0 && abs(server - user - system) < 0.001, "\(cpu)")
                #expect((cpu["bench_ms_per_flow"] as? Double ?? 0) > 0, "\(cpu)")
                // The server's database statements per flow, from its /metrics (its background
                // work included; StatementCountTests counts a login's exactly).
                let statements = try #require(cpu["server_statements_per_flow"] as? Double, "\(cpu)")
                #expect(statements > 0, "\(cpu)")
            }
            let text = try await tessera(
                ["bench", "--tenant", "bench", "--devices", "1", "--concurrency", "1", "--duration", "1"], environment: serve.admin)
            #expect(text.2.contains("completed: ") && text.2.contains("latency ms: p50"), "\(text.2)")
            #expect(text.2.contains("cpu ms per flow: server ") && text.2.contains("bench "), "\(text.2)")
            #expect(text.2.contains("database statements per flow: "), "\(text.2)")
            // Long polls held open: two devices, three polls each (the server's cap of 4 per
            // device holds); the server reports them (tessera_long_polls_open) and its memory.
            let polls = try await tessera(
                ["bench", "--tenant", "bench", "--devices", "2", "--concurrency", "6", "--duration", "1", "--flow", "long-poll", "--json"],
                environment: serve.admin)
            #expect(polls.0 == 0, "\(polls.2)")
            let held = try #require(polls.1["long_polls"] as? [String: Any], "\(polls.2)")
            #expect(held["requested"] as? Int == 6 && held["open"] as? Int == 6 && held["fewest_open"] as? Int == 6, "\(held)")
            #expect((held["server_resident_mib_open"] as? Double ?? 0) > 0 && held["server_kib_per_poll"] is Double, "\(held)")
            #expect(polls.1["completed"] as? Int == 6, "each poll's first answer: \(polls.2)")
            let metrics = try await TestHTTP().get("\(serve.server)/metrics")
            for name in ["process_cpu_seconds_total", "process_cpu_user_seconds_total", "process_resident_memory_bytes", "process_start_time_seconds"] {
                let line = metrics.text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
                #expect((line.flatMap { Double($0.dropFirst(name.count + 1)) } ?? 0) > 0, "\(name) in /metrics")
            }

            // tessera seed fills the tenant beside the running server; bench still runs on the larger database.
            let location = ["--data-dir", serve.directory.path] + (serve.database.map { ["--database", $0] } ?? [])
            let seeded = try await tessera(["seed", "--tenant", "bench", "--activations", "1200", "--json"] + location)
            #expect(seeded.0 == 0, "\(seeded.2)")
            #expect(seeded.1["created"] as? Int == 1200, "\(seeded.2)")
            #expect((seeded.1["activations"] as? Int ?? 0) >= 1200 + 2, "the bench's own devices and the seeded ones: \(seeded.2)")
            let after = try await tessera(
                ["bench", "--tenant", "bench", "--devices", "1", "--concurrency", "1", "--duration", "1", "--json"], environment: serve.admin)
            #expect(after.0 == 0 && (after.1["completed"] as? Int ?? 0) > 0, "\(after.2)")
            let unknown = try await tessera(["seed", "--tenant", "nobody", "--activations", "5"] + location)
            #expect(unknown.0 != 0 && unknown.2.contains("no tenant named nobody"), "\(unknown.2)")
            // A rekey that stopped half-way must be finished before anything seals again.
            let next = serve.directory.appendingPathComponent("master.key.next")
            try Data("unfinished\n".utf8).write(to: next)
            let refused = try await tessera(["seed", "--tenant", "bench", "--activations", "5"] + location)
            #expect(refused.0 != 0 && refused.2.contains("run tessera rekey again"), "\(refused.2)")
            try FileManager.default.removeItem(at: next)
        }
    }
}
