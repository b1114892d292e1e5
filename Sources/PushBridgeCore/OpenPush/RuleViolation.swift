/// One OpenPush rule a request breaks: the field and a message naming the rule.
public struct RuleViolation: Sendable, Equatable, CustomStringConvertible {
    /// The OpenPush body field (or `path`).
    public var field: String
    /// What the rule says, e.g. "must be exactly 5 or 10".
    public var rule: String

    /// A violation.
    public init(field: String, rule: String) {
        self.field = field
        self.rule = rule
    }

    /// "field: rule".
    public var description: String { "\(field): \(rule)" }
}
