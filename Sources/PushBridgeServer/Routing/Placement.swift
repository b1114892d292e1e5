import PushBridgeCore

/// Where one request goes: the one routing decision, computed by ``decide(_:)`` from the app's
/// mode for the route, the activity ledger and the request, and carried out by the modes
/// (``Modes/mode(for:)`` turns it into the chain the pipeline runs). Nothing else decides a side.
struct Placement: Sendable, Equatable {
    /// What the ledger said about the request's activities.
    enum Ledger: Sendable, Equatable {
        /// Not asked, or nothing held: a start the ledger has no live record of
        /// (``ActivityRules/Decision/newPlacement``), or a request whose activity ids are not
        /// known (its translation was refused).
        case notAsked
        /// Every activity of the request is known (for a start: some activity already lives
        /// somewhere, ``ActivityRules``); where they live.
        case held(ActivityHolder)
        /// At least one activity of the request was never seen (started before PushBridge was in the path, or forgotten).
        case unknown
    }

    /// Why the request goes where it goes.
    enum Basis: Sendable, Equatable {
        /// A start (or a request without known activities), placed by the mode.
        case mode
        /// An update or end of activities the ledger knows, or a start of one it already holds
        /// (sent again): their holder(s), whatever the mode.
        case holder(ActivityHolder)
        /// An update or end of an activity the ledger has never seen: the mode's first side, then ``fallback``.
        case unknownActivity
    }

    /// The app's mode for the route (what new starts follow; a legacy answer's audit message says it).
    var mode: MigrationMode
    /// Why.
    var basis: Basis
    /// The side whose answer the caller gets.
    var primary: Side
    /// The other side, sent in the foreground as well (an activity both sides hold): its attempts
    /// are recorded, its answer is not the caller's.
    var alongside: Side? = nil
    /// Whether the other side gets its version in the background once the caller has the answer (a sampled shadow).
    var shadowed = false
    /// Where the original request goes when ``primary`` answers that it does not know the activity
    /// (in a rollout: that the start's audience has no push-to-start token on OpenPush).
    var fallback: Side? = nil
    /// A rollout's placement of a new start (its cohort key goes into the ledger); nil otherwise.
    var rollout: RolloutPlacement? = nil
    /// The records the router followed (by activity id), so the ledger's changes name the
    /// record's own key and source app.
    var records: [String: ActivityRecord] = [:]

    /// What the decision reads.
    struct Input: Sendable {
        /// The app's mode for the route.
        var mode: MigrationMode
        /// The app's shadow settings.
        var shadow: ShadowSettings?
        /// What the ledger said.
        var ledger: Ledger
        /// Whether `legacy.<dialect>` is configured.
        var legacyConfigured: Bool
        /// Whether the translation can be sent to OpenPush now (no refusal, no schedule).
        var sendable: Bool
        /// This request's shadow draw (``ShadowMode/sampled(_:)``).
        var sampled: Bool
        /// A rollout's placement of this new start; nil for anything else.
        var rollout: RolloutPlacement? = nil
        /// The rollout's `fallback_to_legacy`, for a start that can be sent now.
        var rolloutFallback = false
    }

    /// The decision.
    static func decide(_ input: Input) -> Placement {
        let first = firstSide(input)
        // Only a side that was not sent to in the foreground is shadowed.
        let shadow = input.mode == .shadow && input.shadow != nil && input.sampled
        switch input.ledger {
        case .notAsked where input.mode == .rollout && input.rollout != nil:
            // A rollout's new start: its cohort's side; a segment start to both sides with the
            // legacy provider alongside; a start OpenPush has no push-to-start token for to the
            // legacy provider when fallback_to_legacy says so.
            let both = input.rollout?.side == .both && input.legacyConfigured
            let fallback = first == .openpush && !both && input.rolloutFallback && input.legacyConfigured
            return Placement(mode: input.mode, basis: .mode, primary: first, alongside: both ? .legacy : nil, fallback: fallback ? .legacy : nil, rollout: input.rollout)
        case .notAsked:
            return Placement(mode: input.mode, basis: .mode, primary: first, shadowed: shadow && (first == .legacy || input.legacyConfigured))
        case .held(.both):
            return Placement(mode: input.mode, basis: .holder(.both), primary: .openpush, alongside: input.legacyConfigured ? .legacy : nil)
        case .held(let holder):
            let side: Side = holder == .openpush ? .openpush : .legacy
            return Placement(mode: input.mode, basis: .holder(holder), primary: side,
                             shadowed: shadow && (side == .legacy || input.legacyConfigured))
        case .unknown:
            let fallback = first.other
            let possible = fallback == .legacy ? input.legacyConfigured : input.sendable
            return Placement(mode: input.mode, basis: .unknownActivity, primary: first,
                             shadowed: shadow && (first == .legacy || input.legacyConfigured), fallback: possible ? fallback : nil)
        }
    }

    /// The side the mode names first: where its new starts go, and where an update of an unknown
    /// activity is tried first. A rollout's new start goes where its ``RolloutPlacement`` says
    /// (OpenPush first when both); an update of an activity it has never seen goes to OpenPush first.
    static func firstSide(_ input: Input) -> Side {
        switch input.mode {
        case .observe: .legacy
        case .shadow: input.shadow?.primary == .openpush ? .openpush : .legacy
        case .openpush: .openpush
        case .rollout: input.rollout?.side == .legacy ? .legacy : .openpush
        }
    }

    /// The holder of a start the answering side `answered` accepted, with `alongsideAccepted` when the other side also did.
    func startHolder(answered: Side, alongsideAccepted: Bool) -> ActivityHolder {
        alongsideAccepted ? .both : answered.holder
    }
}
