extension Array where Element == Finding {
    /// The room a translation's findings array is given at once by ``appendGrowingOnce(_:)``:
    /// a OneSignal start at a segment has two findings, a Pushwoosh notification about six.
    /// Eight findings are 320 bytes of storage (a `Finding` is 40), one block instead of the
    /// blocks for one, two and four (and eight) that appending one at a time asks for.
    static var firstRoom: Int { 8 }

    /// Appends a finding, first making room for ``firstRoom`` when the array has less: the
    /// translation's common findings (the segment caveat, the fan-out caveat) then cost one
    /// allocation between them instead of one each (issue 31, branch `translate8`).
    mutating func appendGrowingOnce(_ finding: Finding) {
        if capacity < Self.firstRoom { reserveCapacity(Self.firstRoom) }
        append(finding)
    }
}
