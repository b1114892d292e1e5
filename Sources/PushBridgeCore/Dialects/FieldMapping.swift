/// One row of a dialect's mapping table: a source field and what happens to it. The dialects
/// read these tables when they account for fields (drop reasons come from here), and
/// `docs/field-mapping.md` is generated from them.
public struct FieldMapping: Sendable, Equatable {
    /// The route the field belongs to.
    public var route: RouteKind
    /// The source field path, e.g. `notifications[].live_activity.relevance-score`.
    public var field: String
    /// The OpenPush field it becomes, or "—" when none.
    public var target: String
    /// The finding made when the field is present; nil when it is carried unchanged.
    public var treatment: FindingKind?
    /// Why, in a sentence (also the finding's message for drops).
    public var note: String

    /// A row.
    public init(_ route: RouteKind, _ field: String, _ target: String, _ treatment: FindingKind?, _ note: String) {
        self.route = route
        self.field = field
        self.target = target
        self.treatment = treatment
        self.note = note
    }
}

extension Array where Element == FieldMapping {
    /// The row for a route and field, if documented.
    public func row(_ route: RouteKind, _ field: String) -> FieldMapping? {
        first { $0.route == route && $0.field == field }
    }
}
