import Testing
@testable import PushBridgeCore

/// `InboundRoute.match` scans the path's bytes once (issue 31 item 1) instead of copying them
/// into an array and splitting it into segments. It must match exactly the paths the split did,
/// with the same parameters: checked against the split-based match (``splitMatch``, the old
/// code kept here as the oracle) over paths made of route words, slashes, percent escapes,
/// queries and trailing slashes.
struct InboundRouteMatchTests {
    /// The match before issue 31: the path's bytes copied, split at `/` into at most seven parts.
    static func splitMatch(_ rawPath: String) -> InboundRoute? {
        var bytes = Array(rawPath.utf8)
        if let q = bytes.firstIndex(of: UInt8(ascii: "?")) { bytes.removeSubrange(q...) }
        if bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        switch bytes {
        case Array("/json/1.3/startLiveActivity".utf8): return InboundRoute(dialect: .pushwoosh, kind: .start)
        case Array("/json/1.3/updateLiveActivity".utf8): return InboundRoute(dialect: .pushwoosh, kind: .update)
        case Array("/v1/live-activities/send".utf8): return InboundRoute(dialect: .buzzkit, kind: .send)
        default: break
        }
        let prefix = Array("/api/v1/".utf8)
        var body = bytes[...]
        if body.starts(with: prefix) { body = body.dropFirst(prefix.count - 1) }
        let parts = body.split(separator: UInt8(ascii: "/"), maxSplits: 6, omittingEmptySubsequences: false)
        func decode(_ s: ArraySlice<UInt8>) -> String? {
            if !s.contains(UInt8(ascii: "%")) { return String(decoding: s, as: UTF8.self) }
            return PathEncoding.decodeSegment(Substring(String(decoding: s, as: UTF8.self)))
        }
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

    /// Pieces whose concatenations make the generated paths.
    static let pieces = ["/", "/", "/", "apps", "app_3f9c2b", "activities", "activity", "live_activities", "notifications",
                         "api", "v1", "/api/v1", "json", "1.3", "startLiveActivity", "live-activities", "send", "a%2Fb",
                         "%zz", "%C3%A9", "é", "?", "?x=/a/b", "", "Delivery", "/apps/A/activities/activity/T"]

    /// Every route's own paths (with a query, a trailing slash, the `/api/v1` prefix), then
    /// `count` deterministic concatenations of 1 to 12 pieces.
    static func paths(count: Int) -> [String] {
        var out = ["/json/1.3/startLiveActivity", "/json/1.3/updateLiveActivity/", "/v1/live-activities/send?x=1",
                   "/apps/A/activities/activity/T", "/api/v1/apps/A/live_activities/a%2Fb/notifications/",
                   "/apps/A/live_activities/a/notifications?z", "/apps//activities/activity/T", "/", "", "?", "//"]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        for _ in 0..<count {
            out.append((0...next(12)).map { _ in pieces[next(pieces.count)] }.joined())
        }
        return out
    }

    @Test func theByteScanMatchesWhatTheSplitMatched() {
        let paths = Self.paths(count: 40_000)
        var matched = 0
        for path in paths {
            let expected = Self.splitMatch(path)
            #expect(InboundRoute.match(path: path) == expected, "\(path)")
            if expected != nil { matched += 1 }
        }
        // The generated paths reach both OneSignal routes and the fixed ones, not only nil.
        #expect(matched >= 6, "only \(matched) of \(paths.count) paths matched a route")
    }
}
