#if !PUSHBRIDGE_STAMPED
/// The commit and build date of a build that was not stamped: `swift build` and `make run`
/// say `unknown`. `make package` builds with `-DPUSHBRIDGE_STAMPED` and writes
/// `BuildStamp+Generated.swift` (not in git) with the real values instead.
enum BuildStamp {
    /// The git commit the binary was built from.
    static let commit = "unknown"
    /// The build date, UTC, `YYYY-MM-DD`.
    static let date = "unknown"
}
#endif
