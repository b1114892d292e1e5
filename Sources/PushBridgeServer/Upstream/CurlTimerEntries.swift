/// curl's timer (`CURLMOPT_TIMERFUNCTION`) as entries on a loop's timer heap, moved as little
/// as it exactly can be: an entry due at or before the time curl wants is kept (when it fires
/// early, its multi arms one at the time wanted then), and only a time earlier than every entry
/// held adds one. curl moves its timer with every call it starts (to "now") and ends (to the
/// next transfer's timeout); cancelling and adding an entry each time was two heap changes
/// under the timers' mutex and a cancelled entry popped later, three or so per call.
///
/// At most two entries are held (an entry for "now" in front of one for a timeout); a third,
/// earlier one pushes the latest out, to be cancelled. A value confined to its multi's thread.
struct CurlTimerEntries {
    /// An entry on the heap: its id (to cancel it) and due time.
    typealias Entry = (id: UInt64, due: ContinuousClock.Instant)

    /// When curl wants its timeouts run, nil when it wants no timer.
    var wanted: ContinuousClock.Instant?
    /// The earliest entry held.
    private(set) var earliest: Entry?
    /// The other entry, due no earlier.
    private(set) var later: Entry?

    /// Whether an entry fires at or before `due`, so none needs adding for it.
    func covers(_ due: ContinuousClock.Instant) -> Bool {
        guard let earliest else { return false }
        return earliest.due <= due
    }

    /// Holds `entry`, earlier than those held (``covers(_:)`` was false); returns the id of
    /// the one it pushes out, for the caller to cancel.
    mutating func hold(_ entry: Entry) -> UInt64? {
        let pushedOut = later?.id
        later = earliest
        earliest = entry
        return pushedOut
    }

    /// An entry fired at `now`: forgets every entry due by then (the one that fired is one;
    /// another, if also due, fires next or was taken with it, and then stands for nothing).
    mutating func dropDue(_ now: ContinuousClock.Instant) {
        if let entry = later, entry.due <= now { later = nil }
        if let entry = earliest, entry.due <= now { earliest = later; later = nil }
    }

    /// Forgets every entry; returns their ids, for the caller to cancel.
    mutating func dropAll() -> (UInt64?, UInt64?) {
        defer { earliest = nil; later = nil; wanted = nil }
        return (earliest?.id, later?.id)
    }
}
