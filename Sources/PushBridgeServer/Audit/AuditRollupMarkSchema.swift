/// PostgreSQL audit migration 17 and SQLite audit migration 21, "rollup marks" (issue 30, the
/// rollups written once per interval, not per batch): `rollup_marks`, rows for the batches whose
/// rollup counters the writer carried in memory instead of writing them
/// (``AuditWriter/appendRollupStatements(from:batch:on:to:)``): on PostgreSQL one per carried
/// batch, on SQLite one when a carry starts or reaches back to an earlier received time.
///
/// A row says: instance `instance_name` committed log rows (intents, completions) received at
/// `unwritten_from` or later whose counters may not be in `rollup_requests` /
/// `rollup_findings` (and their hourly tables) yet. The batch that writes the carried
/// counters deletes the instance's rows in the same transaction. Whoever finds rows left (the
/// instance's own start-up, the survivor taking a dead instance over, the writer after a
/// failed commit) recounts that instance's counter rows from the earliest row's minute on
/// from the log (``AuditRollupRows/recountMarked(_:instance:)``): the rollups equal the log
/// again. Insert-only and without a unique key, so two overlapped batches never wait on each
/// other's mark. On SQLite the file has one writer: its start-up recovery recounts every
/// instance's counter rows from the earliest mark left by any (an instance's default name
/// changes with its process id, and a writer's fold also moves other instances' counter rows).
enum AuditRollupMarkSchema {
    /// PostgreSQL's migration number.
    static let postgresNumber = 17
    /// SQLite's migration number.
    static let sqliteNumber = 21
    /// The migration's name.
    static let name = "rollup marks"

    /// The PostgreSQL migration.
    static let postgresMigration = PostgresMigrator.Migration(postgresNumber, name, sql: postgresSQL)

    /// The table and its index by instance.
    static let postgresSQL = """
        CREATE TABLE rollup_marks (
            instance_name TEXT NOT NULL,
            unwritten_from BIGINT NOT NULL
        );
        CREATE INDEX rollup_marks_instance ON rollup_marks (instance_name);
        """

    /// The SQLite migration: the same table without the index (its few rows are read whole,
    /// and deleted whole: one writer, ``AuditRollupRows/recountAllMarked(_:)``), so a mark
    /// costs the table's one page in its commit, not an index page as well.
    static let sqliteSQL = """
        CREATE TABLE rollup_marks (
            instance_name TEXT NOT NULL,
            unwritten_from INTEGER NOT NULL
        );
        """

    /// The earliest mark of any instance (SQLite, one writer; NULL when there is none).
    static let earliestOfAllSQL = "SELECT min(unwritten_from) FROM rollup_marks"
    /// Every mark (SQLite, once the recount of all instances is done).
    static let deleteAllSQL = "DELETE FROM rollup_marks"

    /// A carried batch's mark: instance `?`, counters from received time `?` on unwritten.
    static let insertSQL = "INSERT INTO rollup_marks (instance_name, unwritten_from) VALUES (?, ?)"
    /// The marks of instance `?`, deleted by the batch that writes its carried counters.
    static let deleteSQL = "DELETE FROM rollup_marks WHERE instance_name = ?"
    /// The earliest mark of instance `?` (NULL when it has none).
    static let earliestSQL = "SELECT min(unwritten_from) FROM rollup_marks WHERE instance_name = ?"
}
