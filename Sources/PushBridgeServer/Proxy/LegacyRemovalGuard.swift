import Foundation
import PushBridgeCore

/// The legacy-off guard: a configuration without `legacy.<dialect>` while the activity ledger
/// still holds activities of an app of that dialect on the legacy side would strand them (their
/// updates and ends could reach no one). `pushbridge check-config` and a reload refuse such a
/// file, naming the apps, how many activities and until when the last can still be reached,
/// unless the operator says so (`"allow_legacy_removal": true`, or check-config's
/// `--allow-legacy-removal`). Pure: the caller reads the ledger's counts
/// (``ActivityLedger/inFlightCounts(now:)``).
public enum LegacyRemovalGuard {
    /// The configuration key that takes a file anyway.
    public static let configKey = "allow_legacy_removal"
    /// check-config's flag that takes a file anyway.
    public static let flag = "--allow-legacy-removal"

    /// One app's activities in flight on a legacy provider the configuration does not have.
    public struct Stranded: Sendable, Equatable {
        /// The configured app's name.
        public var app: String
        /// The dialect whose `legacy.<dialect>` is missing.
        public var dialect: DialectName
        /// Activities in flight on the legacy side (held by it alone or by both sides).
        public var count: Int
        /// Until when the last of them can still be updated or ended, Unix milliseconds.
        public var until: Int64
    }

    /// The dialects the guard looks at in `configuration`: those of its apps with no
    /// `legacy.<dialect>`, limited to `removed` when given (a reload: the dialects the running
    /// configuration had a legacy provider for and the new one has not).
    public static func unguarded(_ configuration: ProxyConfiguration, removed: Set<DialectName>? = nil) -> Set<DialectName> {
        Set(configuration.apps.map(\.dialect).filter { configuration.legacy[$0] == nil && (removed?.contains($0) ?? true) })
    }

    /// The dialects `before` had a legacy provider for and `after` has not.
    public static func removed(from before: ProxyConfiguration.LegacyEndpoints, to after: ProxyConfiguration.LegacyEndpoints) -> Set<DialectName> {
        Set(before.baseURLs.keys.filter { after[$0] == nil })
    }

    /// The apps of `configuration` of a dialect in `dialects` whose activities `counts` says
    /// are in flight on the legacy side, by dialect then app.
    public static func stranded(_ configuration: ProxyConfiguration, dialects: Set<DialectName>, counts: [ActivityCount]) -> [Stranded] {
        configuration.apps.filter { dialects.contains($0.dialect) }.compactMap { app in
            let held = counts.filter { $0.app == app.name && $0.holder.includesLegacy && $0.count > 0 }
            guard let until = held.map(\.lastReachableUntil).max() else { return nil }
            return Stranded(app: app.name, dialect: app.dialect, count: held.reduce(0) { $0 + $1.count }, until: until)
        }.sorted { ($0.dialect.rawValue, $0.app) < ($1.dialect.rawValue, $1.app) }
    }

    /// One refusal per dialect: what would be stranded, and the two ways on (wait for the
    /// drain, or say so explicitly).
    public static func refusals(_ stranded: [Stranded]) -> [String] {
        let byDialect = Dictionary(grouping: stranded, by: \.dialect)
        return byDialect.keys.sorted { $0.rawValue < $1.rawValue }.map { dialect in
            let apps = (byDialect[dialect] ?? []).map { "app \($0.app): \($0.count) in flight until \(RFC3339.format(milliseconds: $0.until))" }
            return "legacy.\(dialect.rawValue) is not in the configuration, but the legacy provider still holds activities in flight (\(apps.joined(separator: "; "))): "
                + "without it their updates and ends reach no one. Wait for them to end (pushbridge activities --provider legacy lists them; "
                + "none is reachable after its until), or set \"\(configKey)\": true in the file (check-config: \(flag)) to remove it anyway"
        }
    }

    /// The line that says a dialect's legacy provider can go: nothing of its apps in flight there.
    public static func clear(_ dialects: Set<DialectName>) -> [String] {
        dialects.sorted { $0.rawValue < $1.rawValue }.map {
            "legacy.\($0.rawValue) is not in the configuration and no activity is in flight on the legacy side: legacy can be switched off"
        }
    }

    /// The in-flight counts of the audit `configuration` names, for check-config: empty when
    /// its SQLite file does not exist yet (nothing was ever placed), nil when it cannot be read.
    public static func counts(ofAuditOf configuration: ProxyConfiguration, now: Int64 = AuditClock.nowMilliseconds()) async -> [ActivityCount]? {
        let path = configuration.auditDatabasePath
        if !PostgresURI.isPostgres(path), !FileManager.default.fileExists(atPath: path) { return [] }
        return await ActivityLedger.inFlightCounts(ofAuditAt: path, now: now)
    }
}
