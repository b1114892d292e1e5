/// The window ``OpenPushReachWarning`` judges an app's reach over: the stage it is leaving for
/// `openpush`, the one whose traffic says whether the move is safe. That is its newest stage
/// before `openpush` in the stage history (a rollout, a shadow), from the change that began it
/// to the change that left it, or to the last row while the app is still in it (`check-config`
/// before the reload). An app whose history has no such stage (no change recorded, or only
/// ever in `openpush`) is judged over the whole audit.
///
/// Readiness's own default, since the current stage began, does not fit here: for an app that
/// has just moved to `openpush` that window is empty.
struct OpenPushReachWindow: Equatable {
    /// Received at or after, Unix ms; nil from the first row.
    var since: Int64?
    /// Received before, Unix ms (when the app left the stage); nil to the last row.
    var until: Int64?
    /// The change that began the stage being left; nil for the whole audit.
    var began: StageChange?

    /// The window for `app` in `changes` (the stage history, oldest first; other apps' changes are ignored).
    static func leaving(_ app: String, changes: [StageChange]) -> OpenPushReachWindow {
        let own = changes.filter { $0.app == app }
        guard let last = own.lastIndex(where: { $0.stage.map { $0.startMode != .openpush } ?? false }),
              let run = StageRun.current(Array(own[...last]))[app] else { return OpenPushReachWindow() }
        return OpenPushReachWindow(since: run.began.at, until: last + 1 < own.count ? own[last + 1].at : nil, began: run.began)
    }

    /// The readiness filter for `app` over this window. Its `since` is always set (0 for the
    /// whole audit), so readiness judges this window and not its own default.
    func filter(app: String) -> ReportFilter {
        ReportFilter(since: since ?? 0, until: until, app: app)
    }

    /// The window in words, for the warning: `in its stage rollout 100% (since …, until …)`,
    /// `over the whole audit (no earlier stage recorded for it)`.
    var description: String {
        guard let began else { return "over the whole audit (no earlier stage recorded for it)" }
        let since = RFC3339.format(milliseconds: began.at)
        let until = self.until.map { ", until \(RFC3339.format(milliseconds: $0)) when it left it" } ?? ", to now"
        return "in the stage it leaves, \(began.stageText) (since \(since)\(until))"
    }
}
