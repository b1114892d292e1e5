import PushBridgeCore

/// A capture as `pushbridge replay` reads it: the requests that could be read, in order, and
/// every entry (a HAR `log.entries` element or a JSON line) that could not, each named.
public struct CapturedTraffic: Sendable {
    /// An entry that could not be read: where it is and why.
    public struct Unreadable: Sendable, Equatable, CustomStringConvertible {
        /// Where: `log.entries[3]` (0-based, as in the HAR's JSON) or `line 7` (1-based).
        public var entry: String
        /// Why, in words.
        public var reason: String
        /// `entry: reason`.
        public var description: String { "\(entry): \(reason)" }
    }

    /// The requests that could be read.
    public var requests: [CapturedRequest]
    /// The entries that could not, in file order.
    public var unreadable: [Unreadable]
    /// Every entry the capture holds, read or not.
    public var entries: Int { requests.count + unreadable.count }
}
