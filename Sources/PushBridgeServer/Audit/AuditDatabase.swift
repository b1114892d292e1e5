/// Opening an audit file: the writer's connection (created, migrated) and readers'.
enum AuditDatabase {
    /// The writer's connection: page size for a new file, WAL, `synchronous=FULL`, migrated.
    /// Its WAL is written through the gathering VFS (``SQLiteOpenOptions/gatheredWAL``): one
    /// `pwrite` a commit, in the kernel before `COMMIT` returns.
    static func openForWriting(path: String, configuration: AuditStoreConfiguration) throws -> SQLiteDatabase {
        var options = SQLiteOpenOptions()
        options.gatheredWAL = true
        let database = try SQLiteDatabase(path: path, options: options)
        // Wait for other connections from the first statement on: a previous store's writer
        // may still be closing (its last close checkpoints the WAL under an exclusive lock).
        try database.execute("PRAGMA busy_timeout = \(milliseconds(configuration.busyTimeout))")
        // page_size only takes effect before the first table exists (and before WAL).
        if try database.rows("SELECT count(*) FROM sqlite_schema").first?.first?.integerValue == 0 {
            try database.pragma("page_size", set: String(configuration.pageSize))
        }
        try database.configureDurableWAL(busyTimeout: configuration.busyTimeout)
        try database.execute("PRAGMA cache_size = -\(max(0, configuration.cacheKiB))")
        try database.execute("PRAGMA wal_autocheckpoint = \(max(0, configuration.walAutocheckpointPages))")
        try AuditSchema.migrator.migrate(database)
        return database
    }

    /// Switches the writer's connection to pipelined sync when it can: opens the WAL for
    /// ``AuditSyncer`` (and syncs its directory), then sets `synchronous=NORMAL`. Returns nil,
    /// leaving `synchronous=FULL`, when the WAL cannot be opened.
    static func openWALSync(_ database: SQLiteDatabase) throws -> SQLiteFileSync? {
        guard let walPath = database.walPath, let file = try? SQLiteFileSync(path: walPath) else { return nil }
        // Best effort, as SQLite's own directory sync is (some file systems refuse to fsync a
        // directory): SQLite also syncs it with the first header sync of a new WAL.
        try? file.synchronizeDirectory()
        try database.execute("PRAGMA synchronous = NORMAL")
        return file
    }

    /// A reader's connection to an existing audit (never created here, never migrated: a
    /// reader must not change a file that a running proxy owns).
    static func openForReading(path: String, busyTimeout: Duration) throws(AuditError) -> SQLiteDatabase {
        do {
            var options = SQLiteOpenOptions()
            options.create = false
            let database = try SQLiteDatabase(path: path, options: options)
            try database.execute("PRAGMA busy_timeout = \(milliseconds(busyTimeout))")
            let tables = try database.rows("SELECT count(*) FROM sqlite_schema WHERE type IN ('table', 'view') AND name IN ('requests', 'findings')")
            guard tables.first?.first?.integerValue == 2 else { throw AuditError.notAnAudit(path) }
            return database
        } catch let error as AuditError {
            throw error
        } catch {
            throw AuditError.wrap(error)
        }
    }

    /// Whether the file has `requests.app_name` (migration 5).
    static func hasAppNames(_ database: SQLiteDatabase) throws -> Bool {
        try database.rows("SELECT count(*) FROM pragma_table_info('requests') WHERE name = 'app_name'").first?.first?.integerValue == 1
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
