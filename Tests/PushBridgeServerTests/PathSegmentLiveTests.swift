import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// Ids and types that go into an OpenPush path segment, sent through a real proxy to a capture
/// upstream (a raw HTTP server on 127.0.0.1 that records the request target as it arrived):
/// a dot segment never re-aims the call, the caller gets its dialect's error naming the field,
/// and whatever is sent arrives on exactly the documented route, as the audit recorded it.
@Suite(.serialized)
struct PathSegmentLiveTests {
    /// One request and what must happen to it: `arrives` is the exact target the upstream must
    /// read, or nil when nothing may arrive and the caller gets a dialect error naming `field`.
    struct Case: CustomStringConvertible {
        var name: String
        var path: String
        var body: [UInt8]
        var arrives: String?
        var field: String
        var description: String { name }
    }

    static let app = "app_3f9c2b"

    static func fixture(_ name: String) -> String {
        (try? String(contentsOf: CLIRunner.repoRoot.appendingPathComponent("fixtures/\(name)/body.json"), encoding: .utf8)) ?? ""
    }

    static func pushwoosh(_ fixture: String, id: String = "FIRST_LIVE_ACTIVITY", type: String = "FoodDeliveryAttributes") -> [UInt8] {
        let text = Self.fixture(fixture).replacingOccurrences(of: "\"FIRST_LIVE_ACTIVITY\"", with: JSONWriter.string(.string(id)))
            .replacingOccurrences(of: "\"FoodDeliveryAttributes\"", with: JSONWriter.string(.string(type)))
        return Array(text.utf8)
    }

    static func buzzkit(event: String, id: String?, type: String = "DeliveryAttributes") -> [UInt8] {
        var o: JSONObject = ["to": .string("alice"), "event": .string(event), "contentState": .object(["stage": .string("x")]),
                             "alert": .object(["title": .string("Hi"), "body": .string("There")])]
        if let id { o["activityId"] = .string(id) }
        if event == "start" {
            o["attributesType"] = .string(type)
            o["attributes"] = .object(["orderNumber": .string("1")])
        }
        return JSONWriter.bytes(.object(o))
    }

    static var cases: [Case] {
        let osUpdate = Array(fixture("onesignal-update-reference").utf8), osStart = Array(fixture("onesignal-start-reference").utf8)
        let update = { (segment: String) in "/apps/\(app)/live_activities/\(segment)/notifications" }
        let start = { (segment: String) in "/apps/\(app)/activities/activity/\(segment)" }
        let pw = "/json/1.3/", bk = "/v1/live-activities/send"
        return [
            // OneSignal: the id and the type come from the caller's path, percent-decoded.
            Case(name: "onesignal id %2E%2E", path: update("%2E%2E"), body: osUpdate, arrives: nil, field: "{activity_id} (path)"),
            Case(name: "onesignal id %2e", path: update("%2e"), body: osUpdate, arrives: nil, field: "{activity_id} (path)"),
            Case(name: "onesignal id .%2E", path: update(".%2E"), body: osUpdate, arrives: nil, field: "{activity_id} (path)"),
            Case(name: "onesignal id raw ..", path: update(".."), body: osUpdate, arrives: nil, field: "{activity_id} (path)"),
            Case(name: "onesignal id %0A", path: update("a%0Ab"), body: osUpdate, arrives: nil, field: "{activity_id} (path)"),
            Case(name: "onesignal id ...", path: update("..."), body: osUpdate, arrives: update("%2E%2E%2E"), field: ""),
            Case(name: "onesignal id %252E%252E", path: update("%252E%252E"), body: osUpdate, arrives: update("%252E%252E"), field: ""),
            Case(name: "onesignal id a?b#c", path: update("a%3Fb%23c"), body: osUpdate, arrives: update("a%3Fb%23c"), field: ""),
            Case(name: "onesignal type %2E%2E", path: start("%2E%2E"), body: osStart, arrives: nil, field: "{activity_type} (path)"),
            Case(name: "onesignal type %2E", path: start("%2E"), body: osStart, arrives: nil, field: "{activity_type} (path)"),
            Case(name: "onesignal type ..x", path: start("..x"), body: osStart, arrives: start("..x"), field: ""),
            // Pushwoosh: live_activity_id and attributes-type in the body.
            Case(name: "pushwoosh start id ..", path: pw + "startLiveActivity", body: pushwoosh("pushwoosh-start-filter-reference", id: ".."),
                 arrives: nil, field: "notifications[0].live_activity_id"),
            Case(name: "pushwoosh update id ..", path: pw + "updateLiveActivity", body: pushwoosh("pushwoosh-update-reference", id: ".."),
                 arrives: nil, field: "notifications[0].live_activity_id"),
            Case(name: "pushwoosh update id .", path: pw + "updateLiveActivity", body: pushwoosh("pushwoosh-update-reference", id: "."),
                 arrives: nil, field: "notifications[0].live_activity_id"),
            Case(name: "pushwoosh update id %2E%2E", path: pw + "updateLiveActivity", body: pushwoosh("pushwoosh-update-reference", id: "%2E%2E"),
                 arrives: update("%252E%252E"), field: ""),
            Case(name: "pushwoosh start type ..", path: pw + "startLiveActivity", body: pushwoosh("pushwoosh-start-filter-reference", type: ".."),
                 arrives: nil, field: "notifications[0].live_activity.attributes-type"),
            Case(name: "pushwoosh start type .", path: pw + "startLiveActivity", body: pushwoosh("pushwoosh-start-filter-reference", type: "."),
                 arrives: nil, field: "notifications[0].live_activity.attributes-type"),
            // BuzzKit: activityId and attributesType in the body.
            Case(name: "buzzkit update id ..", path: bk, body: buzzkit(event: "update", id: ".."), arrives: nil, field: "activityId"),
            Case(name: "buzzkit end id .", path: bk, body: buzzkit(event: "end", id: "."), arrives: nil, field: "activityId"),
            Case(name: "buzzkit start id ..", path: bk, body: buzzkit(event: "start", id: ".."), arrives: nil, field: "activityId"),
            Case(name: "buzzkit start type ..", path: bk, body: buzzkit(event: "start", id: "m_1", type: ".."), arrives: nil, field: "attributesType"),
            Case(name: "buzzkit start type .", path: bk, body: buzzkit(event: "start", id: "m_1", type: "."), arrives: nil, field: "attributesType"),
            Case(name: "buzzkit update id a b", path: bk, body: buzzkit(event: "update", id: "a b"), arrives: update("a%20b"), field: ""),
        ]
    }

    /// The caller's error text, whatever the dialect's shape.
    static func errorText(_ dialect: DialectName, _ body: [UInt8]) -> String {
        guard let o = (try? JSONParser.parse(body))?.objectValue else { return "" }
        switch dialect {
        case .onesignal: return o["errors"]?.arrayValue?.compactMap(\.stringValue).joined(separator: "; ") ?? ""
        case .buzzkit: return o["error"]?.objectValue?["message"]?.stringValue ?? ""
        case .pushwoosh: return o["status_message"]?.stringValue ?? ""
        }
    }

    @Test(arguments: cases)
    func aPathSegmentArrivesExactlyOrNotAtAll(_ c: Case) async throws {
        let capture = try TestHTTPServer()
        defer { capture.stop() }
        let proxy = try ProxyHarness(configuration: TestConfiguration(upstream: capture.url("")).with {
            $0.limits.upstreamTimeoutMs = 2000
            $0.app("pw") { $0.segmentMap = TestApp.pushwooshSegmentMap }
        })
        let route = try #require(InboundRoute.match(path: c.path), "\(c.name): no route")
        var headers = ProxyHarness.credentials(for: c.path).map { ($0.0, $0.1) }
        headers.append(("Content-Type", "application/json"))
        let reply = try await RawHTTPClient.send(port: proxy.port, method: "POST", target: c.path, headers: headers, body: c.body)
        let id = try #require(reply.header("x-pushbridge-request-id"), "\(c.name): \(reply.status) \(reply.text)")
        let record = try #require(try await Self.settledRow(proxy, id), "\(c.name): no audit row")
        if let expected = c.arrives {
            // The upstream (which answers 404 to everything) read exactly this target.
            #expect(capture.received.map(\.target) == [expected], "\(c.name)")
            let translated = try JSONParser.parse(Array((record.entry.translated ?? "").utf8))
            #expect(translated.arrayValue?.first?.objectValue?["path"]?.stringValue == expected, "\(c.name): the audit's path")
        } else {
            #expect(ProxyFixtureLiveTests.isDialectError(route.dialect, status: reply.status, body: reply.body), "\(c.name): \(reply.status) \(reply.text)")
            let message = Self.errorText(route.dialect, reply.body)
            #expect(message.hasPrefix(c.field + ":") || message.contains("; " + c.field + ":"), "\(c.name): \(message)")
            #expect(record.outcome == "rejected", "\(c.name)")
            // The row is written before the answer: had anything gone upstream, it would be there now.
            #expect(capture.received.isEmpty, "\(c.name): \(capture.received.map(\.target))")
        }
        await proxy.stop()
    }

    static func settledRow(_ proxy: ProxyHarness, _ id: String) async throws -> AuditRecord? {
        try await firstValue(within: 5) { try AuditReader(path: proxy.auditPath).show(requestId: id).flatMap { $0.outcome != "pending" ? $0 : nil } }
    }
}
