/// `pending → unknown`, written once: a row whose request was begun but never completed,
/// because the process that held it stopped, is marked `unknown` (whether it reached OpenPush
/// cannot be told). An SQLite log recovers at start-up with ``recoverLog(_:instance:now:)``; the
/// PostgreSQL audit, a log since its migration 9, has its own (``AuditPostgresRecovery``), also
/// run by the survivor that takes a dead instance over.
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

    /// Why a recovered request is `unknown`, after who stopped.
    static let unknownReason = "before this request was completed; whether it reached OpenPush is unknown"

    /// What the writer runs before its first batch: this process's rows left `pending` by a
    /// stopped one become `unknown`. On SQLite the file is this instance's alone, so every
    /// pending row is; on PostgreSQL only the rows `instance` wrote (other instances' are theirs,
    /// and theirs to recover, or their takeover's).
    static func atStartUp(instance: String?, now: Int64) -> AuditStatement {
        let sql = markPendingUnknown(finishedAt: "?", message: "'the process stopped \(unknownReason)'", instance: instance.map { _ in "?" })
        return AuditStatement(name: "mark pending rows unknown", sql: sql,
                              values: [.integer(now)] + (instance.map { [SQLiteValue.text($0)] } ?? []), requestId: nil)
    }

    /// Runs the start-up statement on the writer's connection in a transaction of its own;
    /// returns how many rows it marked.
    static func recover(_ database: any AuditSQL, instance: String?, now: Int64) throws -> Int {
        let statement = atStartUp(instance: instance, now: now)
        return try database.inTransaction { try database.change(statement.sql, statement.values) }
    }
}
