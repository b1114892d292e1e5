import Foundation
import PushBridgeServer

/// `pushbridge check-config FILE`: prints every problem of a configuration file, one per line;
/// for a valid file, its warnings (``AppConfiguration/configurationWarnings``, an app in
/// `openpush` whose reach is below `readiness.min_reach`: ``OpenPushReachWarning``), the longest PushBridge can take to answer and the read timeout a front
/// proxy needs (``ProxyConfiguration/handlerDeadline``). A file without a `legacy.<dialect>`
/// that activities in flight are still held by (the activity ledger of its `audit_db`) is
/// refused like a problem (``LegacyRemovalGuard``), unless `--allow-legacy-removal` or the
/// file's `allow_legacy_removal` says so.
enum CheckConfigCommand {
    /// The declaration.
    static let command = Command(
        name: "check-config", summary: "validate a configuration file and print every problem, one per line",
        options: [Option(name: "allow-legacy-removal", kind: .flag,
                         help: "take a file without a legacy.<dialect> although the activity ledger still holds activities in flight there (they can no longer be updated or ended)")],
        positionals: [.init(name: "FILE", help: "the configuration file")],
        notes: """
            A file that leaves out a legacy.<dialect> while its audit's activity ledger still holds activities of an app of that dialect on the legacy side is refused, naming the apps, the count and until when.
            Exit status: 0 valid, 1 invalid (or legacy removal refused), 2 usage.
            """,
        run: { await run($0) })

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        let file = arguments.positional[0]
        let problems = ProxyConfiguration.check(fileAt: file, environment: ProcessInfo.processInfo.environment)
        guard problems.isEmpty else {
            for p in problems { print(p) }
            return 1
        }
        guard let configuration = try? ProxyConfiguration.load(fileAt: file, environment: ProcessInfo.processInfo.environment) else {
            print("\(file): ok")
            return 0
        }
        let legacy = await legacyRemoval(configuration, allowed: arguments.flag("allow-legacy-removal"))
        guard legacy.refusals.isEmpty else {
            for refusal in legacy.refusals { print(refusal) }
            return 1
        }
        print("\(file): ok")
        for note in legacy.notes { print(note) }
        for warning in configuration.apps.flatMap(\.configurationWarnings) + OpenPushReachWarning.warnings(ofAuditOf: configuration) { print("warning: \(warning)") }
        print("longest answer: \(configuration.handlerDeadlineExplanation)")
        print("front proxy: wait longer than that for PushBridge's answer, e.g. nginx proxy_read_timeout \(configuration.frontProxyReadTimeoutSeconds)s; "
              + "a proxy that gives up sooner answers 504 while the request may still be forwarded")
        return 0
    }

    /// The legacy-off guard on `configuration`: its refusals (empty when it passes), and the
    /// lines it passes with (allowed anyway, nothing in flight, the ledger unreadable).
    static func legacyRemoval(_ configuration: ProxyConfiguration, allowed flag: Bool) async -> (refusals: [String], notes: [String]) {
        let dialects = LegacyRemovalGuard.unguarded(configuration)
        guard !dialects.isEmpty else { return ([], []) }
        guard let counts = await LegacyRemovalGuard.counts(ofAuditOf: configuration) else {
            return ([], ["warning: the activity ledger of \(configuration.auditDatabasePath) cannot be read: whether a legacy provider this file leaves out still holds activities in flight is not known"])
        }
        let stranded = LegacyRemovalGuard.stranded(configuration, dialects: dialects, counts: counts)
        guard !stranded.isEmpty else {
            // Said only where there is a ledger that was asked.
            let asked = PostgresURI.isPostgres(configuration.auditDatabasePath) || FileManager.default.fileExists(atPath: configuration.auditDatabasePath)
            return ([], asked ? LegacyRemovalGuard.clear(dialects).map { "note: \($0)" } : [])
        }
        let refusals = LegacyRemovalGuard.refusals(stranded)
        guard flag || configuration.allowLegacyRemoval else { return (refusals, []) }
        return ([], refusals.map { "warning: allowed by \(flag ? LegacyRemovalGuard.flag : LegacyRemovalGuard.configKey): \($0)" })
    }
}
