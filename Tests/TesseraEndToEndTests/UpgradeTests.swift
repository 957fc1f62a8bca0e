import Foundation
import TesseraCore
import TesseraKit
import TesseraTesting
import TesseraTestSupport
import Testing

/// Today's server on data the tagged release v0.1.0 wrote (Tests/Fixtures/upgrade, made by
/// scripts/make_upgrade_fixtures.sh with that release's own binary): a SQLite data
/// directory, or a PostgreSQL dump loaded into a fresh database, with a real activation,
/// a live session whose refresh token the device's store keeps, history and audit. The
/// server's clock is a day after the fixtures were written, so nothing in them expires
/// however old they get; the device runs on the same clock.
@Suite("Upgrades from real data", .tags(.live), .timeLimit(.minutes(3)))
struct UpgradeTests {
    struct Fixture: Decodable {
        let release: String
        let backend: String
        let writtenAt: Int64
        let port: Int
        let tenant: String
        let user: String
        let clientID: String
        let redirectURI: String
        let pin: String

        enum CodingKeys: String, CodingKey {
            case release, backend, port, tenant, user, pin
            case writtenAt = "written_at"
            case clientID = "client_id"
            case redirectURI = "redirect_uri"
        }
    }

    @Test("today's server opens what v0.1.0 wrote: migrated in place, the device logs in, its refresh token rotates, history and audit are intact")
    func fromV0_1_0() async throws {
        let backend = TestDatabase.postgresURL == nil ? "sqlite" : "postgres"
        let fixtures = repository.appendingPathComponent("Tests/Fixtures/upgrade/v0.1.0/\(backend)")
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: fixtures.appendingPathComponent("fixture.json")))
        #expect(fixture.release == "v0.1.0" && fixture.backend == backend)

        // Copies: the server migrates what it opens, and the device's store changes.
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-upgrade-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let data = work.appendingPathComponent("data")
        let store = work.appendingPathComponent("device")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("data"), to: data)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("device"), to: store)
        var database: String?
        if backend == "postgres" {
            database = try await TestDatabase.fresh()
            let url = try #require(database)
            let loaded = try await Program.run(
                "/bin/sh", ["-c", "psql --no-psqlrc -q -v ON_ERROR_STOP=1 --dbname=\"$1\" --file=\"$2\" >/dev/null", "load", url,
                fixtures.appendingPathComponent("tessera.sql").path])
            try #require(loaded.status == 0, "loading the dump: \(loaded.errors)")
        }

        let clock = TestClock.running()
        clock.advance(by: TimeInterval(fixture.writtenAt + 86_400) - Date().timeIntervalSince1970)
        let server = try await TestServer.open(dataDirectory: data, port: fixture.port, databaseURL: database, clock: clock)
        do {
            try await check(server: server, fixture: fixture, store: store, clock: clock)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func check(server: TestServer, fixture: Fixture, store: URL, clock: TestClock) async throws {
        let http = TestHTTP()
        let admin = ["Authorization": "Bearer \(server.adminToken)"]
        // Migrated to this build's schema, and serving.
        #expect(try await http.get("\(server.baseURL)/ready").status == 200)

        // What v0.1.0 recorded, before anything happens here.
        let historyBefore = try await entries(http, "\(server.baseURL)/admin/tenants/\(fixture.tenant)/history", admin)
        let auditBefore = try await entries(http, "\(server.baseURL)/admin/audit", admin)
        #expect(historyBefore.contains { $0["username"] as? String == fixture.user && $0["outcome"] as? String == "approved" && $0["purpose"] as? String == "login" }, "\(historyBefore)")
        #expect(historyBefore.allSatisfy { ($0["at"] as? NSNumber)?.int64Value ?? .max <= fixture.writtenAt }, "\(historyBefore)")
        let actions = Set(auditBefore.compactMap { $0["action"] as? String })
        #expect(auditBefore.count >= 4, "the tenant, its settings, the service, the user and the invitation: \(auditBefore)")
        #expect(actions.contains { $0.contains("tenant") } && actions.contains { $0.contains("user") }, "\(actions)")

        // The refresh token the device kept rotates: the access token expired a day ago.
        let keyStore = try FileKeyStore(directory: store)
        let tokens = TokenManager(keyStore: keyStore, transport: ClientTransport(), now: { clock.now() }, dpop: false)
        let kept = try #require(try await tokens.users().first { $0.username == fixture.user })
        let (status, access) = await tokens.accessToken(clientID: fixture.clientID, username: fixture.user)
        #expect(status == .ok, "\(status)")
        let rotated = try #require(try await tokens.users().first { $0.username == fixture.user })
        #expect(rotated.refreshToken != nil && rotated.refreshToken != kept.refreshToken, "a new refresh token")
        let userInfo = try await http.get("\(server.issuer(fixture.tenant))/userinfo", headers: ["Authorization": "Bearer \(access ?? "")"])
        #expect(userInfo.status == 200, "\(userInfo.text)")
        #expect(try userInfo.json()["sub"] as? String == rotated.subject, "the same user: \(userInfo.text)")

        // The activation logs in: a login page of the service, answered by the device.
        let scenario = Scenario(baseURL: server.baseURL, adminToken: server.adminToken, tenant: fixture.tenant)
        let service = Scenario.Service(clientID: fixture.clientID, clientSecret: nil, redirectURI: fixture.redirectURI)
        let login = try await scenario.openLogin(service)
        let authenticator = Authenticator(keyStore: keyStore, transport: ClientTransport(), now: { clock.now() })
        var information = try await authenticator.start(url: login.authenticationURL)
        if let number = login.matchCode { try information.pickNumber(number) }
        try information.sign(factor: DeviceFactor())
        try information.sign(factor: PinFactor(fixture.pin))
        let result = try await authenticator.finish(information)
        guard case .userLogin = result else {
            Issue.record("the login was not approved: \(result)")
            return
        }
        let code = try #require(try await scenario.complete(login)["code"])
        let redeemed = try await scenario.redeem(code: code, service: service, verifier: login.verifier)
        #expect(redeemed.status == 200, "\(redeemed.text)")

        // History and audit: what v0.1.0 wrote is still there, with today's login after it.
        let historyAfter = try await entries(http, "\(server.baseURL)/admin/tenants/\(fixture.tenant)/history", admin)
        let before = Set(historyBefore.compactMap { $0["id"] as? String })
        #expect(before.isSubset(of: Set(historyAfter.compactMap { $0["id"] as? String })), "\(historyAfter)")
        #expect(historyAfter.count > historyBefore.count, "today's login recorded: \(historyAfter)")
        let auditAfter = try await entries(http, "\(server.baseURL)/admin/audit", admin)
        #expect(Set(auditBefore.compactMap { $0["id"] as? String }).isSubset(of: Set(auditAfter.compactMap { $0["id"] as? String })))
    }

    private func entries(_ http: TestHTTP, _ url: String, _ headers: [String: String]) async throws -> [[String: Any]] {
        let response = try await http.get(url, headers: headers)
        try #require(response.status == 200, "\(url): \(response.status) \(response.text)")
        return try response.json()["entries"] as? [[String: Any]] ?? []
    }
}
