import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 30, "report over 1,000,000 rows ≤ 2 s": the report's shadow latency percentiles come
/// from one read of both latency columns, sorted in Swift (``AuditReader/nearestRank(_:)``),
/// where they were a count and a window function's sort in SQL per side. The same nearest
/// ranks as that SQL (``AuditReader/oraclePercentiles(_:_:)``) on both engines, windowed by
/// the comparison's time as before.
@Suite(.serialized) struct ReportShadowLatencyTests {
    static let count = 137

    /// The primary's latency of comparison `i`: 1 + 1.5 × a permutation of 0..<137 (37 and
    /// 137 are coprime), so every rank holds its own value.
    static func primaryLatency(_ i: Int) -> Double { 1 + 1.5 * Double(i * 37 % count) }

    /// `count` requests, each with a comparison: the primary's latency distinct on every one,
    /// the shadow's on every 3rd (the others timed out, no latency), the last without either.
    static func write(_ store: AuditStore) async throws {
        for i in 0..<count {
            let request = SyntheticTraffic.request(i, of: count)
            try await store.record(request.entry, request.completion)
            let last = i == count - 1
            let primary = ShadowComparison.Side(provider: "legacy:onesignal", status: last ? nil : 201, body: nil,
                                                latencyMs: last ? nil : primaryLatency(i), error: last ? "timed out" : nil)
            let shadow = ShadowComparison.Side(provider: "openpush", status: i % 3 == 0 ? 201 : nil, body: nil,
                                               latencyMs: i % 3 == 0 ? Double(i) + 0.25 : nil, error: i % 3 == 0 ? nil : "timed out")
            try await store.record(ShadowComparison(requestId: request.entry.requestId, comparedAt: request.entry.receivedAt + 30,
                                                    dialect: request.entry.dialect ?? .onesignal, route: request.entry.route ?? .start,
                                                    sourceApp: request.entry.sourceApp ?? "", primary: primary, shadow: shadow),
                                   receivedAt: request.entry.receivedAt, appName: nil)
        }
    }

    /// `body` over a reader of a new audit on `engine` that holds ``write(_:)``'s comparisons.
    static func withWrittenAudit(_ engine: AuditEngine, _ body: (AuditReader) throws -> Void) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await write(store)
            await store.close()
            try body(try AuditReader(path: path))
        }
    }

    @Test(arguments: AuditEngine.allCases)
    func theReportsLatencyPercentilesAreTheNearestRanks(_ engine: AuditEngine) async throws {
        try await Self.withWrittenAudit(engine) { reader in
            let shadow = try reader.report().shadow
            // 136 primary latencies 1 + 1.5 k, k in 0...136 but 100 (the last one's): ranks 68, 130
            // and 135 (⌈p·n⌉) are k = 67, 130 and 135.
            #expect(shadow.comparisons == Self.count)
            #expect(shadow.primaryLatency == Percentiles(p50: 1 + 1.5 * 67, p95: 1 + 1.5 * 130, p99: 1 + 1.5 * 135))
            // 46 shadow latencies 0.25, 3.25, …, 135.25: ranks 23, 44 and 46.
            #expect(shadow.shadowLatency == Percentiles(p50: 66.25, p95: 129.25, p99: 135.25))
            let start = SyntheticTraffic.start, span = SyntheticTraffic.span
            for filter in [ReportFilter(), ReportFilter(since: start + span / 3), ReportFilter(since: start + span / 5, until: start + span / 2),
                           ReportFilter(app: "app-03"), ReportFilter(dialect: "pushwoosh"), ReportFilter(since: start + span + 1)] {
                let report = try reader.report(filter)
                #expect(report.shadow.primaryLatency == (try reader.oraclePercentiles("primary_latency_ms", filter)), "\(filter.summary)")
                #expect(report.shadow.shadowLatency == (try reader.oraclePercentiles("shadow_latency_ms", filter)), "\(filter.summary)")
            }
        }
    }

    /// Past the limit of comparisons a report sorts in its own memory, the ranks come from SQL's
    /// sort, and they are the same: 136 comparisons have a latency, so a limit of 136 sorts in
    /// Swift (no window function is sent) and 135 or 10 rank in SQL (one is), on both engines
    /// and under every filter.
    @Test(arguments: AuditEngine.allCases)
    func pastTheSortLimitTheDatabaseRanksTheSameLatencies(_ engine: AuditEngine) async throws {
        try await Self.withWrittenAudit(engine) { reader in
            let start = SyntheticTraffic.start, span = SyntheticTraffic.span
            for filter in [ReportFilter(), ReportFilter(since: start + span / 5, until: start + span / 2), ReportFilter(app: "app-03"),
                           ReportFilter(since: start + span + 1)] {
                let expected = (try reader.oraclePercentiles("primary_latency_ms", filter), try reader.oraclePercentiles("shadow_latency_ms", filter))
                for limit in [136, 135, 10] {
                    reader.recordedQueries.withLock { $0 = [] }
                    let found = try reader.latencyPercentiles(filter, swiftSortLimit: limit)
                    let ranked = reader.recordedQueries.withLock { $0 ?? [] }.contains { $0.contains("row_number()") }
                    #expect(found.primary == expected.0 && found.shadow == expected.1, "\(filter.summary), limit \(limit)")
                    if filter == ReportFilter() { #expect(ranked == (limit < 136), "limit \(limit)") }
                }
            }
            #expect(try reader.sortedLatencyPercentiles(ReportFilter()).shadow == Percentiles(p50: 66.25, p95: 129.25, p99: 135.25))
        }
    }

    /// Nearest rank on its own: one value, and ties.
    @Test func nearestRankOfOneValueAndOfTies() {
        var one = [4.5]
        #expect(AuditReader.nearestRank(&one) == Percentiles(p50: 4.5, p95: 4.5, p99: 4.5))
        var none: [Double] = []
        #expect(AuditReader.nearestRank(&none) == Percentiles())
        var ties = [3.0, 1.0, 2.0, 2.0]
        #expect(AuditReader.nearestRank(&ties) == Percentiles(p50: 2.0, p95: 3.0, p99: 3.0))
    }
}
