/// The fold's upserts: every touched counter row once, in the order of its key's text.
extension AuditRollupFold {
    /// Counter rows per upsert statement (23 values a `rollup_requests` row, 17 a `rollup_findings` one: under any engine's limit on marks).
    static let rowsPerStatement = 200

    /// One upsert per table writing every touched counter row once (in chunks of
    /// ``rowsPerStatement``), in the order of the keys' text: the minute, then each text
    /// dimension as Swift orders strings (the status as its decimal text), the same total order
    /// in every transaction of every instance, so two never wait on each other's rows in
    /// opposite orders. Interned ids differ between processes, so the order is the text's: each
    /// distinct string of the batch is ranked once, and the keys are sorted by those ranks.
    /// With `sends`, the busiest minute's counters follow the minutes' (``AuditRollupMinuteSendsSchema``,
    /// the same order); with `hours`, the same counters added up per hour follow, for the hourly rollups
    /// (``AuditRollupHourSchema``), in the same order after the minutes'. A recount that makes
    /// those from the minute rows instead (``AuditRollupRows``) leaves them out.
    mutating func statements(hours: Bool = true, sends: Bool = true) -> [AuditStatement] {
        var statements: [AuditStatement] = []
        statements.reserveCapacity(3 * (requestCounts.count + findingCounts.count) / Self.rowsPerStatement + 6)
        forEachStatement(hours: hours, sends: sends) { statements.append($0) }
        return statements
    }

    /// ``statements(hours:sends:)`` one by one, in the same order, without an array of them:
    /// the writer appends each to its batch's operations. The rows are sorted and the values
    /// gathered in ``scratch``'s arrays, reused from batch to batch.
    mutating func forEachStatement(hours: Bool = true, sends: Bool = true, _ body: (AuditStatement) -> Void) {
        rankUsedStrings()
        appendUpserts(requestCounts, findingCounts, hourly: false, to: body)
        if sends { appendSendUpserts(to: body) }
        guard hours else { return }
        hourRequestCounts.removeAll(keepingCapacity: true)
        hourFindingCounts.removeAll(keepingCapacity: true)
        for (key, counters) in requestCounts {
            var hour = key
            hour.minute = key.minute / AuditRollupHourSchema.minutesPerHour
            hourRequestCounts[hour, default: RequestCounters()].merge(counters)
        }
        for (key, counters) in findingCounts {
            var hour = key
            hour.minute = key.minute / AuditRollupHourSchema.minutesPerHour
            hourFindingCounts[hour, default: FindingCounters()].merge(counters)
        }
        appendUpserts(hourRequestCounts, hourFindingCounts, hourly: true, to: body)
    }

    /// Takes back the value arrays of the upserts at the end of `operations` (the writer's batch,
    /// after the engine ran it), for the next batch's upserts (``scratch``); `operations`
    /// loses them.
    mutating func recycle(_ operations: inout [(index: Int, work: AuditOperation.Work)]) {
        while let last = operations.last, case .rollup = last.work {
            guard case .rollup(let statement) = operations.removeLast().work else { break }
            scratch.keep(statement.values)
        }
    }

    /// Appends the upserts of `requests` and `findings` (keyed by minute, or by hour when `hourly`).
    private mutating func appendUpserts(_ requests: [RequestKey: RequestCounters], _ findings: [FindingKey: FindingCounters], hourly: Bool,
                                        to body: (AuditStatement) -> Void) {
        // Each touched counter row's place is computed once, then sorted by.
        var requestRows = scratch.requestRows
        scratch.requestRows = []
        requestRows.removeAll(keepingCapacity: true)
        for (key, counters) in requests { requestRows.append((rankKey(key), key, counters)) }
        requestRows.sort { Self.precedes($0.0, $1.0) }
        var findingRows = scratch.findingRows
        scratch.findingRows = []
        findingRows.removeAll(keepingCapacity: true)
        for (key, counters) in findings { findingRows.append((rankKey(key), key, counters)) }
        findingRows.sort { Self.precedes($0.0, $1.0) }
        let interner = interner
        for chunk in Self.chunks(of: requestRows.count) {
            var values = scratch.values(capacity: chunk.count * 23)
            for row in requestRows[chunk] { Self.appendValues(of: row.1, row.2, interner, to: &values) }
            body(AuditStatement(name: hourly ? "roll up requests hourly" : "roll up requests", sql: upsertSQL(.requests(hourly: hourly), rows: chunk.count),
                                values: values, requestId: nil))
        }
        for chunk in Self.chunks(of: findingRows.count) {
            var values = scratch.values(capacity: chunk.count * 17)
            for row in findingRows[chunk] { Self.appendValues(of: row.1, row.2, interner, to: &values) }
            body(AuditStatement(name: hourly ? "roll up findings hourly" : "roll up findings", sql: upsertSQL(.findings(hourly: hourly), rows: chunk.count),
                                values: values, requestId: nil))
        }
        scratch.requestRows = requestRows
        scratch.findingRows = findingRows
    }

    /// Appends the upserts of ``sendCounts``, in the order of their keys' text.
    private mutating func appendSendUpserts(to body: (AuditStatement) -> Void) {
        var rows = scratch.sendRows
        scratch.sendRows = []
        rows.removeAll(keepingCapacity: true)
        for (key, counters) in sendCounts { rows.append((rankKey(key), key, counters)) }
        rows.sort { Self.precedes($0.0, $1.0) }
        let interner = interner
        for chunk in Self.chunks(of: rows.count) {
            var values = scratch.values(capacity: chunk.count * 7)
            for (_, key, counters) in rows[chunk] {
                // ``AuditRollupMinuteSendsSchema/key``'s order.
                values.append(.integer(key.minute))
                values.append(.text(interner[key.targetApp]))
                values.append(.text(interner[key.appName]))
                values.append(.text(interner[key.sourceApp]))
                values.append(.text(interner[key.instance]))
                values.append(.integer(counters.requests))
                values.append(.integer(counters.sends))
            }
            body(AuditStatement(name: "roll up the busiest minute's sends", sql: upsertSQL(.sends, rows: chunk.count), values: values, requestId: nil))
        }
        scratch.sendRows = rows
    }

    /// The ranges of `count` rows, at most ``rowsPerStatement`` each.
    private static func chunks(of count: Int) -> Chunks {
        stride(from: 0, to: count, by: rowsPerStatement).lazy.map { $0..<min(count, $0 + rowsPerStatement) }
    }

    /// Row ranges of one statement each.
    private typealias Chunks = LazyMapSequence<StrideTo<Int>, Range<Int>>

    /// Which table an upsert writes.
    private enum UpsertKind {
        case requests(hourly: Bool), findings(hourly: Bool), sends

        /// ``upsertSQLs``' key for `rows` rows of this kind.
        func key(rows: Int) -> Int {
            switch self {
            case .requests(let hourly): (hourly ? 2 : 0) * Self.span + rows
            case .findings(let hourly): (hourly ? 3 : 1) * Self.span + rows
            case .sends: 4 * Self.span + rows
            }
        }

        private static let span = 1 << 20
    }

    /// The upsert of `rows` counter rows (``AuditRollupSchema``, ``AuditRollupHourSchema``, ``AuditRollupMinuteSendsSchema``),
    /// made once per table and count: the writer's fold lives as long as the writer, so a
    /// batch builds no SQL text.
    private mutating func upsertSQL(_ kind: UpsertKind, rows: Int) -> String {
        let key = kind.key(rows: rows)
        if let sql = upsertSQLs[key] { return sql }
        let sql = switch kind {
        case .requests(let hourly): hourly ? AuditRollupHourSchema.upsertRequestsSQL(rows: rows) : AuditRollupSchema.upsertRequestsSQL(rows: rows)
        case .findings(let hourly): hourly ? AuditRollupHourSchema.upsertFindingsSQL(rows: rows) : AuditRollupSchema.upsertFindingsSQL(rows: rows)
        case .sends: AuditRollupMinuteSendsSchema.upsertSQL(rows: rows)
        }
        upsertSQLs[key] = sql
        return sql
    }

    /// A `rollup_requests` row's values in ``AuditRollupSchema/requestKey`` + `requestCounters` order.
    private static func appendValues(of key: RequestKey, _ c: RequestCounters, _ interner: AuditRollupInterner, to values: inout [SQLiteValue]) {
        values.append(.integer(key.minute))
        appendTexts(key.texts, interner, to: &values)
        values.append(.integer(key.status))
        values.append(.integer(key.admitted ? 1 : 0))
        values.append(.integer(c.requests))
        values.append(.integer(c.sends))
        values.append(.real(c.latencyMs))
        values.append(.integer(c.retried))
        values.append(.integer(c.retries))
        values.append(.integer(c.rateLimited))
        values.append(.real(c.waitMs))
        values.append(.integer(c.firstAt))
        values.append(.integer(c.lastAt))
        values.append(contentsOf: c.openPush.values)
    }

    /// A `rollup_findings` row's values in ``AuditRollupSchema/findingKey`` + `findingCounters` order.
    private static func appendValues(of key: FindingKey, _ c: FindingCounters, _ interner: AuditRollupInterner, to values: inout [SQLiteValue]) {
        values.append(.integer(key.minute))
        appendTexts(key.texts, interner, to: &values)
        values.append(.integer(c.requests))
        values.append(.integer(c.findings))
        values.append(.integer(c.indexed))
        values.append(.integer(c.firstAt))
        values.append(.integer(c.lastAt))
        values.append(.text(c.exampleId))
        values.append(.text(c.exampleMessage))
        values.append(.integer(c.judged))
        values.append(.text(c.judgedExampleId))
    }

    /// The seven text dimensions of a key, in its columns' order.
    private static func appendTexts(_ texts: AuditRollupFold.Texts, _ interner: AuditRollupInterner, to values: inout [SQLiteValue]) {
        forEach(texts) { values.append(.text(interner[$0])) }
    }

    /// Calls `body` with each id of `texts` in order, without an array (a tuple of one type
    /// is laid out as one).
    private static func forEach(_ texts: AuditRollupFold.Texts, _ body: (Int32) -> Void) {
        withUnsafeBytes(of: texts) { bytes in
            for id in bytes.bindMemory(to: Int32.self) { body(id) }
        }
    }

    /// Ranks every string the touched keys use by its text (``ranks``: the rank by id, -1
    /// for an id no key uses): each distinct string is compared once per batch, not per
    /// comparison of keys.
    private mutating func rankUsedStrings() {
        var marks = ranks
        ranks = []
        marks.removeAll(keepingCapacity: true)
        marks.append(contentsOf: repeatElement(-1, count: interner.count))
        var used = usedIds
        usedIds = []
        used.removeAll(keepingCapacity: true)
        func use(_ texts: AuditRollupFold.Texts) {
            Self.forEach(texts) { id in
                guard marks[Int(id)] < 0 else { return }
                marks[Int(id)] = 0
                used.append(id)
            }
        }
        for key in requestCounts.keys { use(key.texts) }
        for key in findingCounts.keys { use(key.texts) }
        used.sort { interner[$0] < interner[$1] }
        for (rank, id) in used.enumerated() { marks[Int(id)] = Int32(rank) }
        ranks = marks
        usedIds = used
    }

    /// A key's place in the text order: the minute, the seven text dimensions' ranks
    /// (``ranks``), then (requests) the status, compared as its decimal text, and admission.
    struct RankKey {
        var minute: Int64
        var ranks: AuditRollupFold.Texts
        var status: Int64 = 0
        var admitted: Bool = false
    }

    private static func precedes(_ a: RankKey, _ b: RankKey) -> Bool {
        if a.minute != b.minute { return a.minute < b.minute }
        let (x, y) = (a.ranks, b.ranks)
        if x.0 != y.0 { return x.0 < y.0 }
        if x.1 != y.1 { return x.1 < y.1 }
        if x.2 != y.2 { return x.2 < y.2 }
        if x.3 != y.3 { return x.3 < y.3 }
        if x.4 != y.4 { return x.4 < y.4 }
        if x.5 != y.5 { return x.5 < y.5 }
        if x.6 != y.6 { return x.6 < y.6 }
        // As the text key did: "\(status)" (small strings: no allocation, and only on a tie).
        if a.status != b.status { return String(a.status) < String(b.status) }
        return !a.admitted && b.admitted
    }

    /// `texts` by their ranks.
    private func ranked(_ texts: AuditRollupFold.Texts) -> AuditRollupFold.Texts {
        (ranks[Int(texts.0)], ranks[Int(texts.1)], ranks[Int(texts.2)], ranks[Int(texts.3)], ranks[Int(texts.4)], ranks[Int(texts.5)], ranks[Int(texts.6)])
    }

    private func rankKey(_ key: RequestKey) -> RankKey {
        RankKey(minute: key.minute, ranks: ranked(key.texts), status: key.status, admitted: key.admitted)
    }

    private func rankKey(_ key: FindingKey) -> RankKey { RankKey(minute: key.minute, ranks: ranked(key.texts)) }

    private func rankKey(_ key: SendKey) -> RankKey {
        RankKey(minute: key.minute, ranks: (ranks[Int(key.targetApp)], ranks[Int(key.appName)], ranks[Int(key.sourceApp)], ranks[Int(key.instance)], 0, 0, 0))
    }
}
