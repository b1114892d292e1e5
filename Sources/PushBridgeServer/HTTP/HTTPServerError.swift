/// Why an ``HTTPServer`` could not start: a bad configuration or a failed bind.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the field or address involved.
    public var message: String

    /// An error with a message.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { "HTTPServerError: \(message)" }
}
