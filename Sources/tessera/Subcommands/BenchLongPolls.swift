import Foundation
import TesseraCore
import TesseraKit

/// `tessera bench --flow long-poll`: many devices' long polls held open at once, as the
/// SDK's `pendingRequestUpdates` holds them (each answered list is followed by a poll that
/// waits up to 30 seconds for a change), and what they cost the server.
enum LongPolls {
    /// How long the polls may take to open before the bench reports what it has.
    static let openingLimit: Duration = .seconds(300)

    /// Opens `count` long polls over `fleet` (poll n on device n mod the fleet's size),
    /// waits until the server holds them all (its `tessera_long_polls_open`), holds them
    /// for `duration`, and reports the server's memory and CPU around it.
    static func hold(_ count: Int, fleet: [BenchDevice], for duration: Duration, metrics: ServerCPU) async throws -> BenchReport {
        let before = try await metrics.read().get()
        // Polls the server still holds from earlier (a client that left is noticed only
        // when its wait ends) are not this run's.
        let earlier = before.longPolls ?? 0
        func ours(_ reading: ServerCPU.Reading) -> Double { (reading.longPolls ?? 0) - earlier }
        let benchBefore = ProcessUsage.current()
        let stats = BenchStats()
        let started = ContinuousClock.now
        let report = try await withThrowingTaskGroup(of: Void.self) { group -> BenchReport in
            for index in 0..<count {
                let device = fleet[index % fleet.count]
                group.addTask {
                    let start = ContinuousClock.now
                    var first = true
                    // The stream polls on until the task is cancelled; an activation that
                    // cannot ask shows an empty list and tries again, as in an app.
                    for try await _ in device.authenticator.pendingRequestUpdates(wait: 30) where first {
                        stats.completed(ContinuousClock.now - start)
                        first = false
                    }
                }
                // Connections open a few hundred at a time, within the server's accept backlog.
                if index % 250 == 249 { try await Task.sleep(for: .milliseconds(20)) }
            }
            // Until the server holds them all (or the limit passes: the report says how many it held).
            var open = 0.0
            var lastSeen = 0.0
            let limit = ContinuousClock.now + openingLimit
            while ContinuousClock.now < limit {
                try await Task.sleep(for: .milliseconds(500))
                open = ours(try await metrics.read().get())
                if open != lastSeen {
                    FileHandle.standardError.write(Data("\rlong polls open: \(Int(open))/\(count)".utf8))
                    lastSeen = open
                }
                if open >= Double(count) { break }
            }
            let opened = ContinuousClock.now - started
            let held = try await metrics.read().get()
            // Held for the duration, the server's memory read every second: the highest reading counts.
            var highest = held.residentBytes ?? 0
            var fewest = ours(held)
            let until = ContinuousClock.now + duration
            while ContinuousClock.now < until {
                try await Task.sleep(for: .seconds(1))
                let reading = try await metrics.read().get()
                highest = max(highest, reading.residentBytes ?? 0)
                fewest = min(fewest, ours(reading))
                FileHandle.standardError.write(
                    Data(String(format: "\rlong polls open: %d   server memory %.1f MiB   ", Int(ours(reading)), (reading.residentBytes ?? 0) / 1_048_576).utf8))
            }
            let after = try await metrics.read().get()
            let benchAfter = ProcessUsage.current()
            FileHandle.standardError.write(Data("\n".utf8))
            group.cancelAll()
            let heldFor = (ContinuousClock.now - started - opened).seconds
            var report = stats.report(flow: "long-poll", elapsed: ContinuousClock.now - started, concurrency: count, devices: fleet.count)
            report.longPolls = LongPollReport(
                requested: count, open: Int(ours(held)), fewestOpen: Int(fewest), secondsToOpen: opened.seconds,
                secondsHeld: heldFor, before: before, held: held, highestResident: highest, after: after,
                benchCPUSeconds: benchAfter.cpuSeconds - benchBefore.cpuSeconds)
            return report
        }
        return report
    }
}

extension Duration {
    /// The duration in seconds, as a bench report writes it.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// What holding the long polls cost the server: its resident memory before they opened,
/// once all were open and at its highest while they were held, and its CPU per second
/// while it held them (the re-polls every 30 seconds and its background work).
struct LongPollReport: Encodable {
    let requested: Int
    /// Long polls the server held once opening ended, and the fewest while they were held.
    let open: Int
    let fewestOpen: Int
    let secondsToOpen: Double
    let secondsHeld: Double
    let serverResidentMiBBefore: Double?
    let serverResidentMiBOpen: Double?
    let serverResidentMiBHighest: Double?
    /// (open - before) / polls open, in KiB.
    let serverKiBPerPoll: Double?
    let serverCPUMsPerSecondHeld: Double
    let benchCPUSeconds: Double

    init(
        requested: Int, open: Int, fewestOpen: Int, secondsToOpen: Double, secondsHeld: Double, before: ServerCPU.Reading,
        held: ServerCPU.Reading, highestResident: Double, after: ServerCPU.Reading, benchCPUSeconds: Double
    ) {
        (self.requested, self.open, self.fewestOpen, self.secondsToOpen, self.secondsHeld) = (requested, open, fewestOpen, secondsToOpen, secondsHeld)
        serverResidentMiBBefore = before.residentBytes.map { $0 / 1_048_576 }
        serverResidentMiBOpen = held.residentBytes.map { $0 / 1_048_576 }
        serverResidentMiBHighest = highestResident > 0 ? highestResident / 1_048_576 : nil
        if let start = before.residentBytes, let open = held.residentBytes, self.open > 0 {
            serverKiBPerPoll = (open - start) / 1024 / Double(self.open)
        } else {
            serverKiBPerPoll = nil
        }
        serverCPUMsPerSecondHeld = (after.total - held.total) * 1000 / max(secondsHeld, 0.001)
        self.benchCPUSeconds = benchCPUSeconds
    }

    enum CodingKeys: String, CodingKey {
        case requested, open
        case fewestOpen = "fewest_open"
        case secondsToOpen = "seconds_to_open"
        case secondsHeld = "seconds_held"
        case serverResidentMiBBefore = "server_resident_mib_before"
        case serverResidentMiBOpen = "server_resident_mib_open"
        case serverResidentMiBHighest = "server_resident_mib_highest"
        case serverKiBPerPoll = "server_kib_per_poll"
        case serverCPUMsPerSecondHeld = "server_cpu_ms_per_second_held"
        case benchCPUSeconds = "bench_cpu_seconds"
    }

    var text: String {
        func mib(_ value: Double?) -> String { value.map { String(format: "%.1f MiB", $0) } ?? "unknown" }
        return [
            String(format: "long polls: %d of %d open after %.1f s, at least %d while held for %.1f s", open, requested, secondsToOpen, fewestOpen, secondsHeld),
            "server memory: \(mib(serverResidentMiBBefore)) before, \(mib(serverResidentMiBOpen)) with them open, "
                + "\(mib(serverResidentMiBHighest)) at most while held"
                + (serverKiBPerPoll.map { String(format: " (%.1f KiB per poll)", $0) } ?? ""),
            String(format: "server cpu while held: %.1f ms per second; bench cpu %.1f s in all", serverCPUMsPerSecondHeld, benchCPUSeconds),
        ].joined(separator: "\n")
    }
}
