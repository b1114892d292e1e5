/// How one table of an SQLite audit becomes rows of the PostgreSQL audit, column by column.
///
/// The two schemas (``AuditSchema``, ``PostgresSchema``) name their columns alike, so a
/// column is copied to the column of the same name. Every column of both sides is accounted
/// for here: ``AuditCopy`` refuses to start when a file or the database has a column this
/// list does not name, so a column added later can never be left behind quietly.
struct AuditCopyTable: Sendable {
    /// The table's name in both engines.
    var name: String
    /// The columns that identify a row in both engines: the conflict target of the upsert.
    var key: [String]
    /// The SQLite columns the rows are read in order of (a cursor moves along them).
    var order: [String]
    /// The columns the source is sorted by, when fewer than ``order`` give the same order; nil:
    /// ``order``. (``findings`` is a view over each intent's list since SQLite migration 18: the
    /// intent's index gives its rows by request and each list its elements by ordinal, while
    /// sorting by the ordinal too would sort all the rows after the cursor at every batch.)
    var sortedBy: [String]?
    /// The columns copied value for value, key included.
    var columns: [String]
    /// Copied columns a file may lack (added by a later SQLite migration); read as NULL there.
    var addedLater: Set<String> = []
    /// SQLite columns read only as the cursor, never copied, each with the reason.
    var cursorOnly: [String: String] = [:]
    /// PostgreSQL columns the database fills itself.
    var generated: Set<String> = []
    /// Whether the table is a history whose rows have no key of their own and are never
    /// changed (``stageChanges``): a row is identified by all its copied values, inserted when
    /// the database has no row with them all and never updated; ``key`` only names it in errors.
    var appendOnly = false

    /// The column that records which instance wrote a row. A copied row keeps the value its
    /// file records; a file written before the column existed gets the copy's label.
    static let instanceColumn = "instance_name"

    /// The tables, in the order they are copied (requests before the rows that refer to them).
    static let all: [AuditCopyTable] = [requests, findings, shadowComparisons, scheduledSends, activities, activitiesForgotten, rolloutRollbacks, stageChanges]

    /// Requests with their outcome, bodies, upstream answer and attempts (a JSON array).
    static let requests = AuditCopyTable(
        name: "requests", key: ["request_id"], order: ["id"],
        columns: [
            "request_id", "received_at", "finished_at", "path", "dialect", "route", "source_app", "target_app",
            "activity_type", "activity_id", "event", "key_fingerprint", "inbound_body", "translated", "finding_count",
            "upstream_status", "upstream_body", "upstream_latency_ms", "attempts", "response_status", "response_body",
            "outcome", "error_message", "app_name", instanceColumn,
        ],
        addedLater: ["app_name", instanceColumn],
        cursorOnly: ["id": "SQLite's row number; PostgreSQL numbers the copied rows itself (BIGSERIAL), in the file's order, so ids of several instances never clash"],
        generated: ["id"])

    /// One row per finding of a request.
    static let findings = AuditCopyTable(
        name: "findings", key: ["request_id", "ordinal"], order: ["request_id", "ordinal"], sortedBy: ["request_id"],
        columns: ["request_id", "ordinal", "dialect", "route", "source_app", "received_at", "field", "kind", "severity", "message", instanceColumn],
        addedLater: [instanceColumn])

    /// Shadow mode's comparisons of the primary's and the shadow's answers.
    static let shadowComparisons = AuditCopyTable(
        name: "shadow_comparisons", key: ["request_id"], order: ["request_id"],
        columns: [
            "request_id", "compared_at", "dialect", "route", "source_app", "verdict", "primary_provider", "primary_status",
            "primary_latency_ms", "primary_error", "shadow_provider", "shadow_status", "shadow_latency_ms", "shadow_error",
            "differences", "primary_body", "shadow_body", instanceColumn, "received_at", "app_name",
        ],
        addedLater: ["primary_body", "shadow_body", instanceColumn, "received_at", "app_name"])

    /// The scheduled-send mirror (empty in files of this build, copied when a file has rows).
    static let scheduledSends = AuditCopyTable(
        name: "scheduled_sends", key: ["request_id", "ordinal"], order: ["request_id", "ordinal"],
        columns: [
            "request_id", "ordinal", "send_at", "state", "target_app", "request", "created_at", "claimed_at", "sent_at",
            "upstream_status", "attempts", "error_message", instanceColumn,
        ],
        addedLater: [instanceColumn])

    /// The activity ledger: which provider holds each Live Activity still in flight, so that
    /// after the move its updates and ends still go where it lives. A row has no instance (a
    /// start through one instance may be ended through another); a copied row changes the
    /// database's when any value differs. Files from before the ledger have no such table.
    static let activities = AuditCopyTable(
        name: "activities", key: ["openpush_app", "activity_id"], order: ["openpush_app", "activity_id"],
        columns: ["openpush_app", "activity_id", "app", "dialect", "holder", "start_state", "started_at", "last_update_at", "ended_at", "cohort_key",
                  "request_id"])

    /// The source apps whose in-flight ledger rows the cap forgot, and until when they could
    /// still be in flight: legacy stays on for them after the move. Files from before SQLite
    /// audit migration 10 have no such table.
    static let activitiesForgotten = AuditCopyTable(
        name: "activities_forgotten", key: ["app"], order: ["app"], columns: ["app", "in_flight_until", "forgotten"])

    /// Rollouts rolled back automatically: a rolled-back app stays rolled back after the move.
    static let rolloutRollbacks = AuditCopyTable(
        name: "rollout_rollbacks", key: ["app_name"], order: ["app_name"],
        columns: ["app_name", "rolled_back_at", "threshold", "evidence", instanceColumn])

    /// The stage history: one row per change of an app's stage, never updated, numbered by
    /// each engine itself. Files from before SQLite audit migration 11 have no such table.
    static let stageChanges = AuditCopyTable(
        name: "stage_changes", key: ["changed_at", "app_name", "kind"], order: ["id"],
        columns: [
            "changed_at", "app_name", "kind", "stage", "previous_stage", "mode", "start_mode", "route_modes", "percent", "legacy",
            "rolled_back", "detail", instanceColumn, "config_fingerprint",
        ],
        cursorOnly: ["id": "SQLite's row number; PostgreSQL numbers the copied rows itself (BIGSERIAL), in the file's order, so ids of several instances never clash"],
        generated: ["id"], appendOnly: true)

    /// What is wrong with copying a file whose table has `source` columns (empty: the table
    /// is missing from the file) into a database whose table has `target` columns; nil when
    /// every column on both sides is accounted for.
    func mismatch(source: [String], target: [String]) -> String? {
        let known = Set(columns).union(cursorOnly.keys)
        if !source.isEmpty {
            if let extra = source.first(where: { !known.contains($0) }) {
                return "the file's \(name).\(extra) has no counterpart in the PostgreSQL audit; this build cannot copy it"
            }
            if let missing = columns.first(where: { !source.contains($0) && !addedLater.contains($0) }) {
                return "the file's \(name) table has no \(missing) column; it is not an audit this build can read"
            }
            if let missing = order.first(where: { !source.contains($0) }) {
                return "the file's \(name) table has no \(missing) column; it is not an audit this build can read"
            }
        }
        if let extra = target.first(where: { !columns.contains($0) && !generated.contains($0) }) {
            return "the PostgreSQL audit's \(name).\(extra) has no source in an SQLite audit; this build cannot fill it"
        }
        if let missing = columns.first(where: { !target.contains($0) }) {
            return "the PostgreSQL audit has no \(name).\(missing) column; migrate it with this build"
        }
        return nil
    }
}
