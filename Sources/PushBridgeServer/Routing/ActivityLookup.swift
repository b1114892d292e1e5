import PushBridgeCore

/// What routing reads of the activity ledger: where one activity lives. The ledger's store
/// (``AuditStore/activities``) is one; a read that throws is said to the caller (503, nothing
/// sent), never guessed.
protocol ActivityLookup: Sendable {
    /// The activity's record, keyed as OpenPush keys it (whichever source app it belongs to),
    /// or else the one `app` wrote before the ledger was keyed so; nil when the ledger has
    /// never seen it or it is past its lifetime.
    func record(openPushApp: String, app: String, activityId: String, now: Int64) async throws -> ActivityRecord?
}

/// The ledger's store is what routing reads.
extension ActivityLedger: ActivityLookup {}
