/// What ``AuditRollupFold``'s upserts are made in, kept between batches so that a batch's
/// statements allocate no arrays of their own once the writer has run a while: the touched
/// counter rows sorted by their text order, and the upserts' value arrays, which the writer
/// hands back (``AuditRollupFold/recycle(_:)``) once the engine has run them. An array still
/// held elsewhere when it is reused is copied by Swift, as a new one would have been made.
struct AuditRollupScratch {
    /// The most value arrays kept for reuse (a batch makes up to five upserts of up to
    /// ``AuditRollupFold/rowsPerStatement`` rows each; more are made and dropped as before).
    static let spareLimit = 8

    /// The touched `rollup_requests` (or hourly) rows with their place in the text order.
    var requestRows: [(AuditRollupFold.RankKey, AuditRollupFold.RequestKey, AuditRollupFold.RequestCounters)] = []
    /// The touched `rollup_findings` (or hourly) rows with their place in the text order.
    var findingRows: [(AuditRollupFold.RankKey, AuditRollupFold.FindingKey, AuditRollupFold.FindingCounters)] = []
    /// The touched `rollup_minute_sends` rows with their place in the text order.
    var sendRows: [(AuditRollupFold.RankKey, AuditRollupFold.SendKey, AuditRollupFold.SendCounters)] = []
    /// Value arrays of earlier upserts, handed back after they ran.
    var spareValues: [[SQLiteValue]] = []

    /// An empty value array with room for `count` values: a spare one when there is one.
    mutating func values(capacity count: Int) -> [SQLiteValue] {
        var values = spareValues.popLast() ?? []
        values.removeAll(keepingCapacity: true)
        values.reserveCapacity(count)
        return values
    }

    /// Keeps `values` (emptied when reused) for a later upsert, unless enough are kept.
    mutating func keep(_ values: consuming [SQLiteValue]) {
        guard spareValues.count < Self.spareLimit else { return }
        spareValues.append(values)
    }
}
