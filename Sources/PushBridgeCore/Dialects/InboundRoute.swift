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
        var bytes = Array(rawPath.utf8)
        if let q = bytes.firstIndex(of: UInt8(ascii: "?")) { bytes.removeSubrange(q...) }
        if bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        switch bytes {
        case pushwooshStart: return InboundRoute(dialect: .pushwoosh, kind: .start)
        case pushwooshUpdate: return InboundRoute(dialect: .pushwoosh, kind: .update)
        case buzzkitSend: return InboundRoute(dialect: .buzzkit, kind: .send)
        default: break
        }
        var body = bytes[...]
        if body.starts(with: apiV1Prefix) { body = body.dropFirst(apiV1Prefix.count - 1) }
        // ["", "apps", app, "activities", "activity", type] or ["", "apps", app, "live_activities", id, "notifications"]
        let parts = body.split(separator: UInt8(ascii: "/"), maxSplits: 6, omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, parts[1].elementsEqual("apps".utf8), !parts[2].isEmpty, !parts[4].isEmpty, !parts[5].isEmpty,
              let app = decode(parts[2]) else { return nil }
        if parts[3].elementsEqual("activities".utf8), parts[4].elementsEqual("activity".utf8), let type = decode(parts[5]) {
            return InboundRoute(dialect: .onesignal, kind: .start, appId: app, activityType: type)
        }
        if parts[3].elementsEqual("live_activities".utf8), parts[5].elementsEqual("notifications".utf8), let id = decode(parts[4]) {
            return InboundRoute(dialect: .onesignal, kind: .update, appId: app, activityId: id)
        }
        return nil
    }

    private static let pushwooshStart = Array("/json/1.3/startLiveActivity".utf8)
    private static let pushwooshUpdate = Array("/json/1.3/updateLiveActivity".utf8)
    private static let buzzkitSend = Array("/v1/live-activities/send".utf8)
    private static let apiV1Prefix = Array("/api/v1/".utf8)

    private static func decode(_ segment: ArraySlice<UInt8>) -> String? {
        if !segment.contains(UInt8(ascii: "%")) { return String(decoding: segment, as: UTF8.self) }
        return PathEncoding.decodeSegment(Substring(String(decoding: segment, as: UTF8.self)))
    }
}
