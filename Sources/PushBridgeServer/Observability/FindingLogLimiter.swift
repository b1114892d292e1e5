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

    /// A line's window, counted in place: an object, so that a line seen before is found (hashed
    /// and compared) once, not looked up again to write its count back (issue 31).
    private final class Seen {
        /// When this line's window began (its first line), milliseconds.
        var since: Int64
        var count = 0

        init(since: Int64) { self.since = since }
    }
    private let seen = Mutex<[Line: Seen]>([:])

    /// What makes two finding lines identical: the app, dialect, route, field, kind and
    /// reason. The caller's strings as they are, not joined into one key: nothing is
    /// allocated to look a line up.
    public struct Line: Hashable, Sendable {
        /// The app the request was for.
        public var app: String
        /// The caller's dialect (`onesignal`, `pushwoosh`, `buzzkit`).
        public var dialect: String
        /// The route the request took.
        public var route: String
        /// The field path the finding is about.
        public var field: String
        /// The finding's kind (``FindingKind``: `dropped`, `renamed`, …).
        public var kind: String
        /// The finding's sentence.
        public var reason: String

        /// A line's identity.
        public init(app: String, dialect: String, route: String, field: String, kind: String, reason: String) {
            (self.app, self.dialect, self.route, self.field, self.kind, self.reason) = (app, dialect, route, field, kind, reason)
        }
    }

    /// A limiter; the defaults are 20 lines per request and 100 identical lines per app a minute.
    public init(maxLinesPerRequest: Int = 20, identicalLinesPerWindow: Int = 100, windowMilliseconds: Int64 = 60_000) {
        self.maxLinesPerRequest = max(1, maxLinesPerRequest)
        self.identicalLinesPerWindow = max(1, identicalLinesPerWindow)
        self.windowMilliseconds = max(1, windowMilliseconds)
    }

    /// Whether `line` may be written at `nowMs`. A line's window begins with its first occurrence.
    public func admit(_ line: Line, nowMs: Int64) -> Bool {
        seen.withLock { seen in
            if seen.count >= Self.maxRemembered { seen = seen.filter { nowMs - $0.value.since < windowMilliseconds } }
            if seen.count >= Self.maxRemembered { seen.removeAll() }
            // Looked up once and counted in its object: not through `seen[line, default:]`
            // (that accessor's coroutine frame is allocated on the heap at every call), nor read
            // and written back (a second hash of the line's six strings and a second compare).
            let entry: Seen
            if let known = seen[line] {
                entry = known
            } else {
                entry = Seen(since: nowMs)
                seen[line] = entry
            }
            return Self.count(entry, nowMs: nowMs, window: windowMilliseconds) <= identicalLinesPerWindow
        }
    }

    /// Counts one more line in `entry`, whose window restarts at `nowMs` once over; the count.
    private static func count(_ entry: Seen, nowMs: Int64, window: Int64) -> Int {
        if nowMs - entry.since >= window { (entry.since, entry.count) = (nowMs, 0) }
        entry.count += 1
        return entry.count
    }
}
