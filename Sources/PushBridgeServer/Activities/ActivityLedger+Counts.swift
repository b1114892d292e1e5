extension ActivityLedger {
    /// The in-flight counts per app and holder of the audit at `path` (an SQLite file or a
    /// `postgresql://` URI), for readiness, the report and the admin page; nil when its ledger
    /// cannot be read (said as "not known" wherever it is shown).
    public static func inFlightCounts(ofAuditAt path: String, now: Int64 = AuditClock.nowMilliseconds()) async -> [ActivityCount]? {
        guard let ledger = try? ActivityLedger(path: path) else { return nil }
        return try? await ledger.inFlightCounts(now: now)
    }
}
