import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Hostile request heads and framing against a real proxy: each case asserts what the caller
/// sees, and that the proxy still answers a well-formed request afterwards.
@Suite(.serialized) struct HostileHeaderTests {
    @Test func oversizedHeaderIsRefusedAndTheProxyKeepsServing() async throws {
        let proxy = try HostileProxyHarness.start()
        let huge = String(repeating: "a", count: 40_000)
        let response = try await RawHTTPClient.send(port: proxy.port, method: "POST", target: HostileProxyHarness.oneSignalPath,
                                                    headers: [HostileProxyHarness.oneSignalAuth, ("X-Padding", huge)], body: HostileProxyHarness.oneSignalBody)
        #expect([413, 431].contains(response.status), "got \(response.status)")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }

    @Test func malformedHeadersAreAnswered400() async throws {
        let proxy = try HostileProxyHarness.start()
        let body = HostileProxyHarness.oneSignalBody
        let noColon = HostileProxyHarness.oneSignalHead(["Content-Length: \(body.count)", "this line has no colon"]) + "\r\n"
        let garbageLine = "\u{1}\u{2} GARBAGE\r\nHost: 127.0.0.1\r\n\r\n"
        let badLength = HostileProxyHarness.oneSignalHead(["Content-Length: 12abc"]) + "\r\n"
        for head in [noColon, garbageLine, badLength] {
            let response = try await RawHTTPClient.exchange(port: proxy.port, bytes: Array(head.utf8) + body)
            #expect(response.status == 400, "\(head.debugDescription) got \(response.status)")
        }
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }

    @Test func contentLengthLongerThanTheBodyIsClosedAfterTheIdleTimeoutWithoutForwarding() async throws {
        let proxy = try HostileProxyHarness.start(idleTimeoutSeconds: 2)
        let body = HostileProxyHarness.oneSignalBody
        let head = HostileProxyHarness.oneSignalHead(["Content-Length: \(body.count + 500)"]) + "\r\n"
        let clock = ContinuousClock()
        let started = clock.now
        await #expect(throws: RawHTTPClient.Failure.self) {
            try await RawHTTPClient.exchange(port: proxy.port, bytes: Array(head.utf8) + body, timeoutSeconds: 8)
        }
        #expect(clock.now - started < .seconds(8), "the stalled request was not closed by the idle timeout")
        #expect(proxy.runtime.audit.statistics.operations == 0, "a request with a missing body reached the audit")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }

    @Test func contentLengthShorterThanTheBodyTruncatesItToADialectError() async throws {
        let proxy = try HostileProxyHarness.start()
        let body = HostileProxyHarness.oneSignalBody
        let head = HostileProxyHarness.oneSignalHead(["Content-Length: 40"]) + "\r\n"
        let response = try await RawHTTPClient.exchange(port: proxy.port, bytes: Array(head.utf8) + body)
        #expect(response.status == 400)
        let errors = try #require(HostileProxyHarness.oneSignalErrors(response), "not OneSignal-shaped: \(response.text)")
        #expect(errors.first?.contains("malformed JSON") == true, "\(errors)")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }

    @Test func chunkedBodyIsReassembledAndForwarded() async throws {
        let proxy = try HostileProxyHarness.start()
        let body = HostileProxyHarness.oneSignalBody
        let thirds = [body[..<(body.count / 3)], body[(body.count / 3)..<(2 * body.count / 3)], body[(2 * body.count / 3)...]]
        var bytes = Array((HostileProxyHarness.oneSignalHead(["Transfer-Encoding: chunked"]) + "\r\n").utf8)
        for chunk in thirds { bytes += Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10] }
        bytes += Array("0\r\n\r\n".utf8)
        let response = try await RawHTTPClient.exchange(port: proxy.port, bytes: bytes)
        #expect(response.status == 201, "\(response.text)")
        #expect((try? JSONParser.parse(response.body))?.objectValue?["notification_id"]?.stringValue != nil, "\(response.text)")
        await proxy.stop()
    }

    @Test func malformedChunkIsRefusedAndTheProxyKeepsServing() async throws {
        let proxy = try HostileProxyHarness.start()
        let head = HostileProxyHarness.oneSignalHead(["Transfer-Encoding: chunked"]) + "\r\n"
        let response = try await RawHTTPClient.exchange(port: proxy.port, bytes: Array((head + "zz\r\n{}\r\n0\r\n\r\n").utf8))
        #expect(response.status == 400, "got \(response.status)")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }
}
