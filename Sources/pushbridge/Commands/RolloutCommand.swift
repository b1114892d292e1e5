import Foundation
import PushBridgeCore
import PushBridgeServer

/// `pushbridge rollout resume APP`: ends an automatic rollback of an app's rollout, in the
/// audit database every instance reads it from (running instances pick it up within
/// ``RolloutMonitor/refreshInterval``). `pushbridge rollout where APP --user KEY`: which side a
/// new start of that user goes to, its bucket and why (``RolloutWhere``).
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
            Command(name: "where", summary: "which side a user's new starts go to: the cohort bucket, the side and why",
                    options: [.config("the configuration file (the app's stage and rollout, as serve reads it)", required: true),
                              .auditFollowingConfig,
                              Option(name: "user", kind: .text(placeholder: "KEY"), help: "the user: the external id a start targets (OneSignal external_id, Pushwoosh users, BuzzKit to)", required: true),
                              .format([.text, .json])],
                    positionals: [.init(name: "APP", help: "the configured app's name or its source app id")],
                    notes: """
                        The answer comes from the function the router places a rollout's new starts with, so it is where a start of that user goes now. \
                        A rollout app's rollback state is read from the audit database. Updates and ends follow their activity, wherever it started.
                        Exit status: 0 answered, 1 the app is not configured or its rollback state cannot be read, 2 usage or a configuration that does not load.
                        """,
                    run: { place($0) }),
        ])

    /// `rollout where`: loads the configuration as serve does (its secrets from the environment,
    /// none printed), reads a rollout app's rollback state from the audit, prints ``RolloutWhere``.
    static func place(_ arguments: ParsedArguments) -> Int32 {
        let name = arguments.positional[0], config = arguments["config"] ?? "", user = arguments["user"] ?? ""
        let configuration: ProxyConfiguration
        do { configuration = try ProxyConfiguration.load(fileAt: config, environment: ProcessInfo.processInfo.environment) } catch {
            return arguments.fail("\(error)", status: 2)
        }
        guard let app = configuration.apps.first(where: { $0.name == name }) ?? configuration.apps.first(where: { $0.sourceAppId == name }) else {
            return arguments.fail("no app \(TerminalText.escape(name)) in \(TerminalText.escape(config)) (apps: \(configuration.apps.map { TerminalText.escape($0.name) }.joined(separator: ", ")))")
        }
        var rollback: RolloutRollback?
        if app.mode == .rollout || app.routeModes.values.contains(.rollout) {
            let path = arguments["db"] ?? configuration.auditDatabasePath
            do {
                rollback = try AuditReader(path: path).rollbacks().first { $0.app == app.name }
            } catch {
                return arguments.fail("cannot read whether app \(TerminalText.escape(app.name))'s rollout was rolled back from \(TerminalText.escape(path)): \(error)")
            }
        }
        let answer = RolloutWhere.answer(app: app, user: user, rollback: rollback)
        if arguments.format == .json {
            writeOutput(TerminalText.json(String(decoding: JSONWriter.bytes(.object(JSONObject(members: answer.fields.map { JSONMember($0.label.replacingOccurrences(of: " ", with: "_"), .string($0.value)) }))), as: UTF8.self)) + "\n")
        } else {
            let width = answer.fields.map(\.label.count).max() ?? 0
            writeOutput(answer.fields.map { $0.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + TerminalText.escape($0.value) }.joined(separator: "\n") + "\n")
        }
        return 0
    }

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
