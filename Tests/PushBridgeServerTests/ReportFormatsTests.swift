import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The known audit's figures in every format; JSON and CSV parse back.
struct ReportFormatsTests {
    func report(shadow: Bool = true) async throws -> Report {
        try await withTemporaryAudit { path in
            try await KnownAudit.build(path, shadow: shadow)
            return try AuditReader(path: path).report()
        }
    }

    @Test func jsonParsesBackWithEveryFigure() async throws {
        let report = try await report()
        let json = try JSONParser.parse(ReportRenderer.render(report, as: .json))
        let object = try #require(json.objectValue)
        #expect(object["total_requests"] == .int(5))
        let dropped = try #require(object["dropped"]?.arrayValue)
        #expect(dropped.count == 2)
        let first = try #require(dropped.first?.objectValue)
        #expect(first["field"] == .string("subtitle") && first["requests"] == .int(2) && first["share"]?.numberValue?.doubleValue == 1)
        #expect(first["first_seen"] == .int(KnownAudit.t0) && first["last_seen"] == .int(KnownAudit.t0 + 60_000))
        #expect(first["apps"] == .array([.string("app-a"), .string("app-b")]) && first["example_request_id"] == .string("r2"))
        #expect(object["changes"]?.arrayValue?.count == 2 && object["rejections"]?.arrayValue?.count == 1 && object["caveats"]?.arrayValue?.count == 1)
        let shadow = try #require(object["shadow"]?.objectValue)
        #expect(shadow["comparisons"] == .int(4) && shadow["disagreements"] == .int(2))
        #expect(shadow["primary_latency_ms"]?.objectValue?["p50"]?.numberValue?.doubleValue == 30)
        #expect(shadow["shadow_error_rate"]?.numberValue?.doubleValue == 0.25)
        let upstream = try #require(object["upstream"]?.objectValue)
        #expect(upstream["retries"] == .int(2) && upstream["rate_limited_attempts"] == .int(1))
        #expect(upstream["rate_limit_wait_ms"]?.numberValue?.doubleValue == 1000)
        #expect(object["dropped_over_time"]?.arrayValue?.count == 5)
    }

    @Test func csvParsesBackWithASectionColumn() async throws {
        let rows = parseCSV(ReportRenderer.render(try await report(), as: .csv))
        #expect(rows.first == ReportCSV.columns)
        #expect(rows.allSatisfy { $0.count == ReportCSV.columns.count })
        let dropped = rows.filter { $0[0] == "dropped" }
        #expect(dropped.map { [$0[1], $0[2], $0[3], $0[6], $0[7], $0[10], $0[11]] } == [
            ["onesignal", "start", "subtitle", "2", "1.0", "app-a;app-b", "r2"],
            ["pushwoosh", "start", "notifications[].live_activity.title", "2", "1.0", "app-p", "r5"],
        ])
        #expect(dropped[0][8] == "2026-06-10T00:00:00.000Z" && dropped[0][9] == "2026-06-10T00:01:00.000Z")
        #expect(rows.filter { $0[0] == "changes" }.map { $0[3] } == ["include_player_ids", "notifications[].send_date"])
        #expect(rows.contains(["summary", "", "", "", "", "total_requests", "5", "", "", "", "", "", ""]))
        #expect(rows.filter { $0[0] == "shadow_matrix" }.map { [$0[5], $0[6]] } == [["2xx/2xx", "1"], ["2xx/4xx", "1"], ["2xx/error", "1"], ["5xx/5xx", "1"]])
        #expect(rows.filter { $0[0] == "shadow_disagreement" }.map(\.[11]) == ["r5", "r2"])
        #expect(rows.first { $0[0] == "shadow_latency" && $0[5] == "shadow_p95" }?[12] == "60.0")
        #expect(rows.filter { $0[0] == "upstream_retries" }.map { [$0[5], $0[6]] } == [
            ["retried_requests", "2"], ["retries", "2"], ["rate_limited_attempts", "1"], ["rate_limit_wait_ms", "1000"]])
        #expect(rows.filter { $0[0] == "scheduled_send" }.map { $0[5] } == ["pending", "sent"])
        #expect(rows.filter { $0[0] == "dropped_over_time" }.map(\.[6]) == ["1", "1", "0", "2", "1"])
    }

    @Test func textAndMarkdownShowEverySection() async throws {
        let report = try await report()
        let text = ReportRenderer.render(report, as: .text)
        #expect(text.contains("PushBridge diff report — 5 requests"))
        #expect(text.contains("Dropped fields (2)") && text.contains("Changes (2)") && text.contains("Rejections by rule (1)") && text.contains("Caveats (1)"))
        #expect(text.range(of: #"onesignal\s+start\s+subtitle\s+dropped\s+2\s+100\.0%\s+2026-06-10 00:00\s+2026-06-10 00:01\s+app-a, app-b\s+r2"#, options: .regularExpression) != nil)
        #expect(text.contains("4 comparisons, 2 disagreements (and 0 expected: population gaps, phones not on OpenPush yet); errors: primary 0.0%, shadow 25.0%"))
        #expect(text.range(of: #"primary\s+30\.0 ms\s+70\.0 ms\s+70\.0 ms"#, options: .regularExpression) != nil)
        #expect(text.contains("retried requests 2, retries 2, rate-limited attempts 1, rate-limit waits 1000.0 ms"))
        let md = ReportRenderer.render(report, as: .md)
        #expect(md.contains("| onesignal | start | `subtitle` | dropped | 2 | 100.0% | 2026-06-10 00:00 | 2026-06-10 00:01 | app-a, app-b | `r2` | subtitle dropped |"))
        #expect(md.contains("| pushwoosh | start | `notifications[].platforms` | rejected | 1 | 50.0% |"))
        #expect(md.contains("| 2xx | error | 1 |") && md.contains("| shadow | 40.0 ms | 60.0 ms | 60.0 ms |"))
        #expect(md.contains("| 201 | 2 |") && md.contains("| pending | 1 |"))
    }

    @Test func htmlIsSelfContainedWithChartsAndFigures() async throws {
        let html = ReportRenderer.render(try await report(), as: .html)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        for forbidden in ["<script", "<link", "@import", "http://", "https://", "url("] { #expect(!html.contains(forbidden), "\(forbidden)") }
        #expect(html.contains("aria-label=\"Dropped fields over time\"") && html.contains("aria-label=\"Share of requests affected per field\"")
                && html.contains("aria-label=\"Shadow verdicts\""))
        #expect(html.contains("<td class=\"nw\">onesignal</td><td class=\"nw\">start</td><td><code>subtitle</code><div class=\"msg\">subtitle dropped</div></td><td class=\"nw\">dropped</td><td class=\"num\">2</td><td class=\"num\">100.0%</td>"))
        #expect(html.contains("only_primary_accepted 2"))
    }

    @Test func emptyShadowSaysSoInEveryFormat() async throws {
        let report = try await report(shadow: false)
        #expect(ReportRenderer.render(report, as: .text).contains("no shadow traffic"))
        #expect(ReportRenderer.render(report, as: .md).contains("No shadow traffic."))
        #expect(ReportRenderer.render(report, as: .html).contains("No shadow traffic"))
        #expect(ReportJSON.value(report).objectValue?["shadow"]?.objectValue?["comparisons"] == .int(0))
    }

    @Test(arguments: [(1, 1, 1), (3, 1, 3), (4, 1, 4), (5, 2, 3), (7, 2, 4), (9, 5, 2), (40, 10, 4), (41, 20, 3), (999, 500, 2)] as [(Int, Int, Int)])
    func countAxesHaveWholeNumberSteps(peak: Int, step: Int, steps: Int) {
        let axis = ReportSVG.countAxis(peak)
        #expect(axis.step == step && axis.steps == steps && axis.step * axis.steps >= peak, "\(peak): \(axis)")
    }

    @Test func theOverTimeChartLabelsItsCountAxisWithWholeNumbersOnly() {
        // 7 requests in one bucket: the old axis read 0, 1.8, 3.5, 5.3, 7.
        let svg = ReportSVG.overTime([TimeBucket(start: KnownAudit.t0, requests: 7, droppedFindings: 4)])
        let labels = svg.components(separatedBy: "class=\"axis\" text-anchor=\"end\">").dropFirst().map { String($0.prefix { $0 != "<" }) }
        #expect(labels == ["0", "2", "4", "6", "8"], "\(labels)")
    }
}
