/// Where scheduled starts are kept until their time: ``ScheduledStartStore`` (the scheduler's
/// SQLite file, one instance) or ``PostgresScheduledStartStore`` (shared by every instance on
/// one PostgreSQL database). Every state change is guarded by the state it leaves, so two
/// schedulers can never both claim a send.
public protocol ScheduledStartStoring: Sendable {
    /// Where the starts live, for logs: a file path or a redacted URI.
    var location: String { get }
    /// How often (ms) the scheduler looks again for starts it was not told of (another
    /// instance stored them); nil when only this process stores starts.
    var pollMilliseconds: Int64? { get }
    /// Stores new pending starts in one transaction.
    func insert(_ starts: [ScheduledStart], now: Int64) throws
    /// Claims the pending starts due at `now` (`pending` → `sending`), earliest first; a start
    /// another scheduler claimed meanwhile is not among them.
    func claimDue(now: Int64, limit: Int) throws -> [ScheduledStart]
    /// The earliest pending send time.
    func nextSendAt() throws -> Int64?
    /// Starts in the given states (all when empty), by send time.
    func list(states: [ScheduledStart.State]) throws -> [ScheduledStart]
    /// How many starts are stored, in any state.
    func count() throws -> Int
    /// The starts of one inbound request, by ordinal.
    func starts(ofRequest requestId: String) throws -> [ScheduledStart]
    /// `pending` → `sending`; false when it was not pending (claimed, cancelled, final).
    func claim(_ id: String, now: Int64) throws -> Bool
    /// `sending` → `sent` or `failed`, deleting the body in the same transaction.
    func finish(_ id: String, sent: Bool, notificationId: String?, status: Int?, error: String?, now: Int64) throws
    /// `pending` → `cancelled`, deleting the body; false when it was no longer pending.
    func cancel(_ id: String, now: Int64) throws -> Bool
    /// At a clean stop, after the scheduler stopped: makes the store's own file complete on
    /// its own (SQLite: the WAL checkpointed into it and truncated); nothing for PostgreSQL.
    func checkpointAtStop() throws
}

extension ScheduledStartStoring {
    /// Starts in any state, by send time.
    public func list() throws -> [ScheduledStart] { try list(states: []) }

    /// Nothing to checkpoint (a database server keeps its own files).
    public func checkpointAtStop() throws {}
}
