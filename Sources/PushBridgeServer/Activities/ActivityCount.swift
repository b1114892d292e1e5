/// How many activities one app has in flight on one holder, and until when the last of them
/// can still be reached: what a mode change logs, the in-flight gauge and readiness read.
public struct ActivityCount: Sendable, Equatable {
    /// The configured app's name.
    public var app: String
    /// Which provider(s) hold them.
    public var holder: ActivityHolder
    /// Activities in flight (not ended, within their lifetime).
    public var count: Int
    /// Until when the latest-started of them can still be updated or ended, Unix milliseconds
    /// (its ``ActivityRecord/reachableUntil``).
    public var lastReachableUntil: Int64
    /// True for activities the ledger's cap (`limits.max_activities`) forgot while they could
    /// still be in flight (``ForgottenActivities``): where they live is not known, so they
    /// count as held by both sides until ``lastReachableUntil``.
    public var forgotten: Bool

    /// A count; every field as documented on its property.
    public init(app: String, holder: ActivityHolder, count: Int, lastReachableUntil: Int64, forgotten: Bool = false) {
        self.forgotten = forgotten
        self.app = app
        self.holder = holder
        self.count = count
        self.lastReachableUntil = lastReachableUntil
    }
}
