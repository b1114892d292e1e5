import CSQLite

/// One compiled statement (`sqlite3_stmt *`), finalized when the last reference goes.
///
/// Bind parameters by 1-based index, ``step()`` through rows and read columns by 0-based
/// index. Holds its ``SQLiteDatabase`` alive. Not `Sendable`.
public final class SQLiteStatement {
    /// The SQL it was compiled from.
    public let sql: String
    /// The database it belongs to (kept alive by this reference).
    public let database: SQLiteDatabase
    let handle: OpaquePointer

    init(database: SQLiteDatabase, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let code = sql.withCString { text in
            let code = sqlite3_prepare_v2(database.handle, text, -1, &statement, &tail)
            // Anything but whitespace after the first statement would be silently ignored.
            if code == SQLITE_OK, let tail, String(cString: tail).contains(where: { !$0.isWhitespace && $0 != ";" }) {
                return SQLITE_MISUSE
            }
            return code
        }
        guard code == SQLITE_OK, let statement else {
            if code == SQLITE_MISUSE {
                sqlite3_finalize(statement)
                throw SQLiteError(code: SQLITE_MISUSE, message: "more than one statement; use execute(_:) for scripts", sql: sql)
            }
            if code == SQLITE_OK {
                throw SQLiteError(code: SQLITE_MISUSE, message: "no statement in the SQL", sql: sql)
            }
            throw SQLiteError.last(code, on: database.handle, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    /// Binds `value` to the parameter at 1-based `index`.
    public func bind(_ value: SQLiteValue, at index: Int) throws(SQLiteError) {
        let position = Int32(clamping: index)
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, position)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, position, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, position, real)
        case .text(var text):
            code = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    // An empty string's buffer may have no address; "" must still bind as text.
                    guard let address = chars.baseAddress else { return sqlite3_bind_text(handle, position, "", 0, pb_sqlite_transient()) }
                    return sqlite3_bind_text64(handle, position, address, UInt64(chars.count), pb_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { raw in
                // A nil address would bind NULL; an empty blob is a zero-length blob.
                guard let address = raw.baseAddress else { return sqlite3_bind_zeroblob(handle, position, 0) }
                return sqlite3_bind_blob64(handle, position, address, UInt64(raw.count), pb_sqlite_transient())
            }
        }
        guard code == SQLITE_OK else { throw SQLiteError.last(code, on: database.handle, sql: sql) }
    }

    /// Binds `values` to parameters 1…n, after checking the count matches.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw SQLiteError(code: SQLITE_RANGE, message: "statement takes \(expected) arguments, got \(values.count)", sql: sql)
        }
        for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    /// Binds an integer. Shorthand for ``bind(_:at:)`` with ``SQLiteValue/integer(_:)``.
    public func bind(_ value: Int64, at index: Int) throws(SQLiteError) { try bind(.integer(value), at: index) }
    /// Binds a double.
    public func bind(_ value: Double, at index: Int) throws(SQLiteError) { try bind(.real(value), at: index) }
    /// Binds text.
    public func bind(_ value: String, at index: Int) throws(SQLiteError) { try bind(.text(value), at: index) }
    /// Binds bytes.
    public func bind(_ value: [UInt8], at index: Int) throws(SQLiteError) { try bind(.blob(value), at: index) }
    /// Binds `NULL`.
    public func bindNull(at index: Int) throws(SQLiteError) { try bind(.null, at: index) }

    /// Resets the statement to run again and clears its bindings.
    public func reset() throws(SQLiteError) {
        let code = sqlite3_reset(handle)
        guard code == SQLITE_OK else { throw SQLiteError.last(code, on: database.handle, sql: sql) }
        let cleared = sqlite3_clear_bindings(handle)
        guard cleared == SQLITE_OK else { throw SQLiteError.last(cleared, on: database.handle, sql: sql) }
    }

    // MARK: Stepping

    /// Advances one step: `true` when a row is ready to read, `false` when done.
    public func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError.last(code, on: database.handle, sql: sql)
        }
    }

    /// Steps to completion, ignoring rows (for `INSERT`, `UPDATE`, DDL).
    public func run() throws(SQLiteError) {
        while try step() {}
    }

    /// Steps to completion, collecting every row.
    public func rows() throws(SQLiteError) -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        while try step() { rows.append((0..<columnCount).map { value(at: $0) }) }
        return rows
    }

    // MARK: Columns (valid after step() returned true)

    /// Columns in the result.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of the column at 0-based `index`.
    public func columnName(at index: Int) -> String {
        sqlite3_column_name(handle, Int32(clamping: index)).map { String(cString: $0) } ?? ""
    }

    /// Whether the column at `index` is `NULL`.
    public func isNull(at index: Int) -> Bool { sqlite3_column_type(handle, Int32(clamping: index)) == SQLITE_NULL }

    /// The column as an integer (SQLite's conversions apply; `NULL` is 0).
    public func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(clamping: index)) }

    /// The column as a double.
    public func double(at index: Int) -> Double { sqlite3_column_double(handle, Int32(clamping: index)) }

    /// The column as text, or nil for `NULL`.
    public func text(at index: Int) -> String? {
        let column = Int32(clamping: index)
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column as bytes, or nil for `NULL`.
    public func blob(at index: Int) -> [UInt8]? {
        let column = Int32(clamping: index)
        if sqlite3_column_type(handle, column) == SQLITE_NULL { return nil }
        guard let pointer = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The column as a typed value, following its storage class.
    public func value(at index: Int) -> SQLiteValue {
        switch sqlite3_column_type(handle, Int32(clamping: index)) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: text(at: index).map(SQLiteValue.text) ?? .null
        case SQLITE_BLOB: .blob(blob(at: index) ?? [])
        default: .null
        }
    }
}
