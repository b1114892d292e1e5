import Synchronization

/// Bounds the warning lines translation findings make: at most ``maxLinesPerRequest`` per
/// request (the rest are summed up in one "and N more" line), and at most
/// ``identicalLinesPerWindow`` identical lines (same app, dialect, route, field, kind and
/// reason) per app in each window of ``windowMilliseconds``; the lines held back are counted.
/// Every finding is still in the audit and in `pushbridge_findings_total`.
public final class FindingLogLimiter: Sendable {
    /// Finding lines one request may write.
    public let maxLinesPerRequest: Int
    /// Identical lines one app may write per window.
    public let identicalLinesPerWindow: Int
    /// The window, milliseconds.
    public let windowMilliseconds: Int64
    /// Distinct lines remembered at once; past it the oldest window's entries are forgotten.
    static let maxRemembered = 10_000

    private struct Seen: Sendable {
        /// When this line's window began (its first line), milliseconds.
        var since: Int64
        var count: Int
    }
    private let seen = Mutex<[String: Seen]>([:])

    /// A limiter; the defaults are 20 lines per request and 100 identical lines per app a minute.
    public init(maxLinesPerRequest: Int = 20, identicalLinesPerWindow: Int = 100, windowMilliseconds: Int64 = 60_000) {
        self.maxLinesPerRequest = max(1, maxLinesPerRequest)
        self.identicalLinesPerWindow = max(1, identicalLinesPerWindow)
        self.windowMilliseconds = max(1, windowMilliseconds)
    }

    /// Whether the line identified by `key` may be written for `app` at `nowMs`. A line's window
    /// begins with its first occurrence.
    public func admit(app: String, key: String, nowMs: Int64) -> Bool {
        let id = app + "\u{1F}" + key
        return seen.withLock { seen in
            if seen.count >= Self.maxRemembered { seen = seen.filter { nowMs - $0.value.since < windowMilliseconds } }
            if seen.count >= Self.maxRemembered { seen.removeAll() }
            // One hash look-up: the entry is counted in place.
            return Self.count(&seen[id, default: Seen(since: nowMs, count: 0)], nowMs: nowMs, window: windowMilliseconds) <= identicalLinesPerWindow
        }
    }

    /// Counts one more line in `entry`, whose window restarts at `nowMs` once over; the count.
    private static func count(_ entry: inout Seen, nowMs: Int64, window: Int64) -> Int {
        if nowMs - entry.since >= window { entry = Seen(since: nowMs, count: 0) }
        entry.count += 1
        return entry.count
    }
}
