/// Every statement on `instances` (PostgreSQL only: with SQLite the process is the only
/// instance), its migration, and PostgreSQL's clock that heartbeats go by.
enum InstanceSQL {
    /// PostgreSQL's clock in Unix milliseconds, as SQL: heartbeats and the dead-instance test
    /// go by the server's clock, so instances on hosts whose clocks differ agree on them.
    static let serverNow = "(extract(epoch from clock_timestamp()) * 1000)::bigint"

    /// The table's migration (a number of ``PostgresSchema``'s shared range; never edited).
    static let migrations: [PostgresMigrator.Migration] = [
        .init(101, "instances and their heartbeats", sql: """
            CREATE TABLE instances (
                name TEXT PRIMARY KEY,
                started_at BIGINT NOT NULL,
                heartbeat_at BIGINT NOT NULL);
            """),
    ]

    /// A heartbeat of `$1`; changes no row when it is not registered.
    static let beat = "UPDATE instances SET heartbeat_at = \(serverNow) WHERE name = $1"

    /// Registers `$1` (nothing when it is registered).
    static let register = "INSERT INTO instances (name, started_at, heartbeat_at) VALUES ($1, \(serverNow), \(serverNow)) ON CONFLICT (name) DO NOTHING"

    /// The instances other than `$1` silent longer than `$2` ms, locked for this transaction
    /// (one another survivor holds are skipped): name, last heartbeat.
    static let lockDead = """
        SELECT name, heartbeat_at FROM instances WHERE name <> $1 AND heartbeat_at < \(serverNow) - $2::bigint
        ORDER BY name FOR UPDATE SKIP LOCKED
        """

    /// Removes `$1`'s row.
    static let remove = "DELETE FROM instances WHERE name = $1"

    /// Every instance: name, last heartbeat.
    static let registered = "SELECT name, heartbeat_at FROM instances ORDER BY name"
}
