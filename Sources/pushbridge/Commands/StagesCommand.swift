import PushBridgeServer

/// `pushbridge stages`: who changed which app's stage, when, on which instance and under which
/// configuration (the audit's `stage_changes` history), oldest first.
enum StagesCommand {
    /// The declaration.
    static let command = Command(
        name: "stages", summary: "the stage history: every stage or percent change, rollback, resume and legacy removal, with its time, instance and configuration",
        options: [
            .auditFollowingConfig,
            .config("read audit_db from it"),
            .app("only app A (its name in the configuration)"),
            Option(name: "limit", kind: .number(minimum: 1), help: "only the newest N changes"),
            .format([.text, .json, .csv]),
        ],
        notes: "Oldest first. No secret is needed. Exit status: 0 listed, 2 usage, 3 the history cannot be read.",
        run: { run($0) })

    static func run(_ arguments: ParsedArguments) -> Int32 {
        var database = arguments["db"]
        if database == nil, let config = arguments["config"] {
            do { database = try ProxyConfiguration.auditPath(inFileAt: config) } catch { return arguments.fail("\(error)", status: 2) }
        }
        let format = StageChangesRendering.Format(rawValue: arguments.format.rawValue) ?? .text
        do {
            let reader = try AuditReader(path: database ?? ProxyConfiguration.defaultAuditDatabasePath)
            let changes = try reader.stageChanges(app: arguments["app"], limit: arguments.number("limit"))
            try writeOutput(StageChangesRendering.render(changes, as: format), to: nil)
        } catch {
            return arguments.fail("\(error)", status: 3)
        }
        return 0
    }
}
