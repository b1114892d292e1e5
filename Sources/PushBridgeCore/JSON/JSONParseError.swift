/// Why a body is not acceptable JSON, with the byte offset where parsing stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in words a caller can act on.
    public let reason: String
    /// The byte offset into the body.
    public let offset: Int

    /// An error at an offset.
    public init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// "malformed JSON at byte N: reason".
    public var description: String { "malformed JSON at byte \(offset): \(reason)" }
}
