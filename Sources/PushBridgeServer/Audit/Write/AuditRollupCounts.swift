/// The figures of one request's attempts the rollups add up: requests retried (0 or 1),
/// retries, 429s followed by another attempt, and the wait after them (ms), as the report's
/// SQL read them from the `attempts` column.
struct AuditRetryFigures: Sendable, Equatable {
    var retried: Int64 = 0, retries: Int64 = 0, rateLimited: Int64 = 0, waitMs = 0.0

    /// A request with one attempt or none.
    static let none = AuditRetryFigures()

    /// The figures of `attempts`, equal to those read back from the JSON
    /// ``UpstreamAttempt/json`` writes of them (``AuditRollupRow/retryFigures``): its numbers
    /// round-trip exactly, and a latency that is not finite is written as 0.
    init(attempts: [UpstreamAttempt]) {
        guard attempts.count > 1 else {
            self.init()
            return
        }
        var limited: Int64 = 0, wait = 0.0
        for index in 0..<(attempts.count - 1) where attempts[index].status == 429 {
            limited += 1
            let latency = attempts[index].latencyMs.isFinite ? attempts[index].latencyMs : 0
            wait += max(0, Double(attempts[index + 1].startedAt) - Double(attempts[index].startedAt) - latency)
        }
        self.init(retried: 1, retries: Int64(attempts.count - 1), rateLimited: limited, waitMs: wait)
    }

    /// Figures as given.
    init(retried: Int64 = 0, retries: Int64 = 0, rateLimited: Int64 = 0, waitMs: Double = 0) {
        (self.retried, self.retries, self.rateLimited, self.waitMs) = (retried, retries, rateLimited, waitMs)
    }
}

/// What the request path already knows of a row that the rollups would otherwise read back
/// from its JSON text: handed to the writer with the operation (``AuditOperation/counts``) so
/// the fold (``AuditRollupRow``) parses nothing. Nil figures are read from the row's text, as
/// for rows read back (recovery, pruning, `audit copy`).
struct AuditRollupCounts: Sendable {
    /// OpenPush sends: the elements of the translated array; nil when not known.
    var sends: Int64?
    /// The completion's attempts' figures; nil when not known.
    var retry: AuditRetryFigures?

    /// What `entry` (its sends, when the translation told them: ``AuditEntry/openPushSends``)
    /// and `completion` (its attempts; none for an intent, whose row has no attempts) give.
    init(_ entry: AuditEntry?, _ completion: AuditCompletion?) {
        sends = entry?.openPushSends.map(Int64.init)
        retry = completion.map { AuditRetryFigures(attempts: $0.attempts) } ?? (entry == nil ? nil : AuditRetryFigures.none)
    }
}
