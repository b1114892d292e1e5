import Foundation
import PushBridgeServer

/// `pushbridge rollout resume APP`: ends an automatic rollback of an app's rollout, in the
/// audit database every instance reads it from (running instances pick it up within
/// ``RolloutMonitor/refreshInterval``).
enum RolloutCommand {
    /// The declaration.
    static let command = Command(
        name: "rollout", summary: "the rollout stage's automatic rollback",
        subcommands: [
            Command(name: "resume", summary: "resume an app's rolled-back rollout: its new starts are placed by cohort again",
                    options: [.auditFollowingConfig, .config("read audit_db from this configuration file")],
                    positionals: [.init(name: "APP", help: "the configured app's name")],
                    notes: "Exit status: 0 resumed, 1 the app's rollout was not rolled back or the audit cannot be written, 2 usage.",
                    run: { resume($0) }),
        ])

    static func resume(_ arguments: ParsedArguments) -> Int32 {
        let app = arguments.positional[0]
        var database = arguments["db"]
        if database == nil, let config = arguments["config"] {
            do { database = try ProxyConfiguration.auditPath(inFileAt: config) } catch { return arguments.fail("\(error)", status: 2) }
        }
        let path = database ?? ProxyConfiguration.defaultAuditDatabasePath
        do {
            let reader = try AuditReader(path: path)
            guard let rollback = try reader.rollbacks().first(where: { $0.app == app }) else {
                return arguments.fail("app \(TerminalText.escape(app))'s rollout is not rolled back in \(TerminalText.escape(path))")
            }
            try reader.clearRollback(app: app)
            let fingerprint = arguments["config"].flatMap { try? ProxyConfiguration.load(fileAt: $0, environment: ProcessInfo.processInfo.environment).stageFingerprint }
            do {
                try reader.recordResume(app: app, instance: "pushbridge rollout resume on \(InstanceSettings.defaultName)", fingerprint: fingerprint)
            } catch {
                printError("warning: the resume is not in the stage history (pushbridge stages): \(error)")
            }
            print("resumed app \(TerminalText.escape(app))'s rollout (rolled back at \(RFC3339.format(milliseconds: rollback.at)) on \(TerminalText.escape(rollback.threshold)): "
                  + "\(TerminalText.escape(rollback.evidence))); running instances place its new starts by cohort again within a second")
            return 0
        } catch {
            return arguments.fail("\(error)")
        }
    }
}
