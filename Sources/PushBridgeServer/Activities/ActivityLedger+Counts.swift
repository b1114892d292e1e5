extension ActivityLedger {
    /// The in-flight counts per app and holder of the audit at `path` (an SQLite file or a
    /// `postgresql://` URI), for readiness, the report and the admin page, with what the cap
    /// forgot (``readinessCounts(now:)``); nil when its ledger cannot be read (said as "not
    /// known" wherever it is shown).
    public static func inFlightCounts(ofAuditAt path: String, now: Int64 = AuditClock.nowMilliseconds()) async -> [ActivityCount]? {
        guard let ledger = try? ActivityLedger(path: path) else { return nil }
        return try? await ledger.readinessCounts(now: now)
    }

    /// What readiness judges "legacy can be switched off" by: ``inFlightCounts(now:)``, then
    /// one ``ActivityCount/forgotten`` count (holder `both`) per app whose in-flight rows the
    /// cap forgot and could still be in flight at `now` (``forgottenInFlight(now:)``).
    public func readinessCounts(now: Int64) async throws -> [ActivityCount] {
        let counts = try await inFlightCounts(now: now)
        return counts + (try await forgottenInFlight(now: now)).map {
            ActivityCount(app: $0.app, holder: .both, count: $0.count, lastReachableUntil: $0.inFlightUntil, forgotten: true)
        }
    }
}
