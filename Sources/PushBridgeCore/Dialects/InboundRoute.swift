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
    ///
    /// One scan over the path's own bytes: no copy of the path and no array of its segments
    /// (issue 31 item 1; `InboundRouteMatchTests` holds it to the split-based match it replaced),
    /// its `?`, `/` and `%` found eight bytes at a time (``PathByteSearch``, branch `translate8`).
    public static func match(path rawPath: String) -> InboundRoute? {
        var path = rawPath
        return path.withUTF8 { all in
            var end = PathByteSearch.firstIndex(of: UInt8(ascii: "?"), in: all) ?? all.count
            if end > 1, all[end - 1] == UInt8(ascii: "/") { end -= 1 }
            return match(UnsafeBufferPointer(rebasing: all[..<end]))
        }
    }

    /// ``match(path:)`` over the path's bytes, its query and one trailing slash already cut.
    private static func match(_ bytes: UnsafeBufferPointer<UInt8>) -> InboundRoute? {
        if equal(bytes, pushwooshStart) { return InboundRoute(dialect: .pushwoosh, kind: .start) }
        if equal(bytes, pushwooshUpdate) { return InboundRoute(dialect: .pushwoosh, kind: .update) }
        if equal(bytes, buzzkitSend) { return InboundRoute(dialect: .buzzkit, kind: .send) }
        var from = 0
        if bytes.count >= apiV1Prefix.utf8CodeUnitCount, equal(UnsafeBufferPointer(rebasing: bytes[..<apiV1Prefix.utf8CodeUnitCount]), apiV1Prefix) {
            from = apiV1Prefix.utf8CodeUnitCount - 1
        }
        // "/apps/{app}/activities/activity/{type}" or "/apps/{app}/live_activities/{id}/notifications":
        // exactly five slashes, the first at the start, no segment after it empty but the fourth may not be.
        var slashes = (0, 0, 0, 0, 0)
        var n = 0
        var next = from
        while let i = PathByteSearch.firstIndex(of: UInt8(ascii: "/"), in: bytes, from: next) {
            next = i + 1
            switch n {
            case 0: slashes.0 = i
            case 1: slashes.1 = i
            case 2: slashes.2 = i
            case 3: slashes.3 = i
            case 4: slashes.4 = i
            default: return nil
            }
            n += 1
        }
        guard n == 5, slashes.0 == from else { return nil }
        func part(_ a: Int, _ b: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[(a + 1)..<b]) }
        let apps = part(slashes.0, slashes.1), app = part(slashes.1, slashes.2), third = part(slashes.2, slashes.3)
        let fourth = part(slashes.3, slashes.4), fifth = part(slashes.4, bytes.count)
        guard equal(apps, "apps"), !app.isEmpty, !fourth.isEmpty, !fifth.isEmpty, let appId = decode(app) else { return nil }
        if equal(third, "activities"), equal(fourth, "activity"), let type = decode(fifth) {
            return InboundRoute(dialect: .onesignal, kind: .start, appId: appId, activityType: type)
        }
        if equal(third, "live_activities"), equal(fifth, "notifications"), let id = decode(fourth) {
            return InboundRoute(dialect: .onesignal, kind: .update, appId: appId, activityId: id)
        }
        return nil
    }

    /// True when the bytes are exactly the literal's. (Index loops here: the generic collection
    /// algorithms allocate in an unoptimized build, which the allocation guard counts.)
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let p = literal.utf8Start
        for i in 0..<bytes.count where bytes[i] != p[i] { return false }
        return true
    }

    private static let pushwooshStart: StaticString = "/json/1.3/startLiveActivity"
    private static let pushwooshUpdate: StaticString = "/json/1.3/updateLiveActivity"
    private static let buzzkitSend: StaticString = "/v1/live-activities/send"
    private static let apiV1Prefix: StaticString = "/api/v1/"

    /// A path segment as text, percent-decoded when it holds a `%` (nil when that does not decode).
    private static func decode(_ segment: UnsafeBufferPointer<UInt8>) -> String? {
        if PathByteSearch.firstIndex(of: UInt8(ascii: "%"), in: segment) == nil {
            // A short ASCII segment (an app id) as a small string's words (branch `spans`).
            return SmallASCIIString.string(ifASCII: segment) ?? String(decoding: segment, as: UTF8.self)
        }
        return PathEncoding.decodeSegment(Substring(String(decoding: segment, as: UTF8.self)))
    }
}
