import Foundation
import Testing
import TesseraCore

@Suite("Blocking work off the cooperative threads", .timeLimit(.minutes(1)))
struct BlockingWorkTests {
    /// More blocked pieces of work than there are cooperative threads, each waiting for a
    /// task that can only run on a cooperative thread: on the cooperative threads they would
    /// hold them all until their wait ran out, and answer that it did (-2); on threads of
    /// their own they all finish once the task has run.
    @Test("work that blocks leaves the cooperative threads free: blocked work waiting for a task finishes once the task runs")
    func leavesCooperativeThreadsFree() async throws {
        let gate = DispatchSemaphore(value: 0)
        let count = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let finished = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask { try await BlockingWork.run { gate.wait(timeout: .now() + 20) == .success ? index : -2 } }
            }
            group.addTask {
                for _ in 0..<count { gate.signal() }
                return -1
            }
            var finished = Set<Int>()
            for try await value in group { finished.insert(value) }
            return finished
        }
        #expect(finished == Set(-1..<count))
    }

    @Test("what the work throws reaches the caller")
    func throwsThrough() async {
        struct Refused: Error, Equatable {}
        await #expect(throws: Refused.self) { try await BlockingWork.run { () throws -> Int in throw Refused() } }
        #expect((try? await BlockingWork.run { 42 }) == 42)
    }
}
