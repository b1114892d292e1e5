import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1:0 for upstream tests: one thread accepts, one thread
/// per connection serves keep-alive requests with canned behaviours chosen by path, and every
/// request received is recorded.
///
/// Paths: `/created` 201 JSON · `/echo` echoes the body, and each request header as
/// `x-echo-<name>` · `/stall` never answers · `/close-mid` promises 100 bytes, sends 10 and
/// closes · `/retry-after` 429 with `Retry-After: 7` · `/big?n=N` N bytes with Content-Length
/// · `/big-chunked?n=N` N bytes chunked · anything else 404.
final class TestHTTPServer: Sendable {
    /// One request as the server read it.
    struct Received: Sendable {
        var method: String
        var target: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }
    }

    private let server: RawSocketServer

    /// The port bound on 127.0.0.1.
    var port: UInt16 { server.port }

    /// Binds 127.0.0.1:0 and starts accepting.
    init() throws {
        server = try RawSocketServer { request, fd, reader in TestHTTPServer.respond(to: request, on: fd, reader: &reader) }
    }

    /// `http://127.0.0.1:PORT` + path.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
    /// Connections accepted so far.
    var acceptedConnections: Int { server.acceptedConnections }
    /// Requests read so far, in order.
    var received: [Received] { server.received }

    /// Stops accepting and drops every open connection.
    func stop() { server.stop() }

    /// A port on 127.0.0.1 that refuses connections: bound, never listened on, then closed.
    static func refusedPort() throws -> UInt16 { try RawSocketServer.refusedPort() }

    /// Writes the canned answer; `false` when the connection must end.
    private static func respond(to request: Received, on fd: Int32, reader: inout SocketReader) -> Bool {
        let path = request.target.split(separator: "?").first.map(String.init) ?? request.target
        let n = request.target.split(separator: "=").last.flatMap { Int($0) } ?? 0
        switch path {
        case "/created":
            return write(fd, status: "201 Created", headers: ["Content-Type: application/json"], body: Array(#"{"id":"msg-1"}"#.utf8))
        case "/echo":
            let echoed = request.headers.map { "x-echo-\($0.name): \($0.value)" }
            return write(fd, status: "200 OK", headers: ["X-Echo-Method: \(request.method)"] + echoed, body: request.body)
        case "/retry-after":
            return write(fd, status: "429 Too Many Requests", headers: ["Retry-After: 7", "Content-Type: application/json"], body: Array(#"{"error":"slow down"}"#.utf8))
        case "/slow":
            // Answers after `n` ms (`/slow?ms=20`): the caller waits on its socket for it. The
            // sleep is the stand-in upstream's behaviour under test (an answer that takes time, so
            // the caller's socket is watched while idle), not a wait for a condition: no test
            // waits on it, the tests wait on the answer.
            usleep(useconds_t(n * 1000))
            return write(fd, status: "200 OK", headers: [], body: request.body)
        case "/stall":
            reader.waitForClose()
            return false
        case "/close-mid":
            _ = sendAll(fd, Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789".utf8))
            return false
        case "/big":
            return write(fd, status: "200 OK", headers: [], body: [UInt8](repeating: 0x61, count: n))
        case "/big-chunked":
            var out = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            var left = n
            while left > 0 {
                let c = min(left, 4096)
                out += Array("\(String(c, radix: 16))\r\n".utf8) + [UInt8](repeating: 0x62, count: c) + Array("\r\n".utf8)
                left -= c
            }
            return sendAll(fd, out + Array("0\r\n\r\n".utf8))
        default:
            return write(fd, status: "404 Not Found", headers: [], body: [])
        }
    }

    private static func write(_ fd: Int32, status: String, headers: [String], body: [UInt8]) -> Bool {
        RawSocketServer.write(fd, status: status, headers: headers, body: body)
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool { RawSocketServer.sendAll(fd, bytes) }
}
