/// `pending → unknown` on the PostgreSQL audit as a log (``PostgresAuditLogSchema``): an
/// intent of this instance without a completion gets an `unknown` completion, inserted into
/// `request_outcomes`, at start-up and by the survivor that takes a dead instance over.
///
/// It does not scan the whole log. Each instance keeps a mark in `audit_marks`,
/// `complete_before`: every intent it wrote received before that time has its completion.
/// The writer sets it inside its batches (``markStatement(instance:mark:)``), so a mark is
/// exactly as durable as the intents it speaks of: every ``markInterval`` to the oldest intent
/// it holds open or ``slackMs`` before now, whichever is earlier (an intent is written within
/// its handler's deadline of its arrival, so one arriving now may be written a little later
/// with an earlier `received_at`), and at once, in the same batch, when it writes an intent
/// received before the mark it last set. Recovery reads only the intents from the mark on
/// (the `request_log_time` index and the day partitions), then sets the mark to the time it
/// ran less the slack.
enum AuditPostgresRecovery {
    /// How far behind the oldest open intent the mark is kept: longer than any handler deadline.
    static let slackMs: Int64 = 600_000
    /// How often the writer advances its mark (at most once per batch).
    static let markInterval: Int64 = 10_000

    private static let unknownReason = "before this request was completed; whether it reached OpenPush is unknown"

    /// The `unknown` completions of instance `instance`'s intents without one, from its mark
    /// on: `finishedAt` and `message` are SQL expressions.
    private static func insertUnknown(instance: String, finishedAt: String, message: String) -> String {
        """
        INSERT INTO request_outcomes (request_id, received_at, finished_at, outcome, error_message)
        SELECT l.request_id, l.received_at, \(finishedAt), 'unknown', \(message) FROM request_log l
        WHERE \(openIntents(instance: instance))
        """
    }

    /// Instance `instance`'s intents (`l`, of `request_log`) from its mark on without a completion.
    private static func openIntents(instance: String) -> String {
        """
        l.instance_name = \(instance)
            AND l.received_at >= coalesce((SELECT complete_before FROM audit_marks WHERE instance_name = \(instance)), 0)
            AND NOT EXISTS (SELECT 1 FROM request_outcomes o WHERE o.request_id = l.request_id AND o.received_at = l.received_at)
        """
    }

    /// The rollups' side of ``insertUnknown(instance:finishedAt:message:)``, run just before it
    /// in its transaction: exactly the intents it completes leave `pending` for `unknown`.
    private static let countUnknownSQL = AuditRollupRows.moveToUnknownSQL(intents: openIntents(instance: "$1"))
    /// The same for the hourly rollups (``AuditRollupHourSchema``), run with it.
    private static let countUnknownHourlySQL = AuditRollupRows.moveToUnknownSQL(intents: openIntents(instance: "$1"), hourly: true)

    /// The upsert of `instance`'s mark (`$1`) to `$2`.
    private static let setMarkSQL = """
        INSERT INTO audit_marks (instance_name, complete_before) VALUES ($1, $2)
        ON CONFLICT (instance_name) DO UPDATE SET complete_before = excluded.complete_before
        """

    /// What a survivor runs first for a dead instance (`instance`) in the takeover's
    /// transaction, before ``takeoverStatements``: the counters it carried and never wrote
    /// (``AuditRollupMarkSchema``) recounted from the log.
    static func takeOver(_ connection: PostgresConnection, instance: String) throws {
        try AuditRollupRows.recountMarked(connection, instance: instance)
    }

    /// What a survivor runs for a dead instance (`$1` its name) in the takeover's transaction
    /// (``InstanceRegistry/takeOverDead()``); PostgreSQL's clock is the time.
    static let takeoverStatements = [
        countUnknownSQL,
        countUnknownHourlySQL,
        insertUnknown(instance: "$1", finishedAt: InstanceSQL.serverNow, message: "'the instance ' || $1 || ' stopped \(unknownReason)'"),
    ]

    /// At start-up, before the writer's first batch: this instance's open intents become
    /// `unknown`, and its mark moves to `now` less the slack. Returns how many it marked.
    static func recover(_ connection: PostgresConnection, instance: String, now: Int64) throws -> Int {
        try connection.transaction {
            // Counters the writer carried and never wrote (``AuditRollupMarkSchema``): recounted first.
            try AuditRollupRows.recountMarked(connection, instance: instance)
            try connection.execute(countUnknownSQL, [instance])
            try connection.execute(countUnknownHourlySQL, [instance])
            let marked = try connection.execute(insertUnknown(instance: "$1", finishedAt: "CAST($2 AS BIGINT)", message: "'the process stopped \(unknownReason)'"),
                                                [instance, String(now)]).affectedRows
            try connection.execute(setMarkSQL, [instance, String(now - slackMs)])
            return marked
        }
    }

    /// The mark a writer sets at `now`: the oldest intent it holds open (`openSince`), or
    /// ``slackMs`` before now when that is earlier.
    static func mark(openSince: Int64?, now: Int64) -> Int64 {
        min(openSince ?? .max, now - slackMs)
    }

    /// The statement the writer appends to a batch to set its mark: every intent of
    /// `instance` received before `mark` has its completion.
    static func markStatement(instance: String, mark: Int64) -> AuditPipeline.Statement {
        AuditPipeline.Statement(sql: setMarkSQL, parameters: [instance, String(mark)], owner: .many([]))
    }
}
