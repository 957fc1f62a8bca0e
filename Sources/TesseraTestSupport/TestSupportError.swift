/// A test's set-up went wrong (not the behaviour under test): what was missing or refused.
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
