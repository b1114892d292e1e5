extension ActivityLedger {
    /// The in-flight counts per app and holder of the audit at `path` (an SQLite file or a
    /// `postgresql://` URI), for readiness, the report and the admin page, followed by one
    /// ``ActivityCount/forgotten`` count (holder `both`) per app whose in-flight rows the cap
    /// forgot and could still be in flight; nil when its ledger cannot be read (said as "not
    /// known" wherever it is shown).
    public static func inFlightCounts(ofAuditAt path: String, now: Int64 = AuditClock.nowMilliseconds()) async -> [ActivityCount]? {
        guard let ledger = try? ActivityLedger(path: path), let counts = try? await ledger.inFlightCounts(now: now),
              let forgotten = try? await ledger.forgottenInFlight(now: now) else { return nil }
        return counts + forgotten.map { ActivityCount(app: $0.app, holder: .both, count: $0.count, lastReachableUntil: $0.inFlightUntil, forgotten: true) }
    }
}
