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

    private struct State {
        var accepted = 0
        var received: [Received] = []
        var open: Set<Int32> = []
        var stopped = false
    }

    /// The port bound on 127.0.0.1.
    let port: UInt16
    private let listenFD: Int32
    private let state = Mutex(State())

    /// Binds 127.0.0.1:0 and starts accepting.
    init() throws {
        let (fd, port) = try Self.bindLoopback(listen: true)
        self.listenFD = fd
        self.port = port
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// `http://127.0.0.1:PORT` + path.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
    /// Connections accepted so far.
    var acceptedConnections: Int { state.withLock { $0.accepted } }
    /// Requests read so far, in order.
    var received: [Received] { state.withLock { $0.received } }

    /// Stops accepting and drops every open connection.
    func stop() {
        state.withLock { s in
            s.stopped = true
            for fd in s.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        shutdown(listenFD, Int32(SHUT_RDWR))
    }

    /// A port on 127.0.0.1 that refuses connections: bound, never listened on, then closed.
    static func refusedPort() throws -> UInt16 {
        let (fd, port) = try bindLoopback(listen: false)
        close(fd)
        return port
    }

    private static func bindLoopback(listen shouldListen: Bool) throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(fd, sa, len) == 0 && (!shouldListen || listen(fd, 128) == 0) && getsockname(fd, sa, &len) == 0
            }
        }
        guard ok else { close(fd); throw POSIXError(.EADDRINUSE) }
        return (fd, UInt16(bigEndian: addr.sin_port))
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                break
            }
            let keep = state.withLock { s -> Bool in
                if s.stopped { return false }
                s.accepted += 1
                s.open.insert(fd)
                return true
            }
            guard keep else { close(fd); break }
            Thread.detachNewThread { [self] in serve(fd) }
        }
        close(listenFD)
    }

    private func serve(_ fd: Int32) {
        var reader = SocketReader(fd: fd)
        while let request = reader.readRequest() {
            state.withLock { $0.received.append(request) }
            guard respond(to: request, on: fd, reader: &reader) else { break }
            if request.header("connection")?.lowercased() == "close" { break }
        }
        state.withLock { _ = $0.open.remove(fd) }
        close(fd)
    }

    /// Writes the canned answer; `false` when the connection must end.
    private func respond(to request: Received, on fd: Int32, reader: inout SocketReader) -> Bool {
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

    private func write(_ fd: Int32, status: String, headers: [String], body: [UInt8]) -> Bool {
        let head = (["HTTP/1.1 \(status)", "Content-Length: \(body.count)"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
        return sendAll(fd, Array(head.utf8) + body)
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }
}
