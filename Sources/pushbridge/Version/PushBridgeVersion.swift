/// What `pushbridge --version` prints: the version (declared here and nowhere else: the
/// Makefile's `make package` reads it from this file for the `.deb`'s name and control file,
/// and `CHANGELOG.md` has a section per version), the commit and the build date.
enum PushBridgeVersion {
    /// The release version, `MAJOR.MINOR.PATCH`. Raise it with a `CHANGELOG.md` section.
    static let version = "1.0.0"

    /// One line: `pushbridge 1.0.0 (commit 0123abc, built 2026-12-06)`.
    static var line: String {
        "pushbridge \(version) (commit \(BuildStamp.commit), built \(BuildStamp.date))"
    }
}
