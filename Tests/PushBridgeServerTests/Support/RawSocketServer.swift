import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A keep-alive HTTP/1.1 server on 127.0.0.1:0: one thread accepts, one per connection reads
/// requests and hands each to `respond` with the socket (which answers however it likes).
final class RawSocketServer: Sendable {
    typealias Responder = @Sendable (TestHTTPServer.Received, Int32, inout SocketReader) -> Bool

    private struct State {
        var accepted = 0
        var received: [TestHTTPServer.Received] = []
        var open: Set<Int32> = []
        var stopped = false
    }

    let port: UInt16
    private let listenFD: Int32
    private let state = Mutex(State())
    private let respond: Responder

    init(respond: @escaping Responder) throws {
        (listenFD, port) = try Self.bindLoopback(listen: true)
        self.respond = respond
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Connections accepted so far.
    var acceptedConnections: Int { state.withLock { $0.accepted } }

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

    var received: [TestHTTPServer.Received] { state.withLock { $0.received } }

    /// Stops accepting and drops every open connection.
    func stop() {
        state.withLock { s in
            s.stopped = true
            for fd in s.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        shutdown(listenFD, Int32(SHUT_RDWR))
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
            guard respond(request, fd, &reader) else { break }
            if request.header("connection")?.lowercased() == "close" { break }
        }
        state.withLock { _ = $0.open.remove(fd) }
        close(fd)
    }

    static func write(_ fd: Int32, status: String, headers: [String], body: [UInt8]) -> Bool {
        let head = (["HTTP/1.1 \(status)", "Content-Length: \(body.count)"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
        return sendAll(fd, Array(head.utf8) + body)
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }
}
