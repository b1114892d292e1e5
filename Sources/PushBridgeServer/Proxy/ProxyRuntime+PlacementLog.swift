import PushBridgeCore

extension ProxyRuntime {
    /// Where an app's new starts go, in words for the log: `legacy`, `openpush`, `legacy
    /// (OpenPush shadow)`, `openpush (legacy shadow)`, or the stage's name for any other.
    static func startSide(_ app: AppConfiguration) -> String {
        let mode = app.mode(for: app.dialect == .buzzkit ? .send : .start)
        switch mode.rawValue {
        case MigrationMode.observe.rawValue: return "legacy"
        case MigrationMode.openpush.rawValue: return "openpush"
        case MigrationMode.shadow.rawValue: return app.shadow?.primary == .openpush ? "openpush (legacy shadow)" : "legacy (OpenPush shadow)"
        default: return mode.rawValue
        }
    }

    /// The apps (by name) whose new starts go elsewhere under `new` than under `old`, with
    /// where they went and where they go now. An app that is new or gone is not a change.
    static func placementChanges(from old: ProxySnapshot, to new: ProxySnapshot) -> [(app: String, was: String, now: String)] {
        new.directory.apps.compactMap { app in
            guard let before = old.app(named: app.name) else { return nil }
            let was = startSide(before), now = startSide(app)
            return was == now ? nil : (app.name, was, now)
        }
    }

    /// One warning line per app whose new starts go elsewhere after a reload: where they went
    /// and go now, and how many activities are in flight on each side with until when the
    /// last one can still be updated (they stay where they are: affinity). `counts` are the
    /// activity ledger's; nil when it could not be read (said in the line).
    static func logPlacementChanges(_ changes: [(app: String, was: String, now: String)], counts: [ActivityCount]?, log: EventLog) {
        for change in changes {
            let mine = counts?.filter { $0.app == change.app }
            func side(_ includes: (ActivityHolder) -> Bool) -> (count: LogValue, until: LogValue) {
                guard let mine else { return (.string("unknown"), .string("unknown")) }
                let held = mine.filter { includes($0.holder) && $0.count > 0 }
                let until = held.map(\.lastReachableUntil).max()
                return (.int(Int64(held.reduce(0) { $0 + $1.count })), .string(until.map { RFC3339.format(milliseconds: $0) } ?? "none"))
            }
            let openPush = side { $0.includesOpenPush }, legacy = side { $0.includesLegacy }
            log.warning("new starts now go elsewhere; activities in flight stay with the provider that holds them", [
                "app": .string(change.app), "starts_were": .string(change.was), "starts_now": .string(change.now),
                "in_flight_openpush": openPush.count, "openpush_last_update_until": openPush.until,
                "in_flight_legacy": legacy.count, "legacy_last_update_until": legacy.until,
            ])
        }
    }
}
