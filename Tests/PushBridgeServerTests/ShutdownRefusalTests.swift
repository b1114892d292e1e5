import Foundation
import Glibc
import Testing
@testable import PushBridgeServer

/// A request whose body completes while PushBridge drains for a stop is refused with the
/// dialect's 503 only after its audit row is written, like every other refusal.
@Suite(.serialized)
struct ShutdownRefusalTests {
    /// A request held one byte short of its body on its own connection.
    final class HeldRequest: @unchecked Sendable {
        let fd: Int32
        let rest: [UInt8]

        init(port: UInt16, path: String, headers: [(String, String)], body: [UInt8]) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard connectLoopback(fd, port: port) == 0 else { throw RawHTTPClient.Failure(description: "connect failed: errno \(errno)") }
            var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            let first = Array((head + "\r\n").utf8) + body.dropLast()
            rest = [body.last ?? 0x20]
            _ = first.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        deinit { close(fd) }

        /// Sends the last byte and reads the answer until the server closes the connection.
        func finish() async throws -> RawHTTPResponse {
            try await withCheckedThrowingContinuation { continuation in
                Thread { [self] in
                    continuation.resume(with: Result {
                        _ = rest.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        var received: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 65536)
                        while true {
                            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                            guard n > 0 else { break }
                            received += buffer[0..<n]
                        }
                        return try RawHTTPClient.parse(received)
                    })
                }.start()
            }
        }
    }

    @Test func aRequestThatArrivesWhileDrainingIsAnswered503WithTheIdOfItsAuditRow() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(upstream: upstream.baseURL)
        let held = try HeldRequest(port: proxy.port, path: ProxyModesLiveTests.startPath,
                                   headers: [("Authorization", "Key \(ProxyHarness.oneSignalKey)")], body: ProxyModesLiveTests.startBody)
        #expect(await eventually { proxy.server.core.openRequests == 1 }, "the held request never reached the server")
        let stopping = Task { await proxy.stop() }
        #expect(await eventually { proxy.server.core.registry.withLock { $0.draining } }, "the server never began draining")
        let reply = try await held.finish()
        await stopping.value

        #expect(reply.status == 503)
        #expect(String(decoding: reply.body, as: UTF8.self).contains("shutting down"))
        let id = try #require(reply.header("X-PushBridge-Request-Id"), "the 503 names no audit row")
        let row = try #require(try AuditReader(path: proxy.auditPath).show(requestId: id), "no audit row for the 503")
        #expect(row.outcome == "rejected" && row.responseStatus == 503)
        #expect(upstream.all.isEmpty, "a request refused at stop reached OpenPush")
    }
}
