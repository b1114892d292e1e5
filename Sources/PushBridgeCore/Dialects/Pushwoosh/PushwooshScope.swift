/// Where one notification is being translated: its index, its field paths, and the findings and
/// errors it has produced so far. Paths are relative to the `request` envelope, as in
/// Pushwoosh's own tables: `notifications[0].live_activity.title`.
struct PushwooshScope {
    /// The route being translated.
    let route: RouteKind
    /// The notification's index in `notifications`.
    let index: Int
    /// `notifications[i]`.
    let prefix: String
    /// `notifications[i].live_activity`.
    let livePrefix: String
    /// Findings made so far.
    var findings: [Finding] = []
    /// Rules broken so far; any one rejects the whole request.
    var errors: [TranslationError] = []
    /// Caller paths of OpenPush fields that the usual mapping does not give (targeting).
    var sourceFields: [String: String] = [:]

    /// A scope for notification `index` of a route.
    init(route: RouteKind, index: Int) {
        self.route = route
        self.index = index
        prefix = MessageText("notifications[\(index)]").text
        livePrefix = prefix + ".live_activity"
    }

    /// The caller's path of a notification key.
    func field(_ key: String) -> String { MessageText("\(prefix).\(key)").text }
    /// The caller's path of a `live_activity` key.
    func liveField(_ key: String) -> String { MessageText("\(livePrefix).\(key)").text }

    /// Records a finding.
    mutating func note(_ field: String, _ kind: FindingKind, _ message: String, severity: Severity? = nil) {
        findings.append(Finding(field: field, kind: kind, severity: severity, message: message))
    }

    /// Records a broken rule.
    mutating func reject(_ field: String, _ rule: String) {
        errors.append(TranslationError(field: field, rule: rule))
    }

    /// Takes over a reader's type and presence errors.
    mutating func absorb(_ reader: FieldReader) {
        errors.append(contentsOf: reader.errors)
    }

    /// The table row note for a documented field of this route.
    func tableNote(_ tableField: String) -> String {
        PushwooshFieldMappings.table.row(route, tableField)?.note ?? "not forwarded"
    }

    /// Drops every key of `reader` that was not read, with the table's reason.
    mutating func dropUnread(_ reader: FieldReader, tablePrefix: String) {
        FieldAccounting.dropUnread(reader, table: PushwooshFieldMappings.table, route: route, tablePrefix: tablePrefix,
                                   dialect: "Pushwoosh", into: &findings)
    }
}
