/// The PostgreSQL writer's statements that carry many rows of one kind at once: a batch's
/// intents (with their findings inline, ``AuditFindingsInlineSchema``) in one `INSERT` into
/// `request_log`, its completions in one `INSERT … SELECT` into `request_outcomes`, instead of
/// one statement per row. The server then parses, plans and executes a few statements per
/// batch however many rows it holds.
///
/// Two forms (``AuditMultiRowForm``), chosen by ``AuditStoreConfiguration/postgresMultiRow``:
/// - ``AuditMultiRowForm/unnest``: one array parameter per column (`unnest($1::TEXT[], $2::BIGINT[], …)`),
///   so each statement's SQL is the same for any number of rows: prepared once per
///   connection, no limit on the rows (libpq's 65,535 parameters bound the other form). Each
///   array is sent in PostgreSQL's binary format (``arrayParameters(_:_:)``), which the server
///   copies element by element instead of parsing a text literal at `Bind`.
/// - ``AuditMultiRowForm/values``: `VALUES ($1, …), ($n, …)`, one parameter per value: the SQL differs
///   with the number of rows, so it is prepared once per row count, and cut into statements
///   of at most ``valuesRows`` rows.
enum AuditMultiRow {
    typealias Form = AuditMultiRowForm

    /// A table's columns as one statement writes them: names and PostgreSQL types.
    struct Columns {
        var table: String
        var names: [String]
        var types: [String]
    }

    /// `request_log`, a request's intent (``AuditPostgresLogSQL/intentColumns``: ``AuditRequestColumn/intent``
    /// in order, then the findings' list).
    static let intents = Columns(table: "request_log", names: AuditPostgresLogSQL.intentColumns,
                                 types: AuditRequestColumn.intent.map { $0.kind.type(sqlite: false) } + ["TEXT"])
    /// `request_outcomes` of requests written whole: request id, received time, the completion
    /// columns (``AuditPostgresLogSQL/outcome(of:)``).
    static let outcomes = Columns(table: "request_outcomes", names: ["request_id", "received_at"] + AuditStatements.completionColumns,
                                  types: ["TEXT", "BIGINT"] + AuditRequestColumn.completion.map { $0.kind.type(sqlite: false) })
    /// A completion's columns and, last, the request it completes (``AuditOperation/Work/finish(requestId:values:ledger:)``'s values).
    static let completions = Columns(table: "request_outcomes", names: AuditStatements.completionColumns + ["request_id"],
                                     types: AuditRequestColumn.completion.map { $0.kind.type(sqlite: false) } + ["TEXT"])

    /// Rows per statement in the ``Form/values`` form: a full batch's request rows or
    /// completions in one statement, far below libpq's 65,535 parameters.
    static let valuesRows = 100

    /// The rows each statement carries, for `count` rows: all of them in the ``Form/unnest``
    /// form, at most ``valuesRows`` in the ``Form/values`` form; none for none.
    static func ranges(_ count: Int, form: Form) -> [Range<Int>] {
        let step = form == .unnest ? max(count, 1) : valuesRows
        return stride(from: 0, to: count, by: step).map { $0..<min($0 + step, count) }
    }

    /// One `INSERT` of `rows` into `columns.table`.
    static func insert(_ rows: ArraySlice<[SQLiteValue]>, into columns: Columns, form: Form) -> (sql: String, parameters: [PostgresParameter]) {
        let names = columns.names.joined(separator: ", ")
        switch form {
        case .unnest:
            return ("INSERT INTO \(columns.table) (\(names)) SELECT * FROM \(unnest(columns))", arrayParameters(rows, columns))
        case .values:
            return ("INSERT INTO \(columns.table) (\(names)) VALUES \(values(rows.count, columns, cast: false))", textParameters(rows))
        }
    }

    /// ``completions`` and, last, the received time of each one's intent, which the writer knows.
    static let completionsAt = Columns(table: "request_outcomes", names: completions.names + ["received_at"], types: completions.types + ["BIGINT"])

    /// One `INSERT INTO request_outcomes … SELECT` of the completions `rows`, each joined to
    /// its intent in `request_log` (which gives it the intent's `received_at`), returning the
    /// `request_id` of each row written: a completion whose id is not returned has no intent.
    /// `knownTime`: the rows are ``completionsAt``'s, and each intent is looked up in its
    /// day's partition only; the writer noted those intents itself and none of them has a
    /// completion it wrote, so the insert is a plain one, without the `ON CONFLICT … DO UPDATE`
    /// of ``AuditPostgresLogSQL/replaceOutcome`` (a speculative insertion per row: an index
    /// probe before the insert, a token lock, the update's projection built per execution). An
    /// outcome already there (another instance's takeover marked the intent `unknown`) makes
    /// the statement fail with a unique violation: the batch is then written again one
    /// statement per row, whose completion replaces it as before (``AuditPostgresLogSQL/insertOutcomeAtSQL``).
    /// Without `knownTime` (a late completion after the first, or an intent this writer did not
    /// note) the completion replaces the one there.
    static func complete(_ rows: ArraySlice<[SQLiteValue]>, form: Form, knownTime: Bool = false) -> (sql: String, parameters: [PostgresParameter]) {
        let columns = knownTime ? completionsAt : completions
        let completionNames = AuditStatements.completionColumns
        let alias = "v(\(columns.names.joined(separator: ", ")))"
        let source: String, parameters: [PostgresParameter]
        switch form {
        case .unnest: (source, parameters) = ("\(unnest(columns)) AS \(alias)", arrayParameters(rows, columns))
        case .values: (source, parameters) = ("(VALUES \(values(rows.count, columns, cast: true))) AS \(alias)", textParameters(rows))
        }
        return ("INSERT INTO request_outcomes (request_id, received_at, \(completionNames.joined(separator: ", "))) "
                + "SELECT l.request_id, l.received_at, \(completionNames.map { "v.\($0)" }.joined(separator: ", ")) "
                + "FROM \(source) JOIN request_log l ON l.request_id = v.request_id " + (knownTime ? "AND l.received_at = v.received_at" : AuditPostgresLogSQL.replaceOutcome)
                + " RETURNING request_outcomes.request_id", parameters)
    }

    /// `unnest($1::TYPE[], …)`, one array per column.
    private static func unnest(_ columns: Columns) -> String {
        "unnest(" + columns.types.enumerated().map { "$\($0.offset + 1)::\($0.element)[]" }.joined(separator: ", ") + ")"
    }

    /// `($1, $2, …), ($n, …)` for `count` rows; `cast`: each mark with its column's type (a
    /// `VALUES` outside an `INSERT` takes no type from a target column).
    private static func values(_ count: Int, _ columns: Columns, cast: Bool) -> String {
        let width = columns.names.count
        return (0..<count).map { row in
            "(" + (0..<width).map { column in
                "$\(row * width + column + 1)" + (cast ? "::\(columns.types[column])" : "")
            }.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
    }

    /// Every value of `rows` as a text parameter, row after row (the ``Form/values`` form).
    private static func textParameters(_ rows: ArraySlice<[SQLiteValue]>) -> [PostgresParameter] {
        rows.flatMap { $0.map { PostgresParameter(PostgresConnection.text($0)) } }
    }

    /// One array parameter per column of `columns`, in PostgreSQL's binary format
    /// (``PostgresBinaryArray``: the server skips `array_in`, which parsed and unquoted every
    /// element at `Bind`); a column one of whose values has no binary form that reads back as
    /// its text does (a text holding NUL, a text in an integer column) goes as its text
    /// literal (``arrays(_:_:)``), so every value reads back as before.
    static func arrayParameters(_ rows: ArraySlice<[SQLiteValue]>, _ columns: Columns) -> [PostgresParameter] {
        columns.types.indices.map { column in
            if let element = PostgresBinaryArray.Element(sqlType: columns.types[column]),
               let bytes = PostgresBinaryArray.encode(rows.lazy.map { $0[column] }, of: element) {
                return .binary(bytes)
            }
            return PostgresParameter(literal(rows, column))
        }
    }

    /// One array literal per column (`{"a","b",NULL}`), each element quoted with `"` and `\`
    /// escaped, as PostgreSQL's array input reads them.
    static func arrays(_ rows: ArraySlice<[SQLiteValue]>, _ width: Int) -> [String?] {
        (0..<width).map { literal(rows, $0) }
    }

    /// Column `column` of `rows` as an array literal (``arrays(_:_:)``).
    private static func literal(_ rows: ArraySlice<[SQLiteValue]>, _ column: Int) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (position, row) in rows.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let text = PostgresConnection.text(row[column]) else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// How the PostgreSQL audit writer sends many rows of one kind in one statement
/// (``AuditStoreConfiguration/postgresMultiRow``).
public enum AuditMultiRowForm: String, Sendable {
    /// One array parameter per column, `unnest`ed: one SQL text for any number of rows.
    case unnest
    /// `VALUES (…), (…)`: one parameter per value, one SQL text per number of rows.
    case values
}
