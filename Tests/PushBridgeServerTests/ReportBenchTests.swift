import Foundation
import PushBridgeCore
import PushBridgeTestSupport
import Testing
@testable import PushBridgeServer

/// `report-bench` in `make test` (issue 30, item 5): the bench crashed once its hand-written
/// `INSERT`s fell behind the schema (`table findings has 11 columns but 10 values were
/// supplied`). It now writes through the audit writer; these tests run it on a small audit so
/// that a schema change that breaks it fails CI instead of the next benchmark run.
@Suite struct ReportBenchTests {
    static let rows = 2_000

    /// The library function the bench's `main` calls: every row it wrote is found by `report`
    /// and `readiness`, route by route, shadow comparisons included.
    @Test func reportAndReadinessFindEveryRowTheBenchWrote() async throws {
        let directory = try TemporaryDirectory("report-bench")
        let result = try await ReportBench.run(path: directory.path("audit.sqlite"), rows: Self.rows)
        let written = try #require(result.written)
        #expect(result.mismatches == [])
        #expect(written.requests == Self.rows)
        // The mix has every kind of row the report and readiness count.
        #expect(written.byRoute.count == SyntheticTraffic.routes.count)
        #expect(written.rejected > 0)
        #expect(written.comparisons > 0)
        #expect(written.findings > 0)
        #expect(result.report.totalRequests == Self.rows)
        #expect(result.report.routes.count == SyntheticTraffic.routes.count)
        #expect(result.report.shadow.comparisons == written.comparisons)
        #expect(result.readiness.apps.flatMap(\.routes).reduce(0) { $0 + $1.requests } == Self.rows)
        #expect(result.report.dropped.contains { $0.field == "ios_interruption_level" && $0.requests > 0 })
        #expect(result.lines.contains("report total: \(Self.rows) requests, \(written.comparisons) shadow comparisons"))
        // The rows `make bench` reads for issue 30's report targets.
        #expect(result.lines.contains { $0.hasPrefix("report over 2,000 rows, text (s): ") })
        #expect(result.lines.contains { $0.hasPrefix("readiness over 2,000 rows (s): ") })
    }

    /// An audit reused from an earlier run is reported on without being written again, and
    /// without a check (nothing to compare with).
    @Test func anExistingAuditIsReusedNotRebuilt() async throws {
        let directory = try TemporaryDirectory("report-bench")
        let path = directory.path("audit.sqlite")
        _ = try await ReportBench.run(path: path, rows: 300)
        let again = try await ReportBench.run(path: path, rows: Self.rows)
        #expect(again.written == nil)
        #expect(again.report.totalRequests == 300)
        #expect(!again.lines.contains { $0.hasPrefix("built ") })
    }

    /// The check names each figure that differs from what was written, so a report that
    /// loses rows makes the bench (and this suite) fail rather than print a fast time.
    @Test func theCheckNamesEveryTotalThatDiffers() async throws {
        let directory = try TemporaryDirectory("report-bench")
        let result = try await ReportBench.run(path: directory.path("audit.sqlite"), rows: 300)
        var claimed = try #require(result.written)
        #expect(claimed.mismatches(report: result.report, readiness: result.readiness) == [])
        claimed.requests += 1
        claimed.byRoute["buzzkit/send", default: 0] += 1
        claimed.comparisons += 2
        let sent = result.written?.byRoute["buzzkit/send"] ?? 0
        #expect(claimed.mismatches(report: result.report, readiness: result.readiness) == [
            "report total requests: found 300, wrote 301",
            "report requests on buzzkit/send: found \(sent), wrote \(sent + 1)",
            "report shadow comparisons: found \(claimed.comparisons - 2), wrote \(claimed.comparisons)",
            "readiness requests: found 300, wrote 301",
            "readiness shadow comparisons: found \(claimed.comparisons - 2), wrote \(claimed.comparisons)",
        ])
    }

    /// The built `report-bench` binary (the product `swift build --build-tests` makes) exits 0
    /// and prints report and readiness totals equal to the rows it wrote.
    @Test func theBenchBinaryExitsZeroWithMatchingTotals() async throws {
        let directory = try TemporaryDirectory("report-bench")
        let binary = Repository.url(".build/debug/report-bench")
        let audit = directory.path("audit.sqlite")
        let output = try await offPool { try CLIRunner.runProcess(binary, [String(Self.rows), audit]) }
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stdout.contains("built \(Self.rows) translations"))
        #expect(output.stdout.contains("report total: \(Self.rows) requests"))
        #expect(output.stdout.contains("readiness total: \(Self.rows) requests"))
        #expect(output.stdout.contains("readiness: "))
        #expect(!output.stderr.contains("mismatch"))
    }

    /// A row count that is not a whole number of at least 1 gets the usage line and status 2,
    /// not a default-sized run or a crash.
    @Test(arguments: ["abc", "0", "-5"]) func aBadRowCountGetsTheUsage(_ rows: String) async throws {
        let binary = Repository.url(".build/debug/report-bench")
        let output = try await offPool { try CLIRunner.runProcess(binary, [rows]) }
        #expect(output.status == 2)
        #expect(output.stderr.contains("usage: report-bench [ROWS] [AUDIT_FILE]"))
        #expect(output.stdout.isEmpty)
    }
}
