import Foundation

/// A database file a read command opens: it must already exist, so reading never leaves an
/// empty database behind (SQLite would create one at a mistyped path).
public enum ExistingFile {
    /// The error when `path` does not exist.
    public struct Missing: Error, CustomStringConvertible {
        /// The path asked for.
        public var path: String
        /// What the file should have been (`the scheduler file`).
        public var what: String
        /// `no scheduler file at PATH`.
        public var description: String { "no \(what) at \(path)" }
    }

    /// `path`, or ``Missing`` when no file is there.
    public static func require(_ path: String, what: String) throws(Missing) -> String {
        guard FileManager.default.fileExists(atPath: path) else { throw Missing(path: path, what: what) }
        return path
    }
}
