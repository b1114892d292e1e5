import Foundation

/// A fresh folder under the system's temporary directory, removed with everything in it when
/// the last reference to it goes. A test keeps it in a local (`let dir = try TemporaryDirectory("…")`,
/// alive to the end of the test: the tests build unoptimised) or a harness keeps it in a
/// property, so a restart can hand the same folder to the next harness.
final class TemporaryDirectory: Sendable {
    /// The folder.
    let url: URL
    private let keep: Bool

    /// Makes `<tmp>/<prefix>-<uuid>`; with the environment variable `keepIfSet` set the folder
    /// is kept (and its path printed) for a look after a failure.
    init(_ prefix: String = "pushbridge", keepIfSet variable: String? = nil) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        keep = variable.map { ProcessInfo.processInfo.environment[$0] != nil } ?? false
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        if keep { print("kept folder: \(url.path)") }
    }

    /// The folder's path.
    var path: String { url.path }

    /// A file or folder inside.
    func url(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The path of a file or folder inside.
    func path(_ name: String) -> String { url(name).path }

    deinit {
        if !keep { try? FileManager.default.removeItem(at: url) }
    }
}

/// Runs `body` with a fresh temporary folder and removes the folder when it returns or throws.
func withTemporaryDirectory<T>(_ prefix: String = "pushbridge", _ body: (TemporaryDirectory) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory(prefix)
    defer { withExtendedLifetime(directory) {} }
    return try await body(directory)
}

/// Runs `body` with a fresh temporary folder and removes the folder when it returns or throws.
func withTemporaryDirectory<T>(_ prefix: String = "pushbridge", _ body: (TemporaryDirectory) throws -> T) throws -> T {
    let directory = try TemporaryDirectory(prefix)
    defer { withExtendedLifetime(directory) {} }
    return try body(directory)
}
