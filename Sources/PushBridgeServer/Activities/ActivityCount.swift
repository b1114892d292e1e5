/// How many activities one provider side of an app holds in flight, and until when the last
/// of them can still be reached: a row of ``ActivityLedger``'s in-flight counts.
public struct ActivityCount: Sendable, Equatable {
    /// The configured app's name.
    public var app: String
    /// The side holding them (an activity held by both sides is counted under ``ActivityHolder/both``).
    public var holder: ActivityHolder
    /// Activities in flight (not ended, not past their lifetime).
    public var count: Int
    /// The latest ``ActivityRecord/reachableUntil`` among them, Unix milliseconds.
    public var lastReachableUntil: Int64

    /// A count.
    public init(app: String, holder: ActivityHolder, count: Int, lastReachableUntil: Int64) {
        self.app = app
        self.holder = holder
        self.count = count
        self.lastReachableUntil = lastReachableUntil
    }
}
