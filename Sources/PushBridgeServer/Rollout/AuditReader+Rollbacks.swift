/// The rollback state in the audit database (`rollout_rollbacks`: SQLite migration 9,
/// PostgreSQL migration 6), read and written on the reader's own connection, so instances
/// sharing a PostgreSQL audit share it.
extension AuditReader {
    /// Every app rolled back now, by name.
    public func rollbacks() throws(AuditError) -> [RolloutRollback] {
        let rows = try query("SELECT app_name, rolled_back_at, threshold, evidence, instance_name FROM rollout_rollbacks ORDER BY app_name", [])
        return rows.compactMap { row in
            guard let app = row[0].textValue, let at = row[1].integerValue else { return nil }
            return RolloutRollback(app: app, at: at, threshold: row[2].textValue ?? "", evidence: row[3].textValue ?? "", instance: row[4].textValue)
        }
    }

    /// Records a rollback; an app already rolled back keeps its first one. True when this one was recorded.
    @discardableResult
    public func saveRollback(_ r: RolloutRollback) throws(AuditError) -> Bool {
        try change("INSERT INTO rollout_rollbacks (app_name, rolled_back_at, threshold, evidence, instance_name) VALUES (?, ?, ?, ?, ?) ON CONFLICT (app_name) DO NOTHING",
                   [.text(r.app), .integer(r.at), .text(r.threshold), .text(r.evidence), r.instance.map(SQLiteValue.text) ?? .null]) > 0
    }

    /// Resumes an app's rollout; true when it was rolled back.
    @discardableResult
    public func clearRollback(app: String) throws(AuditError) -> Bool {
        try change("DELETE FROM rollout_rollbacks WHERE app_name = ?", [.text(app)]) > 0
    }
}
