import TesseraKit

extension Result where Failure == any Error {
    /// The outcome of an async call: its value, or what it threw.
    init(_ body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
