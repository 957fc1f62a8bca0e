import Testing

/// What a live test needs beyond the code, so that a run can pick or skip it (Swift 6.3's
/// `swift test` cannot select by tag yet: `scripts/tagged.py browser` prints the filter
/// of the suites with a tag, read from their declarations). Every suite here is `live`:
/// it starts real servers on 127.0.0.1 sockets. The fast layer (`scripts/test.sh --fast`)
/// is the other test targets, which start none.
extension Tag {
    /// Real servers on sockets, real HTTP.
    @Tag static var live: Self
    /// Debian's Chromium through Selenium.
    @Tag static var browser: Self
    /// An outside implementation: a Python client, checker or fuzzer, or another provider.
    @Tag static var interop: Self
    /// Several nodes on one PostgreSQL database (one node on SQLite).
    @Tag static var cluster: Self
    /// A server process killed or its database damaged on purpose.
    @Tag static var crash: Self
}
