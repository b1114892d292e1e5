import Foundation
import Testing
import PushBridgeCore
import PushBridgeServer

/// The proxy reads time from the one clock it is given: a request's id, its audit row, its
/// upstream attempts and the row of a refusal the HTTP server answers itself all carry the
/// injected clock's time, not the wall clock's.
@Suite(.serialized)
struct ProxyClockTests {
    /// 2026-06-10T00:00:00.123Z: months away from any wall clock these tests run under.
    static let injected: Int64 = 1_781_049_600_123

    static func idTime(_ id: String) -> Int64? { Int64(id.dropFirst(4).prefix(12), radix: 16) }

    @Test func aForwardedRequestIsStampedByTheInjectedClock() async throws {
        let upstream = try RecordingSandbox()
        let clock = ManualDeliveryClock(startMilliseconds: Self.injected)
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL, clock: clock)
        let reply = try await proxy.send(path: ProxyModesLiveTests.startPath, body: ProxyModesLiveTests.startBody)
        #expect((200..<300).contains(reply.status), "\(String(decoding: reply.body, as: UTF8.self))")
        let id = try #require(reply.headers["x-pushbridge-request-id"])
        #expect(Self.idTime(id) == Self.injected, "the request id \(id) is not stamped with the injected clock")
        let row = try #require(try AuditReader(path: proxy.auditPath).show(requestId: id))
        #expect(row.entry.receivedAt == Self.injected)
        #expect(row.finishedAt == Self.injected)
        #expect(row.attempts?.contains("\"at\":\(Self.injected)") == true, "attempts: \(row.attempts ?? "none")")
        #expect(upstream.all.count == 1)
        await proxy.stop()
    }

    @Test func aRefusalTheServerAnswersItselfIsStampedByTheInjectedClock() async throws {
        let upstream = try RecordingSandbox()
        let clock = ManualDeliveryClock(startMilliseconds: Self.injected)
        let proxy = try ProxyHarness(configuration: TestConfiguration(upstream: upstream.baseURL).with { $0.limits.maxBodyBytes = 4096 }, clock: clock)
        let body = Array(repeating: UInt8(ascii: "x"), count: 6000)
        let head = "POST \(ProxyModesLiveTests.startPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            + "Authorization: Key \(ProxyHarness.oneSignalKey)\r\nContent-Length: \(body.count)\r\n\r\n"
        let reply = try await RawHTTPClient.exchange(port: proxy.port, bytes: Array(head.utf8) + body)
        #expect(reply.status == 413)
        let id = try #require(reply.header("x-pushbridge-request-id"))
        #expect(Self.idTime(id) == Self.injected, "the request id \(id) is not stamped with the injected clock")
        let row = try #require(try AuditReader(path: proxy.auditPath).show(requestId: id))
        #expect(row.entry.receivedAt == Self.injected && row.finishedAt == Self.injected)
        #expect(upstream.all.isEmpty)
        await proxy.stop()
    }
}
