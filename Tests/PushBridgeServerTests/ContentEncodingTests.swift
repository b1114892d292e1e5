import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// A body with a content coding PushBridge does not decode is refused as such (415 naming
/// `Content-Encoding`, in the caller's dialect, audited, nothing forwarded) instead of being
/// parsed as JSON ("malformed JSON at byte 0").
@Suite(.serialized) struct ContentEncodingTests {
    /// The reference OneSignal body, gzip-compressed (by gzip(1), which the build machine has).
    static func gzipped(_ body: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(body))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(data)
    }

    @Test func aGzipBodyGetsTheDialects415NamingContentEncodingAndIsNotForwarded() async throws {
        let collector = LineCollector()
        let proxy = try HostileProxyHarness.start(log: EventLog(minimumLevel: .info, sink: collector.sink))
        let oneSignal = try await RawHTTPClient.send(port: proxy.port, method: "POST", target: HostileProxyHarness.oneSignalPath,
                                                     headers: [HostileProxyHarness.oneSignalAuth, ("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                                                     body: try Self.gzipped(HostileProxyHarness.oneSignalBody))
        #expect(oneSignal.status == 415, "\(oneSignal.status) \(oneSignal.text)")
        let error = HostileProxyHarness.oneSignalErrors(oneSignal)?.first ?? ""
        #expect(error.hasPrefix("header Content-Encoding: gzip is not supported"), "\(oneSignal.text)")
        #expect(!error.contains("malformed JSON"))

        // Pushwoosh answers refusals in its own shape: HTTP 200 with status_code 210 and the rule.
        let pushwoosh = try await RawHTTPClient.send(port: proxy.port, method: "POST", target: HostileProxyHarness.pushwooshPath,
                                                     headers: [("Content-Type", "application/json"), ("Content-Encoding", "x-gzip, identity")],
                                                     body: try Self.gzipped(HostileProxyHarness.pushwooshBody))
        let object = try JSONParser.parse(pushwoosh.body).objectValue
        #expect(pushwoosh.status == 200 && object?["status_code"]?.numberValue?.int64Value == 210, "\(pushwoosh.status) \(pushwoosh.text)")
        #expect(object?["status_message"]?.stringValue?.hasPrefix("header Content-Encoding: x-gzip is not supported") == true, "\(pushwoosh.text)")

        // Both audited as rejected with the status the caller saw, each with its access line; nothing forwarded.
        let rows = try SQLiteDatabase(path: proxy.directory.appendingPathComponent("audit.sqlite").path)
            .rows("SELECT request_id, outcome, dialect, response_status, error_message FROM requests ORDER BY request_id")
        #expect(rows.map { Array($0[1...3]) } == [[.text("rejected"), .text("onesignal"), .integer(415)], [.text("rejected"), .text("pushwoosh"), .integer(200)]],
                "\(rows)")
        #expect(rows.first?[0] == oneSignal.header("X-PushBridge-Request-Id").map(SQLiteValue.text))
        for row in rows {
            guard case .text(let id) = row[0] else { continue }
            #expect(collector.lines.contains { $0.contains("request_id=\(id)") && $0.contains("msg=request") }, "no access line for \(id): \(collector.lines)")
        }
        // identity is no coding: passed through as before.
        let identity = try await RawHTTPClient.send(port: proxy.port, method: "POST", target: HostileProxyHarness.oneSignalPath,
                                                    headers: [HostileProxyHarness.oneSignalAuth, ("Content-Type", "application/json"), ("Content-Encoding", "identity")],
                                                    body: HostileProxyHarness.oneSignalBody)
        #expect(identity.status == 201, "\(identity.status) \(identity.text)")
        await proxy.stop()
    }
}
