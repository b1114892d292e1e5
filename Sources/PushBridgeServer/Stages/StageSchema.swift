/// The `stage_changes` table of the audit (SQLite migration 11, PostgreSQL migration 8):
/// the history ``StageHistory`` writes and `pushbridge stages`, the admin page and readiness
/// read. One row per change, never updated or deleted by PushBridge (retention leaves it).
enum StageSchema {
    /// SQLite audit migration 11.
    static let sqliteNumber = 11
    /// PostgreSQL audit migration 8.
    static let postgresNumber = 8
    /// The migration's name.
    static let name = "stage changes"

    /// The table for `sqlite` or PostgreSQL.
    static func sql(sqlite: Bool) -> String {
        let integer = sqlite ? "INTEGER" : "BIGINT"
        return """
            CREATE TABLE stage_changes (
                id \(sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"),
                changed_at \(integer) NOT NULL,
                app_name TEXT NOT NULL,
                kind TEXT NOT NULL,
                stage TEXT NOT NULL,
                previous_stage TEXT,
                mode TEXT,
                start_mode TEXT,
                route_modes TEXT,
                percent \(integer),
                legacy \(integer),
                rolled_back \(integer),
                detail TEXT NOT NULL,
                instance_name TEXT,
                config_fingerprint TEXT
            );
            CREATE INDEX stage_changes_by_app ON stage_changes (app_name, changed_at);
            """
    }
}
