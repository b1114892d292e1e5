import PushBridgeCore

/// When an app's route is ready to cut over to OpenPush: the `readiness` object of the
/// configuration. Every key is optional; the defaults are the documented ones.
public struct ReadinessThresholds: Sendable, Equatable {
    /// Requests the route must have seen in the window. Default 500 (`min_requests`).
    public var minRequests = 500
    /// Shadow comparisons the route must have. Default 500 (`min_shadowed`); 0 does not ask
    /// for shadow traffic (an app that went straight to `openpush` mode).
    public var minShadowed = 500
    /// Largest share of requests (0…1) one warning-severity dropped or changed field may be
    /// on. Default 0.001, i.e. 0.1% (`max_warning_share`).
    public var maxWarningShare = 0.001
    /// Largest share of requests one rejection rule may refuse. Default 0.001 (`max_rejection_share`).
    public var maxRejectionShare = 0.001
    /// Largest share of shadow comparisons where one side accepted and the other did not.
    /// Default 0: no disagreement (`max_disagreement_share`).
    public var maxDisagreementShare = 0.0
    /// Largest share of calls to OpenPush that ended without a 2xx. Default 0.01 (`max_openpush_error_rate`).
    public var maxOpenPushErrorRate = 0.01
    /// Largest share of calls to OpenPush answered 429 at least once. Default 0.05 (`max_rate_limited_rate`).
    public var maxRateLimitedRate = 0.05
    /// Smallest reach (0…1, the share of calls to OpenPush that found their audience there)
    /// on every route before the legacy provider can be switched off. Default 0.99 (`min_reach`).
    public var minReach = 0.99
    /// Requests OpenPush accepts per 60 seconds per app on its sending routes: an app whose
    /// busiest minute in the window had more is not ready. Default 60, OpenPush's documented
    /// limit (`openpush_requests_per_minute`).
    public var openPushRequestsPerMinute = 60
    /// Fields each app's team has accepted to lose (app name or source app id → field paths,
    /// array indices folded as `notifications[].subtitle`): shown with their share, no longer
    /// blocking (`accepted_losses`). Empty by default.
    public var acceptedLosses: [String: [String]] = [:]

    /// The defaults.
    public init() {}

    /// The configuration keys, in documentation order.
    static let keys = ["min_requests", "min_shadowed", "max_warning_share", "max_rejection_share", "max_disagreement_share",
                       "max_openpush_error_rate", "max_rate_limited_rate", "min_reach", "openpush_requests_per_minute", "accepted_losses"]

    /// Decodes the `readiness` object, reporting each bad key; absent keys keep their default.
    static func decode(_ value: JSONValue?, _ r: ConfigReader) -> ReadinessThresholds {
        var t = ReadinessThresholds()
        guard let o = r.object(value, at: "readiness", allowed: keys) else { return t }
        func count(_ key: String, _ fallback: Int) -> Int {
            guard let v = o[key] else { return fallback }
            guard let n = v.numberValue?.int64Value, n >= 0, n <= Int64(Int32.max) else {
                r.report("readiness.\(key)", "must be a whole number from 0 to \(Int32.max)")
                return fallback
            }
            return Int(n)
        }
        func share(_ key: String, _ fallback: Double) -> Double {
            guard let v = o[key] else { return fallback }
            guard let n = v.numberValue, (0...1).contains(n.doubleValue) else {
                r.report("readiness.\(key)", "must be a share from 0 to 1 (0.001 is 0.1%)")
                return fallback
            }
            return n.doubleValue
        }
        t.minRequests = count("min_requests", t.minRequests)
        t.minShadowed = count("min_shadowed", t.minShadowed)
        t.maxWarningShare = share("max_warning_share", t.maxWarningShare)
        t.maxRejectionShare = share("max_rejection_share", t.maxRejectionShare)
        t.maxDisagreementShare = share("max_disagreement_share", t.maxDisagreementShare)
        t.maxOpenPushErrorRate = share("max_openpush_error_rate", t.maxOpenPushErrorRate)
        t.maxRateLimitedRate = share("max_rate_limited_rate", t.maxRateLimitedRate)
        t.minReach = share("min_reach", t.minReach)
        if o["openpush_requests_per_minute"] != nil {
            t.openPushRequestsPerMinute = r.positiveInt(o, "openpush_requests_per_minute", at: "readiness", default: t.openPushRequestsPerMinute)
        }
        t.acceptedLosses = acceptedLosses(o["accepted_losses"], r)
        return t
    }

    /// `accepted_losses`: an object of app name → array of non-empty field paths.
    private static func acceptedLosses(_ value: JSONValue?, _ r: ConfigReader) -> [String: [String]] {
        guard let value else { return [:] }
        guard let apps = value.objectValue else {
            r.report("readiness.accepted_losses", "expected an object of app name → list of field paths, found \(value.typeName)")
            return [:]
        }
        var out: [String: [String]] = [:]
        for app in apps.keys {
            let path = "readiness.accepted_losses.\(app)"
            guard let fields = apps[app]?.arrayValue else { r.report(path, "expected an array of field paths"); continue }
            var names: [String] = []
            for (index, field) in fields.enumerated() {
                guard let name = field.stringValue, !name.isEmpty else { r.report("\(path)[\(index)]", "expected a non-empty field path"); continue }
                names.append(FieldPath.folded(name))
            }
            out[app] = names
        }
        return out
    }

    /// The fields accepted as lost for the app going by any of `names` (its configured name, its source app id).
    func acceptedLosses(for names: [String]) -> Set<String> {
        Set(names.flatMap { acceptedLosses[$0] ?? [] })
    }
}

/// What `readiness` and the report's readiness section need from a configuration file: the
/// thresholds and the apps (so an app with no traffic at all still gets a verdict). Read
/// without the environment: no secret is needed to judge an audit.
public struct ReadinessSettings: Sendable, Equatable {
    /// A configured app as the audit knows it.
    public struct App: Sendable, Equatable {
        /// Its name in the configuration.
        public var name: String
        /// Its dialect's raw value.
        public var dialect: String
        /// Its source app id.
        public var sourceAppId: String
        /// An app.
        public init(name: String, dialect: String, sourceAppId: String) {
            self.name = name
            self.dialect = dialect
            self.sourceAppId = sourceAppId
        }
    }

    /// The thresholds.
    public var thresholds: ReadinessThresholds
    /// The configured apps; empty when judged from the audit alone.
    public var apps: [App]

    /// Settings.
    public init(thresholds: ReadinessThresholds = ReadinessThresholds(), apps: [App] = []) {
        self.thresholds = thresholds
        self.apps = apps
    }

    /// The names `app` (a `--app` value) goes by: itself, and the configured name and source
    /// app id of the configured app it names either way.
    public func names(of app: String) -> [String] {
        var names = [app]
        for configured in apps where configured.name == app || configured.sourceAppId == app {
            for name in [configured.name, configured.sourceAppId] where !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The name to show for `app` (a configured name or source app id): the configured
    /// app's name when one goes by it, else `app` itself.
    public func displayName(of app: String) -> String {
        apps.first { $0.name == app || $0.sourceAppId == app }?.name ?? app
    }

    /// The settings of a loaded configuration.
    public init(_ configuration: ProxyConfiguration) {
        self.init(thresholds: configuration.readiness,
                  apps: configuration.apps.map { App(name: $0.name, dialect: $0.dialect.rawValue, sourceAppId: $0.sourceAppId) })
    }

    /// Reads the `readiness` object and the apps' `name`, `dialect` and `source_app_id` from a
    /// configuration file; throws with one line per problem.
    public static func load(fileAt path: String) throws(ConfigurationError) -> ReadinessSettings {
        let root = try ProxyConfiguration.parseFile(at: path)
        let reader = ConfigReader(environment: [:])
        let thresholds = ReadinessThresholds.decode(root.objectValue?["readiness"], reader)
        guard reader.problems.isEmpty else { throw ConfigurationError(problems: reader.problems.map { .init(path: "\(path): \($0.path)", message: $0.message) }) }
        let apps = (root.objectValue?["apps"]?.arrayValue ?? []).compactMap { value -> App? in
            guard let o = value.objectValue, let name = o["name"]?.stringValue else { return nil }
            return App(name: name, dialect: o["dialect"]?.stringValue ?? "", sourceAppId: o["source_app_id"]?.stringValue ?? "")
        }
        return ReadinessSettings(thresholds: thresholds, apps: apps)
    }
}
