import Foundation
import Testing
import TesseraTesting

/// PostgreSQL going away under load: a restart answers the requests it interrupts with
/// 503 `temporarily_unavailable` (never 500), and the nodes serve again by themselves.
/// The test runs its own cluster (scripts/postgres.sh), since it restarts it.
@Suite(
    "Database faults", .tags(.live, .cluster, .crash), .timeLimit(.minutes(5)),
    .enabled(if: TestDatabase.postgresURL != nil, "needs PostgreSQL; runs in the suite's PostgreSQL pass"))
struct DatabaseFaultTests {
    @Test("PostgreSQL restarted under tessera bench on two nodes: no 500, both ready again within seconds, counted as unavailable, and logins work after")
    func restartUnderLoad() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-test-postgres.fault-\(UUID().uuidString)")
        let script = repository.appendingPathComponent("scripts/postgres.sh").path
        let started = try await Program.run(script, ["start", directory.path, "\(getpid())"], timeout: .seconds(180))
        try #require(started.status == 0, "\(started.errors)")
        let database = try #require(started.output.split(separator: "\n").last.map(String.init))
        do {
            try await restart(database: database, cluster: directory, script: script)
        } catch {
            _ = try? await Program.run(script, ["stop", directory.path])
            throw error
        }
        _ = try await Program.run(script, ["stop", directory.path])
    }

    func restart(database: String, cluster directory: URL, script: String) async throws {

        // Two nodes on the one database, sharing the master key.
        let token = "fault-test-admin-token-\(UUID().uuidString)"
        let first = directory.deletingLastPathComponent().appendingPathComponent("fault-node-a-\(UUID().uuidString)")
        let second = directory.deletingLastPathComponent().appendingPathComponent("fault-node-b-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        let ports = (try TestServerPort.free(), try TestServerPort.free())
        let nodeA = try await serve(directory: first, port: ports.0, database: database, token: token)
        defer { if nodeA.isRunning { nodeA.terminate() } }
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: first.appendingPathComponent("master.key"), to: second.appendingPathComponent("master.key"))
        let nodeB = try await serve(directory: second, port: ports.1, database: database, token: token)
        defer { if nodeB.isRunning { nodeB.terminate() } }
        let servers = ["http://127.0.0.1:\(ports.0)", "http://127.0.0.1:\(ports.1)"]

        // Each node under its own bench, and the database restarted in the middle.
        var benches: [ChildProcess] = []
        for (index, server) in servers.enumerated() {
            benches.append(
                try await ChildProcess.start(
                    tesseraBinary,
                    ["bench", "--tenant", "fault-\(index)", "--devices", "4", "--concurrency", "4", "--duration", "8", "--json"],
                    environment: ["TESSERA_SERVER": server, "TESSERA_ADMIN_TOKEN": token], collectOutput: true))
        }
        defer { for bench in benches where bench.isRunning { bench.kill() } }
        try await Task.sleep(for: .seconds(3))
        let restart = try await Program.run(script, ["restart", directory.path], timeout: .seconds(90))
        #expect(restart.status == 0, "\(restart.errors)")
        let restarted = ContinuousClock.now

        // Both nodes are ready again within seconds, without a restart of their own.
        var readyAfter: [Duration] = []
        for server in servers {
            var ready = false
            while ContinuousClock.now - restarted < .seconds(30) {
                if (try? await TestHTTP().get("\(server)/ready"))?.status == 200 {
                    ready = true
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(ready, "\(server) ready again")
            readyAfter.append(ContinuousClock.now - restarted)
        }
        #expect(readyAfter.allSatisfy { $0 < .seconds(15) }, "ready again after \(readyAfter)")

        for (server, bench) in zip(servers, benches) {
            do { try await bench.waitForExit(timeout: .seconds(90)) } catch { Issue.record("the bench of \(server) did not end: \(error)") }
            let report = (try? JSONSerialization.jsonObject(with: Data(bench.output.text.utf8))) as? [String: Any] ?? [:]
            #expect((report["completed"] as? Int ?? 0) > 0, "\(server): \(bench.output.text)")
            let errors = report["errors"] as? [String: Int] ?? [:]
            // Interrupted flows may fail, but only as unavailable: never a server error.
            #expect(!errors.keys.contains { $0.contains("500") || $0.contains("server_error") }, "\(server): \(errors)")
            let metrics = try await TestHTTP().get("\(server)/metrics")
            #expect(!metrics.text.contains("status=\"500\""), "\(server) answered no 500")
            if errors.keys.contains(where: { $0.contains("503") }) {
                #expect(metrics.text.contains("tessera_database_unavailable_total"), "\(server): the 503s are counted: \(errors)")
            }
        }

        // Logins work after it, on both nodes.
        for (index, server) in servers.enumerated() {
            let after = try await tessera(
                ["bench", "--tenant", "after-\(index)", "--devices", "1", "--concurrency", "1", "--count", "3", "--json"],
                environment: ["TESSERA_SERVER": server, "TESSERA_ADMIN_TOKEN": token])
            #expect(after.0 == 0 && after.1["completed"] as? Int == 3, "\(server): \(after.2)")
        }
        // Known, and not fixed yet: after a database restart a node sometimes does not end
        // its graceful stop (seen before this change too, about every other run); it is
        // killed then. Recorded as a known issue, so that a fix shows as one that no
        // longer happens.
        for (name, node) in [("the first node", nodeA), ("the second node", nodeB)] {
            node.terminate()
            await withKnownIssue("after a database restart, a node's graceful stop may hang", isIntermittent: true) {
                do { try await node.waitForExit(timeout: .seconds(40)) } catch { Issue.record("\(name) did not stop: \(error)") }
            }
        }
    }
}
