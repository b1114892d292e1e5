/// Every text the audit writes goes through ``AuditOperation/Work/escapingNUL``, on SQLite as on
/// PostgreSQL: PostgreSQL text cannot hold U+0000, and a value cut at a NUL may read as another
/// (an app id, a field), so each NUL is stored as the six characters `\u0000` on both engines.
extension AuditOperation.Work {
    /// The work with every NUL in its text values written as `\u0000`.
    var escapingNUL: Self {
        switch self {
        case .insert(let row, let findings, let ledger):
            // Almost no request holds a NUL: then the work goes on as it is, without copying every value.
            guard row.holdsNUL || findings.contains(where: \.holdsNUL) || ledger.contains(where: \.values.holdsNUL) else { return self }
            return .insert(row: row.map(\.escapingNUL), findings: findings.map { $0.map(\.escapingNUL) }, ledger: ledger.map(\.escapingNUL))
        case .finish(let requestId, let values, let ledger):
            guard requestId.containsUTF8(0) || values.holdsNUL || ledger.contains(where: \.values.holdsNUL) else { return self }
            return .finish(requestId: requestId.escapingNUL, values: values.map(\.escapingNUL), ledger: ledger.map(\.escapingNUL))
        case .statement(let statement):
            return .statement(statement.escapingNUL)
        case .background(let statement):
            return .background(statement.escapingNUL)
        case .rollup(let statement):
            return .rollup(statement.escapingNUL)
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
        escaped.rollupCondition = rollupCondition.map { ($0.sql, $0.values.map(\.escapingNUL)) }
        return escaped
    }
}

extension SQLiteValue {
    /// A text value with every NUL written as `\u0000`; any other value as it is.
    var escapingNUL: SQLiteValue {
        if case .text(let text) = self { .text(text.escapingNUL) } else { self }
    }
}

extension [SQLiteValue] {
    /// Whether any text value holds a NUL, i.e. ``AuditOperation/Work/escapingNUL`` would change it.
    var holdsNUL: Bool {
        contains { value in
            if case .text(let text) = value { text.containsUTF8(0) } else { false }
        }
    }
}
