/// The rollup fold's dimension strings (instance, apps, dialect, route, outcome, finding
/// field and kind) as small integers, so the fold keys its counters by a struct of integers
/// (``AuditRollupFold/RequestKey``) instead of hashing and comparing up to ten strings per
/// request. Equal strings (Swift's `==`, as a `String`-keyed dictionary tells them) get one id;
/// ``subscript(_:)`` gives back the first one seen, which is what the statements write.
///
/// Ids are this process's alone (two PostgreSQL instances give the same text other ids): the
/// statements are ordered by the text (``AuditRollupFold/statements()``), never by id.
/// Bounded: ``trim()``, between batches, starts over once it holds more than ``capacity``
/// strings, so a stream of distinct apps or fields cannot grow it without end.
struct AuditRollupInterner {
    /// The most strings kept from one batch to the next.
    static let capacity = 4_096

    private var ids: [String: Int32] = [:]
    private var strings: [String] = []
    /// Per id: the id of its ``FieldPath/folded(_:)`` form, or -1 while not yet asked for.
    private var foldedIds: [Int32] = []

    /// Strings held.
    var count: Int { strings.count }

    /// The id of `string`, given it on first sight.
    mutating func id(_ string: String) -> Int32 {
        if let id = ids[string] { return id }
        let id = Int32(strings.count)
        strings.append(string)
        foldedIds.append(-1)
        ids[string] = id
        return id
    }

    /// The string of `id`.
    subscript(_ id: Int32) -> String { strings[Int(id)] }

    /// The id of the finding field `id` with its array indices folded (``FieldPath``),
    /// computed once per distinct field rather than once per finding.
    mutating func folded(_ id: Int32) -> Int32 {
        let known = foldedIds[Int(id)]
        if known >= 0 { return known }
        let folded = self.id(FieldPath.folded(strings[Int(id)]))
        foldedIds[Int(id)] = folded
        return folded
    }

    /// Starts over when more than ``capacity`` strings are held. Only between batches: the
    /// ids of a fold's keys must hold until its statements are made.
    mutating func trim() {
        guard strings.count > Self.capacity else { return }
        ids.removeAll(keepingCapacity: true)
        strings.removeAll(keepingCapacity: true)
        foldedIds.removeAll(keepingCapacity: true)
    }
}
