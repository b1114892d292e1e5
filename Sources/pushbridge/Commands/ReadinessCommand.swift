import PushBridgeServer

/// `pushbridge readiness`: the cut-over verdict per app and route. Exit status 0 only when
/// every selected app is ready, so a deploy pipeline can gate a cut-over on it.
enum ReadinessCommand {
    /// The declaration.
    static let command = Command(
        name: "readiness", summary: "the cut-over verdict per app and route (exit 0: every selected app is ready)",
        options: [
            .auditFollowingConfig,
            .config("read the thresholds (its \"readiness\" object) and the apps; an app with no traffic is \"not enough traffic\""),
        ] + Option.reportFilters + [.format(OutputFormat.report), .out],
        notes: """
            \(timeNote) No secret is needed.
            Only requests PushBridge admitted count; those refused before admission (missing or wrong credentials, an app not configured, …) are reported apart.
            Exit status: 0 every selected app is ready; 1 one is not ready or has not enough traffic; 2 usage; 3 the audit cannot be read.
            """,
        run: { await run($0) })

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        var settings = ReadinessSettings()
        var database = arguments["db"]
        if let config = arguments["config"] {
            do {
                settings = try ReadinessSettings.load(fileAt: config)
                database = database ?? (try? ProxyConfiguration.auditPath(inFileAt: config))
            } catch {
                return arguments.fail("\(error)", status: 2)
            }
        }
        let readiness: Readiness
        let path = database ?? ProxyConfiguration.defaultAuditDatabasePath
        let inFlight = await ActivityLedger.inFlightCounts(ofAuditAt: path)
        do {
            readiness = try AuditReader(path: path).readiness(arguments.reportFilter, settings: settings, inFlight: inFlight)
            try writeOutput(ReadinessRendering.render(readiness, as: arguments.format.report), to: arguments["out"])
        } catch {
            return arguments.fail("\(error)", status: 3)
        }
        return readiness.allReady ? 0 : 1
    }
}
