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

    /// A count; every field as documented on its property.
    public init(app: String, holder: ActivityHolder, count: Int, lastReachableUntil: Int64) {
        self.app = app
        self.holder = holder
        self.count = count
        self.lastReachableUntil = lastReachableUntil
    }
}
