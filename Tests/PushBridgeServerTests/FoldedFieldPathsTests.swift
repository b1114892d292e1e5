import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The findings metric's folded paths kept between requests (``FoldedFieldPaths``, issue 31's
/// allocations per request): the same text as ``Metrics/foldIndices(_:)`` every time, a path
/// seen before handed back without a new string, and never more than its bounds.
struct FoldedFieldPathsTests {
    @Test(arguments: [
        "a[12].b[0]", "plain", "a[x]", "a[", "a[1", "a[]", "m[3][4]", "a[[1]", "x[12y]",
        "notifications[0].title[10]", "[7]", "é[2]", "notifications[2].live_activity.title",
    ])
    func foldsAsFoldIndicesDoesTheFirstTimeAndAfter(path: String) {
        var paths = FoldedFieldPaths()
        #expect(paths(path) == Metrics.foldIndices(path))
        #expect(paths(path) == Metrics.foldIndices(path))
    }

    @Test func aPathSeenBeforeIsTheSameStringNotANewOne() {
        var paths = FoldedFieldPaths()
        // Built at run time (not a literal) and over 15 bytes once folded: a heap string.
        let path = ["notifications", "[", String(3), "].live_activity.title"].joined()
        let first = paths(path)
        let second = paths(String(decoding: Array(path.utf8), as: UTF8.self))
        #expect(first == "notifications[].live_activity.title" && second == first)
        #expect(Self.storage(of: first) != nil && Self.storage(of: first) == Self.storage(of: second))
        // Folding afresh makes a string of its own: what every finding paid before.
        #expect(Self.storage(of: Metrics.foldIndices(path)) != Self.storage(of: first))
    }

    @Test func keepsAtMostItsCapacityAndNoLongPaths() {
        var paths = FoldedFieldPaths()
        let long = "a[1]." + String(repeating: "x", count: FoldedFieldPaths.longestKept)
        #expect(paths(long) == Metrics.foldIndices(long) && paths.count == 0)
        #expect(paths("no_index_here") == "no_index_here" && paths.count == 0)
        for i in 0..<(FoldedFieldPaths.capacity + 10) {
            let path = "invented_\(i)[\(i)].field"
            #expect(paths(path) == "invented_\(i)[].field")
        }
        #expect(paths.count == FoldedFieldPaths.capacity)
    }

    @Test func theFindingsMetricCountsFoldedPathsAsBefore() throws {
        let m = Metrics()
        for _ in 0..<3 {
            m.recordFindings([
                Finding(field: "notifications[0].ios_sound", kind: .dropped, message: "no sound"),
                Finding(field: "notifications[11].ios_sound", kind: .dropped, message: "no sound"),
                Finding(field: "contents.en", kind: .renamed, message: "alert.body"),
            ], dialect: .pushwoosh)
        }
        let series = try #require(PrometheusTextParser.parse(m.render())).filter { $0.name == "pushbridge_findings_total" }
        #expect(series.count == 2)
        #expect(series.first { $0.labels["field"] == "notifications[].ios_sound" }?.value == "6")
        #expect(series.first { $0.labels["field"] == "contents.en" }?.value == "3")
    }

    /// Where a native string's UTF-8 bytes are (nil for a small string kept inline).
    static func storage(of text: String) -> UnsafeRawPointer? {
        text.utf8.withContiguousStorageIfAvailable { buffer in text.utf8.count > 15 ? UnsafeRawPointer(buffer.baseAddress) : nil } ?? nil
    }
}
