/// The findings metric's field paths with their array indices folded (``Metrics/foldIndices(_:)``:
/// `notifications[3].title` → `notifications[].title`), kept by the path as the finding spells
/// it. A request's findings name the same few paths request after request, and a folded path
/// over 15 bytes is a new string each time it is made: one allocation per finding whose path
/// has an index (18 of a Pushwoosh start of three's, issue 31's allocations per request).
///
/// Bounded: at most ``capacity`` paths of at most ``longestKept`` bytes are kept, so a caller
/// inventing field names cannot grow it; a path past either is folded each time, as before.
/// Guarded by the metrics' lock (it lives in ``Metrics/State``).
struct FoldedFieldPaths: Sendable {
    /// The most paths kept.
    static let capacity = 1_024
    /// The longest path kept, in UTF-8 bytes.
    static let longestKept = 256

    /// Folded paths by the path as spelt.
    private var folded: [String: String] = [:]

    /// How many paths are kept.
    var count: Int { folded.count }

    /// `path` with its indices folded: a path without `[` as it is, one seen before as it was
    /// folded then (the same string, no copy), a new one folded and kept while there is room.
    mutating func callAsFunction(_ path: String) -> String {
        guard path.containsUTF8(UInt8(ascii: "[")) else { return path }
        if let known = folded[path] { return known }
        let result = Metrics.foldIndices(path)
        if folded.count < Self.capacity, path.utf8.count <= Self.longestKept { folded[path] = result }
        return result
    }
}
