/// The `stage_changes` history (``StageSchema``) on the reader's own connection, so instances
/// sharing a PostgreSQL audit read each other's changes.
extension AuditReader {
    /// The columns every history read selects, in the order ``stageChange(_:)`` reads them.
    private static let stageColumns = "id, changed_at, app_name, kind, stage, previous_stage, mode, start_mode, route_modes, percent, legacy, rolled_back, detail, instance_name, config_fingerprint"

    /// Writes one change.
    func insertStageChange(_ c: StageChange) throws(AuditError) {
        let s = c.stage
        let flag = { (value: Bool?) in value.map { SQLiteValue.integer($0 ? 1 : 0) } ?? .null }
        let text = { (value: String?) in value.map(SQLiteValue.text) ?? .null }
        _ = try change("""
            INSERT INTO stage_changes (changed_at, app_name, kind, stage, previous_stage, mode, start_mode, route_modes, percent, legacy, rolled_back, detail, instance_name, config_fingerprint)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(c.at), .text(c.app), .text(c.kind.rawValue), .text(c.stageText), text(c.previous), text(s?.mode.rawValue), text(s?.startMode.rawValue),
                  text(s?.routeModesText), s?.percent.map { .integer(Int64($0)) } ?? .null, flag(s?.legacy), flag(s?.rolledBack), .text(c.detail),
                  text(c.instance), text(c.fingerprint)])
    }

    /// The history, oldest first: every change, or `app`'s; with `limit`, the newest `limit`.
    public func stageChanges(app: String? = nil, limit: Int? = nil) throws(AuditError) -> [StageChange] {
        var sql = "SELECT \(Self.stageColumns) FROM stage_changes"
        var arguments: [SQLiteValue] = []
        if let app { sql += " WHERE app_name = ?"; arguments.append(.text(app)) }
        sql += " ORDER BY changed_at DESC, id DESC"
        if let limit { sql += " LIMIT ?"; arguments.append(.integer(Int64(max(0, limit)))) }
        return try query(sql, arguments).reversed().map(Self.stageChange)
    }

    /// The newest change of every app, by name.
    public func latestStageChanges() throws(AuditError) -> [String: StageChange] {
        var latest: [String: StageChange] = [:]
        for change in try stageChanges() { latest[change.app] = change }
        return latest
    }

    /// A change from a row of ``stageColumns``.
    private static func stageChange(_ row: [SQLiteValue]) -> StageChange {
        let text = { (i: Int) in row[i].textValue }
        var stage: AppStage?
        if let mode = text(6).flatMap(MigrationMode.init(rawValue:)) {
            stage = AppStage(mode: mode, startMode: text(7).flatMap(MigrationMode.init(rawValue:)), routeModes: AppStage.routeModes(from: text(8) ?? ""),
                             percent: row[9].integerValue.map(Int.init), legacy: row[10].integerValue == 1, rolledBack: row[11].integerValue == 1)
        }
        var change = StageChange(at: row[1].integerValue ?? 0, app: text(2) ?? "", kind: text(3).flatMap(StageChange.Kind.init(rawValue:)) ?? .mode,
                                 stage: stage, previous: text(5), detail: text(12) ?? "", instance: text(13), fingerprint: text(14))
        change.id = row[0].integerValue ?? 0
        return change
    }

    /// Records that `app`'s rollout was resumed from outside a proxy (`pushbridge rollout
    /// resume`, run as `instance`): the app's last recorded stage, no longer rolled back.
    public func recordResume(app: String, instance: String, fingerprint: String?, at: Int64 = AuditClock.nowMilliseconds()) throws(AuditError) {
        let last = try stageChanges(app: app, limit: 1).last
        var stage = last?.stage
        stage?.rolledBack = false
        try insertStageChange(StageChange(at: at, app: app, kind: .resume, stage: stage, previous: last?.stageText,
                                          detail: "resumed by pushbridge rollout resume", instance: instance, fingerprint: fingerprint))
    }
}
