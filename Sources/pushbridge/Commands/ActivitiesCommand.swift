import PushBridgeServer

/// `pushbridge activities`: the Live Activities in flight (not ended, within their 12 hours)
/// from the activity ledger, newest first: which provider holds each, when it started, was
/// last updated and until when it can still be reached.
enum ActivitiesCommand {
    /// The most activities listed.
    static let limit = 10_000

    /// The declaration.
    static let command = Command(
        name: "activities", summary: "list the Live Activities in flight and the provider that holds each (from the activity ledger)",
        options: [
            .auditFollowingConfig,
            .config("read audit_db from it"),
            .app("only app A (its name in the configuration)"),
            Option(name: "provider", kind: .choice(placeholder: "openpush|legacy", choices: ["openpush", "legacy"], synonyms: [:]),
                   help: "only activities this provider holds (an activity both hold is listed under either)"),
            .format([.text, .json, .csv]),
        ],
        notes: "Newest first, at most \(limit). No secret is needed. Exit status: 0 listed, 2 usage, 3 the ledger cannot be read.",
        run: { await run($0) })

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        var database = arguments["db"]
        if database == nil, let config = arguments["config"] {
            do { database = try ProxyConfiguration.auditPath(inFileAt: config) } catch { return arguments.fail("\(error)", status: 2) }
        }
        let holder = arguments["provider"].flatMap(ActivityHolder.init(rawValue:))
        let format = ActivityListing.Format(rawValue: arguments.format.rawValue) ?? .text
        do {
            let ledger = try ActivityLedger(path: database ?? ProxyConfiguration.defaultAuditDatabasePath)
            let records = try await ledger.inFlight(app: arguments["app"], holder: holder, now: AuditClock.nowMilliseconds(), limit: limit)
            try writeOutput(ActivityListing.render(records, as: format), to: nil)
        } catch {
            return arguments.fail("\(error)", status: 3)
        }
        return 0
    }
}
