/// One `requests` row as a reader selected it: its values picked by column
/// (``AuditRequestColumn``), never by position, so a column added to a query cannot shift
/// another's value.
struct AuditRequestRow {
    /// The columns selected, in the query's order.
    let columns: [AuditRequestColumn]
    let values: [SQLiteValue]

    /// The value of `column`, or null when it was not selected.
    subscript(_ column: AuditRequestColumn) -> SQLiteValue {
        columns.firstIndex(of: column).map { values[$0] } ?? .null
    }

    /// The text of `column`, if any.
    func text(_ column: AuditRequestColumn) -> String? { self[column].textValue }

    /// The integer of `column`, if any.
    func integer(_ column: AuditRequestColumn) -> Int64? { self[column].integerValue }

    /// The number of `column`, whichever way the engine stored it.
    func real(_ column: AuditRequestColumn) -> Double? {
        switch self[column] {
        case .real(let real): real
        case .integer(let integer): Double(integer)
        default: nil
        }
    }

    /// `SELECT`'s list for `columns`: `app_name` read as `appNameColumn` (`NULL` in a file no
    /// proxy of this build has migrated yet).
    static func selectList(_ columns: [AuditRequestColumn], appNameColumn: String) -> String {
        columns.map { $0 == .appName ? appNameColumn : $0.name }.joined(separator: ", ")
    }
}
