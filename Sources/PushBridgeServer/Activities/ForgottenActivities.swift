/// In-flight activities of one source app that the ledger's cap (`limits.max_activities`)
/// forgot: the ledger no longer knows where they live, so legacy cannot be switched off for
/// the app before the last of them is past its lifetime.
public struct ForgottenActivities: Sendable, Equatable {
    /// The configured app's name.
    public var app: String
    /// Until when the latest-started of them can still be updated or ended, Unix milliseconds.
    public var inFlightUntil: Int64
    /// How many in-flight rows the cap forgot (over every pass).
    public var count: Int

    /// A value; every field as documented on its property.
    public init(app: String, inFlightUntil: Int64, count: Int) {
        self.app = app
        self.inFlightUntil = inFlightUntil
        self.count = count
    }
}
