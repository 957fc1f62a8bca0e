/// What this build is: `version` and `commit` are written at build time by the BuildInfo
/// plugin (`git describe --tags --always --dirty` of the checkout, and the full commit).
public enum BuildInfo {
    /// `v0.1.0`, `v0.1.0-3-g1a2b3c4` (three commits later), with `-dirty` for uncommitted changes.
    public static var summary: String { "\(version) (commit \(commit))" }
}
