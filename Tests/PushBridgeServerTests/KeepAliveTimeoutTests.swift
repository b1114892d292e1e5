import Foundation
import Glibc
import Testing
@testable import PushBridgeServer

/// Answers on a kept-alive connection advertise `Keep-Alive: timeout=N` with N below the idle
/// timeout the server closes at, so a client that honours it (Node's agent, Java's HttpClient)
/// stops reusing a connection before the server closes it; one that reuses it at N still gets
/// its answer.
@Suite(.serialized) struct KeepAliveTimeoutTests {
    /// One blocking keep-alive connection to 127.0.0.1.
    final class Connection {
        let fd: Int32
        private var buffer: [UInt8] = []

        init(port: UInt16) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard fd >= 0, connectLoopback(fd, port: port) == 0 else { throw RawHTTPClient.Failure(description: "connect failed: errno \(errno)") }
        }

        deinit { close(fd) }

        /// Sends `text` and reads one response (Content-Length framed); nil when the server closed.
        func exchange(_ text: String) -> RawHTTPResponse? {
            let bytes = Array(text.utf8)
            guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                if let response = try? RawHTTPClient.parse(buffer), let end = Self.end(of: buffer) {
                    buffer.removeFirst(end)
                    return response
                }
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return nil }
                buffer += chunk[0..<n]
            }
        }

        /// Where the first complete response in `bytes` ends, or nil.
        private static func end(of bytes: [UInt8]) -> Int? {
            let separator = Array("\r\n\r\n".utf8)
            guard let head = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }),
                  let response = try? RawHTTPClient.parse(bytes) else { return nil }
            let length = Int(response.header("Content-Length") ?? "0") ?? 0
            return bytes.count >= head + 4 + length ? head + 4 + length : nil
        }
    }

    static let get = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test func answersAdvertiseLessThanTheIdleTimeoutAndAConnectionReusedAtThatTimeIsAnswered() async throws {
        let proxy = try HostileProxyHarness.start(idleTimeoutSeconds: 5)
        let connection = try Connection(port: proxy.port)
        let clock = ContinuousClock()
        let first = try #require(connection.exchange(Self.get))
        let answered = clock.now
        #expect(first.status == 200)
        #expect(first.header("Keep-Alive") == "timeout=3", "\(first.headers)")
        // A client that honours the hint may reuse the connection until it expires: do so at
        // the last moment (what this test is about is time passing, so it waits for it).
        try await Task.sleep(until: answered.advanced(by: .milliseconds(2_900)), clock: clock)
        let second = connection.exchange(Self.get)
        #expect(second?.status == 200, "the connection was closed before the advertised timeout")
        #expect(second?.header("Keep-Alive") == "timeout=3")

        // A request that asks to close gets no hint, and neither does a refusal that closes.
        let closing = try await RawHTTPClient.send(port: proxy.port, target: "/healthz")
        #expect(closing.status == 200 && closing.header("Keep-Alive") == nil, "\(closing.headers)")
        let refused = try await RawHTTPClient.exchange(port: proxy.port, bytes: Array("GET /healthz HTTP/1.1\r\n\r\n".utf8))
        #expect(refused.status == 400 && refused.header("Keep-Alive") == nil, "\(refused.headers)")
        await proxy.stop()
    }

    @Test func theAdvertisedTimeoutLeavesAMargin() {
        var configuration = HTTPServerConfiguration()
        let cases: [(idle: Int, advertised: Int?)] = [(30, 28), (5, 3), (4, 2), (3, 2), (2, 1), (1, nil), (0, nil)]
        #expect(cases.count == 7)
        for (idle, advertised) in cases {
            configuration.idleTimeout = .seconds(idle)
            #expect(configuration.advertisedKeepAliveSeconds == advertised, "idle \(idle)")
        }
    }
}
