/// Numbered schema migrations for PostgreSQL, each applied once, in order.
///
/// Safe when several processes start at the same moment: all pending migrations run in one
/// transaction that first takes a transaction-scoped advisory lock
/// (`pg_advisory_xact_lock`), then reads the applied numbers under it. The processes that
/// lose the race wait for the lock, find everything applied and do nothing. A failing
/// migration rolls the whole transaction back.
///
/// Applied numbers are recorded in `pushbridge_migrations`. A database recording a number this
/// build does not know was migrated by a newer build and is refused.
public struct PostgresMigrator: Sendable {
    /// One migration: its number, a short name recorded beside it, and its SQL script.
    public struct Migration: Sendable {
        /// Its number; migrations apply in ascending order.
        public var number: Int
        /// A short name.
        public var name: String
        /// The statements, run as one script inside the migration transaction.
        public var sql: String

        /// A migration.
        public init(_ number: Int, _ name: String, sql: String) {
            self.number = number
            self.name = name
            self.sql = sql
        }
    }

    /// The table that records applied migrations.
    public static let tableName = "pushbridge_migrations"
    /// The advisory lock every migrating PushBridge process takes ("PushBrdg" in ASCII).
    public static let lockKey: Int64 = 0x5075_7368_4272_6467

    /// The migrations, in any order.
    public var migrations: [Migration]

    /// A migrator for `migrations`.
    public init(_ migrations: [Migration]) {
        self.migrations = migrations
    }

    /// Applies every migration not yet recorded; returns the numbers this call applied.
    @discardableResult
    public func migrate(_ connection: PostgresConnection) throws -> [Int] {
        let ordered = migrations.sorted { $0.number < $1.number }
        for (previous, next) in zip(ordered, ordered.dropFirst()) where previous.number == next.number {
            throw PostgresError(operation: "migrate", message: "migration \(next.number) is registered twice")
        }
        return try connection.transaction { () throws -> [Int] in
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [String(Self.lockKey)])
            // `CREATE TABLE IF NOT EXISTS` on a migrated database is not news for stderr.
            try connection.execute("SET LOCAL client_min_messages = warning")
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS \(Self.tableName) (
                    number INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """)
            let applied = Set(try connection.execute("SELECT number FROM \(Self.tableName)").rows.compactMap { ($0.first ?? nil).flatMap { Int($0) } })
            if let unknown = applied.subtracting(ordered.map(\.number)).min() {
                throw PostgresError(operation: "migrate", message: "the database has migration \(unknown), which this build does not know; it was written by a newer version")
            }
            var appliedNow: [Int] = []
            for migration in ordered where !applied.contains(migration.number) {
                try connection.executeScript(migration.sql)
                try connection.execute("INSERT INTO \(Self.tableName) (number, name) VALUES ($1, $2)", [String(migration.number), migration.name])
                appliedNow.append(migration.number)
            }
            return appliedNow
        }
    }

    /// The numbers recorded in the database, ascending (empty before the first migration).
    public func appliedNumbers(_ connection: PostgresConnection) throws -> [Int] {
        let exists = try connection.execute("SELECT to_regclass($1) IS NOT NULL", [Self.tableName]).value(0, 0) == "t"
        guard exists else { return [] }
        return try connection.execute("SELECT number FROM \(Self.tableName) ORDER BY number").rows.compactMap { ($0.first ?? nil).flatMap { Int($0) } }
    }
}
