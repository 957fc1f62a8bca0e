import Foundation
import TesseraQRCode
import Testing
import TesseraAdminAPI
import TesseraCore
import TesseraKit
import TesseraServer
import TesseraTestSupport
import TesseraTesting

/// E-mail against a real SMTP server: Python's aiosmtpd (Tests/interop/smtp_sink.py),
/// with STARTTLS and a certificate of its own.
@Suite("E-mail: invitations through the outbox, STARTTLS, certificates, restarts", .tags(.live), .timeLimit(.minutes(5)))
struct MailTests {
    /// The sink: an aiosmtpd process, its directory and its certificate.
    final class Sink: Sendable {
        let directory: URL
        let process: ChildProcess
        let port: Int

        var certificate: String { directory.appendingPathComponent("cert.pem").path }

        /// A sink on `port` (or a free one) in `directory` (or a new one with a fresh certificate).
        static func start(in directory: URL? = nil, port: Int? = nil, implicitTLS: Bool = false, tls: Bool = true) async throws -> Sink {
            let directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("tessera-smtp-\(UUID().uuidString)")
            if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("cert.pem").path) {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let made = try await Python.run("tls_check.py", ["make", directory.path])
                guard made.status == 0 else { throw TestSupportError("tls_check.py make: \(made.errors)") }
            }
            try? FileManager.default.removeItem(at: directory.appendingPathComponent("port"))
            var arguments: [String] = []
            if let port { arguments += ["--port", "\(port)"] }
            if tls {
                arguments += ["--cert", directory.appendingPathComponent("cert.pem").path, "--key", directory.appendingPathComponent("key.pem").path]
            }
            if implicitTLS { arguments.append("--implicit-tls") }
            let (process, port) = try await Python.serve("smtp_sink.py", in: directory, arguments: arguments)
            return Sink(directory: directory, process: process, port: port)
        }

        private init(directory: URL, process: ChildProcess, port: Int) {
            self.directory = directory
            self.process = process
            self.port = port
        }

        var received: [[String: Any]] { Python.records("received.jsonl", in: directory) }

        func wait(for count: Int, seconds: Int = 30) async throws -> [[String: Any]] {
            for _ in 0..<(seconds * 10) {
                if received.count >= count { return received }
                try await Task.sleep(for: .milliseconds(100))
            }
            return received
        }

        func file(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }

        func stop() async {
            process.kill()
            try? await process.waitForExit()
        }
    }

    /// The activation link a message holds in its plain text.
    static func link(in message: [String: Any]) -> String? {
        let text = message["text"] as? String ?? ""
        guard let range = text.range(of: #"https?://\S+/activate\?code=[A-Za-z0-9_-]+"#, options: .regularExpression) else { return nil }
        return String(text[range])
    }

    /// `tessera serve` in a child process with e-mail, its log collected; returns it when ready.
    static func startServe(directory: URL, port: Int, database: String?, smtp: [String], token: String) async throws -> ChildProcess {
        // Its log (standard error) is collected with its output: the shell becomes the server.
        let process = try await ChildProcess.start(
            "/bin/sh",
            ["-c", #"exec "$0" "$@" 2>&1"#, tesseraBinary, "serve", "--port", "\(port)", "--data-dir", directory.path, "--log-level", "debug"]
                + (database.map { ["--database", $0, "--database-connections", "4"] } ?? []) + smtp,
            environment: ["TESSERA_ADMIN_TOKEN": token], collectOutput: true)
        let http = TestHTTP()
        for _ in 0..<200 {
            if (try? await http.get("http://127.0.0.1:\(port)/ready"))?.status == 200 { return process }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.kill()
        throw TestSupportError("tessera serve did not get ready")
    }

    @Test("an e-mailed invitation arrives once over STARTTLS with its link and QR code, activates a device; without e-mail 400; the sink down, then a kill -9: each arrives once; no log holds a code")
    func invitations() async throws {
        let sink = try await Sink.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-mail-\(UUID().uuidString)")
        let port = try TestServerPort.free(restartable: true)
        let token = "mail-test-admin-token-\(UUID().uuidString)"
        let database = try await TestDatabase.fresh()
        let smtp = ["--smtp-url", "smtp://localhost:\(sink.port)", "--smtp-from", "Tessera Sign-in <noreply@tessera.test>", "--smtp-ca", sink.certificate]
        var server = try await Self.startServe(directory: directory, port: port, database: database, smtp: smtp, token: token)
        var logs = ""
        let base = "http://127.0.0.1:\(port)"
        let admin = FeedTests.Admin(baseURL: base, token: token)
        var restarted: Sink?
        do {
            #expect(try await admin.post("/admin/tenants", ["name": "mail"]).status == 201)
            // Invitations only here (the notices have a test of their own).
            let quiet = try await admin.http.send(
                "PATCH", "\(base)/admin/tenants/mail", headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                body: Data(#"{"notices":[]}"#.utf8))
            #expect(quiet.status == 200, "\(quiet.text)")
            for (name, email) in [("erin", "erin@example.test"), ("finn", "finn@example.test"), ("gus", "gus@example.test")] {
                #expect(try await admin.post("/admin/tenants/mail/users", ["username": name, "attributes": ["email": email]]).status == 201)
            }
            #expect(try await admin.post("/admin/tenants/mail/users", ["username": "nomail"]).status == 201)

            // By e-mail: the answer holds no link.
            let invited = try await admin.post("/admin/tenants/mail/invitations", ["username": "erin", "deliver": "email"])
            #expect(invited.status == 201, "\(invited.text)")
            let answer = try invited.json()
            #expect(answer["url"] == nil && answer["deliver"] as? String == "email" && answer["email"] as? String == "erin@example.test")
            let first = try #require(try await sink.wait(for: 1).first)
            #expect(first["rcpt_tos"] as? [String] == ["erin@example.test"])
            #expect(first["tls"] as? Bool == true, "sent inside STARTTLS")
            #expect(first["eight_bit"] as? Bool == true, "8BITMIME where offered")
            #expect((first["subject"] as? String)?.contains("mail") == true)
            #expect((first["message_id"] as? String)?.hasPrefix("<") == true)
            let link = try #require(Self.link(in: first), "\(first)")
            #expect(link.hasPrefix("\(base)/t/mail/activate?code="))
            #expect((first["html"] as? String)?.contains("cid:qr@tessera") == true)
            // Its QR code is the link (an inline PNG, read by zbarimg).
            let image = try #require((first["images"] as? [[String: Any]])?.first)
            #expect(image["inline"] as? String == "inline")
            #expect(try await ZBar.decode(Array(try sink.file(try #require(image["file"] as? String))), kind: "png") == link)
            // The link activates a device.
            let store = directory.appendingPathComponent("device").path
            let activated = try await Program.run(tesseraBinary, ["device", "activate", "--store", store, link, "--pin", "135790"])
            #expect(activated.status == 0, "\(activated.output) \(activated.errors)")

            // A user without an e-mail address: 400 naming it, and no invitation.
            let before = (try await admin.get("/admin/tenants/mail/invitations").json()["invitations"] as? [Any])?.count
            let refused = try await admin.post("/admin/tenants/mail/invitations", ["username": "nomail", "deliver": "email"])
            #expect(refused.status == 400 && refused.text.contains("email attribute"), "\(refused.text)")
            #expect((try await admin.get("/admin/tenants/mail/invitations").json()["invitations"] as? [Any])?.count == before, "nothing was made")

            // The sink down: the invitation still answers 201, and waits.
            await sink.stop()
            #expect(try await admin.post("/admin/tenants/mail/invitations", ["username": "finn", "deliver": "email"]).status == 201)
            var metrics = ""
            for _ in 0..<100 {
                metrics = try await TestHTTP().get("\(base)/metrics").text
                if metrics.contains(#"tessera_outbound_failures_total{kind="email"}"#) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(metrics.contains(#"tessera_outbound_pending{kind="email"} 1"#), "the pending gauge rose")
            #expect(metrics.contains(#"tessera_outbound_failures_total{kind="email"}"#))
            // tessera admin stats shows it waiting, and failing once its failure is written.
            var stats = ""
            for _ in 0..<50 {
                stats = try await Program.run(tesseraBinary, ["admin", "stats"], environment: ["TESSERA_SERVER": base, "TESSERA_ADMIN_TOKEN": token]).output
                if stats.contains("outbound email\t1 waiting, 1 failing") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(stats.contains("outbound email\t1 waiting, 1 failing"), "\(stats)")
            // Back: it arrives once.
            let back = try await Sink.start(in: sink.directory, port: sink.port)
            let afterReturn = try await back.wait(for: 2)
            #expect(afterReturn.count == 2 && (afterReturn.last?["rcpt_tos"] as? [String]) == ["finn@example.test"])

            // Committed, not sent, and the server killed: after its restart it arrives, once.
            await back.stop()
            #expect(try await admin.post("/admin/tenants/mail/invitations", ["username": "gus", "deliver": "email"]).status == 201)
            try await Task.sleep(for: .milliseconds(1500))
            server.kill()
            try await server.waitForExit()
            logs += server.output.text
            let again = try await Sink.start(in: sink.directory, port: sink.port)
            restarted = again
            server = try await Self.startServe(directory: directory, port: port, database: database, smtp: smtp, token: token)
            let afterRestart = try await again.wait(for: 3, seconds: 90)
            #expect(afterRestart.count == 3 && (afterRestart.last?["rcpt_tos"] as? [String]) == ["gus@example.test"])
            try await Task.sleep(for: .seconds(2))
            let ids = again.received.compactMap { $0["message_id"] as? String }
            #expect(Set(ids).count == ids.count && ids.count == 3, "each once: \(ids)")

            server.kill()
            try await server.waitForExit()
            logs += server.output.text
            // No log line holds an invitation's code.
            #expect(!logs.isEmpty)
            for message in again.received {
                let code = try #require(Self.link(in: message)?.components(separatedBy: "code=").last)
                #expect(!logs.contains(code), "a log line holds an invitation code")
            }
            #expect(!logs.contains("activate?code="))
        } catch {
            server.kill()
            throw error
        }
        await restarted?.stop()
        await TestDatabase.drop(database)
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(at: sink.directory)
    }

    @Test("a self-signed SMTP certificate is refused unless --smtp-ca names it; smtps works; plain SMTP needs --smtp-insecure; no SMTP, no e-mailed invitations")
    func certificates() async throws {
        let sink = try await Sink.start()
        defer { Task { await sink.stop() } }
        // Not trusted: nothing is sent, the failure is counted, the message waits.
        try await withServer(configure: { configuration in
            configuration.deliveryInterval = .milliseconds(200)
            configuration.smtp = try? SMTPSettings(url: "smtp://localhost:\(sink.port)", from: "noreply@tessera.test")
        }) { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("ada", attributes: ["email": "ada@example.test"])
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            #expect(try await admin.post("/admin/tenants/\(scenario.tenant)/invitations", ["username": "ada", "deliver": "email"]).status == 201)
            var metrics = ""
            for _ in 0..<100 {
                metrics = try await TestHTTP().get("\(server.baseURL)/metrics").text
                if metrics.contains(#"tessera_outbound_failures_total{kind="email"}"#) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(metrics.contains(#"tessera_outbound_failures_total{kind="email"}"#), "an untrusted certificate is a failure")
            #expect(sink.received.isEmpty)
        }
        // Named by --smtp-ca: it arrives.
        try await withServer(configure: { configuration in
            configuration.deliveryInterval = .milliseconds(200)
            configuration.smtp = try? SMTPSettings(url: "smtp://localhost:\(sink.port)", from: "noreply@tessera.test", caFile: sink.certificate)
        }) { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("bo", attributes: ["email": "bo@example.test"])
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            #expect(try await admin.post("/admin/tenants/\(scenario.tenant)/invitations", ["username": "bo", "deliver": "email"]).status == 201)
            #expect(try await sink.wait(for: 1).count == 1)
        }
        // smtps:// (TLS at once), and a sink without TLS that only --smtp-insecure may use.
        let implicit = try await Sink.start(implicitTLS: true)
        let plain = try await Sink.start(tls: false)
        defer {
            Task {
                await implicit.stop()
                await plain.stop()
            }
        }
        for (settings, target, arrives) in [
            (try SMTPSettings(url: "smtps://localhost:\(implicit.port)", from: "noreply@tessera.test", caFile: implicit.certificate), implicit, true),
            (try SMTPSettings(url: "smtp://localhost:\(plain.port)", from: "noreply@tessera.test"), plain, false),
            (try SMTPSettings(url: "smtp://localhost:\(plain.port)", from: "noreply@tessera.test", insecure: true), plain, true),
        ] {
            let client = SMTPClient(settings: settings)
            let message = MailMessage(
                from: "noreply@tessera.test", to: "cy@example.test", subject: "Grüße", messageID: "\(UUID().uuidString)@tessera.test",
                date: Date(), text: ".a line that begins with a dot\nünïcödé\n.\n")
            let before = target.received.count
            if arrives {
                try await client.send(to: "cy@example.test", message)
                let got = try await target.wait(for: before + 1)
                #expect(got.count == before + 1)
                let text = got.last?["text"] as? String ?? ""
                #expect(text.contains(".a line that begins with a dot") && text.contains("ünïcödé"), "dot-stuffed and 8-bit intact: \(text)")
                #expect(got.last?["subject"] as? String == "Grüße")
            } else {
                await #expect(throws: SMTPError.self, "no STARTTLS, no --smtp-insecure") { try await client.send(to: "cy@example.test", message) }
                #expect(target.received.count == before)
            }
        }
        // No SMTP: an e-mailed invitation is refused, nothing made.
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("dee", attributes: ["email": "dee@example.test"])
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            let refused = try await admin.post("/admin/tenants/\(scenario.tenant)/invitations", ["username": "dee", "deliver": "email"])
            #expect(refused.status == 400 && refused.text.contains("smtp"), "\(refused.text)")
        }
    }

    @Test("a branded tenant's invitation in French: its display name and app in the catalog's sentences, its own subject, the date as French writes it")
    func brandedInvitation() async throws {
        let sink = try await Sink.start()
        defer { Task { await sink.stop() } }
        try await withServer(configure: { configuration in
            configuration.deliveryInterval = .milliseconds(200)
            configuration.smtp = try? SMTPSettings(url: "smtp://localhost:\(sink.port)", from: "noreply@tessera.test", caFile: sink.certificate)
        }) { server in
            let scenario = try await Scenario.make(on: server)
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            let settings: [String: Any] = [
                "default_language": "fr",
                "branding": [
                    "display_name": "Banque Acme", "app_name": "Acme Sécurité", "primary_color": "#7a1f5c", "accent_color": "#0b5d3b",
                    "support_url": "https://aide.acme.example/",
                ],
                "texts": ["fr": ["mail.invitation.subject": "Bienvenue chez {tenant}"]],
            ]
            let patched = try await admin.http.send(
                "PATCH", "\(server.baseURL)/admin/tenants/\(scenario.tenant)",
                headers: ["Authorization": "Bearer \(server.adminToken)", "Content-Type": "application/json"],
                body: try JSONSerialization.data(withJSONObject: settings))
            #expect(patched.status == 200, "\(patched.text)")
            let logo = try await admin.http.send(
                "PUT", "\(server.baseURL)/admin/tenants/\(scenario.tenant)/branding/logo",
                headers: ["Authorization": "Bearer \(server.adminToken)", "Content-Type": "image/png"], body: Data(try QRCode("Banque Acme").png(scale: 2)))
            #expect(logo.status == 200, "\(logo.text)")
            try await scenario.createUser("zoe", attributes: ["email": "zoe@example.test"])
            let sent = try await admin.post("/admin/tenants/\(scenario.tenant)/invitations", ["username": "zoe", "deliver": "email"])
            #expect(sent.status == 201, "\(sent.text)")
            let invitation = try #require(try await sink.wait(for: 1).last)
            #expect(invitation["subject"] as? String == "Bienvenue chez Banque Acme", "\(invitation)")
            let text = invitation["text"] as? String ?? ""
            #expect(text.hasPrefix("Bonjour zoe,") && text.contains("l’application Acme Sécurité") && text.contains("à Banque Acme"), "\(text)")
            #expect(!text.contains("Tessera") && Self.link(in: invitation) != nil, "\(text)")
            // The date as French writes it: a month's name in French.
            let months = ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"]
            #expect(months.contains { text.contains($0) }, "\(text)")
            let html = invitation["html"] as? String ?? ""
            #expect(html.contains("<html lang=\"fr\">"))
            // The tenant's look: its logo inline on top, its primary colour behind the button, its help link at the foot.
            #expect(html.contains(#"<img src="cid:logo@tessera" alt="Logo de Banque Acme" height="48">"#), "\(html)")
            #expect(html.contains("background: #7a1f5c") && html.contains(#"<a href="https://aide.acme.example/" style="color: #0b5d3b">"#), "\(html)")
            let images = (invitation["images"] as? [[String: Any]])?.compactMap { $0["content_id"] as? String } ?? []
            #expect(Set(images) == ["<qr@tessera>", "<logo@tessera>"], "\(images)")
        }
    }

    @Test("a tenant inviting by e-mail only never answers with a link; a device added, removed, a permanent lock: each notice says what, when and from where, in the tenant's language; a notice switched off is not sent")
    func notices() async throws {
        let sink = try await Sink.start()
        defer { Task { await sink.stop() } }
        try await withServer(configure: { configuration in
            configuration.deliveryInterval = .milliseconds(200)
            configuration.throttle.trustedProxies = ["127.0.0.1"]
            configuration.smtp = try? SMTPSettings(url: "smtp://localhost:\(sink.port)", from: "noreply@tessera.test", caFile: sink.certificate)
        }) { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 1, waits: [60], permanentAfter: 2))
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            let tenantPath = "/admin/tenants/\(scenario.tenant)"
            let patched = try await admin.http.send(
                "PATCH", server.baseURL + tenantPath, headers: ["Authorization": "Bearer \(server.adminToken)", "Content-Type": "application/json"],
                body: try JSONSerialization.data(withJSONObject: ["invitations_by_email_only": true, "default_language": "de"]))
            #expect(patched.status == 200, "\(patched.text)")
            #expect(try patched.json()["invitations_by_email_only"] as? Bool == true && (try patched.json()["notices"] as? [String])?.count == 4)
            try await scenario.createUser("ida", attributes: ["email": "ida@example.test"])

            // Every invitation by e-mail: none answers with a link, asked for or not.
            let linkAsked = try await admin.post("\(tenantPath)/invitations", ["username": "ida", "deliver": "link"])
            #expect(linkAsked.status == 400, "\(linkAsked.text)")
            let plain = try await admin.post("\(tenantPath)/invitations", ["username": "ida"])
            let plainAnswer = try plain.json()
            #expect(plain.status == 201 && plainAnswer["url"] == nil && plainAnswer["deliver"] as? String == "email")
            let invitation = try #require(try await sink.wait(for: 1).last)
            #expect((invitation["subject"] as? String)?.hasPrefix("Ihre Anmeldung") == true, "in the tenant's language: \(invitation)")
            let link = try #require(Self.link(in: invitation).flatMap(URL.init(string:)))

            // A device added: the notice, in German, naming the device, when and where from.
            let device = try TestDevice()
            _ = try await device.personalizer.activate(url: link, pin: "2468", alias: "Telefon", enrollBiometric: false, enrollOTP: false)
            let added = try #require(try await sink.wait(for: 2).last)
            let addedText = added["text"] as? String ?? ""
            #expect((added["subject"] as? String)?.hasPrefix("Ein neues Gerät") == true, "\(added)")
            #expect(addedText.contains("„Telefon“") && addedText.contains("Von wo: 127.0.0.1") && addedText.contains("Wann:"), "\(addedText)")
            #expect(!addedText.contains("code="), "no secret in a notice")

            // A second device (an invitation again): its notice too.
            #expect(try await admin.post("\(tenantPath)/invitations", ["username": "ida"]).status == 201)
            let secondInvitation = try #require(try await sink.wait(for: 3).last)
            let second = try #require(Self.link(in: secondInvitation).flatMap(URL.init(string:)))
            let other = try TestDevice()
            _ = try await other.personalizer.activate(url: second, pin: "1357", alias: "Tablet", enrollBiometric: false, enrollOTP: false)
            #expect((try await sink.wait(for: 4).last?["text"] as? String)?.contains("„Tablet“") == true)

            // Removed by an admin (through a proxy that names its client): the removal notice says from where.
            let tablet = try #require(try await scenario.activations(username: "ida").first { $0.alias == "Tablet" })
            let revoked = try await admin.post(
                "/admin/activations/\(tablet.id)/revoke", [:], headers: ["X-Forwarded-For": "203.0.113.9", "User-Agent": "ops-tool/2"])
            #expect(revoked.status == 200)
            let removed = try #require(try await sink.wait(for: 5).last)
            #expect((removed["subject"] as? String)?.hasPrefix("Ein Gerät wurde") == true)
            #expect((removed["text"] as? String)?.contains("203.0.113.9 (ops-tool/2)") == true, "\(removed)")

            // Locked for good after wrong PINs (the policy allows two failures).
            let service = try await scenario.createService()
            let login = try await scenario.openLogin(service)
            let information = try await device.authenticator.start(url: login.authenticationURL)
            let first = try #require(try await signAndFinish(information, device: device, factors: [.device, .pin], pin: "0000").lockout)
            let last = try #require(try await signAndFinish(first.1, device: device, factors: [.device, .pin], pin: "1111").lockout)
            #expect(last.0.isPermanent)
            let locked = try #require(try await sink.wait(for: 6).last)
            #expect((locked["subject"] as? String)?.contains("gesperrt") == true, "\(locked)")

            // Switched off: the next change sends nothing.
            let off = try await admin.http.send(
                "PATCH", server.baseURL + tenantPath, headers: ["Authorization": "Bearer \(server.adminToken)", "Content-Type": "application/json"],
                body: try JSONSerialization.data(withJSONObject: ["notices": ["locked"]]))
            let offAnswer = try off.json()
            #expect(off.status == 200 && offAnswer["notices"] as? [String] == ["locked"])
            let phone = try #require(try await scenario.activations(username: "ida").first { $0.alias == "Telefon" })
            #expect(try await admin.post("/admin/activations/\(phone.id)/revoke", [:]).status == 200)
            try await Task.sleep(for: .seconds(2))
            #expect(sink.received.count == 6, "no notice the tenant switched off")
            let refused = try await admin.http.send(
                "PATCH", server.baseURL + tenantPath, headers: ["Authorization": "Bearer \(server.adminToken)", "Content-Type": "application/json"],
                body: try JSONSerialization.data(withJSONObject: ["notices": ["everything"], "default_language": "fr"]))
            #expect(refused.status == 400)
            device.remove()
            other.remove()
        }
    }

    @Test("a tenant that invites provisioned users: a user a directory creates over SCIM gets one e-mailed invitation; an inactive one or one without e-mail none")
    func provisionedInvitations() async throws {
        let sink = try await Sink.start()
        defer { Task { await sink.stop() } }
        try await withServer(configure: { configuration in
            configuration.deliveryInterval = .milliseconds(200)
            configuration.smtp = try? SMTPSettings(url: "smtp://localhost:\(sink.port)", from: "noreply@tessera.test", caFile: sink.certificate)
        }) { server in
            let scenario = try await Scenario.make(on: server)
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            let patched = try await admin.http.send(
                "PATCH", server.baseURL + "/admin/tenants/\(scenario.tenant)",
                headers: ["Authorization": "Bearer \(server.adminToken)", "Content-Type": "application/json"],
                body: Data(#"{"invite_provisioned_users":true,"notices":[]}"#.utf8))
            #expect(patched.status == 200, "\(patched.text)")
            #expect(try patched.json()["invite_provisioned_users"] as? Bool == true)
            let key = try await SCIMProvisioningTests.provisionerKey(scenario, server: server, tenant: scenario.tenant)
            func provision(_ body: String) async throws -> TestHTTP.Response {
                try await admin.http.send(
                    "POST", "\(scenario.issuer)/scim/v2/Users",
                    headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/scim+json"], body: Data(body.utf8))
            }
            let schema = #""schemas":["urn:ietf:params:scim:schemas:core:2.0:User"]"#
            #expect(try await provision(#"{\#(schema),"userName":"quiet","active":false,"emails":[{"value":"quiet@example.test","primary":true}]}"#).status == 201)
            #expect(try await provision(#"{\#(schema),"userName":"nomail"}"#).status == 201)
            #expect(try await provision(#"{\#(schema),"userName":"nora","emails":[{"value":"nora@example.test","type":"work","primary":true}]}"#).status == 201)
            let received = try await sink.wait(for: 1)
            #expect(received.count == 1 && received.first?["rcpt_tos"] as? [String] == ["nora@example.test"], "\(received)")
            let link = try #require(received.first.flatMap(Self.link(in:)).flatMap(URL.init(string:)))
            #expect(link.absoluteString.hasPrefix("\(scenario.issuer)/activate?code="))
            // The link activates a device for nora.
            let device = try TestDevice()
            _ = try await device.personalizer.activate(url: link, pin: "2468", alias: "nora", enrollBiometric: false, enrollOTP: false)
            try await Task.sleep(for: .seconds(1))
            #expect(sink.received.count == 1, "nobody else was invited")
            let audit = try await admin.get("/admin/audit?tenant=\(scenario.tenant)&action=invitation.create").json()
            let entry = (audit["entries"] as? [[String: Any]])?.first
            #expect((entry?["details"] as? [String: String])?["deliver"] == "email" && (entry?["actor"] as? String)?.hasPrefix("key:") == true, "\(audit)")
        }
    }

    @Test("a recovery code where e-mail confirms it: the activation link goes to the user's address, a notice says a code was used, the link activates a new device")
    func recoveryByEmail() async throws {
        let sink = try await Sink.start()
        defer { Task { await sink.stop() } }
        try await withServer(configure: { configuration in
            configuration.deliveryInterval = .milliseconds(200)
            configuration.smtp = try? SMTPSettings(url: "smtp://localhost:\(sink.port)", from: "noreply@tessera.test", caFile: sink.certificate)
        }) { server in
            let scenario = try await Scenario.make(on: server)
            let patched = try await scenario.http.patchJSON(
                "\(server.baseURL)/admin/tenants/\(scenario.tenant)", ["recovery_codes": true, "notices": [String]()],
                headers: ["Authorization": "Bearer \(server.adminToken)"])
            #expect(patched.status == 200, "\(patched.text)")
            try await scenario.createUser("una", attributes: ["email": "una@example.test"])
            let (device, _) = try await activateDevice(scenario, username: "una")
            let codes = try await makeRecoveryCodes(device)
            #expect(sink.received.isEmpty, "the tenant's chosen notices are off")

            let phone = try TestDevice()
            let status = try await phone.personalizer.recover(issuer: try #require(URL(string: scenario.issuer)), username: "una", code: codes[3])
            #expect(status.status == "emailed" && status.handle == nil && status.url == nil, "\(status)")
            let received = try await sink.wait(for: 2)
            #expect(received.count == 2 && received.allSatisfy { $0["rcpt_tos"] as? [String] == ["una@example.test"] }, "\(received)")
            let notice = try #require(received.first { ($0["subject"] as? String)?.contains("recovery code") == true }, "\(received)")
            #expect(Self.link(in: notice) == nil, "the notice holds no link")
            let invitation = try #require(received.first { Self.link(in: $0) != nil })
            let link = try #require(Self.link(in: invitation).flatMap(URL.init(string:)))
            _ = try await phone.personalizer.activate(url: link, pin: "1357", alias: "new phone", enrollBiometric: false, enrollOTP: false)
            #expect(try await scenario.activations(username: "una").count == 2)
        }
    }

    @Test("the message gateway gets invitations and notices for a user's phone number, signed (standardwebhooks verifies them); no phone number, 400")
    func messageGateway() async throws {
        let receiver = try await WebhookTests.Receiver.start()
        defer { receiver.stop() }
        let secret = "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        try receiver.secret("gateway", secret)
        try await withServer(configure: { configuration in
            configuration.deliveryInterval = .milliseconds(200)
            configuration.messageWebhook = .init(url: receiver.url("gateway"), secret: secret)
        }) { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("pia", attributes: ["phone_number": "+4915112345678"])
            try await scenario.createUser("quinn")
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            let invited = try await admin.post("/admin/tenants/\(scenario.tenant)/invitations", ["username": "pia", "deliver": "message"])
            let answer = try invited.json()
            #expect(invited.status == 201 && answer["url"] == nil && answer["deliver"] as? String == "message")
            #expect(answer["phone_number"] as? String == "+4915112345678")
            let refused = try await admin.post("/admin/tenants/\(scenario.tenant)/invitations", ["username": "quinn", "deliver": "message"])
            #expect(refused.status == 400 && refused.text.contains("phone_number"), "\(refused.text)")

            let invitation = try #require(try await receiver.wait("gateway") { !$0.isEmpty }.first)
            #expect(invitation["type"] as? String == "message.invitation")
            let data = try #require(invitation["data"] as? [String: Any])
            #expect(data["to"] as? String == "+4915112345678" && (data["text"] as? String)?.contains("invited") == true)
            let link = try #require((data["link"] as? String).flatMap(URL.init(string:)))
            let device = try TestDevice()
            _ = try await device.personalizer.activate(url: link, pin: "2468", alias: "phone", enrollBiometric: false, enrollOTP: false)
            let notice = try #require(try await receiver.wait("gateway") { $0.count >= 2 }.last)
            #expect(notice["type"] as? String == "message.notice.device_added")
            #expect((notice["data"] as? [String: Any])?["to"] as? String == "+4915112345678")
            #expect(receiver.records("refused.jsonl").isEmpty, "every message verified")
            device.remove()
        }
        // No gateway: refused.
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("rey", attributes: ["phone_number": "+4915112345679"])
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            let refused = try await admin.post("/admin/tenants/\(scenario.tenant)/invitations", ["username": "rey", "deliver": "message"])
            #expect(refused.status == 400 && refused.text.contains("message-webhook"), "\(refused.text)")
        }
    }

    @Test("Debian's exim4, in a local-only configuration requiring STARTTLS, takes an e-mailed invitation and delivers it whole")
    func exim() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-exim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let exim = try await ChildProcess.start(
            "/usr/bin/env", ["python3", Python.interopDirectory().appendingPathComponent("exim_sink.py").path, directory.path])
        defer {
            exim.kill()
            try? FileManager.default.removeItem(at: directory)
        }
        var port: Int?
        for _ in 0..<100 {
            port = (try? String(contentsOf: directory.appendingPathComponent("port"), encoding: .utf8)).flatMap { Int($0) }
            if port != nil, exim.isRunning, (try? await Program.run("/usr/bin/env", ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/\(port!)"]))?.status == 0 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let smtpPort = try #require(port, "exim did not start")
        try await withServer(configure: { configuration in
            configuration.deliveryInterval = .milliseconds(200)
            configuration.smtp = try? SMTPSettings(
                url: "smtp://localhost:\(smtpPort)", from: "Tessera <noreply@tessera.test>", caFile: directory.appendingPathComponent("cert.pem").path)
        }) { server in
            let scenario = try await Scenario.make(on: server)
            try await scenario.createUser("uma", attributes: ["email": "uma@example.test"])
            let admin = FeedTests.Admin(baseURL: server.baseURL, token: server.adminToken)
            #expect(try await admin.post("/admin/tenants/\(scenario.tenant)/invitations", ["username": "uma", "deliver": "email"]).status == 201)
            let inbox = directory.appendingPathComponent("mail/new")
            var files: [URL] = []
            for _ in 0..<200 {
                files = (try? FileManager.default.contentsOfDirectory(at: inbox, includingPropertiesForKeys: nil)) ?? []
                if !files.isEmpty { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let file = try #require(files.first, "exim delivered nothing")
            let message = try String(contentsOf: file, encoding: .utf8)
            #expect(message.contains("Envelope-to: uma@example.test"))
            #expect(message.contains("with esmtps"), "received inside TLS")
            #expect(message.contains("Message-ID: <") && message.contains("Content-Type: image/png"))
            #expect(message.contains("\(server.baseURL)/t/\(scenario.tenant)/activate?code="), "the link, whole")
        }
    }
}
