extension SandboxCommand {
    /// The store for a database path: in memory when nil.
    static func makeStore(dbPath: String?) throws -> any SandboxStore {
        guard let dbPath else { return MemorySandboxStore() }
        throw SandboxSeedError("--db \(dbPath): SQLite state is not available in this build")
    }
}
