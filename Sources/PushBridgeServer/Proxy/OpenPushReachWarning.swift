import Foundation
import PushBridgeCore

/// The warning for an app whose new starts go to OpenPush alone (`openpush`) while OpenPush's
/// reach, as readiness measures it from the audit over the stage the app leaves
/// (``OpenPushReachWindow``), is below `readiness.min_reach`: a phone
/// still on the old app has no push-to-start token on OpenPush, gets OpenPush's refusal (a
/// OneSignal 400, a Pushwoosh 210) and its start is lost. `check-config` prints it for every
/// such app, a reload logs it for every app it moves to `openpush`.
public enum OpenPushReachWarning {
    /// The apps of `configuration` whose new starts go to OpenPush alone.
    static func openPushApps(_ configuration: ProxyConfiguration) -> [AppConfiguration] {
        configuration.apps.filter { ProxyRuntime.startSide($0) == MigrationMode.openpush.rawValue }
    }

    /// One warning per app of `configuration` in `openpush` (only those named in `only`, when
    /// given) whose lowest reach on a route is below `readiness.min_reach`, read from the audit
    /// `reader` holds over the stage the app leaves for `openpush` (``OpenPushReachWindow``),
    /// which the warning names; apps whose reach is not known there (no call to OpenPush) get none.
    public static func warnings(_ configuration: ProxyConfiguration, only: Set<String>? = nil, reader: AuditReader) -> [String] {
        let apps = openPushApps(configuration).filter { only?.contains($0.name) ?? true }
        guard !apps.isEmpty else { return [] }
        let settings = ReadinessSettings(configuration), minimum = configuration.readiness.minReach
        // An audit no proxy of this build has written has no stage history: the whole audit is judged.
        let changes = (try? reader.stageChanges()) ?? []
        return apps.compactMap { app in
            let window = OpenPushReachWindow.leaving(app.name, changes: changes)
            guard let readiness = try? reader.readiness(window.filter(app: app.name), settings: settings),
                  let reach = readiness.apps.filter({ $0.app == app.name }).flatMap(\.routes).compactMap(\.reach).min(), reach < minimum else { return nil }
            let pct = ReportFormatting.percent
            return "app \(app.name): mode openpush while OpenPush's reach is \(pct(reach)) \(window.description), below readiness.min_reach \(pct(minimum)): "
                + "a phone still on the old app has no push-to-start token on OpenPush and its start is refused and lost; "
                + "rollout with percent 100 and fallback_to_legacy keeps those phones served by the legacy provider until the reach is there"
        }
    }

    /// ``warnings(_:only:reader:)`` on the audit `configuration` names; none when it cannot be
    /// read (an SQLite file that does not exist yet has no reach to judge).
    public static func warnings(ofAuditOf configuration: ProxyConfiguration, only: Set<String>? = nil) -> [String] {
        guard !openPushApps(configuration).isEmpty else { return [] }
        let path = configuration.auditDatabasePath
        if !PostgresURI.isPostgres(path), !FileManager.default.fileExists(atPath: path) { return [] }
        guard let reader = try? AuditReader(path: path) else { return [] }
        return warnings(configuration, only: only, reader: reader)
    }
}
