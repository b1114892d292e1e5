extension SandboxCommand {
    /// The store for a database path: SQLite when given, in memory when nil.
    static func makeStore(dbPath: String?) throws -> any SandboxStore {
        guard let dbPath else { return MemorySandboxStore() }
        return try SQLiteSandboxStore(path: dbPath)
    }
}
