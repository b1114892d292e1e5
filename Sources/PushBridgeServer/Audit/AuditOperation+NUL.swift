/// Every text the audit writes goes through ``AuditOperation/Work/escapingNUL``, on SQLite as on
/// PostgreSQL: PostgreSQL text cannot hold U+0000, and a value cut at a NUL may read as another
/// (an app id, a field), so each NUL is stored as the six characters `\u0000` on both engines.
extension AuditOperation.Work {
    /// The work with every NUL in its text values written as `\u0000`.
    var escapingNUL: Self {
        switch self {
        case .insert(let row, let findings, let ledger):
            return .insert(row: row.map(\.escapingNUL), findings: findings.map { $0.map(\.escapingNUL) }, ledger: ledger.map(\.escapingNUL))
        case .finish(let requestId, let values, let ledger):
            return .finish(requestId: requestId.escapingNUL, values: values.map(\.escapingNUL), ledger: ledger.map(\.escapingNUL))
        case .statement(let statement):
            return .statement(statement.escapingNUL)
        case .background(let statement):
            return .background(statement.escapingNUL)
        case .prune:
            return self
        }
    }
}

extension AuditStatement {
    /// The statement with every NUL in its text values written as `\u0000`.
    var escapingNUL: AuditStatement {
        var escaped = self
        escaped.values = values.map(\.escapingNUL)
        return escaped
    }
}

extension SQLiteValue {
    /// A text value with every NUL written as `\u0000`; any other value as it is.
    var escapingNUL: SQLiteValue {
        if case .text(let text) = self { .text(text.escapingNUL) } else { self }
    }
}
