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
    ///
    /// Rows whose field has another length in bytes are skipped without a `String` comparison
    /// when `field` is ASCII: every table's fields are ASCII (`KeyComparisonTests`), and
    /// two ASCII texts of different lengths are never equal.
    public func row(_ route: RouteKind, _ field: String) -> FieldMapping? {
        let length = field.utf8.count
        let ascii = field.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 < 0x80 } } ?? false
        // Through the buffer: `first(where:)` copied every row (three strings retained and released) to test it.
        return withUnsafeBufferPointer { rows in
            for i in rows.indices where rows[i].route == route && (!ascii || rows[i].field.utf8.count == length) && rows[i].field == field {
                return rows[i]
            }
            return nil
        }
    }
}
