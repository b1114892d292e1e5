import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// ``RolloutWhere``, pure: every reason a user's new start goes where it goes, each the answer
/// ``RolloutCohort`` gives the router for a start to that user.
struct RolloutWhereTests {
    static func app(_ mode: MigrationMode, rollout: RolloutSettings? = nil, dialect: DialectName = .onesignal, shadow: ShadowSettings? = nil) -> AppConfiguration {
        AppConfiguration(name: "rides", dialect: dialect, sourceAppId: "src", openPushAppId: "op", openPushKey: Secret("k"), mode: mode, shadow: shadow, rollout: rollout)
    }

    /// Two users, one on each side of 50%, so the test tells the sides apart.
    static let users: (below: String, above: String) = {
        let all = (0..<200).map { "u\($0)" }
        let bucket = { (user: String) in RolloutCohort.bucket(app: "rides", key: "alias:external_id:\(user)").bucket }
        return (all.first { bucket($0) < 50 } ?? "none", all.first { bucket($0) >= 50 } ?? "none")
    }()

    @Test func aRolloutSplitsByBucketAndSaysTheFallback() {
        let below = RolloutWhere.answer(app: Self.app(.rollout, rollout: RolloutSettings(percent: 50)), user: Self.users.below, rollback: nil)
        let above = RolloutWhere.answer(app: Self.app(.rollout, rollout: RolloutSettings(percent: 50, fallbackToLegacy: false)), user: Self.users.above, rollback: nil)
        #expect(below.side == .openpush && (below.bucket ?? 100) < 50 && below.why.hasPrefix("rollout 50%: bucket ") && below.fallback?.hasPrefix("fallback_to_legacy is on") == true, "\(below)")
        #expect(above.side == .legacy && (above.bucket ?? -1) >= 50 && above.fallback == nil, "\(above)")
        #expect(below.fingerprint == Fingerprint.short(digest: RolloutCohort.bucket(app: "rides", key: "alias:external_id:\(Self.users.below)").digest))
    }

    @Test func aRolledBackRolloutSendsEveryoneToLegacyAndSaysWhereTheBucketWouldGo() {
        let rollback = RolloutRollback(app: "rides", at: 1_767_225_600_000, threshold: "max_rate_limited_rate", evidence: "e")
        let answer = RolloutWhere.answer(app: Self.app(.rollout, rollout: RolloutSettings(percent: 50)), user: Self.users.below, rollback: rollback)
        #expect(answer.side == .legacy && answer.fallback == nil)
        #expect(answer.why.hasPrefix("rolled back at 2026-01-01T00:00:00.000Z (max_rate_limited_rate)") && answer.why.hasSuffix("would go to OpenPush"), "\(answer.why)")
    }

    @Test func aCohortKeyThatDoesNotSplitOnUsersFollowsSegmentStarts() {
        let answer = RolloutWhere.answer(app: Self.app(.rollout, rollout: RolloutSettings(percent: 50, cohortKey: .device, segmentStarts: .openpush)),
                                         user: Self.users.above, rollback: nil)
        #expect(answer.side == .openpush && answer.bucket == nil && answer.why.contains("segment_starts (openpush)"), "\(answer)")
    }

    @Test func theOtherStagesSayTheirOneSide() {
        var shadow = ShadowSettings()
        shadow.primary = .openpush
        let cases: [(AppConfiguration, ActivityHolder, String)] = [
            (Self.app(.observe), .legacy, "mode observe"), (Self.app(.shadow, shadow: shadow), .openpush, "mode shadow"),
            (Self.app(.openpush), .openpush, "mode openpush"), (Self.app(.shadow, dialect: .buzzkit), .legacy, "mode shadow"),
        ]
        for (app, side, why) in cases {
            let answer = RolloutWhere.answer(app: app, user: "alice", rollback: nil)
            #expect(answer.side == side && answer.why.hasPrefix(why) && answer.percent == nil && answer.bucket != nil, "\(answer)")
        }
    }
}
