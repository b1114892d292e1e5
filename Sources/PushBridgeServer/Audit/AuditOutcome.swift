/// What became of a request, as stored in `requests.outcome`.
public enum AuditOutcome: String, Sendable, CaseIterable, Codable {
    /// Written before the upstream call; not completed yet.
    case pending
    /// Translated but not forwarded (observe mode, dry runs, replay).
    case translated
    /// Refused by PushBridge: bad JSON, a translation error, wrong credentials.
    case rejected
    /// Forwarded; OpenPush answered (any status).
    case forwarded
    /// Forwarded, but no usable answer came back (refused, reset, timed out).
    case failed
    /// Left pending by a process that stopped before completing it; marked at the next start.
    case unknown
    /// Accepted for a later send (a scheduled start).
    case scheduled
    /// A scheduled send that has been sent.
    case sent
    /// A route PushBridge does not translate (its `route` column holds `METHOD /path`).
    case unhandled
    /// A population gap: OpenPush could not reach the audience because the phone is not on
    /// OpenPush yet (its documented 400 "no device has registered a push-to-start token", or
    /// 404 "no live activity with that id is open" for an activity the legacy provider holds).
    /// Not an error: counted apart in `/metrics`, the report and readiness.
    case notOnOpenPush = "not_on_openpush"
    /// A population gap the other way: the legacy provider does not know the activity
    /// (OpenPush holds it). Not an error either.
    case notOnLegacy = "not_on_legacy"

    /// Whether the outcome is a population gap (``notOnOpenPush`` or ``notOnLegacy``).
    public var isPopulationGap: Bool { self == .notOnOpenPush || self == .notOnLegacy }

    /// Whether the row is complete (anything but ``pending``).
    public var isFinal: Bool { self != .pending }
}
