import PushBridgeCore

/// Which provider holds a Live Activity: the one whose SDK registered its update token, so
/// the one every update and end of it must reach.
public enum ActivityHolder: String, Sendable, CaseIterable, Codable {
    /// OpenPush accepted its start.
    case openpush
    /// The app's legacy provider (OneSignal, Pushwoosh or BuzzKit, by dialect) accepted it.
    case legacy
    /// Both accepted it (a segment start sent to both sides during a rollout).
    case both

    /// Whether an update or end of an activity held here goes to OpenPush.
    public var includesOpenPush: Bool { self != .legacy }
    /// Whether an update or end of an activity held here goes to the legacy provider.
    public var includesLegacy: Bool { self != .openpush }
}

/// One Live Activity the ledger knows: where it lives and how long it can still be reached.
public struct ActivityRecord: Sendable, Equatable {
    /// The configured app's name.
    public var app: String
    /// The activity id the caller uses (OneSignal `activity_id`, Pushwoosh `live_activity_id`,
    /// BuzzKit's id).
    public var activityId: String
    /// The dialect its start came in.
    public var dialect: DialectName
    /// Which provider(s) accepted its start.
    public var holder: ActivityHolder
    /// When its start was accepted, Unix milliseconds.
    public var startedAt: Int64
    /// When its last update reached its holder, Unix milliseconds; nil before the first.
    public var lastUpdateAt: Int64?
    /// When its end reached its holder, Unix milliseconds; nil while in flight.
    public var endedAt: Int64?
    /// The cohort key it was placed by (a short SHA-256 fingerprint, never the raw id); nil
    /// for a start that was not placed by cohort (a segment start, a mode without rollout).
    public var cohortKey: String?
    /// The request that started it.
    public var requestId: String

    /// A record; every field as documented on its property.
    public init(app: String, activityId: String, dialect: DialectName, holder: ActivityHolder, startedAt: Int64, lastUpdateAt: Int64? = nil,
                endedAt: Int64? = nil, cohortKey: String? = nil, requestId: String) {
        self.app = app
        self.activityId = activityId
        self.dialect = dialect
        self.holder = holder
        self.startedAt = startedAt
        self.lastUpdateAt = lastUpdateAt
        self.endedAt = endedAt
        self.cohortKey = cohortKey
        self.requestId = requestId
    }

    /// How long after its start nothing can reach an activity any more (OpenPush: 8 hours by
    /// start and update, 4 more by end only): 12 hours. The ledger forgets it then.
    public static let lifetimeMs: Int64 = 12 * 3600 * 1000

    /// Until when an update or end can still reach it, Unix milliseconds.
    public var reachableUntil: Int64 { startedAt + Self.lifetimeMs }

    /// Whether it is still in flight at `now` (not ended, not past its lifetime).
    public func isInFlight(now: Int64) -> Bool { endedAt == nil && now < reachableUntil }
}

/// A change to the ledger that a request's audit completion carries, so that it is written
/// in the same durable commit as the completion (no second fsync per request).
public enum ActivityLedgerChange: Sendable, Equatable {
    /// A provider accepted the start of this activity.
    case started(ActivityRecord)
    /// An update reached the activity's holder at `at` (Unix ms).
    case updated(app: String, activityId: String, at: Int64)
    /// An end reached the activity's holder at `at` (Unix ms).
    case ended(app: String, activityId: String, at: Int64)
}
