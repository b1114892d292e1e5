/// A matched inbound route: dialect, route kind and the path parameters.
public struct InboundRoute: Sendable, Equatable {
    /// The dialect.
    public var dialect: DialectName
    /// The route.
    public var kind: RouteKind
    /// The source app id from the path (OneSignal), when the path has one.
    public var appId: String?
    /// The activity type from the path (OneSignal start).
    public var activityType: String?
    /// The activity id from the path (OneSignal update/end).
    public var activityId: String?
    /// The route's name for logs, metrics and reports, e.g. `onesignal.start`.
    public var name: String { "\(dialect.rawValue).\(kind.rawValue)" }

    /// A route.
    public init(dialect: DialectName, kind: RouteKind, appId: String? = nil, activityType: String? = nil, activityId: String? = nil) {
        self.dialect = dialect
        self.kind = kind
        self.appId = appId
        self.activityType = activityType
        self.activityId = activityId
    }

    /// Matches a request path (query string ignored) to a route, or nil when no dialect has it.
    /// Path segments are percent-decoded; a segment that does not decode does not match.
    public static func match(path rawPath: String) -> InboundRoute? {
        var path = Substring(rawPath)
        if let q = path.firstIndex(of: "?") { path = path[..<q] }
        if path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        switch path {
        case "/json/1.3/startLiveActivity": return InboundRoute(dialect: .pushwoosh, kind: .start)
        case "/json/1.3/updateLiveActivity": return InboundRoute(dialect: .pushwoosh, kind: .update)
        case "/v1/live-activities/send": return InboundRoute(dialect: .buzzkit, kind: .send)
        default: break
        }
        if path.hasPrefix("/api/v1/") { path = path.dropFirst(7) }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        // ["", "apps", app, "activities", "activity", type] or ["", "apps", app, "live_activities", id, "notifications"]
        guard parts.count == 6, parts[0].isEmpty, parts[1] == "apps", !parts[2].isEmpty, !parts[5].isEmpty || parts[3] == "live_activities",
              let app = PathEncoding.decodeSegment(parts[2]) else { return nil }
        if parts[3] == "activities", parts[4] == "activity", !parts[5].isEmpty, let type = PathEncoding.decodeSegment(parts[5]) {
            return InboundRoute(dialect: .onesignal, kind: .start, appId: app, activityType: type)
        }
        if parts[3] == "live_activities", parts[5] == "notifications", let id = PathEncoding.decodeSegment(parts[4]) {
            return InboundRoute(dialect: .onesignal, kind: .update, appId: app, activityId: id)
        }
        return nil
    }
}
