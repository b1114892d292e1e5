import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// Every answer, refusals included, leaves after its audit row is written: the row of a 413
/// (whose handler never runs) is in the audit the moment the caller reads the answer.
@Suite(.serialized)
struct AuditBeforeAnswerTests {
    @Test func aRefused413HasItsRowBeforeTheAnswerArrives() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(configuration: TestConfiguration(upstream: upstream.baseURL).with { $0.limits.maxBodyBytes = 4096 })
        let path = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"
        let big = Array(#"{"pad":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 6000) + Array(#""}"#.utf8)
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Key \(ProxyHarness.oneSignalKey)\r\n"
        var chunked = Array((head + "Transfer-Encoding: chunked\r\n\r\n").utf8)
        chunked += Array("\(String(big.count, radix: 16))\r\n".utf8) + big + Array("\r\n0\r\n\r\n".utf8)
        let declared = Array((head + "Content-Length: \(big.count)\r\n\r\n").utf8) + big
        let reader = try AuditReader(path: proxy.auditPath)
        for (i, bytes) in Array(repeating: [declared, chunked], count: 5).joined().enumerated() {
            let reply = try await RawHTTPClient.exchange(port: proxy.port, bytes: bytes)
            #expect(reply.status == 413, "request \(i): \(reply.status)")
            let id = try #require(reply.header("x-pushbridge-request-id"), "request \(i)")
            // Read at once, no waiting: the row must already be there, complete.
            let row = try reader.show(requestId: id)
            #expect(row?.outcome == "rejected", "request \(i): \(row?.outcome ?? "no row") when the answer arrived")
            #expect(row?.responseStatus == 413, "request \(i)")
        }
        #expect(upstream.all.isEmpty)
        await proxy.stop()
    }
}
