/// Counters of one metric family keyed by label values, with bounded cardinality: after
/// `maxSeries` distinct label sets, new ones are counted in a series whose every label is
/// `other`. Label values longer than `maxLabelValueBytes` are cut.
struct LabeledCounters: Sendable {
    /// The value every label of the overflow series has.
    static let overflowValue = "other"

    let labelNames: [String]
    let maxSeries: Int
    let maxLabelValueBytes: Int
    private(set) var values: [[String]: UInt64] = [:]
    /// The key a per-request count looks its series up with (``add(_:_:_:)`` and the like),
    /// refilled in place: a new array per count was one allocation per request (and one per
    /// finding). It is shared with the dictionary only after it became a new series' key,
    /// and then copied once, at the next count.
    private var scratch: [String] = []

    init(labelNames: [String], maxSeries: Int, maxLabelValueBytes: Int) {
        self.labelNames = labelNames
        self.maxSeries = max(1, maxSeries)
        self.maxLabelValueBytes = max(1, maxLabelValueBytes)
    }

    /// Adds `amount` to the series with these label values (one per label name).
    mutating func add(_ labelValues: [String], _ amount: UInt64 = 1) {
        // Usually every value fits: no copy, and one hash lookup for a series that exists.
        let key = labelValues.allSatisfy { $0.utf8.count <= maxLabelValueBytes } ? labelValues : labelValues.map(cut)
        if let existing = values.index(forKey: key) {
            values.values[existing] &+= amount
        } else if values.count < maxSeries {
            values[key] = amount
        } else {
            values[Array(repeating: Self.overflowValue, count: labelNames.count), default: 0] &+= amount
        }
    }

    /// Adds `amount` to the series of one label value.
    mutating func add(_ first: String, amount: UInt64 = 1) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(first)
        addScratch(amount)
    }

    /// Adds `amount` to the series of two label values.
    mutating func add(_ first: String, _ second: String, amount: UInt64 = 1) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(first)
        scratch.append(second)
        addScratch(amount)
    }

    /// Adds `amount` to the series of three label values.
    mutating func add(_ first: String, _ second: String, _ third: String, amount: UInt64 = 1) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(first)
        scratch.append(second)
        scratch.append(third)
        addScratch(amount)
    }

    /// ``add(_:_:)`` of the label values in ``scratch``: a series that exists is counted
    /// without a copy of the key; anything else takes the general path.
    private mutating func addScratch(_ amount: UInt64) {
        if scratch.allSatisfy({ $0.utf8.count <= maxLabelValueBytes }), let existing = values.index(forKey: scratch) {
            values.values[existing] &+= amount
        } else {
            add(scratch, amount)
        }
    }

    /// The series in a stable order (sorted by label values).
    var sorted: [(labels: [String], value: UInt64)] {
        values.map { (labels: $0.key, value: $0.value) }.sorted { $0.labels.lexicographicallyPrecedes($1.labels) }
    }

    private func cut(_ value: String) -> String {
        value.utf8Prefix(maxBytes: maxLabelValueBytes)
    }
}
