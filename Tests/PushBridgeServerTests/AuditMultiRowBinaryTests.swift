import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The `unnest` form's array parameters go in PostgreSQL's binary array format (the server
/// skips `array_in` at `Bind`), and every value reads back exactly as the text literals wrote
/// it, on the test cluster: quotes, backslashes, commas, braces, `NULL` as text, empty
/// strings, non-ASCII, SQL NULLs, extreme integers, reals.
@Suite(.serialized) struct AuditMultiRowBinaryTests {
    /// Texts the array literal must quote or escape, or that look like something else.
    static let awkward: [SQLiteValue] = [
        .text(#"say "hi""#), .text(#"back\slash\"#), .text("a,b"), .text("{braces}"), .text("NULL"), .text(""), .null,
        .text("ünï ☃ 日本 🎉"), .text("  padded  "), .text(#"\u0000"#), .text("}"), .text(#"{"a":[1,2],"b":"\"x\""}"#), .text("line\nbreak\ttab"),
    ]
    static let integers: [SQLiteValue] = [.integer(.min), .integer(.max), .integer(0), .integer(-1), .null, .integer(1_700_000_000_123)]
    static let reals: [SQLiteValue] = [.real(1.5), .real(-0.0), .real(1e-310), .real(12_345.678_901_234), .real(.nan), .null, .real(-.infinity), .integer(42)]
    /// Columns the tables declare `NOT NULL`.
    static let notNull: Set<String> = ["request_id", "received_at", "finding_count", "outcome"]

    /// `count` rows for `columns`, each column cycling through the awkward values of its type
    /// (never NULL where the table refuses it); `received_at` and `request_id` distinct per row.
    static func rows(_ columns: AuditMultiRow.Columns, count: Int, base: Int64) -> [[SQLiteValue]] {
        (0..<count).map { row in
            zip(columns.names, columns.types).enumerated().map { column, named -> SQLiteValue in
                let (name, type) = named
                if name == "request_id" { return .text(#"R\#(row) "q" \ ,{}"#) }
                if name == "received_at" { return .integer(base + Int64(row)) }
                let pool = type == "TEXT" ? awkward : type == "BIGINT" ? integers : reals
                let candidates = notNull.contains(name) ? pool.filter { $0 != .null } : pool
                return candidates[(row + column) % candidates.count]
            }
        }
    }

    /// What the server stores for `value`: a real that is not finite is NULL (as the text form
    /// sends it), an integer in a `DOUBLE PRECISION` column its real.
    static func stored(_ value: SQLiteValue, type: String) -> SQLiteValue {
        switch value {
        case .real(let real) where !real.isFinite: .null
        case .integer(let integer) where type == "DOUBLE PRECISION": .real(Double(integer))
        default: value
        }
    }

    @Test func unnestStatementsSendEveryColumnAsABinaryArrayWithItsElementType() throws {
        let intents = Self.rows(AuditMultiRow.intents, count: 3, base: 1_700_000_000_000)
        let (_, parameters) = AuditMultiRow.insert(intents[...], into: AuditMultiRow.intents, form: .unnest)
        #expect(parameters.count == AuditMultiRow.intents.types.count)
        for (parameter, type) in zip(parameters, AuditMultiRow.intents.types) {
            guard case .binary(let bytes) = parameter else {
                Issue.record("\(type): \(parameter) is not binary")
                continue
            }
            // One dimension of three elements, lower bound 1, and the column's element type.
            let word = { (at: Int) in bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
            let oid: UInt32 = type == "TEXT" ? 25 : type == "BIGINT" ? 20 : 701
            #expect(word(0) == 1 && word(8) == oid && word(12) == 3 && word(16) == 1, "\(type): \(bytes.prefix(20))")
        }
        let completions = Self.rows(AuditMultiRow.completionsAt, count: 2, base: 1_700_000_000_000)
        for knownTime in [true, false] {
            let rows = knownTime ? completions : completions.map { Array($0.dropLast()) }
            #expect(AuditMultiRow.complete(rows[...], form: .unnest, knownTime: knownTime).parameters.allSatisfy { $0.isBinary })
        }
        // The `VALUES` form stays text, one parameter per value.
        #expect(!AuditMultiRow.insert(intents[...], into: AuditMultiRow.intents, form: .values).parameters.contains { $0.isBinary })
    }

    /// A value whose binary form could read back otherwise (a text holding NUL, which a text
    /// parameter ends at; a text in an integer column, which the server parses) sends its
    /// column as the text literal, as before; the other columns stay binary.
    @Test func aColumnWithAValueTheBinaryFormCannotCarryGoesAsText() throws {
        var rows = Self.rows(AuditMultiRow.completionsAt, count: 2, base: 1_700_000_000_000)
        let names = AuditMultiRow.completionsAt.names
        let body = try #require(names.firstIndex(of: "upstream_body")), status = try #require(names.firstIndex(of: "upstream_status"))
        rows[1][body] = .text("a\u{0}b")
        rows[0][status] = .text("201")
        let parameters = AuditMultiRow.complete(rows[...], form: .unnest, knownTime: true).parameters
        for (column, parameter) in parameters.enumerated() {
            if column == body || column == status {
                #expect(parameter == PostgresParameter(AuditMultiRow.arrays(rows[...], names.count)[column]), "\(names[column])")
            } else {
                #expect(parameter.isBinary, "\(names[column])")
            }
        }
    }

    /// `prepared`: named statements (`PQsendQueryPrepared`, the writer's default) or unnamed
    /// ones (`PQsendQueryParams`, ``AuditStoreConfiguration/postgresPreparedStatements`` off).
    @Test(arguments: [AuditMultiRowForm.unnest, .values], [true, false])
    func awkwardValuesReadBackExactlyInEveryColumn(form: AuditMultiRowForm, prepared: Bool) async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        // Migrates the audit's tables.
        await (try AuditStore(path: uri, configuration: AuditStoreConfiguration())).close()
        let connection = try PostgresConnection(uri)
        let base = AuditClock.nowMilliseconds()
        let count = 2 * Self.awkward.count
        let intents = Self.rows(AuditMultiRow.intents, count: count, base: base)
        let (insert, insertParameters) = AuditMultiRow.insert(intents[...], into: AuditMultiRow.intents, form: form)

        // Completions of every intent: the first half with the intent's time known (a plain
        // insert), the other half looked up by id (the upsert).
        let completions = Self.rows(AuditMultiRow.completionsAt, count: count, base: base)
        let known = completions[..<(count / 2)], looked = completions[(count / 2)...].map { Array($0.dropLast()) }
        let (completeKnown, knownParameters) = AuditMultiRow.complete(known, form: form, knownTime: true)
        let (completeLooked, lookedParameters) = AuditMultiRow.complete(looked[...], form: form)
        let results = try connection.pipeline([(insert, insertParameters), (completeKnown, knownParameters), (completeLooked, lookedParameters)], prepared: prepared)
        for result in results {
            guard case .done(let affected, _) = result else {
                Issue.record("\(result)")
                continue
            }
            #expect(affected == count || affected == count / 2)
        }

        try Self.expectReadBack(intents, of: AuditMultiRow.intents, from: "request_log", on: connection)
        try Self.expectReadBack(completions, of: AuditMultiRow.completionsAt, from: "request_outcomes", on: connection)
    }

    /// Reads `columns` of every row of `table` back, in received order, and expects `rows`,
    /// value for value, typed by their columns (``stored(_:type:)``).
    static func expectReadBack(_ rows: [[SQLiteValue]], of columns: AuditMultiRow.Columns, from table: String, on connection: PostgresConnection) throws {
        let read = try connection.select("SELECT \(columns.names.joined(separator: ", ")) FROM \(table) ORDER BY received_at", [])
        #expect(read.count == rows.count, "\(table)")
        for (readRow, row) in zip(read, rows) {
            for (column, name) in columns.names.enumerated() {
                #expect(readRow[column] == stored(row[column], type: columns.types[column]), "\(table).\(name)")
            }
        }
    }
}
