import PushBridgeCore

/// One side of a migration: where a request can go.
enum Side: String, Sendable, Equatable, CaseIterable {
    /// OpenPush (the translation is sent).
    case openpush
    /// The app's legacy provider: OneSignal, Pushwoosh or BuzzKit by dialect (the original request is sent).
    case legacy

    /// The other side.
    var other: Side { self == .openpush ? .legacy : .openpush }

    /// How the audit's attempts and the shadow comparisons name this side: `openpush`, `legacy:onesignal`, ….
    func provider(_ dialect: DialectName) -> String { self == .openpush ? "openpush" : "legacy:\(dialect.rawValue)" }

    /// The ledger's holder for an activity this side alone accepted.
    var holder: ActivityHolder { self == .openpush ? .openpush : .legacy }

    /// The population-gap outcome of an answer that came from this side after the other said it
    /// does not know the activity: `not_on_openpush` when the legacy side held it, and the reverse.
    var gapOutcome: AuditOutcome { self == .legacy ? .notOnOpenPush : .notOnLegacy }
}
