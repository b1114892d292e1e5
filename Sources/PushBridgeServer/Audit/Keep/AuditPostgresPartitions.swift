/// The day partitions of the PostgreSQL audit as a log (``PostgresAuditLogSchema``): made
/// ahead of time by the writer, dropped whole by retention.
///
/// Why a DEFAULT partition plus upkeep: an insert must never fail because its day has no
/// partition (a clock far ahead, upkeep held up by a lock), so each table has a DEFAULT
/// partition that takes any row; and rows should not live there, because a day in the DEFAULT
/// partition cannot be dropped whole. So the writer makes today's and the next
/// ``daysAhead`` days' partitions when it opens and again whenever the UTC day changes
/// (``ensure(on:now:)``): a day's rows land in their own partition from its first request. Making
/// a day takes a lock on the DEFAULT partition, so it waits at most ``lockTimeout`` and is
/// tried again a minute later; with days made ahead, a missed attempt costs nothing. A day made
/// late moves its rows out of the DEFAULT partition (`pushbridge_audit_day`).
enum AuditPostgresPartitions {
    /// Days made ahead of today.
    static let daysAhead: Int64 = 3
    /// How long making or dropping a partition waits for its locks before giving up for now.
    static let lockTimeout = "500ms"
    private static let dayMs: Int64 = 86_400_000

    /// Makes the partitions of yesterday, today and the next ``daysAhead`` days (UTC) that do
    /// not exist yet, each in one transaction of its own.
    static func ensure(on connection: PostgresConnection, now: Int64) throws(PostgresError) {
        let today = now / dayMs
        try make(days: (today - 1)...(today + daysAhead), on: connection)
    }

    /// Makes the partitions of `days` (UTC day numbers, Unix milliseconds / 86,400,000).
    static func make(days: ClosedRange<Int64>, on connection: PostgresConnection) throws(PostgresError) {
        for day in days {
            try connection.execute("BEGIN")
            do throws(PostgresError) {
                try connection.execute("SET LOCAL lock_timeout = '\(lockTimeout)'")
                try connection.execute("SELECT pushbridge_audit_day($1)", [String(day)])
                try connection.execute("COMMIT")
            } catch {
                if connection.isHealthy { _ = try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// The day partitions of `request_log` (not the DEFAULT one): each table's name suffix and
    /// its day number, oldest first.
    static func days(on connection: PostgresConnection) throws(PostgresError) -> [(suffix: String, day: Int64)] {
        let rows = try connection.execute("""
            SELECT substr(c.relname, length('request_log_') + 1) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'request_log'::regclass AND c.relname <> 'request_log_default' ORDER BY 1
            """).rows
        return rows.compactMap { row in
            guard let suffix = row.first ?? nil, let day = day(ofSuffix: suffix) else { return nil }
            return (suffix, day)
        }
    }

    /// The UTC day number of a partition suffix `YYYYMMDD`.
    static func day(ofSuffix suffix: String) -> Int64? {
        let digits = Array(suffix.utf8)
        guard digits.count == 8, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let year = Int64(suffix.prefix(4)), let month = Int64(suffix.dropFirst(4).prefix(2)), let dayOfMonth = Int64(suffix.suffix(2)) else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm), 1970-01-01 = 0.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + dayOfMonth - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Drops, whole, each day partition that ends at or before `cutoff` and holds no request
    /// still open (`pending`) or `scheduled` (those days are left to the row-by-row pass,
    /// which keeps such rows), with the shadow comparisons and scheduled sends of its requests
    /// (its findings are in its intents, PostgreSQL migration 14) and the day's rollup counters; each day in one transaction. Returns how many requests went.
    static func drop(before cutoff: Int64, on connection: PostgresConnection) throws(PostgresError) -> Int {
        var dropped = 0
        for (suffix, day) in try days(on: connection) where (day + 1) * dayMs <= cutoff {
            let log = "request_log_\(suffix)", outcomes = "request_outcomes_\(suffix)"
            try connection.execute("BEGIN")
            do throws(PostgresError) {
                try connection.execute("SET LOCAL lock_timeout = '\(lockTimeout)'")
                let kept = try connection.execute("""
                    SELECT count(*) FROM \(log) l LEFT JOIN \(outcomes) o ON o.request_id = l.request_id AND o.received_at = l.received_at
                    WHERE o.request_id IS NULL OR o.outcome IN ('pending', 'scheduled')
                    """).value(0, 0)
                guard kept == "0" else {
                    try connection.execute("ROLLBACK")
                    continue
                }
                let rows = Int(try connection.execute("SELECT count(*) FROM \(log)").value(0, 0) ?? "0") ?? 0
                for table in ["shadow_comparisons", "scheduled_sends"] {
                    try connection.execute("DELETE FROM \(table) WHERE request_id IN (SELECT request_id FROM \(log))")
                }
                try connection.execute("DROP TABLE \(outcomes), \(log)")
                // The day's per-minute counters go with it: every one counts rows of this day only.
                for table in ["rollup_requests", "rollup_findings", AuditRollupMinuteSendsSchema.table] {
                    try connection.execute("DELETE FROM \(table) WHERE minute >= \(day * dayMs / 60_000) AND minute < \((day + 1) * dayMs / 60_000)")
                }
                // And its hours' (a day is whole hours).
                for table in [AuditRollupHourSchema.requestsTable, AuditRollupHourSchema.findingsTable] {
                    try connection.execute("DELETE FROM \(table) WHERE hour >= \(day * dayMs / 3_600_000) AND hour < \((day + 1) * dayMs / 3_600_000)")
                }
                try connection.execute("COMMIT")
                dropped += rows
            } catch {
                if connection.isHealthy { _ = try? connection.execute("ROLLBACK") }
                throw error
            }
        }
        return dropped
    }
}
