import CSQLite

/// Numbered schema migrations, each applied once, in order, inside its own transaction.
///
/// Safe when several processes open a fresh database at once: each migration's transaction
/// takes the write lock first (`BEGIN IMMEDIATE`) and re-reads its record under it, so the
/// processes that lose the race find it applied and skip it.
///
/// Applied numbers are recorded in the `pushbridge_migrations` table. A database that records
/// a number this migrator does not know was migrated by a newer build and is refused.
public struct SQLiteMigrator {
    /// One registered migration.
    public struct Migration {
        /// Its number; migrations apply in ascending order.
        public var number: Int
        /// A short name, recorded beside the number.
        public var name: String
        /// The work; runs inside the migration's transaction.
        public var apply: (SQLiteDatabase) throws -> Void
    }

    /// The table that records applied migrations.
    public static let tableName = "pushbridge_migrations"

    /// The registered migrations, in registration order.
    public private(set) var migrations: [Migration] = []

    /// An empty migrator.
    public init() {}

    /// Registers migration `number` running `apply`.
    public mutating func register(_ number: Int, _ name: String, _ apply: @escaping (SQLiteDatabase) throws -> Void) {
        migrations.append(Migration(number: number, name: name, apply: apply))
    }

    /// Registers migration `number` running an SQL script.
    public mutating func register(_ number: Int, _ name: String, sql: String) {
        register(number, name) { database in try database.execute(sql) }
    }

    /// The migration numbers already recorded in `database`, ascending.
    public func appliedNumbers(in database: SQLiteDatabase) throws(SQLiteError) -> [Int] {
        try createTable(in: database)
        return try database.rows("SELECT number FROM \(Self.tableName) ORDER BY number").compactMap { $0.first?.integerValue.map(Int.init) }
    }

    /// Applies every migration not yet recorded, in ascending order, each in its own
    /// transaction with its record. Returns the numbers applied by this call. A failing
    /// migration is rolled back, its error rethrown, and later ones are not attempted.
    @discardableResult
    public func migrate(_ database: SQLiteDatabase) throws -> [Int] {
        let ordered = migrations.sorted { $0.number < $1.number }
        for (previous, next) in zip(ordered, ordered.dropFirst()) where previous.number == next.number {
            throw SQLiteError(code: SQLITE_MISUSE, message: "migration \(next.number) is registered twice")
        }
        let applied = Set(try appliedNumbers(in: database))
        let known = Set(ordered.map(\.number))
        if let unknown = applied.subtracting(known).min() {
            throw SQLiteError(code: SQLITE_MISUSE, message: "the database has migration \(unknown), which this build does not know; it was written by a newer version")
        }
        var appliedNow: [Int] = []
        for migration in ordered where !applied.contains(migration.number) {
            // Another process may have applied it since the read above: the record is read
            // again under the transaction's write lock, which every migrating process takes.
            let ran = try database.transaction(.immediate) { () throws -> Bool in
                let recorded = try database.rows("SELECT 1 FROM \(Self.tableName) WHERE number = ?", [.integer(Int64(migration.number))])
                guard recorded.isEmpty else { return false }
                try migration.apply(database)
                try database.execute("INSERT INTO \(Self.tableName) (number, name) VALUES (?, ?)", [.integer(Int64(migration.number)), .text(migration.name)])
                return true
            }
            if ran { appliedNow.append(migration.number) }
        }
        return appliedNow
    }

    private func createTable(in database: SQLiteDatabase) throws(SQLiteError) {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS \(Self.tableName) (
                number INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
            )
            """)
    }
}
