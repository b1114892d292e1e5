/// Per-minute counters folded from audit rows, to be added to `rollup_requests` and
/// `rollup_findings` with one upsert per touched counter row (``statements()``). The writer
/// folds each batch (``AuditRollupBatch``); migrations, recovery, pruning and a scheduled
/// start's completion fold the rows they read or change (``AuditRollupRows``). A row is
/// counted with `sign` 1 when it appears and -1 when it leaves its counter row (a pending
/// intent completed, a row pruned).
struct AuditRollupFold {
    /// A `rollup_requests` row's key.
    struct RequestKey: Hashable, Comparable {
        var minute: Int64
        var instance, sourceApp, appName, targetApp, dialect, route, outcome: String
        /// 0 when no status came back.
        var status: Int64
        /// 0 for a request refused before admission (rejected without a translation).
        var admitted: Int64

        static func < (a: RequestKey, b: RequestKey) -> Bool {
            if a.minute != b.minute { return a.minute < b.minute }
            return [a.instance, a.sourceApp, a.appName, a.targetApp, a.dialect, a.route, a.outcome, "\(a.status)", "\(a.admitted)"]
                .lexicographicallyPrecedes([b.instance, b.sourceApp, b.appName, b.targetApp, b.dialect, b.route, b.outcome, "\(b.status)", "\(b.admitted)"])
        }
    }

    /// A `rollup_requests` row's counters.
    struct RequestCounters {
        var requests: Int64 = 0, sends: Int64 = 0, latencyMs = 0.0
        var retried: Int64 = 0, retries: Int64 = 0, rateLimited: Int64 = 0, waitMs = 0.0
        var firstAt = Int64.max, lastAt = Int64.min
        /// Readiness's OpenPush calls as the primary.
        var openPush = ReadinessOpenPushCounts()
    }

    /// A `rollup_findings` row's key: the field with its array indices folded (``FieldPath``).
    struct FindingKey: Hashable, Comparable {
        var minute: Int64
        var instance, sourceApp, appName, dialect, route, field, kind: String

        static func < (a: FindingKey, b: FindingKey) -> Bool {
            if a.minute != b.minute { return a.minute < b.minute }
            return [a.instance, a.sourceApp, a.appName, a.dialect, a.route, a.field, a.kind]
                .lexicographicallyPrecedes([b.instance, b.sourceApp, b.appName, b.dialect, b.route, b.field, b.kind])
        }
    }

    /// A `rollup_findings` row's counters: requests with such a finding (each counted once),
    /// findings, whether a path was folded (1: the report counts requests, else findings, as
    /// it always has), first and last seen, and the newest request's id with its message.
    struct FindingCounters {
        var requests: Int64 = 0, findings: Int64 = 0, indexed: Int64 = 0
        var firstAt = Int64.max, lastAt = Int64.min
        var exampleId = "", exampleMessage = ""
        /// Requests with a finding readiness judges (``ReadinessFindingRule``), and the newest.
        var judged: Int64 = 0, judgedExampleId = ""
    }

    private(set) var requests: [RequestKey: RequestCounters] = [:]
    private(set) var findings: [FindingKey: FindingCounters] = [:]

    var isEmpty: Bool { requests.isEmpty && findings.isEmpty }

    /// Counts `row` in its counter row, or takes it out with `sign` -1.
    mutating func add(_ row: AuditRollupRow, sign: Int64 = 1) {
        let intent = row.intent
        let admitted: Int64 = row.outcome != AuditOutcome.rejected.rawValue || intent.translated ? 1 : 0
        let key = RequestKey(minute: intent.receivedAt / 60_000, instance: intent.instance, sourceApp: intent.sourceApp, appName: intent.appName,
                             targetApp: intent.targetApp, dialect: intent.dialect, route: intent.route, outcome: row.outcome,
                             status: row.upstreamStatus ?? 0, admitted: admitted)
        let figures = row.retryFigures
        var counters = requests[key] ?? RequestCounters()
        counters.requests += sign
        counters.sends += sign * intent.sends
        counters.latencyMs += Double(sign) * (row.latencyMs ?? 0)
        counters.retried += sign * figures.retried
        counters.retries += sign * figures.retries
        counters.rateLimited += sign * figures.rateLimited
        counters.waitMs += Double(sign) * figures.waitMs
        counters.firstAt = min(counters.firstAt, intent.receivedAt)
        counters.lastAt = max(counters.lastAt, intent.receivedAt)
        counters.openPush.add(row, sign: sign)
        requests[key] = counters
    }

    /// Counts the findings of one request (``AuditStatements/findingColumns`` order, by
    /// ordinal), written with its intent; `appName` is the intent's.
    mutating func addFindings(_ rows: [[SQLiteValue]], appName: String, sign: Int64 = 1) {
        var seen = Set<FindingKey>(), judged = Set<FindingKey>()
        for row in rows {
            let requestId = row[0].textValue ?? "", receivedAt = row[5].integerValue ?? 0, raw = row[6].textValue ?? ""
            let key = FindingKey(minute: receivedAt / 60_000, instance: row[10].textValue ?? "", sourceApp: row[4].textValue ?? "", appName: appName,
                                 dialect: row[2].textValue ?? "", route: row[3].textValue ?? "", field: FieldPath.folded(raw), kind: row[7].textValue ?? "")
            var counters = findings[key] ?? FindingCounters()
            counters.findings += sign
            if seen.insert(key).inserted {
                counters.requests += sign
                if requestId > counters.exampleId { (counters.exampleId, counters.exampleMessage) = (requestId, row[9].textValue ?? "") }
            }
            if raw != key.field { counters.indexed = 1 }
            if ReadinessFindingRule.judges(kind: key.kind, severity: row[8].textValue ?? "", message: row[9].textValue ?? ""), judged.insert(key).inserted {
                counters.judged += sign
                counters.judgedExampleId = max(counters.judgedExampleId, requestId)
            }
            counters.firstAt = min(counters.firstAt, receivedAt)
            counters.lastAt = max(counters.lastAt, receivedAt)
            findings[key] = counters
        }
    }

    /// Counter rows per upsert statement (23 values a `rollup_requests` row, 17 a `rollup_findings` one: under any engine's limit on marks).
    static let rowsPerStatement = 200

    /// One upsert per table writing every touched counter row once (in chunks of
    /// ``rowsPerStatement``), in key order (the same order in every transaction, so two
    /// never wait on each other's rows in opposite orders).
    func statements() -> [AuditStatement] {
        let requestRows = requests.sorted { $0.key < $1.key }.map { key, c -> [SQLiteValue] in [
                .integer(key.minute), .text(key.instance), .text(key.sourceApp), .text(key.appName), .text(key.targetApp), .text(key.dialect),
                .text(key.route), .text(key.outcome), .integer(key.status), .integer(key.admitted),
                .integer(c.requests), .integer(c.sends), .real(c.latencyMs), .integer(c.retried), .integer(c.retries), .integer(c.rateLimited),
                .real(c.waitMs), .integer(c.firstAt), .integer(c.lastAt),
            ] + c.openPush.values
        }
        let findingRows = findings.sorted { $0.key < $1.key }.map { key, c -> [SQLiteValue] in [
                .integer(key.minute), .text(key.instance), .text(key.sourceApp), .text(key.appName), .text(key.dialect), .text(key.route),
                .text(key.field), .text(key.kind), .integer(c.requests), .integer(c.findings), .integer(c.indexed), .integer(c.firstAt),
                .integer(c.lastAt), .text(c.exampleId), .text(c.exampleMessage), .integer(c.judged), .text(c.judgedExampleId),
            ]
        }
        func chunked(_ rows: [[SQLiteValue]], _ name: String, _ sql: (Int) -> String) -> [AuditStatement] {
            stride(from: 0, to: rows.count, by: Self.rowsPerStatement).map { start in
                let chunk = rows[start..<min(rows.count, start + Self.rowsPerStatement)]
                return AuditStatement(name: name, sql: sql(chunk.count), values: chunk.flatMap { $0 }, requestId: nil)
            }
        }
        return chunked(requestRows, "roll up requests", AuditRollupSchema.upsertRequestsSQL(rows:))
            + chunked(findingRows, "roll up findings", AuditRollupSchema.upsertFindingsSQL(rows:))
    }
}
