import Testing
@testable import PushBridgeServer

/// Issue 29 items 10 and 11 together: the reach warning for a move to `openpush` judges the
/// stage the app leaves (readiness's own default, the current stage, is empty right after the
/// move), and says so.
struct OpenPushReachWindowTests {
    /// A change of `app` at `at` into `mode` (with `percent`).
    private func change(_ at: Int64, _ mode: MigrationMode, percent: Int? = nil, app: String = "rides", kind: StageChange.Kind = .mode) -> StageChange {
        StageChange(at: at, app: app, kind: kind, stage: AppStage(mode: mode, percent: percent, legacy: true), previous: nil, detail: "", instance: "edge-1", fingerprint: nil)
    }

    @Test func anAppThatJustMovedToOpenPushIsJudgedOverTheRolloutItLeftNotItsEmptyNewStage() {
        let changes = [change(1_000, .observe, kind: .startUp), change(2_000, .rollout, percent: 50), change(3_000, .rollout, percent: 100),
                       change(3_500, .shadow, app: "other"), change(5_000, .openpush)]
        let window = OpenPushReachWindow.leaving("rides", changes: changes)
        #expect(window.since == 3_000 && window.until == 5_000 && window.began?.stage?.percent == 100)
        #expect(window.filter(app: "rides") == ReportFilter(since: 3_000, until: 5_000, app: "rides"))
        #expect(window.description.hasPrefix("in the stage it leaves, \(changes[2].stageText) (since ") && window.description.contains("until "))
    }

    @Test func anAppStillInItsRolloutIsJudgedOverItToNow() {
        let window = OpenPushReachWindow.leaving("rides", changes: [change(1_000, .shadow, kind: .startUp), change(2_000, .rollout, percent: 100)])
        #expect(window.since == 2_000 && window.until == nil && window.description.hasSuffix(", to now)"))
    }

    @Test func anAppWithNoEarlierStageIsJudgedOverTheWholeAudit() {
        let window = OpenPushReachWindow.leaving("rides", changes: [change(1_000, .openpush, kind: .startUp), change(2_000, .rollout, app: "other")])
        #expect(window.since == nil && window.until == nil && window.filter(app: "rides").since == 0)
        #expect(window.description == "over the whole audit (no earlier stage recorded for it)")
    }
}
