import Foundation

/// The repository's root and the files tests read from it (fixtures, configurations, docs,
/// the fuzz regressions), found from this file's own path: the one place both test targets
/// look for them.
public enum Repository {
    /// The repository root.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file or folder under the root, e.g. `config/demo.json`.
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The path of a file or folder under the root.
    public static func path(_ relative: String) -> String { url(relative).path }

    /// `fixtures/`: the golden translation cases and the sandbox's seed.
    public static var fixtures: URL { url("fixtures") }
}
