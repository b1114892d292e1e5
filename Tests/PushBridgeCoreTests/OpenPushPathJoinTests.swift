import Testing
@testable import PushBridgeCore

/// The OpenPush path and URL are written in one string (issue 31's sixth allocation pass): the
/// same text the interpolation and `base + path` made, for ids that need no encoding, ids that
/// do, dot segments, empty and non-ASCII ones.
struct OpenPushPathJoinTests {
    static let values = ["app-1", "Delivery_Attributes", "", ".", "..", "a b/c?d#e", "Åpp-ø", "very-long-activity-identifier-0123456789abcdef", "%41~x"]

    @Test(arguments: values)
    func theStartAndUpdatePathsAreTheInterpolatedOnes(_ value: String) {
        let other = "T-2"
        #expect(OpenPushPath.start(appId: value, activityType: other)
                    == "/apps/\(OpenPushPath.segment(value))/activities/activity/\(OpenPushPath.segment(other))")
        #expect(OpenPushPath.start(appId: other, activityType: value)
                    == "/apps/\(OpenPushPath.segment(other))/activities/activity/\(OpenPushPath.segment(value))")
        #expect(OpenPushPath.update(appId: value, activityId: value)
                    == "/apps/\(OpenPushPath.segment(value))/live_activities/\(OpenPushPath.segment(value))/notifications")
    }

    @Test(arguments: ["http://127.0.0.1:8080", "https://openpush.example/v1", ""])
    func aRequestsURLIsTheBaseFollowedByItsPath(_ base: String) {
        for value in Self.values {
            let start = OpenPushRequest(.start(OpenPushStart(appId: value, activityType: "T")))
            let update = OpenPushRequest(.update(OpenPushUpdate(appId: "app", activityId: value)))
            #expect(start.url(on: base) == base + start.path)
            #expect(update.url(on: base) == base + update.path)
        }
    }
}
