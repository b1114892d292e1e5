/// The pacer's tables on the PostgreSQL database several PushBridge instances share (its
/// window per OpenPush app, its grants by instance): migrations 100 and 103 of
/// ``PostgresSchema``. The instances' table is ``InstanceSQL``'s (101), the scheduled starts'
/// ``ScheduledStartSchema``'s (102).
enum SharedSchema {
    /// The shared state's migrations.
    static let migrations: [PostgresMigrator.Migration] = [
        .init(100, "shared pacer windows", sql: """
            CREATE TABLE pacer_windows (
                app TEXT PRIMARY KEY,
                slots BIGINT[] NOT NULL DEFAULT '{}',
                blocked_until BIGINT NOT NULL DEFAULT 0);
            """),
        .init(103, "pacer grants by instance", sql: """
            CREATE TABLE pacer_holds (
                app TEXT NOT NULL,
                instance TEXT NOT NULL,
                slots BIGINT[] NOT NULL DEFAULT '{}',
                PRIMARY KEY (app, instance));
            CREATE INDEX pacer_holds_by_instance ON pacer_holds (instance);
            """),
    ]

    /// Gives back the pacer slots `$1` (an instance) was granted for later than `$2` (Unix
    /// ms): they leave every app's window in `pacer_windows` and the instance's
    /// `pacer_holds` rows go. For an instance that is gone (dead, or stopped cleanly), whose
    /// waiting sends will never be made. Run ``lockHeldWindowsSQL`` first in the same
    /// transaction (windows locked before holds, the order a reservation takes them in).
    /// Returns one row per app: the slots given back.
    static let releaseGrantsSQL = """
        WITH held AS (DELETE FROM pacer_holds WHERE instance = $1 RETURNING app, slots),
        gone AS (SELECT app, ARRAY(SELECT g FROM unnest(slots) AS g WHERE g > $2::bigint) AS later FROM held)
        UPDATE pacer_windows AS w SET slots = ARRAY(
            SELECT kept FROM (SELECT s FROM unnest(w.slots) AS s EXCEPT ALL SELECT g FROM unnest(gone.later) AS g) AS k(kept) ORDER BY kept)
        FROM gone WHERE w.app = gone.app AND cardinality(gone.later) > 0
        RETURNING cardinality(gone.later)
        """

    /// Locks, in app order, the `pacer_windows` rows of the apps `$1` holds slots for.
    static let lockHeldWindowsSQL = """
        SELECT app FROM pacer_windows WHERE app IN (SELECT app FROM pacer_holds WHERE instance = $1) ORDER BY app FOR UPDATE
        """

    /// Applies every pending migration of the whole schema (audit and shared) on `db`.
    static func apply(on db: PostgresConnection) throws {
        try PostgresSchema.migrator.migrate(db)
    }

    /// PostgreSQL's clock in Unix milliseconds, as SQL: heartbeats and the dead-instance test
    /// go by the server's clock, so instances on hosts whose clocks differ agree on them.
    static var serverNow: String { InstanceSQL.serverNow }
}
