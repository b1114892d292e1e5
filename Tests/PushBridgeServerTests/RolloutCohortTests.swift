import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// The rollout's cohort placement: sticky per key, the hash deciding, never chance.
struct RolloutCohortTests {
    static func start(aliases: [String: [String]] = [:], subscriptions: [String]? = nil, segments: [String]? = nil) -> Translation {
        var s = OpenPushStart(appId: "app_1", activityType: "DeliveryAttributes")
        s.activityId = "a_1"
        if !aliases.isEmpty { s.includeAliases = JSONObject(members: aliases.sorted { $0.key < $1.key }.map { JSONMember($0.key, .array($0.value.map(JSONValue.string))) }) }
        s.includeSubscriptionIds = subscriptions
        s.includedSegments = segments
        return Translation(dialect: .onesignal, route: .start, requests: [OpenPushRequest(.start(s))])
    }

    @Test func percentFiftySplitsAThousandUsersRoughlyInHalfTheSameWayEveryTime() {
        let settings = RolloutSettings(percent: 50)
        let sides = (0..<1000).map { RolloutCohort.place(app: "shop", translation: Self.start(aliases: ["external_id": ["user_\($0)"]]), settings: settings).side }
        let onOpenPush = sides.filter { $0 == .openpush }.count
        #expect((450...550).contains(onOpenPush), "\(onOpenPush) of 1000 on OpenPush")
        #expect(sides.allSatisfy { $0 == .openpush || $0 == .legacy })
        let again = (0..<1000).map { RolloutCohort.place(app: "shop", translation: Self.start(aliases: ["external_id": ["user_\($0)"]]), settings: settings).side }
        #expect(again == sides)
    }

    @Test func theBucketIsTheFirstEightBytesOfTheSHA256OfAppNulKeyModOneHundred() {
        let digest = Fingerprint.sha256(bytes: Array("shop".utf8) + [0] + Array("alias:external_id:alice".utf8))
        let expected = Int(digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 100)
        let placed = RolloutCohort.place(app: "shop", translation: Self.start(aliases: ["external_id": ["alice"]]), settings: RolloutSettings(percent: expected + 1))
        #expect(placed == RolloutPlacement(side: .openpush, cohortKey: Fingerprint.short(digest: digest), reason: .cohort(bucket: expected)))
        let below = RolloutCohort.place(app: "shop", translation: Self.start(aliases: ["external_id": ["alice"]]), settings: RolloutSettings(percent: expected))
        #expect(below.side == .legacy)
        #expect(placed.cohortKey?.hasPrefix("sha256:") == true && placed.cohortKey?.contains("alice") == false)
    }

    @Test func percentZeroAndOneHundredPlaceEveryKeyOnOneSide() {
        for user in (0..<200).map({ "u\($0)" }) {
            #expect(RolloutCohort.place(app: "a", translation: Self.start(aliases: ["external_id": [user]]), settings: RolloutSettings(percent: 0)).side == .legacy)
            #expect(RolloutCohort.place(app: "a", translation: Self.start(aliases: ["external_id": [user]]), settings: RolloutSettings(percent: 100)).side == .openpush)
        }
    }

    @Test func severalTargetsArePlacedByTheFirstKeyInSortedOrder() {
        let settings = RolloutSettings(percent: 50)
        let ab = RolloutCohort.place(app: "a", translation: Self.start(aliases: ["external_id": ["zed", "amy"]]), settings: settings)
        let ba = RolloutCohort.place(app: "a", translation: Self.start(aliases: ["external_id": ["amy", "zed"]]), settings: settings)
        let amy = RolloutCohort.place(app: "a", translation: Self.start(aliases: ["external_id": ["amy"]]), settings: settings)
        #expect(ab == ba && ab == amy)
    }

    @Test func theCohortKeyKindDecidesWhatIsSplittableAndSegmentStartsPlacesTheRest() {
        let devices = Self.start(subscriptions: ["sub_1"]), users = Self.start(aliases: ["external_id": ["u1"]]), segment = Self.start(segments: ["seg_all"])
        let user = RolloutSettings(percent: 100, cohortKey: .user, segmentStarts: .both), device = RolloutSettings(percent: 100, cohortKey: .device)
        #expect(RolloutCohort.place(app: "a", translation: devices, settings: user) == RolloutPlacement(side: .both, cohortKey: nil, reason: .unsplittable))
        #expect(RolloutCohort.place(app: "a", translation: users, settings: user).side == .openpush)
        #expect(RolloutCohort.place(app: "a", translation: devices, settings: device).side == .openpush)
        #expect(RolloutCohort.place(app: "a", translation: users, settings: device).reason == .unsplittable)
        #expect(RolloutCohort.place(app: "a", translation: users, settings: device).side == .legacy)
        #expect(RolloutCohort.place(app: "a", translation: segment, settings: RolloutSettings(percent: 100)).side == .legacy)
        #expect(RolloutCohort.place(app: "a", translation: segment, settings: RolloutSettings(percent: 0, segmentStarts: .openpush)).side == .openpush)
        // Pushwoosh devices sent under the app's device alias label are devices, not users.
        let aliased = Self.start(aliases: ["hwid": ["d1"]])
        #expect(RolloutCohort.place(app: "a", translation: aliased, settings: user, deviceAlias: "hwid").reason == .unsplittable)
        #expect(RolloutCohort.place(app: "a", translation: aliased, settings: device, deviceAlias: "hwid").side == .openpush)
        #expect(RolloutCohort.place(app: "a", translation: users, settings: RolloutSettings(percent: 100), rolledBack: true) == RolloutPlacement(side: .legacy, cohortKey: nil, reason: .rolledBack))
    }
}
