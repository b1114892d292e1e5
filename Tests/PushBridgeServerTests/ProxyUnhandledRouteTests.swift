import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// A request on a route PushBridge does not translate is answered in the dialect of its path
/// prefix with the request id, audited as `unhandled` with `METHOD /path` as its route, and
/// counted by the report; nothing reaches OpenPush.
@Suite(.serialized)
struct ProxyUnhandledRouteTests {
    struct Case: Sendable, CustomStringConvertible {
        var method: String
        var target: String
        var dialect: DialectName?
        var route: String
        var description: String { route }
    }

    static let cases: [Case] = [
        Case(method: "POST", target: "/notifications", dialect: .onesignal, route: "POST /notifications"),
        Case(method: "POST", target: "/api/v1/notifications?app_id=x", dialect: .onesignal, route: "POST /api/v1/notifications"),
        Case(method: "GET", target: "/apps/app_3f9c2b/players", dialect: .onesignal, route: "GET /apps/app_3f9c2b/players"),
        Case(method: "POST", target: "/json/1.3/createMessage", dialect: .pushwoosh, route: "POST /json/1.3/createMessage"),
        Case(method: "POST", target: "/v1/messages/send", dialect: .buzzkit, route: "POST /v1/messages/send"),
        Case(method: "GET", target: "/json/1.3/startLiveActivity", dialect: .pushwoosh, route: "GET /json/1.3/startLiveActivity"),
        Case(method: "POST", target: "/favicon.ico", dialect: nil, route: "POST /favicon.ico"),
    ]

    @Test(arguments: cases)
    func anUnhandledRouteIsAnsweredInItsDialectWithTheRequestIdAndAudited(_ c: Case) async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL)
        let reply = try await proxy.request(c.method, c.target, body: c.method == "POST" ? Array("{}".utf8) : [])
        #expect(reply.status == 404)
        let requestId = try #require(reply.headers["x-pushbridge-request-id"], "\(c): no request id")
        if let dialect = c.dialect {
            #expect(ProxyFixtureLiveTests.isDialectError(dialect, status: reply.status, body: reply.body), "\(c): \(String(decoding: reply.body, as: UTF8.self))")
        } else {
            #expect((try JSONParser.parse(reply.body)).objectValue?["errors"]?.arrayValue?.isEmpty == false)
        }
        if c.method == "POST" {
            #expect(String(decoding: reply.body, as: UTF8.self).contains("only the Live Activity routes"), "\(c)")
        }
        let reader = try AuditReader(path: proxy.auditPath)
        let row = try #require(try reader.query("SELECT outcome, route, dialect, response_status, path FROM requests WHERE request_id = ?", [.text(requestId)]).first,
                               "\(c): not audited")
        #expect(row[0].textValue == "unhandled")
        #expect(row[1].textValue == c.route)
        #expect(row[2].textValue == c.dialect?.rawValue)
        #expect(row[3].integerValue == 404)
        #expect(row[4].textValue?.contains("?") == false, "the query string is not kept")
        #expect(upstream.all.isEmpty, "\(c): nothing reaches OpenPush")
        await proxy.stop()
    }

    @Test func theReportCountsUnhandledRoutesApartFromTheTranslatedOnes() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL)
        for _ in 0..<3 { _ = try await proxy.request("POST", "/notifications", body: Array("{}".utf8)) }
        _ = try await proxy.request("POST", "/json/1.3/createMessage", body: Array("{}".utf8))
        let body = try ProxyFailureTests.fixture("onesignal-start-reference")
        #expect(try await proxy.send(path: "/apps/app_3f9c2b/activities/activity/DeliveryAttributes", body: body).status == 201)
        let report = try AuditReader(path: proxy.auditPath).report()
        #expect(report.unhandled == [RouteTotal(dialect: "onesignal", route: "POST /notifications", requests: 3),
                                     RouteTotal(dialect: "pushwoosh", route: "POST /json/1.3/createMessage", requests: 1)])
        #expect(report.routes == [RouteTotal(dialect: "onesignal", route: "start", requests: 1)])
        #expect(report.totalRequests == 5)
        let text = ReportText.render(report)
        let line = text.split(separator: "\n").first { $0.contains("POST /notifications") }
        #expect(text.contains("Unhandled routes (2)") && line?.hasPrefix("  onesignal") == true && line?.hasSuffix(" 3") == true, "\(text)")
        let json = String(decoding: JSONWriter.bytes(ReportJSON.value(report)), as: UTF8.self)
        #expect(json.contains(#""unhandled_routes":[{"dialect":"onesignal","route":"POST /notifications","requests":3}"#), "\(json)")
        await proxy.stop()
    }
}
