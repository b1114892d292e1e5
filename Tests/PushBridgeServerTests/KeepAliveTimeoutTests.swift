import Foundation
import Glibc
import Testing
@testable import PushBridgeServer

/// Answers on a kept-alive connection advertise `Keep-Alive: timeout=N` with N below the idle
/// timeout the server closes at, so a client that honours it (Node's agent, Java's HttpClient)
/// stops reusing a connection before the server closes it.
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

        /// Blocks until the server closes the connection (or 10 s pass).
        func waitForClose() {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while chunk.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
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

    @Test func answersAdvertiseLessThanTheIdleTimeoutAndTheServerClosesLaterThanAdvertised() async throws {
        let proxy = try HostileProxyHarness.start(idleTimeoutSeconds: 5)
        let connection = try Connection(port: proxy.port)
        let clock = ContinuousClock()
        let first = try #require(connection.exchange(Self.get))
        #expect(first.status == 200)
        #expect(first.header("Keep-Alive") == "timeout=3", "\(first.headers)")
        let second = connection.exchange(Self.get)
        let answered = clock.now
        #expect(second?.status == 200 && second?.header("Keep-Alive") == "timeout=3", "\(String(describing: second?.headers))")
        // The server closes the idle connection at its idle timeout (5 s), well after the 3 s a
        // client that honours the hint may still reuse it.
        connection.waitForClose()
        let idle = clock.now - answered
        #expect(idle >= .milliseconds(4_500), "closed \(idle) after the last answer, the hint said 3 s")

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
