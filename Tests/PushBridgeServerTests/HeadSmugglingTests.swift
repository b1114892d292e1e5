import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Request smuggling by header spelling, transfer codings PushBridge does not implement, and
/// request lines and `Host` headers RFC 9110/9112 do not allow, against a live proxy over raw
/// sockets: each is answered once, in the dialect of its path, the connection closes, and the
/// request hidden in the body is never read, let alone forwarded.
@Suite(.serialized) struct HeadSmugglingTests {
    /// A whole authenticated OneSignal start, which a server framing the outer request by the
    /// wrong length would read as a next request and forward.
    static var hiddenStart: [UInt8] {
        let body = HostileProxyHarness.oneSignalBody
        return Array(HostileProxyHarness.oneSignalHead(["Content-Length: \(body.count)"]).replacingOccurrences(of: "Connection: close\r\n", with: "").utf8)
            + Array("\r\n".utf8) + body
    }

    /// A keep-alive OneSignal head with `extra` lines.
    static func outerHead(_ extra: [String]) -> String {
        (["POST \(HostileProxyHarness.oneSignalPath) HTTP/1.1", "Host: 127.0.0.1", "Authorization: Key demo-onesignal-key",
          "Content-Type: application/json"] + extra).joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// Every row of the audit as (outcome, route, status).
    static func rows(_ proxy: HostileProxyHarness) throws -> [[SQLiteValue]] {
        try SQLiteDatabase(path: proxy.directory.appendingPathComponent("audit.sqlite").path)
            .rows("SELECT outcome, route, response_status FROM requests ORDER BY request_id")
    }

    static let smugglingCases: [(name: String, head: @Sendable (Int) -> [String], body: @Sendable () -> [UInt8], field: String)] = [
        ("Content-Length with a space before the colon", { ["Content-Length : \($0)"] }, { hiddenStart }, "Content-Length "),
        ("Transfer-Encoding with a space before the colon, and Content-Length", { ["Transfer-Encoding : chunked", "Content-Length: \($0)"] },
         { hiddenStart }, "Transfer-Encoding "),
        ("Transfer-Encoding twice", { _ in ["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"] },
         { Array("\(String(hiddenStart.count, radix: 16))\r\n".utf8) + hiddenStart + Array("\r\n0\r\n\r\n".utf8) }, "Transfer-Encoding"),
        ("a tab before the colon", { ["Content-Length\t: \($0)"] }, { hiddenStart }, "Content-Length"),
    ]

    @Test func aHeaderSpelledToHideTheBodyLengthIsAnswered400OnceAndTheHiddenStartIsNeverSent() async throws {
        let proxy = try HostileProxyHarness.start()
        #expect(Self.smugglingCases.count == 4)
        for testCase in Self.smugglingCases {
            let bytes = Array(Self.outerHead(testCase.head(Self.hiddenStart.count)).utf8) + testCase.body()
            let received = try await RawHTTPClient.exchangeBytes(port: proxy.port, bytes: bytes)
            // One answer, then EOF (exchangeBytes reads until the server closes).
            #expect(HeadFramingTests.responseCount(received) == 1, "\(testCase.name): \(String(decoding: received, as: UTF8.self))")
            let response = try RawHTTPClient.parse(received)
            #expect(response.status == 400, "\(testCase.name): \(response.status) \(response.text)")
            #expect(response.header("Connection")?.lowercased() == "close", "\(testCase.name)")
            #expect(response.header("X-PushBridge-Request-Id") != nil, "\(testCase.name)")
            let error = HostileProxyHarness.oneSignalErrors(response)?.first ?? ""
            #expect(error.contains("header \(testCase.field)"), "\(testCase.name): \(response.text)")
        }
        // The hidden start never reached the pipeline: one rejected row per case and nothing else.
        let rows = try Self.rows(proxy)
        #expect(rows.count == Self.smugglingCases.count, "\(rows)")
        #expect(rows.allSatisfy { $0 == [.text("rejected"), .text("start"), .integer(400)] }, "\(rows)")
        await proxy.stop()
    }

    static let codingCases: [(value: String, status: Int, rule: String)] = [
        ("chunked, identity", 400, "chunked must be the last coding"),
        ("chunked, chunked", 400, "chunked must be the last coding"),
        ("xchunked", 501, "only chunked is supported, not xchunked"),
        ("gzip", 501, "only chunked is supported, not gzip"),
        ("gzip, chunked", 501, "only chunked is supported, not gzip"),
    ]

    @Test func transferCodingsOtherThanChunkedAreRefusedPromptlyNotAtTheIdleTimeout() async throws {
        // With a 30 s idle timeout, a request waiting for a body it cannot frame would stall
        // past the client's 10 s read timeout.
        let proxy = try HostileProxyHarness.start(idleTimeoutSeconds: 30)
        #expect(Self.codingCases.count == 5)
        let clock = ContinuousClock()
        for testCase in Self.codingCases {
            let started = clock.now
            let bytes = Array(Self.outerHead(["Transfer-Encoding: \(testCase.value)"]).utf8) + Array("2\r\n{}\r\n0\r\n\r\n".utf8) + Self.hiddenStart
            let received = try await RawHTTPClient.exchangeBytes(port: proxy.port, bytes: bytes, timeoutSeconds: 10)
            #expect(clock.now - started < .seconds(5), "\(testCase.value): answered after \(clock.now - started)")
            #expect(HeadFramingTests.responseCount(received) == 1, "\(testCase.value): \(String(decoding: received, as: UTF8.self))")
            let response = try RawHTTPClient.parse(received)
            #expect(response.status == testCase.status, "\(testCase.value): \(response.status) \(response.text)")
            #expect(response.header("Connection")?.lowercased() == "close")
            let error = HostileProxyHarness.oneSignalErrors(response)?.first ?? ""
            #expect(error.contains("header Transfer-Encoding") && error.contains(testCase.rule), "\(testCase.value): \(response.text)")
        }
        let rows = try Self.rows(proxy)
        #expect(rows.map { $0[0] } == Array(repeating: .text("rejected"), count: Self.codingCases.count), "\(rows)")
        #expect(rows.map { $0[2] } == Self.codingCases.map { .integer(Int64($0.status)) }, "\(rows)")
        await proxy.stop()
    }

    static let requestLineCases: [(name: String, head: String, field: String)] = [
        ("no Host", "POST \(HostileProxyHarness.oneSignalPath) HTTP/1.1\r\nAuthorization: Key demo-onesignal-key\r\n", "header Host"),
        ("two Host", "POST \(HostileProxyHarness.oneSignalPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nAuthorization: Key demo-onesignal-key\r\n",
         "header Host"),
        ("a Host with a path", "POST \(HostileProxyHarness.oneSignalPath) HTTP/1.1\r\nHost: 127.0.0.1/x\r\nAuthorization: Key demo-onesignal-key\r\n",
         "header Host"),
        ("JSON before the method", "{\"a\":1}POST \(HostileProxyHarness.oneSignalPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Key demo-onesignal-key\r\n",
         "method"),
        ("a formula as the method", "=X() \(HostileProxyHarness.oneSignalPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Key demo-onesignal-key\r\n", "method"),
        ("ESC in the target", "POST \(HostileProxyHarness.oneSignalPath)\u{1B}[31m HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Key demo-onesignal-key\r\n",
         "request target"),
        ("DEL in the target", "POST \(HostileProxyHarness.oneSignalPath)\u{7F} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Key demo-onesignal-key\r\n",
         "request target"),
    ]

    @Test func aMissingOrDoubledHostAndABadMethodOrTargetAreAnswered400AndAuditedAsAMalformedHead() async throws {
        let proxy = try HostileProxyHarness.start()
        #expect(Self.requestLineCases.count == 7)
        let body = HostileProxyHarness.oneSignalBody
        for testCase in Self.requestLineCases {
            let head = testCase.head + "Content-Type: application/json\r\nConnection: close\r\nContent-Length: \(body.count)\r\n\r\n"
            let response = try await RawHTTPClient.exchange(port: proxy.port, bytes: Array(head.utf8) + body)
            #expect(response.status == 400, "\(testCase.name): \(response.status) \(response.text)")
            let error = HostileProxyHarness.oneSignalErrors(response)?.first ?? ""
            #expect(error.hasPrefix(testCase.field + ":"), "\(testCase.name): \(response.text)")
            #expect(response.header("X-PushBridge-Request-Id") != nil, "\(testCase.name)")
        }
        // Each is a rejected row of its route: neither forwarded nor counted as an unhandled
        // `METHOD /path` (the route column would hold that).
        let rows = try Self.rows(proxy)
        #expect(rows.count == Self.requestLineCases.count, "\(rows)")
        #expect(rows.allSatisfy { $0 == [.text("rejected"), .text("start"), .integer(400)] }, "\(rows)")
        // HTTP/1.0 may leave Host out (RFC 9112 §3.2 requires it of HTTP/1.1 only).
        let old = try await RawHTTPClient.exchange(port: proxy.port, bytes: Array("GET /healthz HTTP/1.0\r\n\r\n".utf8))
        #expect(old.status == 200, "\(old.status) \(old.text)")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }
}
