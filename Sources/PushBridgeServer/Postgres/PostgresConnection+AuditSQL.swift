/// The audit's statements on PostgreSQL: `?` marks numbered `$1`, `$2`, … (the SQL is this
/// module's own, with no `?` inside a string literal), values sent as text and read back
/// typed by their column's type. A statement with values is prepared once per connection
/// (``executePrepared(_:_:)``): the activity ledger's read runs on every request.
extension PostgresConnection: AuditSQL {
    func change(_ sql: String, _ values: [SQLiteValue]) throws -> Int {
        try executePrepared(numbered(sql), values.map(Self.text)).affectedRows
    }

    func select(_ sql: String, _ values: [SQLiteValue]) throws -> [[SQLiteValue]] {
        let result = try executePrepared(numbered(sql), values.map(Self.text))
        let types = (0..<result.columnCount).map(result.columnType)
        return (0..<result.rowCount).map { row in
            (0..<result.columnCount).map { column in Self.value(result.value(row, column), type: types[column]) }
        }
    }

    func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(body)
    }

    /// ``numberingMarks(_:)`` of `sql`, kept for the texts already prepared on this connection
    /// (their numbered text is the cache's key): a known statement is not scanned again.
    private func numbered(_ sql: String) -> String {
        if let known = numberedTexts[sql] { return known }
        let text = Self.numberingMarks(sql)
        if numberedTexts.count < Self.preparedLimit { numberedTexts[sql] = text }
        return text
    }

    /// `sql` with each `?` outside a quoted literal or identifier replaced by `$1`, `$2`, … in order.
    static func numberingMarks(_ sql: String) -> String {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                output.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                output.append(character)
            } else if character == "?" {
                number += 1
                output += "$\(number)"
            } else {
                output.append(character)
            }
        }
        return output
    }

    /// A value as the text PostgreSQL parses for its parameter's type (nil for NULL).
    static func text(_ value: SQLiteValue) -> String? {
        switch value {
        case .null: nil
        case .integer(let integer): String(integer)
        case .real(let real): real.isFinite ? "\(real)" : nil
        case .text(let text): text
        case .blob(let bytes): "\\x" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
    }

    /// A column's text read back as SQLite would hand it over: integers for integer and
    /// boolean columns and for whole numerics (`sum` of a `BIGINT`), reals for floating point.
    static func value(_ text: String?, type: PostgresResult.ColumnType) -> SQLiteValue {
        guard let text else { return .null }
        switch type {
        case .integer: return Int64(text).map(SQLiteValue.integer) ?? .text(text)
        case .boolean: return .integer(text == "t" ? 1 : 0)
        case .real: return Double(text).map(SQLiteValue.real) ?? .text(text)
        case .numeric:
            if let integer = Int64(text) { return .integer(integer) }
            return Double(text).map(SQLiteValue.real) ?? .text(text)
        case .other: return .text(text)
        }
    }
}
