import PushBridgeCore

/// The event rules of a Live Activity, as one pure decision table over its record: a start
/// places, an update never moves, an end closes. ``Router`` reads ``decide(_:event:app:now:waited:)``
/// to place each activity of a request, and ``LedgerMode`` reads ``effect(of:event:accepted:)``
/// for what the request's answer makes of the record. Nothing else decides what a record means.
///
/// | record (for `app`, at `now`)                          | start                | update / end            |
/// |-------------------------------------------------------|----------------------|-------------------------|
/// | none, refused, or past its lifetime                   | new placement        | new placement (unknown) |
/// | another source app's, live (in flight or accepted)    | refuse cross-tenant  | refuse cross-tenant     |
/// | another source app's, ended                           | new placement        | refuse cross-tenant     |
/// | this app's, start in flight (fresh, not yet waited)   | wait for start       | wait for start          |
/// | this app's, start in flight, waited or stale          | on holder (sent to)  | on holder (sent to)     |
/// | this app's, accepted, not ended                       | on holder            | on holder               |
/// | this app's, ended                                     | new placement        | on holder               |
///
/// | decision              | start          | update                  | end                      |
/// |-----------------------|----------------|-------------------------|--------------------------|
/// | new placement         | place          | learn (if accepted)     | nothing                  |
/// | on holder             | nothing        | update (if accepted)    | end (if accepted)        |
/// | refuse / wait         | nothing        | nothing                 | nothing                  |
enum ActivityRules {
    /// What a request does to an activity.
    enum Event: String, Sendable, Equatable, CaseIterable {
        /// A start (OpenPush's `POST …/activities/activity/{type}` or a dialect's start).
        case start
        /// An update.
        case update
        /// An end.
        case end
    }

    /// Where one activity's event goes.
    enum Decision: Sendable, Equatable {
        /// No record places it: the mode places a start; an update or end is of an activity
        /// never seen (the mode's first side, with the other as fallback).
        case newPlacement
        /// It goes where the activity lives (for a start still in flight: where it was sent),
        /// whatever the mode or percent is now.
        case onHolder(ActivityHolder)
        /// The record belongs to another source app of the same OpenPush app: refused in the
        /// caller's dialect, audited, sent nowhere.
        case refuseCrossTenant(owner: String)
        /// Its start is in flight: wait (bounded) for the start's outcome, then decide again.
        case waitForStart
    }

    /// What the answer makes of the record.
    enum Effect: Sendable, Equatable {
        /// The record stays as it is.
        case none
        /// A start's new placement: in flight from its begun row, then accepted on the side(s)
        /// that accepted it, or refused.
        case place
        /// An update of an activity no record held, accepted by a side: learned there, only
        /// where no record of the key exists (never over a start's placement).
        case learn
        /// The holder's last update moves.
        case update
        /// The activity is closed.
        case end
    }

    /// A start in flight for longer than this is not waited for (its process is likely gone):
    /// it is followed where it was sent. 60 seconds, longer than any request's budget.
    static let staleInFlightMs: Int64 = 60_000

    /// The decision for `event` of `app` on the activity whose record is `record` (nil: none)
    /// at `now`; `waited` once the bounded wait for its start's outcome is over.
    static func decide(_ record: ActivityRecord?, event: Event, app: String, now: Int64, waited: Bool) -> Decision {
        guard let record, record.startState != .refused, now < record.reachableUntil else { return .newPlacement }
        if record.app != app {
            return event == .start && record.endedAt != nil ? .newPlacement : .refuseCrossTenant(owner: record.app)
        }
        if record.startState == .inFlight {
            let stale = now - record.startedAt > staleInFlightMs
            return waited || stale ? .onHolder(record.holder) : .waitForStart
        }
        return event == .start && record.endedAt != nil ? .newPlacement : .onHolder(record.holder)
    }

    /// What the answer does to the record: `decision` for `event`, `accepted` when a side
    /// accepted the activity's event.
    static func effect(of decision: Decision, event: Event, accepted: Bool) -> Effect {
        switch (decision, event) {
        case (.newPlacement, .start): .place
        case (.newPlacement, .update): accepted ? .learn : .none
        case (.onHolder, .update): accepted ? .update : .none
        case (.onHolder, .end): accepted ? .end : .none
        case (.newPlacement, .end), (.onHolder, .start), (.refuseCrossTenant, _), (.waitForStart, _): .none
        }
    }

    /// The event of one translated request: its start, or its update's `event` (`end` or an update).
    static func event(of request: OpenPushRequest) -> Event {
        if case .start = request.payload { return .start }
        return request.event == "end" ? .end : .update
    }
}
