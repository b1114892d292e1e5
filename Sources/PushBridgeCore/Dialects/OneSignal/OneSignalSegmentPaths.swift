/// The caller's field paths of a OneSignal segment list's names (`included_segments[0]`, …):
/// the first ``held`` of each list made once per process, so a start's segment findings do not
/// build a new `String` (an allocation, past 15 bytes) for each name (issue 31, branch `lazyparse`).
struct OneSignalSegmentPaths: Sendable {
    /// How many paths of each list are made ahead.
    static let held = 8
    /// `included_segments[0]` … `included_segments[7]`.
    static let included = OneSignalSegmentPaths(.included_segments)
    /// `excluded_segments[0]` … `excluded_segments[7]`.
    static let excluded = OneSignalSegmentPaths(.excluded_segments)

    /// The list's key.
    let key: FieldKey
    /// The paths of its first ``held`` names.
    private let first: [String]

    /// The paths of a list.
    init(_ key: FieldKey) {
        self.key = key
        first = (0..<Self.held).map { MessageText("\(key.name)[\($0)]").text }
    }

    /// The path of name `index`: `key[index]`.
    func path(_ index: Int) -> String {
        index < first.count ? first[index] : MessageText("\(key.name)[\(index)]").text
    }
}
