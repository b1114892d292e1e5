/// How an ``AuditStore`` queues and writes. Every value has a documented default.
public struct AuditStoreConfiguration: Sendable {
    /// Operations admitted to the writer's queue. When it is full, callers wait (suspended,
    /// in arrival order) for room: an audit row is never dropped. Default 10,000.
    public var queueCapacity = 10_000
    /// Operations committed per transaction at most (group commit). Default 100.
    public var maxBatchSize = 100
    /// Background work (retention's deletes) runs in a transaction of its own whenever no
    /// request operation is queued, and otherwise after at most this many request batches
    /// went first, so that a busy proxy still prunes. Default 2.
    public var backgroundYieldBatches = 2
    /// Upstream and response bodies are truncated to this many bytes. Default 8,192.
    public var bodyLimit = 8_192
    /// How long a connection waits for another's lock. Default 5 s.
    public var busyTimeout: Duration = .seconds(5)
    /// Page size for a new database file (bytes; an existing file keeps its own). Default
    /// 2 KiB: a WAL commit writes every page it dirtied whole, and every commit dirties the
    /// right edge of each b-tree it appends to (the log, its two indexes, the outcomes and
    /// theirs, the findings, the two rollups, and page 1 for the file's size), plus, in the
    /// index b-trees, the siblings SQLite rebalances with it; a smaller page writes less of
    /// each. A ~1.6 KB intent row still fits a 2 KiB page (one a page, as two fit a 4 KiB
    /// one). Measured with `audit-bench 20000 64` and `bench/audit-wal-pages.py`
    /// (docs/benchmarks.md, "Where the audit's bytes go"): begin+finish 18–19 KiB written per
    /// request at 8 KiB pages, 10.8–11.7 KiB at 4 KiB, 8.9–9.9 KiB at 2 KiB for 3–5 µs more
    /// CPU (twice the frames, each smaller); 1 KiB pages wrote a little less again but cost
    /// ~15 µs more CPU per request.
    public var pageSize = 2_048
    /// The writer connection's page cache, KiB (`PRAGMA cache_size = -N`). Default 4,096
    /// (4 MiB, 2,048 pages of 2 KiB): enough for the right edges of the indexes to stay cached
    /// between commits, small enough for the proxy's 64 MB memory target.
    public var cacheKiB = 4_096
    /// WAL pages between checkpoints. Default 4,000 (about 8 MiB at 2 KiB pages; 16,000
    /// and 64,000 pages wrote as much per request at 4 KiB pages): index
    /// pages rewritten by every commit are copied to the database once per checkpoint, so a
    /// longer interval writes fewer pages in all. The checkpoints run on a thread and a
    /// connection of their own (``AuditCheckpointer``), never inside the writer's `COMMIT`;
    /// `0` turns them off (the WAL is then only checkpointed when the store closes).
    public var walAutocheckpointPages = 4_000
    /// Whether commits are made durable by a separate thread (pipelined group commit): the
    /// writer commits with `synchronous=NORMAL` and goes on with the next batch while the
    /// ``AuditSyncer`` `fdatasync`s the WAL; callers are resumed only after that sync, so an
    /// acknowledged write is exactly as durable as under `synchronous=FULL` (the argument is
    /// in `AuditSyncer.swift`). `false`: every commit fsyncs itself (`synchronous=FULL`).
    /// Default `true`.
    public var pipelinedSync = true
    /// How quick the writer's last transaction (`BEGIN` until durable) must have been for an
    /// event loop that finds the writer idle, with nothing queued, to commit its lone operation
    /// itself (``AuditWriter/commitHere(_:on:)``) instead of waking the writer thread and
    /// parking until that thread wakes it back: two context switches fewer per commit at low
    /// load, and none of the writer's wake-up latency. A slow or failed transaction (a locked
    /// file, a stalling disk) sends every operation through the writer thread again until one
    /// commits quickly there, so a loop blocks at most once on a stall. Only engines that commit
    /// locally take it (SQLite, not PostgreSQL). nil: every operation goes through the writer
    /// thread. A loop commits only when it serves no other request and has nothing else to do
    /// (``EventLoop/hasNothingElseToDo``), so its other connections never wait behind its
    /// `fdatasync`, and only while its thread gets a CPU when it wants one
    /// (``EventLoop/hasCPUToSpare``: on a saturated CPU, committing on the loop made the
    /// one-connection p50 2.75× worse). Default 20 ms: on a quiet machine it cut the switches
    /// per request at one connection from 11 to 7 with 16 and 64 connections unchanged; see
    /// docs/benchmarks.md, "Loop commits when the loop is idle" and its quiet-machine A/B.
    public var loopCommitLimit: Duration? = .milliseconds(20)
    /// With ``loopCommitLimit`` set, whether a loop commits its own operation only while its
    /// thread gets a CPU when it wants one (``EventLoop/hasCPUToSpare``). Default `true`;
    /// `false` is for tests about where a commit runs, which must not depend on how loaded the
    /// machine running them is.
    public var loopCommitNeedsSpareCPU = true
    /// With ``pipelinedSync``: at most this many committed batches wait for an `fdatasync`
    /// to begin (besides the one being synced) before the writer waits to gather a bigger
    /// batch. Default 1: the writer's next transaction overlaps the current sync.
    public var maxUnsyncedBatches = 1
    /// On PostgreSQL, whether the writer's pipelined statements are prepared once per
    /// connection (named statements) instead of parsed and planned for every row. Default
    /// `true`; `false` is for measuring the difference.
    public var postgresPreparedStatements = true
    /// On PostgreSQL, how a batch's rows are sent: each kind of row (request rows, findings,
    /// completions) in one statement for the whole batch (``AuditMultiRowForm``), or, with
    /// nil, one statement per row. A batch whose multi-row statement is refused (one row
    /// violates a constraint) is written again one statement per row, so that only that
    /// row's operation fails. Default `.unnest`: with the audit as a log every multi-row
    /// statement is an insert (docs/benchmarks.md, "The PostgreSQL audit as a log"); nil
    /// (one prepared statement per row) stays for measuring.
    public var postgresMultiRow: AuditMultiRowForm? = .unnest
    /// On PostgreSQL, whether a batch's `COMMIT` is waited for on a thread of its own
    /// (``AuditPostgresCommitter``) while the writer runs the next batch on another pooled
    /// connection, so that the server's WAL flush of one batch overlaps the next batch's
    /// statements; callers are still resumed only once their `COMMIT` returned. At most two
    /// commits are outstanding. `false`: the writer waits for each `COMMIT` itself (it then
    /// travels in the batch's pipeline). Default `true`.
    public var postgresOverlappedCommits = true
    /// On PostgreSQL with overlapped commits, how long the writer may carry rollup counters in
    /// memory while a commit is out (``AuditRollupCarry``): each touched counter row is then
    /// written at most once per interval (and at once when the writer has nothing queued, or
    /// the minute turns) instead of once per batch, behind a mark that recovery recounts from.
    /// nil: written with every batch. Default 250 ms.
    public var postgresRollupInterval: Duration? = .milliseconds(250)
    /// On SQLite, how long the writer may carry rollup counters in memory while it is busy
    /// (operations queued behind its batch, or a commit waiting for its `fdatasync`;
    /// ``AuditRollupCarry``): each touched counter row is then written with a later batch at
    /// most once per interval (or when a batch finds the writer not busy, the minute turns, a
    /// reader in this process asks, or the store closes) instead of with every commit, behind a
    /// mark that recovery recounts from. nil: written with every batch. Default 250 ms.
    public var sqliteRollupInterval: Duration? = .milliseconds(250)
    /// On SQLite, how long the writer waits, idle with counters carried, for a next batch to
    /// write them with before it writes them in a transaction of its own (at most until the
    /// carry is ``sqliteRollupInterval`` old). Default 50 ms.
    public var sqliteRollupIdle: Duration = .milliseconds(50)
    /// For tests: the writer (either engine) carries every batch's rollup counters and never writes
    /// them (not when idle, nor at close): what a crash leaves behind while counters are carried.
    var holdsCarriedRollups = false
    /// For tests: runs on the syncer thread before each `fdatasync` of the WAL (pipelined sync
    /// only); throwing fails that sync as a failing `fdatasync` would.
    var beforeWALSync: (@Sendable () throws -> Void)?
    /// For tests: runs on the checkpoint thread before each checkpoint (``AuditCheckpointer``).
    var beforeCheckpoint: (@Sendable () -> Void)?
    /// Called after every commit once it is durable, on the audit's writer or syncer thread
    /// (keep it cheap): for metrics.
    public var onCommit: (@Sendable (AuditCommitSample) -> Void)?

    /// Written on every row (`instance_name`): which instance wrote it. Default the host name
    /// and process id.
    public var instanceName = InstanceSettings.defaultName
    /// The PostgreSQL connection pool (size and timeouts) when the audit is a PostgreSQL URI.
    public var postgresPool = PostgresPoolConfiguration()

    /// The defaults.
    public init() {}
}

/// One committed transaction, as reported to ``AuditStoreConfiguration/onCommit``.
public struct AuditCommitSample: Sendable {
    /// Operations in the transaction.
    public var batchSize: Int
    /// Time from `BEGIN` until the commit was durable (its fsync included): what the batch's
    /// callers waited for.
    public var transactionDuration: Duration
    /// The longest any of its operations waited from submission to commit.
    public var maxLatency: Duration
    /// Time from `BEGIN` to the end of `COMMIT` on the writer thread: how long the writer was
    /// busy with it (with pipelined sync, the `fdatasync` is not in it).
    public var writeDuration: Duration
}
