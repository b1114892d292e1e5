import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Heads over PushBridge's own limits are answered in the dialect of their path (431, 414)
/// with a request id, an access line and an audit row; what libmicrohttpd still refuses with
/// its own page (a head past `header_memory_bytes`, a malformed chunk size) gets the audit row
/// and access line, with the status it sent.
@Suite(.serialized) struct HeadLimitTests {
    /// The audit's rows as (request id, outcome, dialect, route, status, error), in arrival order.
    static func rows(_ proxy: HostileProxyHarness) throws -> [[SQLiteValue]] {
        try SQLiteDatabase(path: proxy.directory.appendingPathComponent("audit.sqlite").path)
            .rows("SELECT request_id, outcome, dialect, route, response_status, error_message FROM requests ORDER BY request_id")
    }

    /// Whether `lines` hold the access line of `id` with `status`.
    static func hasAccessLine(_ lines: [String], id: String, status: Int) -> Bool {
        lines.contains { $0.contains("msg=request") && $0.contains("request_id=\(id)") && $0.contains("status=\(status)") }
    }

    @Test func headsOverTheLimitsAreAnsweredInTheDialectOfTheirPath() async throws {
        let collector = LineCollector()
        let proxy = try HostileProxyHarness.start(log: EventLog(minimumLevel: .info, sink: collector.sink))
        // 14 kB of headers: past max_head_bytes (12288 by default), within header_memory_bytes (16384).
        let big = try await RawHTTPClient.send(port: proxy.port, method: "POST", target: HostileProxyHarness.oneSignalPath,
                                               headers: [HostileProxyHarness.oneSignalAuth, ("X-Padding", String(repeating: "a", count: 14_000))],
                                               body: HostileProxyHarness.oneSignalBody)
        #expect(big.status == 431, "\(big.status) \(big.text)")
        #expect(HostileProxyHarness.oneSignalErrors(big)?.first?.hasPrefix("request head: must be at most 12288 bytes") == true, "\(big.text)")
        // A 9,000-byte target on BuzzKit's route: BuzzKit's error shape.
        let longTarget = "/v1/live-activities/send?pad=" + String(repeating: "b", count: 9_000)
        let long = try await RawHTTPClient.send(port: proxy.port, method: "POST", target: longTarget, headers: [("Authorization", "Bearer x")], body: Array("{}".utf8))
        #expect(long.status == 414, "\(long.status) \(long.text)")
        let error = try JSONParser.parse(long.body).objectValue?["error"]?.objectValue
        #expect(error?["code"]?.stringValue == "uri_too_long" && error?["message"]?.stringValue?.hasPrefix("request target: must be at most 8192 bytes") == true,
                "\(long.text)")
        // A path no dialect has: plain JSON, still with its request id and row.
        let plain = try await RawHTTPClient.send(port: proxy.port, target: "/elsewhere?pad=" + String(repeating: "c", count: 9_000))
        #expect(plain.status == 414 && (try? JSONParser.parse(plain.body))?.objectValue?["errors"] != nil, "\(plain.status) \(plain.text)")

        let answers = [big, long, plain]
        let ids = answers.compactMap { $0.header("X-PushBridge-Request-Id") }
        #expect(ids.count == 3)
        let rows = try Self.rows(proxy)
        #expect(rows.map(\.first) == ids.map { .text($0) }, "\(rows)")
        #expect(rows.map { Array($0[1...4]) } == [
            [.text("rejected"), .text("onesignal"), .text("start"), .integer(431)],
            [.text("rejected"), .text("buzzkit"), .text("send"), .integer(414)],
            [.text("rejected"), .null, .null, .integer(414)],
        ], "\(rows)")
        for (id, answer) in zip(ids, answers) {
            #expect(Self.hasAccessLine(collector.lines, id: id, status: answer.status), "no access line for \(id)")
        }
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }

    static let libraryCases: [(name: String, bytes: @Sendable () -> [UInt8], status: Int, stage: String)] = [
        ("a 40 kB header", { Array((HostileProxyHarness.oneSignalHead(["X-Padding: " + String(repeating: "a", count: 40_000), "Content-Length: 2"]) + "\r\n{}").utf8) },
         431, "larger than the server's header memory"),
        ("chunk size zz", { Array((HostileProxyHarness.oneSignalHead(["Transfer-Encoding: chunked"]) + "\r\nzz\r\n{}\r\n0\r\n\r\n").utf8) }, 400, "chunk size"),
        ("chunk size -5", { Array((HostileProxyHarness.oneSignalHead(["Transfer-Encoding: chunked"]) + "\r\n-5\r\n{}\r\n0\r\n\r\n").utf8) }, 400, "chunk size"),
        ("a 20-digit chunk size", { Array((HostileProxyHarness.oneSignalHead(["Transfer-Encoding: chunked"]) + "\r\n" + String(repeating: "1", count: 20) + "\r\n{}\r\n0\r\n\r\n").utf8) },
         413, "chunk size"),
    ]

    @Test func whatLibmicrohttpdRefusesItselfIsAuditedAndLoggedWithTheStatusItSent() async throws {
        let collector = LineCollector()
        let proxy = try HostileProxyHarness.start(log: EventLog(minimumLevel: .info, sink: collector.sink))
        #expect(Self.libraryCases.count == 4)
        for (index, testCase) in Self.libraryCases.enumerated() {
            let response = try await RawHTTPClient.exchange(port: proxy.port, bytes: testCase.bytes())
            // libmicrohttpd 0.9.75 writes these answers itself; PushBridge cannot replace them.
            #expect(response.status == testCase.status, "\(testCase.name): \(response.status) \(response.text)")
            // The row is written after libmicrohttpd's answer: wait for it.
            let row = await firstValue { try? Self.rows(proxy).dropFirst(index).first }
            #expect(row.map { Array($0[1...4]) } == [.text("rejected"), .text("onesignal"), .text("start"), .integer(Int64(testCase.status))], "\(testCase.name): \(String(describing: row))")
            guard case .text(let message)? = row?[5], case .text(let id)? = row?[0] else { Issue.record("\(testCase.name): no row"); continue }
            #expect(message.contains(testCase.stage), "\(testCase.name): \(message)")
            #expect(await eventually { Self.hasAccessLine(collector.lines, id: id, status: testCase.status) }, "\(testCase.name): no access line")
        }
        #expect(try Self.rows(proxy).count == Self.libraryCases.count)
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }

    static let requestLineCases: [(name: String, bytes: [UInt8], status: Int)] = [
        ("HTTP/2 prior knowledge", Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8), 505),
        ("a 20 kB request line", Array("GET /\(String(repeating: "a", count: 20_000)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8), 414),
        ("a garbage request line", Array("\u{1}\u{2} GARBAGE\r\nHost: 127.0.0.1\r\n\r\n".utf8), 400),
    ]

    @Test func requestLinesLibmicrohttpdRefusesItselfAreAuditedAndLogged() async throws {
        let collector = LineCollector()
        let proxy = try HostileProxyHarness.start(log: EventLog(minimumLevel: .info, sink: collector.sink))
        #expect(Self.requestLineCases.count == 3)
        // A connection that closes without sending anything is no refusal (checked at the end,
        // after the refusals that come after it were recorded).
        _ = try? await RawHTTPClient.exchangeBytes(port: proxy.port, bytes: [], timeoutSeconds: 1)
        for (index, testCase) in Self.requestLineCases.enumerated() {
            let response = try await RawHTTPClient.exchange(port: proxy.port, bytes: testCase.bytes)
            // libmicrohttpd 0.9.75 answers these before any callback sees a request.
            #expect(response.status == testCase.status, "\(testCase.name): \(response.status)")
            let row = await firstValue { try? Self.rows(proxy).dropFirst(index).first }
            #expect(row.map { Array($0[1...4]) } == [.text("rejected"), .null, .null, .null], "\(testCase.name): \(String(describing: row))")
            guard case .text(let message)? = row?[5], case .text(let id)? = row?[0] else { Issue.record("\(testCase.name): no row"); continue }
            #expect(message.contains("refused the request line"), "\(testCase.name): \(message)")
            #expect(await eventually { Self.hasAccessLine(collector.lines, id: id, status: 0) }, "\(testCase.name): no access line")
        }
        let refused = try Self.rows(proxy)
        #expect(refused.count == Self.requestLineCases.count, "the silent connection was recorded")
        // An answered request is no refused request line: after it, one more refusal, whose row
        // is the only one added besides the request's own.
        #expect(try await proxy.validOneSignalStart().status == 201)
        _ = try await RawHTTPClient.exchange(port: proxy.port, bytes: Self.requestLineCases[0].bytes)
        #expect(await eventually { (try? Self.rows(proxy).count) == Self.requestLineCases.count + 2 })
        let rows = try Self.rows(proxy)
        #expect(rows.count == Self.requestLineCases.count + 2, "\(rows)")
        #expect(rows.filter { $0[1] == .text("forwarded") }.count == 1, "\(rows)")
        await proxy.stop()
    }
}
