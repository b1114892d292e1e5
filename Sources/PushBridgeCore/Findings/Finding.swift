/// One thing a translation did to the caller's request: data that travels with the
/// translation, is logged at its own severity and is written to the audit.
public struct Finding: Sendable, Equatable, Codable {
    /// The caller's field path, e.g. `notifications[0].live_activity.title`.
    public var field: String
    /// What happened to it.
    public var kind: FindingKind
    /// How much it matters.
    public var severity: Severity
    /// A sentence a person can act on.
    public var message: String

    /// A finding with the kind's default severity unless one is given.
    public init(field: String, kind: FindingKind, severity: Severity? = nil, message: String) {
        self.field = field
        self.kind = kind
        self.severity = severity ?? kind.defaultSeverity
        self.message = message
    }

    /// The finding as a JSON object (`field`, `kind`, `severity`, `message`).
    public var json: JSONValue {
        .object(["field": .string(field), "kind": .string(kind.rawValue), "severity": .string(severity.rawValue), "message": .string(message)])
    }
}
