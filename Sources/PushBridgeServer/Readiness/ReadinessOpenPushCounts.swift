import PushBridgeCore

/// Readiness's count of OpenPush's answers to requests it answered as the primary, per
/// `rollup_requests` row (``AuditRollupReadinessSchema/requestCounters``): a row that went to
/// OpenPush (`forwarded`, `failed`, `sent`) and that the legacy provider did not answer
/// (``LegacyMode/messages``) is a population gap (``PopulationGap``) or a call, a call that
/// ended without a 2xx an error; a row with any attempt answered 429 is rate limited.
struct ReadinessOpenPushCounts: Equatable {
    var calls: Int64 = 0, errors: Int64 = 0, gaps: Int64 = 0, rateLimited: Int64 = 0

    /// The outcomes of a request OpenPush may have answered.
    static let outcomes: Set<String> = [AuditOutcome.forwarded.rawValue, AuditOutcome.failed.rawValue, AuditOutcome.sent.rawValue]

    /// Counts `row` with `sign` (-1: it leaves its counter row).
    mutating func add(_ row: AuditRollupRow, sign: Int64) {
        guard Self.outcomes.contains(row.outcome), !LegacyMode.messages.contains(where: { (row.errorMessage ?? "").hasPrefix($0) }) else { return }
        let status = row.upstreamStatus.map(Int.init)
        let gap = PopulationGap.isOpenPushGap(status: status, body: row.upstreamBody)
        let accepted = status.map { (200...299).contains($0) } ?? false
        calls += gap ? 0 : sign
        errors += gap || accepted ? 0 : sign
        gaps += gap ? sign : 0
        rateLimited += Self.anyRateLimited(row.attempts) ? sign : 0
    }

    /// Adds another counter row's counts.
    mutating func merge(_ other: Self) {
        (calls, errors, gaps, rateLimited) = (calls + other.calls, errors + other.errors, gaps + other.gaps, rateLimited + other.rateLimited)
    }

    /// Whether an `attempts` column's JSON has an attempt answered 429.
    static func anyRateLimited(_ attempts: String?) -> Bool {
        guard let attempts, mentions429(attempts), let array = (try? JSONParser.parse(Array(attempts.utf8)))?.arrayValue else { return false }
        return array.contains { $0.objectValue?["status"]?.numberValue?.doubleValue == 429 }
    }

    /// Whether the bytes `429` occur in `text`: found without a copy of it (the rollup fold asks
    /// for every completed request); wherever `text.contains("429")` is true this is too.
    private static func mentions429(_ text: String) -> Bool {
        var (a, b): (UInt8, UInt8) = (0, 0)
        for c in text.utf8 {
            if a == UInt8(ascii: "4"), b == UInt8(ascii: "2"), c == UInt8(ascii: "9") { return true }
            (a, b) = (b, c)
        }
        return false
    }

    /// The counters as bound to the upsert, in ``AuditRollupReadinessSchema/requestCounters`` order.
    var values: [SQLiteValue] { [.integer(calls), .integer(errors), .integer(gaps), .integer(rateLimited)] }
}
