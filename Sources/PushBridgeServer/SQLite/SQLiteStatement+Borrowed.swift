import CSQLite

extension SQLiteStatement {
    /// Binds `values` to parameters 1…n without copying text or bytes, steps to completion,
    /// then resets the statement and clears its bindings; the statement is reset whether or
    /// not it succeeded. Throws what binding or stepping threw.
    ///
    /// ``bind(_:at:)`` has SQLite copy every string (`SQLITE_TRANSIENT`); here SQLite reads
    /// each Swift string's own UTF-8 (`SQLITE_STATIC`). That is sound because every step runs
    /// inside the nested `withUTF8`/`withUnsafeBytes` closures that lend those buffers, and
    /// the bindings are cleared before the closures return: SQLite never holds a pointer past
    /// its loan. For the audit writer's 2 KB rows this saves a malloc, a copy and a free per
    /// text value.
    public func run(borrowing values: [SQLiteValue]) throws(SQLiteError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw SQLiteError(code: SQLITE_RANGE, message: "statement takes \(expected) arguments, got \(values.count)", sql: sql)
        }
        // Also on a failed bind: no borrowed pointer stays bound once its loan has ended.
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        do {
            try values.withUnsafeBufferPointer { try bindBorrowed($0, from: 0) }
        } catch let error as SQLiteError {
            throw error
        } catch {
            throw SQLiteError(code: SQLITE_ERROR, message: String(describing: error), sql: sql)
        }
    }

    /// Binds `values[index...]`, nesting a closure per borrowed buffer, then runs.
    private func bindBorrowed(_ values: UnsafeBufferPointer<SQLiteValue>, from index: Int) throws {
        var position = index
        while position < values.count {
            let parameter = Int32(clamping: position + 1)
            switch values[position] {
            case .text(var text) where !text.isEmpty:
                return try text.withUTF8 { bytes in
                    let code = bytes.withMemoryRebound(to: CChar.self) { chars in
                        sqlite3_bind_text64(handle, parameter, chars.baseAddress, UInt64(chars.count), nil, UInt8(SQLITE_UTF8))
                    }
                    guard code == SQLITE_OK else { throw SQLiteError.last(code, on: database.handle, sql: sql) }
                    try bindBorrowed(values, from: position + 1)
                }
            case .blob(let bytes) where !bytes.isEmpty:
                return try bytes.withUnsafeBytes { raw in
                    let code = sqlite3_bind_blob64(handle, parameter, raw.baseAddress, UInt64(raw.count), nil)
                    guard code == SQLITE_OK else { throw SQLiteError.last(code, on: database.handle, sql: sql) }
                    try bindBorrowed(values, from: position + 1)
                }
            default:
                // Numbers, NULL and empty text or bytes: bound by value.
                try bind(values[position], at: position + 1)
            }
            position += 1
        }
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        try run()
    }
}
