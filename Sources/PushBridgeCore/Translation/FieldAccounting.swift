/// Accounts for every key a dialect did not carry: each becomes a `dropped` finding whose
/// message comes from the dialect's mapping table when the field is documented.
public enum FieldAccounting {
    /// Adds a drop finding for each unread key of `reader`. `tablePrefix` is the table's path
    /// for this object (e.g. `notifications[].live_activity`), `dialect` names the provider.
    public static func dropUnread(_ reader: FieldReader, table: [FieldMapping], route: RouteKind, tablePrefix: String,
                                  dialect: String, unknownMessage: ((String) -> String)? = nil, into findings: inout [Finding]) {
        for m in reader.unread {
            let tableField = tablePrefix.isEmpty ? m.key : MessageText("\(tablePrefix).\(m.key)").text
            let message: String
            if let row = table.row(route, tableField), row.treatment == .dropped {
                message = row.note
            } else if let unknownMessage {
                message = unknownMessage(m.key)
            } else {
                message = MessageText("not a documented \(dialect) field on this route; OpenPush would silently ignore it, so it is not forwarded").text
            }
            findings.append(Finding(field: reader.fieldPath(m.key), kind: .dropped, message: message))
        }
    }
}
