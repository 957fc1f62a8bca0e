import TesseraKitCompat

/// A step-up delegate that keeps what it is told, for the facades' tests.
@MainActor
package final class StepUpRecorder: StepUpDelegate {
    package var finished: [StepUpResponse] = []
    package var cancelled: [StepUpResponse] = []
    package var failed: [StepUpResponse] = []

    package init() {}

    package func stepUp(_ stepUp: StepUp, didFinish response: StepUpResponse) { finished.append(response) }
    package func stepUp(_ stepUp: StepUp, didCancel response: StepUpResponse) { cancelled.append(response) }
    package func stepUp(_ stepUp: StepUp, didFail response: StepUpResponse) { failed.append(response) }

    /// How many answers it has had.
    package var count: Int { finished.count + cancelled.count + failed.count }

    /// Waits up to 30 s (a loaded machine is slow) until it has had `count` answers.
    package func wait(for count: Int) async throws {
        for _ in 0..<600 where self.count < count { try await Task.sleep(nanoseconds: 50_000_000) }
    }
}
