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
    /// The OpenPush app it lives in: with ``activityId`` the record's key, as OpenPush keys an
    /// activity. Nil for a row written before the ledger was keyed so (SQLite audit migration
    /// 10, PostgreSQL 7), which is read under its source app alone.
    public var openPushApp: String?
    /// How its start stands: in flight while a provider has it, then accepted or refused.
    /// ``holder`` is where it was sent while in flight, where it lives once accepted.
    public var startState: ActivityStartState

    /// A record; every field as documented on its property.
    public init(app: String, activityId: String, dialect: DialectName, holder: ActivityHolder, startedAt: Int64, lastUpdateAt: Int64? = nil,
                endedAt: Int64? = nil, cohortKey: String? = nil, requestId: String, openPushApp: String? = nil,
                startState: ActivityStartState = .accepted) {
        self.openPushApp = openPushApp
        self.startState = startState
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

    /// Whether it still places its activity's events at `now`: in flight and its start not refused.
    public func isLive(now: Int64) -> Bool { isInFlight(now: now) && startState != .refused }
}

/// How an activity's start stands in its record.
public enum ActivityStartState: String, Sendable, CaseIterable, Codable {
    /// Written with the start's audit row before it was forwarded; its outcome is not known yet.
    case inFlight = "in_flight"
    /// A provider accepted it: the record's holder has the activity.
    case accepted
    /// No provider accepted it: the record places nothing (a new start of the id places afresh).
    case refused
}

/// A change to the ledger that a request's audit row carries (its begin or its completion),
/// so that it is written in the same durable commit as the row (no second fsync per request).
/// `openPushApp` nil names a record written before the ledger was keyed by OpenPush app.
public enum ActivityLedgerChange: Sendable, Equatable {
    /// A provider accepted the start of this activity (or refused it: the record's
    /// ``ActivityRecord/startState``). Replaces the record this request began, or one that
    /// places nothing any more (refused, ended, past its lifetime); never another live one.
    case started(ActivityRecord)
    /// A start about to be forwarded: its record, ``ActivityStartState/inFlight``, written
    /// with the begun row. Same replacement rule as ``started(_:)``.
    case starting(ActivityRecord)
    /// An update of an activity the ledger did not hold was accepted by a side: the record is
    /// learned there, inserted only where no record of the key exists (a start's placement is
    /// never overwritten by a fallback's answer).
    case learned(ActivityRecord)
    /// An update reached the activity's holder at `at` (Unix ms).
    case updated(app: String, activityId: String, at: Int64, openPushApp: String? = nil)
    /// An end reached the activity's holder at `at` (Unix ms).
    case ended(app: String, activityId: String, at: Int64, openPushApp: String? = nil)
}
