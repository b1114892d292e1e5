import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The readiness section in every report format and on the admin listener, over an audit a
/// real proxy run wrote: one app not ready (a dropped warning field), the others without traffic.
@Suite(.serialized) struct ReadinessReportLiveTests {
    @Test func everyFormatAndTheAdminEndpointCarryTheVerdictsAndTheHTMLOpensWithThem() async throws {
        let run = try ReadinessRun(readiness: ReadinessLiveTests.openPushOnly)
        for i in 0..<2 { try await run.send("report_\(i)") }
        let id = try await run.send("report_2", extra: #""ios_interruption_level":"active","#)
        let settings = ReadinessSettings(try run.configuration)
        let report = try AuditReader(path: run.proxy.auditPath).report(readiness: settings)
        #expect(report.readiness.apps.map(\.verdict) == [.notReady, .notEnoughTraffic, .notEnoughTraffic, .notEnoughTraffic])

        let text = ReportRenderer.render(report, as: .text)
        #expect(text.contains("os: NOT READY") && text.contains("ios_interruption_level dropped on 1 of 3 requests") && text.contains("bk: NOT ENOUGH TRAFFIC"))
        let markdown = ReportRenderer.render(report, as: .md)
        #expect(markdown.contains("## Readiness") && markdown.contains("| os | onesignal start | **not ready** |") && markdown.contains(id))
        let json = try JSONParser.parse(Array(ReportRenderer.render(report, as: .json).utf8)).objectValue?["readiness"]?.objectValue
        let first = json?["apps"]?.arrayValue?.first?.objectValue
        #expect(json?["all_ready"] == .bool(false) && first?["app"] == .string("os") && first?["verdict"] == .string("not ready"))
        let warning = first?["routes"]?.arrayValue?.first?.objectValue?["warnings"]?.arrayValue?.first?.objectValue
        #expect(warning?["field"] == .string("ios_interruption_level") && warning?["example_request_id"] == .string(id))
        let csv = parseCSV(ReportRenderer.render(report, as: .csv)).filter { $0.first == "readiness" }
        #expect(csv.map { [$0[5], $0[4]] } == [["os", "not ready"], ["os-mapped", "not enough traffic"], ["pw", "not enough traffic"], ["bk", "not enough traffic"]])
        let html = ReportRenderer.render(report, as: .html)
        let readiness = try #require(html.range(of: "<h2>Cut-over readiness</h2>"))
        let firstChart = try #require(html.range(of: "<h2>Dropped fields over time</h2>"))
        #expect(readiness.lowerBound < firstChart.lowerBound && html.contains("<span class=\"badge not-ready\">not ready</span>"))

        let admin = AdminService(token: Secret("readiness-admin-token"), reader: try AuditReader(path: run.proxy.auditPath), readiness: settings)
        let server = try HTTPServer(configuration: HTTPServerConfiguration(), handler: admin.handler)
        let auth = [("Authorization", "Bearer readiness-admin-token")]
        let verdicts = try await RawHTTPClient.send(port: server.port, target: "/admin/readiness?app=os", headers: auth)
        let page = try await RawHTTPClient.send(port: server.port, target: "/admin/report?format=html", headers: auth)
        let denied = try await RawHTTPClient.send(port: server.port, target: "/admin/readiness")
        await server.stop(gracePeriod: .seconds(1))
        let served = try JSONParser.parse(verdicts.body).objectValue
        #expect(verdicts.status == 200 && served?["apps"]?.arrayValue?.count == 1 && served?["all_ready"] == .bool(false))
        #expect(page.status == 200 && page.text.contains("Cut-over readiness") && denied.status == 401)
        await run.stop()
    }
}
