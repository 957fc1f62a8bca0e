import Foundation
import TesseraCore
import TesseraTesting
import TesseraTestSupport
import Testing

@Suite("Bounded data: the purge and tessera admin stats", .tags(.live), .timeLimit(.minutes(5)))
struct DataLifecycleTests {
    func stats(_ scenario: Scenario) async throws -> [String: Any] {
        let (status, json, output) = try await tessera(
            ["admin", "stats", "--json"], environment: ["TESSERA_SERVER": scenario.baseURL, "TESSERA_ADMIN_TOKEN": scenario.adminToken])
        #expect(status == 0, "\(output)")
        return json
    }

    func count(_ stats: [String: Any], _ table: String) -> Int {
        ((stats["tables"] as? [String: Any])?[table] as? NSNumber)?.intValue ?? -1
    }

    @Test("the purge deletes expired requests, spent and expired tokens, device token ids and idle sessions; live sessions go on")
    func purge() async throws {
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService()
            try await scenario.createUser("pat")
            let (device, _) = try await activateDevice(scenario, username: "pat")
            defer { device.remove() }
            let (login, code) = try await approvedLogin(scenario, service, device: device)
            let first = try await scenario.redeem(code: code, service: service, verifier: login.verifier).json()
            let spent = try #require(first["refresh_token"] as? String)
            let rotated = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": spent], service: service).json()
            let live = try #require(rotated["refresh_token"] as? String)
            for _ in 0..<5 { _ = try await scenario.openLogin(service) }  // never completed

            let before = try await stats(scenario)
            #expect(count(before, "auth_requests") == 6)
            #expect(count(before, "grants") == 3, "the code, the spent and the live refresh token")
            #expect(count(before, "sessions") == 1)
            #expect(count(before, "device_token_ids") > 0)
            #expect((before["last_purge"] as? [String: Any]) == nil)

            // Within the reuse-detection window a purge keeps the spent token: its reuse still ends the session.
            server.clock.advance(by: 3_600)
            _ = try await scenario.http.postJSON("\(scenario.baseURL)/admin/purge", [:], headers: ["Authorization": "Bearer \(scenario.adminToken)"])
            let kept = try await stats(scenario)
            #expect(count(kept, "auth_requests") == 0, "expired after five minutes")
            #expect(count(kept, "device_token_ids") == 0, "expired after five minutes")
            #expect(count(kept, "grants") == 3)

            // Past the window: the code and the spent token go; the live session and its token stay and work.
            server.clock.advance(by: 8 * 86_400)
            let (status, report, output) = try await tessera(
                ["admin", "purge", "--json"], environment: ["TESSERA_SERVER": scenario.baseURL, "TESSERA_ADMIN_TOKEN": scenario.adminToken])
            #expect(status == 0, "\(output)")
            let deleted = report["deleted"] as? [String: Any] ?? [:]
            let grants = ["expired_grants", "spent_grants"].compactMap { (deleted[$0] as? NSNumber)?.intValue }.reduce(0, +)
            #expect(grants == 2, "the code and the spent refresh token: \(deleted)")
            let after = try await stats(scenario)
            #expect(count(after, "grants") == 1)
            #expect(count(after, "sessions") == 1)
            let lastPurge = try #require(after["last_purge"] as? [String: Any])
            #expect((lastPurge["at"] as? NSNumber)?.doubleValue ?? 0 > Date().timeIntervalSince1970 + 8 * 86_400)
            let refreshed = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": live], service: service)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            // A purged token is merely unknown now.
            let replay = try await scenario.tokenRequest(["grant_type": "refresh_token", "refresh_token": spent], service: service)
            #expect(replay.status == 400)

            // A session idle past its idle lifetime (30 days) and the window is purged; its token is refused.
            server.clock.advance(by: 38 * 86_400)
            _ = try await scenario.http.postJSON("\(scenario.baseURL)/admin/purge", [:], headers: ["Authorization": "Bearer \(scenario.adminToken)"])
            let idle = try await stats(scenario)
            #expect(count(idle, "sessions") == 0)
            #expect(count(idle, "grants") == 0)
        }
    }
}
