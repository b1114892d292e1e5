extension AuditReader {
    /// Each app's busiest clock minute as OpenPush counts it: the OpenPush sends (one per
    /// translated OpenPush request: a Pushwoosh request of 5 notifications is 5) of the
    /// requests PushBridge would send (admitted, not rejected; every sending route together),
    /// per OpenPush app (`target_app`), every source app on it together. Every app that sent
    /// to an OpenPush app gets that OpenPush app's busiest minute (its busiest one when it
    /// sends to several; of two as busy, the earlier, then the one named first); a row without
    /// `target_app` counts under its own app.
    ///
    /// Whole minutes read `rollup_minute_sends` (``AuditRollupMinuteSendsSchema``): one row per
    /// minute, OpenPush app, app name, source app and instance, of exactly the requests counted
    /// here, so the read needs no condition but the window: each OpenPush app's minutes summed in
    /// the key's order (no sort; one row per OpenPush app and minute reaches Swift), the apps
    /// sending to it, and the apps of its busiest minute alone; the window's partial edge
    /// minutes read the log. An audit without that table reads
    /// `rollup_requests` (``busiestMinuteSums(_:_:)``). The apps sending to each OpenPush app
    /// come from `rolled` (readiness's one read of `rollup_requests`) when the scope has no app,
    /// dialect or route filter: the same pairs, without another pass over this table.
    func readinessBusiestMinutes(_ scope: ReadinessScope, _ rolled: ReadinessRequestRollup = ReadinessRequestRollup()) throws(AuditError) -> [String: BusiestMinute] {
        let unfiltered = scope.appNames.isEmpty && scope.filter.app == nil && scope.filter.dialect == nil && scope.filter.route == nil
        // The app, dialect and route filters narrow what is judged, not which sends count:
        // OpenPush counts every app, dialect and sending route on its app together.
        var whole = scope
        whole.appNames = []
        (whole.filter.app, whole.filter.dialect, whole.filter.route) = (nil, nil, nil)
        // Rows of (OpenPush app or NULL, app or NULL, minute or NULL, sends): an app of NULL is an
        // OpenPush app's minute summed over its apps (read apart below), a minute of NULL says
        // only that the app sends to that OpenPush app.
        let sums: [[SQLiteValue]] = try fromRollups(whole, [], +) { _ throws(AuditError) in
            // Minutes, never hours.
            let window = RollupWindow(since: whole.filter.since, until: whole.filter.until, hourly: false)
            guard hasMinuteSends else { return try busiestMinuteSums(whole, window) }
            let bounds = (window.minutes?.from.map { ["minute >= \($0)"] } ?? []) + (window.minutes?.to.map { ["minute < \($0)"] } ?? [])
            func rows(_ select: String, _ conditions: [String], _ rest: String = "") throws(AuditError) -> [[SQLiteValue]] {
                try query("SELECT \(select) FROM \(AuditRollupMinuteSendsSchema.table) WHERE " + (bounds + conditions + ["requests <> 0"]).joined(separator: " AND ") + rest)
            }
            // Grouped in the key's order (minute, target_app, app_name, source_app): no sort. (`<= ''`
            // is `= ''`: SQLite drops a column held equal from the grouping and then sorts.)
            let sums = try rows("target_app, NULL, minute, sum(openpush_sends)", ["target_app <> ''"], " GROUP BY minute, target_app")
                + rows("NULL, \(Self.rollupAppKey), minute, sum(openpush_sends)", ["target_app <= ''"], " GROUP BY minute, target_app, app_name, source_app")
            guard unfiltered else { return try sums + rows("DISTINCT target_app, \(Self.rollupAppKey), NULL, 0", ["target_app <> ''"]) }
            return sums + rolled.senders.map { [.text($0.openPushApp), .text($0.app), .null, .integer(0)] }
        } rows: { whole throws(AuditError) in
            let (clause, arguments) = readinessClause(whole, extra: ["r.outcome != 'rejected'"])
            let sends = "coalesce(CASE WHEN r.translated LIKE '[%' THEN json_array_length(r.translated) END, 1)"
            return try query("SELECT r.target_app, \(appKey), r.received_at / 60000, sum(\(sends)) FROM requests r \(clause) GROUP BY 1, 2, 3", arguments)
        }
        var minutes: [BusiestGroupMinute: BusiestMinute] = [:], senders: [String: Set<BusiestGroup>] = [:]
        for row in sums {
            let app = row[1].textValue, target = row[0].textValue
            let group = BusiestGroup(openPushApp: target, app: target == nil ? app ?? "" : "")
            if let app { senders[app, default: []].insert(group) }
            guard let minute = row[2].integerValue else { continue }
            let key = BusiestGroupMinute(group: group, start: minute * 60_000)
            minutes[key, default: BusiestMinute(start: key.start, requests: 0, openPushApp: target)].add(Int(row[3].integerValue ?? 0), from: app)
        }
        var busiestOf: [BusiestGroup: BusiestMinute] = [:]
        for (key, minute) in minutes where busiestOf[key.group].map({ minute.isBusier(than: $0) }) ?? true { busiestOf[key.group] = minute }
        // An OpenPush app's busiest minute summed from the table: its apps, read for that minute alone.
        for (group, minute) in busiestOf where minute.apps.isEmpty {
            guard let target = group.openPushApp else { continue }
            for row in try query("SELECT DISTINCT \(Self.rollupAppKey) FROM \(AuditRollupMinuteSendsSchema.table) WHERE minute = ? AND target_app = ? AND requests <> 0",
                                 [.integer(minute.start / 60_000), .text(target)]) {
                busiestOf[group]?.add(0, from: row[0].textValue)
            }
        }
        return senders.compactMapValues { groups in
            groups.sorted().compactMap { busiestOf[$0] }.reduce(nil) { (best: BusiestMinute?, minute) in
                best.map { minute.isBusier(than: $0) ? minute : $0 } ?? minute
            }
        }
    }

    /// The same sums from `rollup_requests` (an audit a reader opens before a proxy of this
    /// build added the busiest minute's table): grouped by its key's first five columns, in
    /// the table's order, so SQLite sorts nothing.
    private func busiestMinuteSums(_ whole: ReadinessScope, _ window: RollupWindow) throws(AuditError) -> [[SQLiteValue]] {
        let (from, clause, arguments) = readinessRollupClause(whole, .requests, window, extra: ["outcome <> 'rejected'"])
        return try query("SELECT CASE WHEN target_app <> '' THEN target_app END, \(Self.rollupAppKey), minute, sum(openpush_sends) "
                         + "FROM \(from) \(clause) GROUP BY \(AuditRollupSchema.requestKey.prefix(5).joined(separator: ", ")) HAVING sum(requests) != 0", arguments)
    }
}

/// What a busiest minute is counted over: an OpenPush app, or an app whose rows name none.
struct BusiestGroup: Hashable, Comparable {
    /// The OpenPush app (`target_app`); nil: the rows name none.
    var openPushApp: String?
    /// The app, when ``openPushApp`` is nil (else `""`).
    var app: String

    /// By OpenPush app, then app: a fixed order to break ties in.
    static func < (a: BusiestGroup, b: BusiestGroup) -> Bool {
        (a.openPushApp ?? "", a.app, a.openPushApp == nil ? 0 : 1) < (b.openPushApp ?? "", b.app, b.openPushApp == nil ? 0 : 1)
    }
}

/// One minute of a ``BusiestGroup``.
struct BusiestGroupMinute: Hashable {
    /// The group.
    var group: BusiestGroup
    /// The minute's start, Unix ms.
    var start: Int64
}

extension BusiestMinute {
    /// Adds `sends` of `app`'s requests, `app` among the minute's apps (kept sorted; nil: of apps told apart).
    mutating func add(_ sends: Int, from app: String?) {
        requests += sends
        guard let app else { return }
        let place = apps.firstIndex { $0 >= app } ?? apps.endIndex
        if place == apps.endIndex || apps[place] != app { apps.insert(app, at: place) }
    }

    /// More sends, or as many in an earlier minute.
    func isBusier(than other: BusiestMinute) -> Bool {
        (requests, -start) > (other.requests, -other.start)
    }
}
