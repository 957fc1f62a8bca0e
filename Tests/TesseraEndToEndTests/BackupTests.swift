import Foundation
import Testing
import TesseraCrypto
import TesseraOperations
import TesseraTesting

extension CommandLineTests {
    @Test("tessera backup while tessera bench logs in; restore --verify names a wrong master key; restore --from serves the users again, the device logs in, and sessions from before the backup are over")
    func backupAndRestore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-backup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data")
        let port = try TestServerPort.free(restartable: true)
        let server = "http://127.0.0.1:\(port)"
        let database = try await TestDatabase.fresh()
        let (original, generated, _) = try await startServe(
            dataDirectory: data, port: port, database: database, arguments: ["--rate-limit-per-address", "0", "--rate-limit-per-client", "0"])
        defer { if original.isRunning { original.terminate() } }
        let token = try #require(generated, "the first start prints a generated admin token")
        let admin = ["TESSERA_SERVER": server, "TESSERA_ADMIN_TOKEN": token]
        do {
            // A user with a device (the command line's, whose keys live in a file), logged in once.
            #expect(try await tessera(["admin", "tenant", "create", "demo"], environment: admin).0 == 0)
            let created = try await tessera(
                ["admin", "service", "create", "--tenant", "demo", "--name", "Demo", "--redirect-uri", "http://127.0.0.1:9/cb",
                 "--policy", "device+pin", "--json"], environment: admin)
            let service = Scenario.Service(
                clientID: try #require(created.1["client_id"] as? String, "\(created.2)"), clientSecret: created.1["client_secret"] as? String,
                redirectURI: "http://127.0.0.1:9/cb")
            #expect(try await tessera(["admin", "user", "create", "--tenant", "demo", "--username", "alice"], environment: admin).0 == 0)
            let invite = try await tessera(["admin", "invite", "--tenant", "demo", "--username", "alice", "--json"], environment: admin)
            let device = directory.appendingPathComponent("alice-device").path
            let activated = try await tessera(
                ["device", "activate", try #require(invite.1["url"] as? String), "--pin", "2468", "--store", device, "--json"])
            #expect(activated.0 == 0, "\(activated.2)")
            let before = try await logIn(server: server, token: token, service: service, device: device)

            // The backup, taken while the bench logs devices in.
            let bench = try await ChildProcess.start(
                tesseraBinary, ["bench", "--tenant", "bench", "--devices", "2", "--concurrency", "2", "--duration", "6", "--json"],
                environment: admin, collectOutput: true)
            defer { if bench.isRunning { bench.kill() } }
            for _ in 0..<100 {
                // Until the bench's users exist and flows are under way.
                let users = try await tessera(["admin", "user", "list", "--tenant", "bench", "--json"], environment: admin)
                if (users.1["users"] as? [Any])?.count == 2 { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            try await Task.sleep(for: .seconds(1))
            let backup = directory.appendingPathComponent("backup").path
            let location = ["--data-dir", data.path] + (database.map { ["--database", $0] } ?? [])
            let backedUp = try await tessera(["backup", "--to", backup, "--json"] + location)
            #expect(backedUp.0 == 0, "\(backedUp.2)")
            try await bench.waitForExit(timeout: .seconds(60))
            let benched = (try? JSONSerialization.jsonObject(with: Data(bench.output.text.utf8))) as? [String: Any] ?? [:]
            #expect((benched["completed"] as? Int ?? 0) > 0 && (benched["errors"] as? [String: Any])?.isEmpty == true, "\(bench.output.text)")
            #expect(!FileManager.default.fileExists(atPath: backup + "/master.key"), "the master key only with --include-master-key")

            let restored = directory.appendingPathComponent("restored")
            let masterKey = data.appendingPathComponent("master.key").path
            var restoredDatabase: String?
            if database != nil {
                // PostgreSQL: the commands it printed copy the database and restore it into a new one.
                let dump = try #require(backedUp.1["dump_command"] as? String, "\(backedUp.2)")
                // As the printed advice says: libpq takes the password from PGPASSWORD.
                let password = ["PGPASSWORD": URLComponents(string: database ?? "")?.password ?? ""]
                let copied = try await Program.run("/bin/sh", ["-c", dump], environment: password)
                #expect(copied.status == 0, "\(dump): \(copied.errors)")
                let target = try #require(try await TestDatabase.fresh())
                let restore = try #require(backedUp.1["restore_command"] as? String)
                    .replacingOccurrences(of: "postgres://USER@HOST:PORT/NEW_DATABASE", with: target)
                let put = try await Program.run("/bin/sh", ["-c", restore], environment: password)
                #expect(put.status == 0, "\(restore): \(put.errors)")
                let withoutDatabase = try await tessera(["restore", "--verify", backup, "--master-key", masterKey])
                #expect(withoutDatabase.0 != 0 && withoutDatabase.2.contains("pg_restore"), "\(withoutDatabase.2)")
                restoredDatabase = target
            }
            let copy = restoredDatabase.map { ["--database", $0] } ?? []

            // A wrong master key, or none, is named as the cause, and nothing is restored.
            let wrong = directory.appendingPathComponent("wrong.key").path
            try Data("\(Base64URL.encode(SecretBox.makeMasterKey()))\n".utf8).write(to: URL(fileURLWithPath: wrong))
            let refused = try await tessera(["restore", "--verify", backup, "--master-key", wrong] + copy)
            #expect(refused.0 != 0 && refused.2.contains("does not open this backup"), "\(refused.2)")
            let noKey = try await tessera(["restore", "--verify", backup] + copy)
            #expect(noKey.0 != 0 && noKey.2.contains("give --master-key FILE"), "\(noKey.2)")
            let notRestored = try await tessera(["restore", "--from", backup, "--data-dir", restored.path, "--master-key", wrong] + copy)
            #expect(notRestored.0 != 0 && (try? FileManager.default.contentsOfDirectory(atPath: restored.path))?.isEmpty != false)

            let verified = try await tessera(["restore", "--verify", backup, "--master-key", masterKey, "--json"] + copy)
            #expect(verified.0 == 0, "\(verified.2)")
            let tables = verified.1["tables"] as? [String: Int] ?? [:]
            #expect(tables["users"] == 3 && tables["activations"] == 3, "alice and the bench's two: \(tables)")
            #expect((verified.1["sealed_total"] as? Int ?? 0) > 0 && verified.1["sealed_opened"] as? Int == verified.1["sealed_total"] as? Int)

            if database == nil {
                // A copy that lost rows is refused, never restored as if it were the data.
                let damaged = backup + "-damaged"
                try FileManager.default.copyItem(atPath: backup, toPath: damaged)
                let deleted = try await Program.run(
                    "/usr/bin/env",
                    ["python3", "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('DELETE FROM users WHERE username = ?', ('alice',)); c.execute('DELETE FROM activations WHERE user_id NOT IN (SELECT id FROM users)'); c.commit()", damaged + "/tessera.sqlite"])
                #expect(deleted.status == 0, "\(deleted.errors)")
                let short = try await tessera(["restore", "--verify", damaged, "--master-key", masterKey])
                #expect(short.0 != 0 && short.2.contains("the manifest 3"), "\(short.2)")
            }

            let put = try await tessera(["restore", "--from", backup, "--data-dir", restored.path, "--master-key", masterKey, "--json"] + copy)
            #expect(put.0 == 0, "\(put.2)")
            let ended = put.1["ended"] as? [String: Int] ?? [:]
            #expect((ended["sessions"] ?? 0) >= 1, "alice's session at least: \(put.2)")
            let inventory = put.1["inventory"] as? [String: Any] ?? [:]
            let activations = inventory["activations"] as? [[String: Any]] ?? []
            #expect(activations.contains { $0["username"] as? String == "alice" }, "\(inventory)")

            // The restored data replaces the server at its address: the users are there,
            // alice's device logs in, and the refresh token from before the backup is over.
            original.terminate()
            try await original.waitForExit()
            if database == nil {
                // A backup holds the data directory's lock shared: not while a rekey holds it.
                let rekeying = try DataDirectoryLock.take(.rekeying, in: DataDirectory(path: data.path))
                let during = try await tessera(["backup", "--to", directory.appendingPathComponent("during-rekey").path] + location)
                #expect(during.0 != 0 && during.2.contains("a tessera rekey is running"), "\(during.2)")
                rekeying.release()
                // With --include-master-key (and a warning), the backup restores on its own.
                let whole = directory.appendingPathComponent("with-key").path
                let keyed = try await tessera(["backup", "--to", whole, "--include-master-key"] + location)
                #expect(keyed.0 == 0 && keyed.2.contains("warning: the backup holds master.key"), "\(keyed.2)")
                #expect(try await tessera(["restore", "--verify", whole]).0 == 0)
            }
            let (again, regenerated, _) = try await startServe(dataDirectory: restored, port: port, database: restoredDatabase)
            defer { if again.isRunning { again.terminate() } }
            #expect(regenerated == nil, "the admin token's digest came along")
            let users = try await tessera(["admin", "user", "list", "--tenant", "demo", "--json"], environment: admin)
            #expect((users.1["users"] as? [[String: Any]])?.map { $0["username"] as? String } == ["alice"], "\(users.2)")
            let after = try await logIn(server: server, token: token, service: service, device: device)
            #expect(after.refreshToken != nil)
            let scenario = Scenario(baseURL: server, adminToken: token, tenant: "demo")
            let stale = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": before.refreshToken ?? ""], service: service)
            #expect(stale.status == 400, "a session from before the restore is over: \(stale.text)")
            again.terminate()
            try await again.waitForExit()
        }
    }

    /// Logs `device` (a `tessera device` store) in to `service` on the tenant `demo`:
    /// the login page, the device's approval with its PIN, the code, the tokens.
    func logIn(server: String, token: String, service: Scenario.Service, device: String) async throws -> (status: Int, refreshToken: String?) {
        let scenario = Scenario(baseURL: server, adminToken: token, tenant: "demo")
        let login = try await scenario.openLogin(service)
        var arguments = ["device", "login", login.authenticationURL.absoluteString, "--pin", "2468", "--store", device]
        if let number = login.matchCode { arguments += ["--number", number] }
        let approved = try await tessera(arguments)
        try #require(approved.0 == 0, "\(approved.2)")
        let code = try #require(try await scenario.complete(login)["code"])
        let tokens = try await scenario.redeem(code: code, service: service, verifier: login.verifier)
        #expect(tokens.status == 200, "\(tokens.text)")
        return (tokens.status, try tokens.json()["refresh_token"] as? String)
    }
}
