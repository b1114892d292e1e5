/// Everything wrong with a configuration file, each problem with the path of what was being
/// loaded (`apps[1].openpush.rest_key_env: environment variable OP_KEY_2 is not set`).
/// Messages name keys and environment variables, never values, so no secret can appear.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One problem at one path.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// Where: `listen`, `apps[1].callers[0].key_env`, or the file itself for parse errors.
        public var path: String
        /// What is wrong.
        public var message: String
        /// A problem.
        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }
        /// `path: message`.
        public var description: String { path.isEmpty ? message : "\(path): \(message)" }
    }

    /// The problems, in file order.
    public var problems: [Problem]

    /// An error with at least one problem.
    public init(problems: [Problem]) { self.problems = problems }

    /// One problem per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
