/// Exact rollups for a reader in the process that writes the SQLite audit (``AuditRollupBarrier``).
extension AuditReader {
    /// Before the report or readiness reads the rollups: the counters the writer of this file
    /// in this process carries, if any, are committed first. A reader in another process reads
    /// what is committed (the rollups lag at most ``AuditStoreConfiguration/sqliteRollupInterval``).
    func writeCarriedRollupsFirst() {
        guard hasRollups else { return }
        AuditRollupBarrier.registered(at: path)?.writeCarriedRollupsFirst()
    }
}
