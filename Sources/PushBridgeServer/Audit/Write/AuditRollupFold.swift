/// Per-minute counters folded from audit rows, to be added to `rollup_requests`,
/// `rollup_findings` and the busiest minute's `rollup_minute_sends` with one upsert per
/// touched counter row (``statements(hours:sends:)``). The writer
/// folds each batch (``AuditWriter/rollupWork(_:of:on:)``) into one fold it keeps and
/// ``reset()``s, so its dictionaries keep their room from batch to batch; migrations,
/// recovery, pruning and a scheduled start's completion fold the rows they read or change
/// (``AuditRollupRows``). A row is counted with `sign` 1 when it appears and -1 when it leaves
/// its counter row (a pending intent completed, a row pruned).
///
/// Keys are integers: the dimension strings interned once (``AuditRollupInterner``), so a
/// request costs one hash of a small struct per counter row it touches.
struct AuditRollupFold {
    /// A key's seven text dimensions by ``AuditRollupInterner`` id, in its columns' order.
    typealias Texts = (Int32, Int32, Int32, Int32, Int32, Int32, Int32)

    /// A `rollup_requests` row's key, its dimensions by ``AuditRollupInterner`` id.
    struct RequestKey: Hashable {
        var minute: Int64
        var instance, sourceApp, appName, targetApp, dialect, route, outcome: Int32
        /// 0 when no status came back.
        var status: Int64
        /// False for a request refused before admission (rejected without a translation).
        var admitted: Bool

        /// The text dimensions, in `rollup_requests`' column order.
        var texts: Texts { (instance, sourceApp, appName, targetApp, dialect, route, outcome) }
    }

    /// A `rollup_requests` row's key as text, for readers of a fold (``requests``).
    struct RequestText: Hashable {
        var minute: Int64
        var instance, sourceApp, appName, targetApp, dialect, route, outcome: String
        var status: Int64
        var admitted: Int64
    }

    /// A `rollup_requests` row's counters.
    struct RequestCounters {
        var requests: Int64 = 0, sends: Int64 = 0, latencyMs = 0.0
        var retried: Int64 = 0, retries: Int64 = 0, rateLimited: Int64 = 0, waitMs = 0.0
        var firstAt = Int64.max, lastAt = Int64.min
        /// Readiness's OpenPush calls as the primary.
        var openPush = ReadinessOpenPushCounts()
    }

    /// A `rollup_findings` row's key: the field with its array indices folded (``FieldPath``),
    /// every dimension by ``AuditRollupInterner`` id.
    struct FindingKey: Hashable {
        var minute: Int64
        var instance, sourceApp, appName, dialect, route, field, kind: Int32

        /// The text dimensions, in `rollup_findings`' column order.
        var texts: Texts { (instance, sourceApp, appName, dialect, route, field, kind) }
    }

    /// A `rollup_findings` row's key as text, for readers of a fold (``findings``).
    struct FindingText: Hashable {
        var minute: Int64
        var instance, sourceApp, appName, dialect, route, field, kind: String
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

    /// A `rollup_minute_sends` row's key (``AuditRollupMinuteSendsSchema``): the busiest
    /// minute's grouping, its dimensions by ``AuditRollupInterner`` id.
    struct SendKey: Hashable {
        var minute: Int64
        var instance, sourceApp, appName, targetApp: Int32
    }

    /// A `rollup_minute_sends` row's counters.
    struct SendCounters {
        var requests: Int64 = 0, sends: Int64 = 0
    }

    /// The dimension strings of the keys below.
    private(set) var interner = AuditRollupInterner()
    private(set) var requestCounts: [RequestKey: RequestCounters] = [:]
    private(set) var findingCounts: [FindingKey: FindingCounters] = [:]
    /// The busiest minute's counters: of the requests ``AuditRollupMinuteSendsSchema/counts(outcome:dialect:route:)`` counts.
    private(set) var sendCounts: [SendKey: SendCounters] = [:]
    /// The finding keys one request touched (``addFindings(_:appName:sign:)``): a few, so an array.
    private var seen: [FindingKey] = []
    /// The finding keys of one request with a finding readiness judges.
    private var judged: [FindingKey] = []
    /// ``statements()``'s order of the ids: their rank by text, -1 for none yet (reused).
    var ranks: [Int32] = []
    /// The ids ``statements()`` ranks (reused).
    var usedIds: [Int32] = []
    /// The upserts' SQL by table and row count (``UpsertKind``), made once each.
    var upsertSQLs: [Int: String] = [:]
    /// ``statements(hours:)``'s hourly counters: the minute counters added up per hour (reused).
    var hourRequestCounts: [RequestKey: RequestCounters] = [:]
    var hourFindingCounts: [FindingKey: FindingCounters] = [:]
    /// The upserts' sorted rows and value arrays, reused from batch to batch.
    var scratch = AuditRollupScratch()

    var isEmpty: Bool { requestCounts.isEmpty && findingCounts.isEmpty }

    /// Whether every counter row the fold holds is instance `name`'s: not so after a
    /// completion of an intent another instance wrote (a scheduled start it began), whose
    /// counters are that instance's. A few keys a batch, compared as text.
    func holdsOnly(instance name: String) -> Bool {
        requestCounts.keys.allSatisfy { interner[$0.instance] == name }
            && findingCounts.keys.allSatisfy { interner[$0.instance] == name }
            && sendCounts.keys.allSatisfy { interner[$0.instance] == name }
    }

    /// The request counters by their text key (for readers: a report's edges, pruning).
    var requests: [RequestText: RequestCounters] {
        Dictionary(uniqueKeysWithValues: requestCounts.map { key, counters in (text(key), counters) })
    }

    /// The finding counters by their text key.
    var findings: [FindingText: FindingCounters] {
        Dictionary(uniqueKeysWithValues: findingCounts.map { key, counters in (text(key), counters) })
    }

    /// Empties the counters for the next batch, keeping their room; the interner starts over
    /// once past its capacity (``AuditRollupInterner/trim()``).
    mutating func reset() {
        requestCounts.removeAll(keepingCapacity: true)
        findingCounts.removeAll(keepingCapacity: true)
        sendCounts.removeAll(keepingCapacity: true)
        interner.trim()
    }

    /// Counts `row` in its counter row, or takes it out with `sign` -1.
    mutating func add(_ row: AuditRollupRow, sign: Int64 = 1) {
        let intent = row.intent
        let admitted = row.outcome != AuditOutcome.rejected.rawValue || intent.translated
        let key = RequestKey(minute: intent.receivedAt / 60_000, instance: interner.id(intent.instance), sourceApp: interner.id(intent.sourceApp),
                             appName: interner.id(intent.appName), targetApp: interner.id(intent.targetApp), dialect: interner.id(intent.dialect),
                             route: interner.id(intent.route), outcome: interner.id(row.outcome), status: row.upstreamStatus ?? 0, admitted: admitted)
        let figures = row.retryFigures
        let latencyMs = row.latencyMs ?? 0
        requestCounts[key, default: RequestCounters()].add(row, sign: sign, sends: intent.sends, latencyMs: latencyMs, figures: figures, at: intent.receivedAt)
        if AuditRollupMinuteSendsSchema.counts(outcome: row.outcome, dialect: intent.dialect, route: intent.route) {
            let sendKey = SendKey(minute: key.minute, instance: key.instance, sourceApp: key.sourceApp, appName: key.appName, targetApp: key.targetApp)
            sendCounts[sendKey, default: SendCounters()].add(sign: sign, sends: intent.sends)
        }
    }

    /// Counts the findings of one request (``AuditStatements/findingColumns`` order, by
    /// ordinal), written with its intent; `appName` is the intent's.
    mutating func addFindings(_ rows: [[SQLiteValue]], appName: String, sign: Int64 = 1) {
        guard !rows.isEmpty else { return }
        seen.removeAll(keepingCapacity: true)
        judged.removeAll(keepingCapacity: true)
        let app = interner.id(appName)
        for row in rows {
            let receivedAt = row[5].integerValue ?? 0
            let raw = interner.id(row[6].textValue ?? "")
            let key = FindingKey(minute: receivedAt / 60_000, instance: interner.id(row[10].textValue ?? ""), sourceApp: interner.id(row[4].textValue ?? ""),
                                 appName: app, dialect: interner.id(row[2].textValue ?? ""), route: interner.id(row[3].textValue ?? ""),
                                 field: interner.folded(raw), kind: interner.id(row[7].textValue ?? ""))
            let first = !seen.contains(key)
            if first { seen.append(key) }
            let judges = ReadinessFindingRule.judges(kind: interner[key.kind], severity: row[8].textValue ?? "", message: row[9].textValue ?? "")
            let firstJudged = judges && !judged.contains(key)
            if firstJudged { judged.append(key) }
            findingCounts[key, default: FindingCounters()].add(row, sign: sign, first: first, judged: firstJudged, indexed: raw != key.field, at: receivedAt)
        }
    }

    /// `key` as text.
    func text(_ key: RequestKey) -> RequestText {
        RequestText(minute: key.minute, instance: interner[key.instance], sourceApp: interner[key.sourceApp], appName: interner[key.appName],
                    targetApp: interner[key.targetApp], dialect: interner[key.dialect], route: interner[key.route], outcome: interner[key.outcome],
                    status: key.status, admitted: key.admitted ? 1 : 0)
    }

    /// `key` as text.
    func text(_ key: FindingKey) -> FindingText {
        FindingText(minute: key.minute, instance: interner[key.instance], sourceApp: interner[key.sourceApp], appName: interner[key.appName],
                    dialect: interner[key.dialect], route: interner[key.route], field: interner[key.field], kind: interner[key.kind])
    }
}

extension AuditRollupFold.RequestCounters {
    /// Adds one request's figures (`row`'s, with what the request path handed over) with `sign`.
    mutating func add(_ row: AuditRollupRow, sign: Int64, sends: Int64, latencyMs: Double, figures: AuditRetryFigures, at receivedAt: Int64) {
        requests += sign
        self.sends += sign * sends
        self.latencyMs += Double(sign) * latencyMs
        retried += sign * figures.retried
        retries += sign * figures.retries
        rateLimited += sign * figures.rateLimited
        waitMs += Double(sign) * figures.waitMs
        firstAt = min(firstAt, receivedAt)
        lastAt = max(lastAt, receivedAt)
        openPush.add(row, sign: sign)
    }
}

extension AuditRollupFold.SendCounters {
    /// Adds one request's `sends` with `sign`.
    mutating func add(sign: Int64, sends: Int64) {
        requests += sign
        self.sends += sign * sends
    }
}

extension AuditRollupFold.RequestCounters {
    /// Adds another counter row's figures (another minute of the same hour and key).
    mutating func merge(_ other: Self) {
        requests += other.requests
        sends += other.sends
        latencyMs += other.latencyMs
        retried += other.retried
        retries += other.retries
        rateLimited += other.rateLimited
        waitMs += other.waitMs
        firstAt = min(firstAt, other.firstAt)
        lastAt = max(lastAt, other.lastAt)
        openPush.merge(other.openPush)
    }
}

extension AuditRollupFold.FindingCounters {
    /// Adds another counter row's figures (another minute of the same hour and key), its
    /// example taken when newer, as the upsert takes it.
    mutating func merge(_ other: Self) {
        requests += other.requests
        findings += other.findings
        indexed = max(indexed, other.indexed)
        firstAt = min(firstAt, other.firstAt)
        lastAt = max(lastAt, other.lastAt)
        if other.exampleId > exampleId { (exampleId, exampleMessage) = (other.exampleId, other.exampleMessage) }
        judged += other.judged
        judgedExampleId = max(judgedExampleId, other.judgedExampleId)
    }
}

extension AuditRollupFold.FindingCounters {
    /// Adds one finding `row` with `sign`; `first`: the request's first in this counter row;
    /// `judged`: the request's first here that readiness judges.
    mutating func add(_ row: [SQLiteValue], sign: Int64, first: Bool, judged isJudged: Bool, indexed: Bool, at receivedAt: Int64) {
        findings += sign
        if first {
            requests += sign
            let requestId = row[0].textValue ?? ""
            if requestId > exampleId { (exampleId, exampleMessage) = (requestId, row[9].textValue ?? "") }
        }
        if indexed { self.indexed = 1 }
        if isJudged {
            judged += sign
            judgedExampleId = max(judgedExampleId, row[0].textValue ?? "")
        }
        firstAt = min(firstAt, receivedAt)
        lastAt = max(lastAt, receivedAt)
    }
}
