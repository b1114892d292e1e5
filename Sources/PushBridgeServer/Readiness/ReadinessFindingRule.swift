/// Which findings readiness judges (``RouteReadiness/warnings`` and ``RouteReadiness/rejections``):
/// warning-severity dropped or changed fields, PushBridge's rejections (`rejected`), and the
/// OpenPush rules observe mode found broken (caveats starting "OpenPush would reject this",
/// shown as kind `openpush rule`). One rule, read by the writer's fold (the rollups'
/// `judged_requests`) and by the queries over the log's rows.
enum ReadinessFindingRule {
    /// How a caveat for a broken OpenPush rule begins (``LegacyMode``'s findings).
    static let rulePrefix = "OpenPush would reject this"

    /// Whether a finding of `kind`, `severity` and `message` is judged.
    static func judges(kind: String, severity: String, message: String) -> Bool {
        switch kind {
        case "rejected": true
        case "caveat": message.hasPrefix(rulePrefix)
        default: severity == "warning"
        }
    }

    /// ``judges(kind:severity:message:)`` as an SQL condition on `findings f`.
    static let sql = "(f.kind = 'rejected' OR (f.kind = 'caveat' AND f.message LIKE '\(rulePrefix)%') "
        + "OR (f.severity = 'warning' AND f.kind NOT IN ('caveat', 'rejected')))"

    /// The kind readiness shows for a stored `kind`.
    static func shownKind(_ kind: String) -> String { kind == "caveat" ? "openpush rule" : kind }

    /// ``shownKind(_:)`` in SQL, over the column `column`.
    static func shownKindSQL(_ column: String) -> String { "CASE WHEN \(column) = 'caveat' THEN 'openpush rule' ELSE \(column) END" }
}
