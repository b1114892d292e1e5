import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Request heads whose framing is ambiguous (smuggling behind a front proxy) or whose values
/// hide control characters: each is answered 400 in the caller's dialect, only once, and the
/// connection is closed, so nothing after the head is read as a next request.
@Suite(.serialized) struct HeadFramingTests {
    /// A keep-alive OneSignal head (no `Connection: close`: the server alone decides to close).
    private static func keepAliveHead(_ extra: [String]) -> String {
        (["POST \(HostileProxyHarness.oneSignalPath) HTTP/1.1", "Host: 127.0.0.1", "Authorization: Key demo-onesignal-key",
          "Content-Type: application/json"] + extra).joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// A whole second request that a server framing by the wrong header would answer too.
    private static let smuggled = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)

    /// How many status lines `bytes` holds.
    static func responseCount(_ bytes: [UInt8]) -> Int {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "HTTP/1.1 ").count - 1
    }

    static let framingCases: [(name: String, extra: @Sendable (Int) -> [String], body: [UInt8])] = [
        ("two Content-Length, the first shorter", { ["Content-Length: 0", "Content-Length: \($0)"] }, HostileProxyHarness.oneSignalBody + smuggled),
        ("two Content-Length, the first longer", { ["Content-Length: \($0 + smuggled.count)", "Content-Length: \($0)"] }, HostileProxyHarness.oneSignalBody + smuggled),
        ("Content-Length and Transfer-Encoding", { ["Content-Length: \($0)", "Transfer-Encoding: chunked"] },
         Array("\(String(HostileProxyHarness.oneSignalBody.count, radix: 16))\r\n".utf8) + HostileProxyHarness.oneSignalBody + Array("\r\n0\r\n\r\n".utf8) + smuggled),
    ]

    /// Rows of refused 400s in the proxy's audit; fails the test if any row is not one.
    static func rejectedRows(_ proxy: HostileProxyHarness) throws -> Int {
        let rows = try SQLiteDatabase(path: proxy.directory.appendingPathComponent("audit.sqlite").path)
            .rows("SELECT outcome, response_status FROM requests")
        #expect(rows.allSatisfy { $0 == [.text("rejected"), .integer(400)] }, "\(rows)")
        return rows.count
    }

    @Test func ambiguousBodyLengthIsAnswered400OnceAndClosed() async throws {
        let proxy = try HostileProxyHarness.start()
        #expect(Self.framingCases.count == 3)
        for testCase in Self.framingCases {
            let head = Self.keepAliveHead(testCase.extra(HostileProxyHarness.oneSignalBody.count))
            let bytes = try await RawHTTPClient.exchangeBytes(port: proxy.port, bytes: Array(head.utf8) + testCase.body)
            #expect(Self.responseCount(bytes) == 1, "\(testCase.name): \(Self.responseCount(bytes)) responses: \(String(decoding: bytes, as: UTF8.self))")
            let response = try RawHTTPClient.parse(bytes)
            #expect(response.status == 400, "\(testCase.name): got \(response.status)")
            #expect(response.header("Connection")?.lowercased() == "close", "\(testCase.name)")
            let errors = HostileProxyHarness.oneSignalErrors(response) ?? []
            let named = errors.first.map { $0.contains("Content-Length") || $0.contains("Transfer-Encoding") } ?? false
            #expect(named, "\(testCase.name): \(response.text)")
        }
        // Each refusal was audited before its answer: one rejected row per case, nothing forwarded.
        #expect(try Self.rejectedRows(proxy) == Self.framingCases.count, "an ambiguous request was not audited as rejected")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }

    static let controlCases: [(name: String, header: String)] = [
        ("NUL inside the key", "Authorization: Key demo-onesignal-key\u{0}x"),
        ("NUL at the end of the key", "Authorization: Key demo-onesignal-key\u{0}"),
        ("SOH in another header", "X-Trace: a\u{1}b"),
        ("DEL in another header", "X-Trace: a\u{7F}b"),
        ("ESC in the content type", "X-Content-Note: \u{1B}[31m"),
    ]

    @Test func controlCharactersInHeaderValuesAreAnswered400() async throws {
        let proxy = try HostileProxyHarness.start()
        #expect(Self.controlCases.count == 5)
        let body = HostileProxyHarness.oneSignalBody
        for testCase in Self.controlCases {
            var lines = ["POST \(HostileProxyHarness.oneSignalPath) HTTP/1.1", "Host: 127.0.0.1", "Connection: close",
                         "Content-Type: application/json", "Content-Length: \(body.count)", testCase.header]
            if !testCase.header.hasPrefix("Authorization") { lines.append("Authorization: Key demo-onesignal-key") }
            let head = lines.joined(separator: "\r\n") + "\r\n\r\n"
            let response = try await RawHTTPClient.exchange(port: proxy.port, bytes: Array(head.utf8) + body)
            #expect(response.status == 400, "\(testCase.name): got \(response.status) \(response.text)")
            let errors = HostileProxyHarness.oneSignalErrors(response) ?? []
            #expect(errors.first?.contains("control characters") == true, "\(testCase.name): \(response.text)")
        }
        #expect(try Self.rejectedRows(proxy) == Self.controlCases.count, "a request with a control character was not audited as rejected")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }

    @Test func ordinaryHeadsStillPass() async throws {
        let proxy = try HostileProxyHarness.start()
        let body = HostileProxyHarness.oneSignalBody
        for extra in [["X-Trace: abc   ", "X-Empty:", "X-Tab: a\tb"], ["X-Last-Trailing: x  "]] {
            let head = (["POST \(HostileProxyHarness.oneSignalPath) HTTP/1.1", "Host: 127.0.0.1", "Connection: close",
                         "Authorization: Key demo-onesignal-key", "Content-Type: application/json", "Content-Length: \(body.count)"] + extra)
                .joined(separator: "\r\n") + "\r\n\r\n"
            let response = try await RawHTTPClient.exchange(port: proxy.port, bytes: Array(head.utf8) + body)
            #expect(response.status == 201, "\(extra): \(response.status) \(response.text)")
        }
        let bareLF = HostileProxyHarness.oneSignalHead(["Content-Length: \(body.count)"]).replacingOccurrences(of: "\r\n", with: "\n") + "\n"
        let response = try await RawHTTPClient.exchange(port: proxy.port, bytes: Array(bareLF.utf8) + body)
        #expect(response.status == 201, "bare LF: \(response.status) \(response.text)")
        await proxy.stop()
    }

    @Test func headRulesAcceptOrdinaryHeads() {
        #expect(HTTPHeadRules.problem(in: [("Content-Length", "12"), ("User-Agent", "curl/8\tx"), ("X-Note", "café")]) == nil)
        #expect(HTTPHeadRules.problem(in: [("Transfer-Encoding", "chunked")]) == nil)
        #expect(HTTPHeadRules.problem(in: [("content-length", "1"), ("Content-Length", "1")])?.field == "header Content-Length")
    }
}
