/// Why a request cannot be forwarded at all: the field and the rule it breaks.
/// Throw it only when nothing can be forwarded; a lossy field is a `Finding`, not an error.
public struct TranslationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The caller's field path ("" for the whole body, `path` for the URL).
    public var field: String
    /// The rule, short ("required", "must be a string", "malformed JSON" …).
    public var rule: String
    /// The full sentence returned to the caller.
    public var message: String

    /// An error naming a field and a rule; the message defaults to "field: rule".
    public init(field: String, rule: String, message: String? = nil) {
        self.field = field
        self.rule = rule
        self.message = message ?? (field.isEmpty ? rule : "\(field): \(rule)")
    }

    /// The message.
    public var description: String { message }
}
