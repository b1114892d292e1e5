/// `pending → unknown`, written once: a row whose request was begun but never completed,
/// because the process that held it stopped, is marked `unknown` (whether it reached OpenPush
/// cannot be told). Run by the writer at start-up on both engines (``atStartUp(instance:now:)``)
/// and, on PostgreSQL, by the survivor that takes a dead instance over
/// (``takeoverStatements``, run in the registry's takeover transaction).
enum AuditRecovery {
    /// The one statement: `finishedAt` and `message` are SQL expressions (marks or server
    /// functions), `instance` a condition on `instance_name` when one instance's rows are meant.
    private static func markPendingUnknown(finishedAt: String, message: String, instance: String?) -> String {
        let outcome = AuditRequestColumn.outcome.name
        let scope = instance.map { " AND \(AuditRequestColumn.instanceName.name) = \($0)" } ?? ""
        return """
            UPDATE requests SET \(outcome) = 'unknown', \(AuditRequestColumn.finishedAt.name) = \(finishedAt),
                \(AuditRequestColumn.errorMessage.name) = \(message)
            WHERE \(outcome) = 'pending'\(scope)
            """
    }

    private static let unknownReason = "before this request was completed; whether it reached OpenPush is unknown"

    /// What the writer runs before its first batch: this process's rows left `pending` by a
    /// stopped one become `unknown`. On SQLite the file is this instance's alone, so every
    /// pending row is; on PostgreSQL only the rows `instance` wrote (other instances' are theirs,
    /// and theirs to recover, or their takeover's).
    static func atStartUp(instance: String?, now: Int64) -> AuditStatement {
        let sql = markPendingUnknown(finishedAt: "?", message: "'the process stopped \(unknownReason)'", instance: instance.map { _ in "?" })
        return AuditStatement(name: "mark pending rows unknown", sql: sql,
                              values: [.integer(now)] + (instance.map { [SQLiteValue.text($0)] } ?? []), requestId: nil)
    }

    /// What a survivor runs for a dead instance (`$1` its name) in the takeover's transaction
    /// (``InstanceRegistry/takeOverDead()``): its rows still `pending` become `unknown`, as one
    /// instance's own are when it starts again after a crash; PostgreSQL's clock is the time.
    /// The rollups count them `unknown` first; the last statement is the one that marks them.
    static let takeoverStatements = AuditRollupRows.movePendingSQL(scope: "$1") + [
        markPendingUnknown(finishedAt: InstanceSQL.serverNow, message: "'the instance ' || $1 || ' stopped \(unknownReason)'", instance: "$1"),
    ]

    /// Runs the start-up statement on the writer's connection in a transaction of its own;
    /// returns how many rows it marked.
    static func recover(_ database: any AuditSQL, instance: String?, now: Int64) throws -> Int {
        let statement = atStartUp(instance: instance, now: now)
        return try database.inTransaction {
            // The rollups count them `unknown` too, in the same transaction.
            for sql in AuditRollupRows.movePendingSQL(scope: instance.map { _ in "?" }) { try database.change(sql, instance.map { [.text($0)] } ?? []) }
            return try database.change(statement.sql, statement.values)
        }
    }
}
