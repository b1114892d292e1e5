import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Every section's figures over ``KnownAudit``, exactly.
struct ReportFiguresTests {
    static let t0 = KnownAudit.t0

    static func group(_ dialect: String, _ route: String, _ field: String, _ kind: String, _ requests: Int, _ share: Double,
                      _ first: Int64, _ last: Int64, _ apps: [String], _ example: String) -> FindingGroup {
        FindingGroup(dialect: dialect, route: route, field: field, kind: kind, requests: requests, share: share, firstSeen: t0 + first,
                     lastSeen: t0 + last, apps: apps, exampleRequestId: example, exampleMessage: "")
    }

    /// Groups with the example message blanked, to compare against ``group``.
    static func withoutMessages(_ groups: [FindingGroup]) -> [FindingGroup] {
        groups.map { var g = $0; g.exampleMessage = ""; return g }
    }

    @Test func findingSectionsAreExactAndFoldArrayIndices() async throws {
        try await withTemporaryAudit { path in
            try await KnownAudit.build(path)
            let report = try AuditReader(path: path).report()
            #expect(report.totalRequests == 5)
            #expect(report.routes == [RouteTotal(dialect: "onesignal", route: "start", requests: 2), RouteTotal(dialect: "onesignal", route: "update", requests: 1),
                                      RouteTotal(dialect: "pushwoosh", route: "start", requests: 2)])
            #expect(Self.withoutMessages(report.dropped) == [
                Self.group("onesignal", "start", "subtitle", "dropped", 2, 1.0, 0, 60_000, ["app-a", "app-b"], "r2"),
                Self.group("pushwoosh", "start", "notifications[].live_activity.title", "dropped", 2, 1.0, 180_000, 240_000, ["app-p"], "r5"),
            ])
            #expect(report.dropped[0].exampleMessage == "subtitle dropped")
            #expect(report.dropped[1].exampleMessage == "notifications[1].live_activity.title dropped")
            #expect(Self.withoutMessages(report.changes) == [
                Self.group("onesignal", "start", "include_player_ids", "renamed", 1, 0.5, 0, 0, ["app-a"], "r1"),
                Self.group("pushwoosh", "start", "notifications[].send_date", "converted", 1, 0.5, 240_000, 240_000, ["app-p"], "r5"),
            ])
            #expect(Self.withoutMessages(report.rejections) == [
                Self.group("pushwoosh", "start", "notifications[].platforms", "rejected", 1, 0.5, 180_000, 180_000, ["app-p"], "r4"),
            ])
            #expect(report.rejections[0].exampleMessage == "notifications[0].platforms rejected")
            #expect(Self.withoutMessages(report.caveats) == [
                Self.group("onesignal", "start", "include_aliases", "caveat", 1, 0.5, 60_000, 60_000, ["app-b"], "r2"),
            ])
            #expect(report.droppedOverTime == (0..<5).map {
                TimeBucket(start: Self.t0 + Int64($0) * 60_000, requests: 1, droppedFindings: [1, 1, 0, 2, 1][$0])
            })
        }
    }

    @Test func upstreamAndShadowSectionsAreExact() async throws {
        try await withTemporaryAudit { path in
            try await KnownAudit.build(path)
            let report = try AuditReader(path: path).report()
            #expect(report.upstream == UpstreamSummary(
                outcomes: [Count("forwarded", 3), Count("rejected", 1), Count("translated", 1)],
                statuses: [Count("201", 2), Count("none", 2), Count("500", 1)],
                retriedRequests: 2, retries: 2, rateLimitedAttempts: 1, rateLimitWaitMs: 1000,
                scheduledSends: [Count("pending", 1), Count("sent", 1)]))
            #expect(report.shadow == ShadowSummary(
                comparisons: 4,
                verdicts: [Count("only_primary_accepted", 2), Count("both_accepted", 1), Count("both_rejected", 1)],
                matrix: [MatrixCell(primary: "2xx", shadow: "2xx", count: 1), MatrixCell(primary: "2xx", shadow: "4xx", count: 1),
                         MatrixCell(primary: "2xx", shadow: "error", count: 1), MatrixCell(primary: "5xx", shadow: "5xx", count: 1)],
                disagreements: 2,
                disagreementExamples: [ShadowExample(requestId: "r5", verdict: "only_primary_accepted", primaryStatus: 201, shadowStatus: nil, differences: "timed out"),
                                       ShadowExample(requestId: "r2", verdict: "only_primary_accepted", primaryStatus: 201, shadowStatus: 400, differences: "shadow 400: bad")],
                primaryLatency: Percentiles(p50: 30, p95: 70, p99: 70), shadowLatency: Percentiles(p50: 40, p95: 60, p99: 60),
                primaryErrorRate: 0, shadowErrorRate: 0.25))
        }
    }

    @Test func filtersNarrowEverySection() async throws {
        try await withTemporaryAudit { path in
            try await KnownAudit.build(path)
            let reader = try AuditReader(path: path)
            let appA = try reader.report(ReportFilter(app: "app-a"))
            #expect(appA.totalRequests == 2)
            #expect(Self.withoutMessages(appA.dropped) == [Self.group("onesignal", "start", "subtitle", "dropped", 1, 1.0, 0, 0, ["app-a"], "r1")])
            #expect(appA.shadow.comparisons == 2)
            let late = try reader.report(ReportFilter(since: Self.t0 + 150_000))
            #expect(late.routes == [RouteTotal(dialect: "pushwoosh", route: "start", requests: 2)])
            #expect(late.dropped.map(\.field) == ["notifications[].live_activity.title"])
            let early = try reader.report(ReportFilter(until: Self.t0 + 60_000, dialect: "onesignal", route: "start"))
            #expect(early.totalRequests == 1)
            #expect(early.dropped.map(\.requests) == [1])
            let pushwoosh = try reader.report(ReportFilter(dialect: "pushwoosh"))
            #expect(pushwoosh.caveats.isEmpty && pushwoosh.rejections.count == 1)
            #expect(pushwoosh.upstream.outcomes == [Count("rejected", 1), Count("translated", 1)])
        }
    }

    @Test func fieldPathsFoldIndicesAndTimesParse() {
        #expect(FieldPath.folded("notifications[0].live_activity.title") == "notifications[].live_activity.title")
        #expect(FieldPath.folded("a[12].b[3][4]") == "a[].b[][]")
        #expect(FieldPath.folded("a[x]") == "a[x]")
        #expect(ReportFilter.parseTime("2026-06-10") == Self.t0)
        #expect(ReportFilter.parseTime("1781049600") == Self.t0)
        #expect(ReportFilter.parseTime("2026-06-10T00:01:00Z") == Self.t0 + 60_000)
        #expect(ReportFilter.parseTime("yesterday") == nil)
    }
}
