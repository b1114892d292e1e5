import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// A request with hundreds of unknown fields does not flood the log: its finding lines are
/// capped with an "and N more" line, identical lines are rate-limited per app, and what was
/// held back is counted on /metrics.
@Suite(.serialized)
struct FindingLogBoundsTests {
    @Test func findingLinesAreCappedPerRequestAndRateLimitedPerApp() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL)
        let reference = try #require(try JSONParser.parse(ProxyFailureTests.fixture("onesignal-start-reference")).objectValue)
        func body(unknown: Int, named name: String) -> [UInt8] {
            var o = reference
            for i in 0..<unknown { o["\(name)_\(i)"] = .int(Int64(i)) }
            return JSONWriter.bytes(.object(o))
        }
        let path = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"
        let cap = 20  // FindingLogLimiter's default lines per request
        func lines(_ id: String) -> [String] {
            proxy.log.lines.filter { $0.contains("msg=\"translation finding\"") && $0.contains("request_id=\(id)") }
        }
        // 300 unknown fields: the cap, then one line for the rest.
        let flood = try await proxy.send(path: path, body: body(unknown: 300, named: "flood"))
        let floodLines = lines(try #require(flood.headers["x-pushbridge-request-id"]))
        #expect(floodLines.count == cap + 1, "\(floodLines.count) lines")
        #expect(floodLines.last?.contains("more findings of this request") == true)
        // The same few findings 102 times (refused by OpenPush's rules, so nothing waits for the
        // pacer): past 100 identical lines a minute, the app's lines are held back.
        var bad = reference
        bad["name"] = .string(" ")
        for i in 0..<5 { bad["same_\(i)"] = .int(Int64(i)) }
        let badBytes = JSONWriter.bytes(.object(bad))
        var ids: [String] = []
        for _ in 0..<102 {
            let reply = try await proxy.send(path: path, body: badBytes)
            ids.append(try #require(reply.headers["x-pushbridge-request-id"]))
        }
        #expect(lines(ids[0]).count >= 5)
        #expect(lines(ids[100]).isEmpty && lines(ids[101]).isEmpty, "\(lines(ids[100]).count) and \(lines(ids[101]).count) lines for the 101st and 102nd")
        let metrics = String(decoding: try await proxy.get("/metrics").body, as: UTF8.self)
        func counter(_ reason: String) -> Int? {
            metrics.split(separator: "\n").first { $0.hasPrefix("pushbridge_log_lines_suppressed_total{app=\"os\",reason=\"\(reason)\"}") }
                .flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        #expect((counter("per_request_cap") ?? 0) >= 280, "\(metrics)")
        #expect((counter("identical_rate") ?? 0) >= 10, "\(metrics)")
        await proxy.stop()
    }
}
