/// The shared pacer's statements and migrations, all of them: nothing else writes
/// `pacer_windows` or `pacer_holds`.
extension PostgresSendPacer {
    /// The pacer's migrations in ``PostgresSchema`` (numbers and text as shipped: they are
    /// applied in existing databases).
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
        .init(104, "pacer shadow slots", sql: """
            ALTER TABLE pacer_windows ADD COLUMN spare_slots BIGINT[] NOT NULL DEFAULT '{}';
            """),
        .init(lz4Number, "pacer rows compressed with lz4", sql: """
            DO $$ BEGIN
                IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
                    ALTER TABLE pacer_windows ALTER COLUMN slots SET COMPRESSION lz4, ALTER COLUMN spare_slots SET COMPRESSION lz4;
                    ALTER TABLE pacer_holds ALTER COLUMN slots SET COMPRESSION lz4;
                END IF;
            END $$;
            """),
    ]

    /// The migration that compresses the pacer's arrays with lz4 instead of `pglz`: a window
    /// and an instance's holds carry every send time of the window (hundreds of eight-byte
    /// values at a one-second window), past the 2 KB at which PostgreSQL compresses a row,
    /// and every batch writes both back; `pglz` took about a third of the store's time
    /// (`docs/benchmarks.md`, "PostgreSQL CPU per request, the pacer's rows"). Only the
    /// method of values written from then on changes (older ones read as before, and each is
    /// rewritten by its app's next batch); a server older than PostgreSQL 14 or built without
    /// lz4 keeps `pglz`, and the migration is recorded all the same.
    static let lz4Number = 105

    /// Gives back the pacer grants of `instance` later than `cutoff` (SQL: a Unix ms value or
    /// expression), inside the caller's transaction on `db`; how many. For an instance that
    /// is gone (dead, or stopped cleanly), whose waiting sends will never be made: they leave
    /// every app's window and the instance's holds go. The windows are locked first, in app
    /// order, as a batch of reservations takes them.
    static func releaseGrants(of instance: String, laterThan cutoff: String, on db: PostgresConnection) throws -> Int {
        try db.execute(SQL.lockHeldWindows, [instance])
        let cutoffValue = try db.execute("SELECT (\(cutoff))::bigint").value(0, 0) ?? "0"
        return try db.execute(SQL.releaseGrants, [instance, cutoffValue]).rows.reduce(0) { $0 + ($1.first.flatMap { $0 }.flatMap { Int($0) } ?? 0) }
    }

    /// The statements.
    enum SQL {
        /// The expression that makes the batch's transaction's commit asynchronous
        /// (`synchronous_commit` off for this transaction only), evaluated by ``readWindows``
        /// (or ``lockWindows``) as it reads the windows (a statement of its own before it): the `COMMIT` returns once the change is in the server's WAL
        /// buffers, without waiting for its flush, which the next durable commit on the server
        /// (the audit writer's, every batch) or the WAL writer (within `wal_writer_delay`)
        /// makes. Every instance sees the grants as soon as the `COMMIT` returns, under the same
        /// row locks, so the limit holds across instances as before; only a crash of the
        /// PostgreSQL server itself can forget the grants of its last fraction of a second
        /// (no audit row, intent or completion, is written this way). A send then
        /// granted may be granted again after the restart: at most one window's worth more,
        /// once, the price of not flushing the WAL ~0.3 times per request.
        static let asynchronousCommit = "set_config('synchronous_commit', 'off', true)"

        /// Locks the windows of the apps in `$1` (`TEXT[]`) in app order, creating the missing
        /// ones empty; returns one text per window, `blocked_until slots spare_slots app` (one
        /// column: a pipeline's result carries its first), the app, which may hold spaces, last.
        /// An upsert that touches every row takes its lock and reads it in one round trip. It
        /// also makes the transaction's commit asynchronous (``asynchronousCommit``, a volatile
        /// filter evaluated for each app before its row is written: a batch always asks for at
        /// least one app), so the batch needs no statement for that.
        static let lockWindows = """
            INSERT INTO pacer_windows (app) SELECT a.app FROM unnest($1::text[]) AS a(app)
            WHERE \(asynchronousCommit) IS NOT NULL ORDER BY a.app
            ON CONFLICT (app) DO UPDATE SET app = EXCLUDED.app
            RETURNING blocked_until || ' ' || slots::text || ' ' || spare_slots::text || ' ' || app
            """

        /// Locks the windows of the apps in `$1` (`TEXT[]`) that exist, in app order, and
        /// returns them as ``lockWindows`` does, without writing them: a row lock, not a new
        /// version of the row (the upsert writes one for every app of every batch, and its
        /// speculative insertion probes the key first), so a batch writes each window once, in
        /// ``store``, or not at all when it grants nothing. Makes the commit asynchronous as
        /// ``lockWindows`` does (the filter is evaluated for every row it locks). An app whose
        /// row is missing is not returned: the batch then locks with ``lockWindows`` in a
        /// transaction of its own (``PostgresSendPacer/lock(_:on:)``), once per app and database.
        /// The apps are read through a sub-select (`(SELECT $1)`), which the planner estimates
        /// alike for any value: with `$1` itself, a plan made for the batch's values (one app)
        /// looks cheaper than the one for any values (ten, by default) on a `pacer_windows`
        /// never analyzed, and PostgreSQL planned the statement at every batch (~110 µs of the
        /// server's CPU each); this way the prepared statement keeps one plan after its first five runs.
        static let readWindows = """
            SELECT blocked_until || ' ' || slots::text || ' ' || spare_slots::text || ' ' || app FROM pacer_windows
            WHERE app = ANY ((SELECT $1::text[])::text[]) AND \(asynchronousCommit) IS NOT NULL ORDER BY app FOR UPDATE
            """

        /// Writes back the windows of the apps in `$1` (`TEXT[]`, in app order) and adds to
        /// what instance `$3` holds for each app its grants, forgetting its held slots at or
        /// before the app's cutoff in `$2` (out of the window). Each app's slots, shadow sends
        /// among them, and grants are a slice of one binary `BIGINT[]` each (`$4`, `$6`, `$8`:
        /// every app's concatenated in app order) up to the app's end in the next parameter
        /// (`$5`, `$7`, `$9`: ``PostgresSendPacer/storeParameters(apps:instance:expired:slots:spare:grants:)``).
        static let store = """
            WITH v AS (SELECT u.app, u.expired,
                              ($4::bigint[])[coalesce(($5::bigint[])[u.i - 1], 0) + 1 : ($5::bigint[])[u.i]] AS slots,
                              ($6::bigint[])[coalesce(($7::bigint[])[u.i - 1], 0) + 1 : ($7::bigint[])[u.i]] AS spare,
                              ($8::bigint[])[coalesce(($9::bigint[])[u.i - 1], 0) + 1 : ($9::bigint[])[u.i]] AS grants
                       FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS u(app, expired, i)),
            w AS (UPDATE pacer_windows AS p SET slots = v.slots, spare_slots = v.spare FROM v WHERE p.app = v.app)
            INSERT INTO pacer_holds (app, instance, slots) SELECT v.app, $3, v.grants FROM v
            ON CONFLICT (app, instance) DO UPDATE
                SET slots = ARRAY(SELECT s FROM unnest(pacer_holds.slots) AS s
                                  WHERE s > (SELECT v.expired FROM v WHERE v.app = EXCLUDED.app) ORDER BY s) || EXCLUDED.slots
            """

        /// No send for app `$1` before `$2` (never moves the block earlier).
        static let block = """
            INSERT INTO pacer_windows (app, blocked_until) VALUES ($1, $2::bigint)
            ON CONFLICT (app) DO UPDATE SET blocked_until = GREATEST(pacer_windows.blocked_until, EXCLUDED.blocked_until)
            """

        /// App `$1`'s block.
        static let blockedUntil = "SELECT blocked_until FROM pacer_windows WHERE app = $1"

        /// Locks, in app order, the windows of the apps instance `$1` holds slots for.
        static let lockHeldWindows = """
            SELECT app FROM pacer_windows WHERE app IN (SELECT app FROM pacer_holds WHERE instance = $1) ORDER BY app FOR UPDATE
            """

        /// Gives back the slots instance `$1` was granted for later than `$2` (Unix ms): they
        /// leave every app's window and the instance's holds go. Run ``lockHeldWindows``
        /// first in the same transaction. One row per app: the slots given back.
        static let releaseGrants = """
            WITH held AS (DELETE FROM pacer_holds WHERE instance = $1 RETURNING app, slots),
            gone AS (SELECT app, ARRAY(SELECT g FROM unnest(slots) AS g WHERE g > $2::bigint) AS later FROM held)
            UPDATE pacer_windows AS w SET slots = ARRAY(
                SELECT kept FROM (SELECT s FROM unnest(w.slots) AS s EXCEPT ALL SELECT g FROM unnest(gone.later) AS g) AS k(kept) ORDER BY kept)
            FROM gone WHERE w.app = gone.app AND cardinality(gone.later) > 0
            RETURNING cardinality(gone.later)
            """
    }
}
