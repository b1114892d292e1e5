import CLibPQ

/// One libpq result (`PGresult`), owned here and cleared in `deinit`. Values are read as text,
/// the format PushBridge sends and asks for; a SQL NULL reads as nil.
public final class PostgresResult {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    /// libpq's status of the result.
    var status: ExecStatusType { PQresultStatus(handle) }

    /// The number of rows.
    public var rowCount: Int { Int(PQntuples(handle)) }

    /// The number of columns.
    public var columnCount: Int { Int(PQnfields(handle)) }

    /// The rows changed by an INSERT, UPDATE or DELETE (0 for other statements).
    public var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// What kind of value a column holds, from its type's OID.
    enum ColumnType {
        /// `smallint`, `integer`, `bigint`.
        case integer
        /// `real`, `double precision`.
        case real
        /// `numeric` (what `sum` of a `bigint` returns).
        case numeric
        /// `boolean`.
        case boolean
        /// Anything else, read as text.
        case other
    }

    /// The kind of value in `column`.
    func columnType(_ column: Int) -> ColumnType {
        switch PQftype(handle, Int32(column)) {
        case 20, 21, 23: .integer
        case 700, 701: .real
        case 1700: .numeric
        case 16: .boolean
        default: .other
        }
    }

    /// The value at `row`, `column`; nil for NULL.
    public func value(_ row: Int, _ column: Int) -> String? {
        guard row < rowCount, column < columnCount, PQgetisnull(handle, Int32(row), Int32(column)) == 0 else { return nil }
        return String(cString: PQgetvalue(handle, Int32(row), Int32(column)))
    }

    /// The server's SQLSTATE and message when the statement failed; nil when it succeeded.
    var failure: (sqlState: String?, message: String)? {
        let status = PQresultStatus(handle)
        guard status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK else { return nil }
        let state = PQresultErrorField(handle, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        return (state, PQresultErrorMessage(handle).map { String(cString: $0) } ?? "unknown error")
    }

    /// Every row as its column values.
    public var rows: [[String?]] {
        (0..<rowCount).map { row in (0..<columnCount).map { value(row, $0) } }
    }
}
