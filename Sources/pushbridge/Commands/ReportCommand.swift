import PushBridgeServer

/// `pushbridge report`: the diff report over an audit file, in any report format.
enum ReportCommand {
    /// The declaration.
    static let command = Command(
        name: "report", summary: "the diff report over the audit: what will change for each app when it moves to OpenPush",
        options: [
            .auditFollowingConfig,
            .config("read the readiness thresholds and the apps, as pushbridge readiness does"),
        ] + Option.reportFilters + [.format(OutputFormat.report), .out],
        notes: timeNote, run: { await run($0) })

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        do {
            let settings = try arguments["config"].map { path throws(ConfigurationError) in try ReadinessSettings.load(fileAt: path) } ?? ReadinessSettings()
            let database = try arguments["db"] ?? arguments["config"].map { path throws(ConfigurationError) in try ProxyConfiguration.auditPath(inFileAt: path) }
            let path = database ?? ProxyConfiguration.defaultAuditDatabasePath
            let reader = try AuditReader(path: path)
            let report = try reader.report(arguments.reportFilter, readiness: settings, inFlight: await ActivityLedger.inFlightCounts(ofAuditAt: path))
            try writeOutput(ReportRenderer.render(report, as: arguments.format.report), to: arguments["out"])
            return 0
        } catch {
            return arguments.fail("\(error)")
        }
    }
}
