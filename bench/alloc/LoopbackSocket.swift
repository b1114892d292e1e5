#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP socket on 127.0.0.1, closed when it goes. Used only by the bench's own
/// threads (its caller and its upstream), whose allocations are not counted, and by one thread
/// at a time (hence unchecked: it is handed to the thread that serves it).
final class LoopbackSocket: @unchecked Sendable {
    /// The descriptor.
    let fd: Int32

    /// Takes ownership of `fd`.
    init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// A listening socket on 127.0.0.1 at an ephemeral port.
    static func listen() throws(LoopbackError) -> (LoopbackSocket, UInt16) {
        let socket = LoopbackSocket(fd: Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        guard socket.fd >= 0 else { throw LoopbackError("socket: errno \(errno)") }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket.fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(socket.fd, 64) == 0 else { throw LoopbackError("bind/listen: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.fd, $0, &length) }
        }
        return (socket, UInt16(bigEndian: address.sin_port))
    }

    /// A connection to 127.0.0.1:`port`, without Nagle's delay.
    static func connect(port: UInt16) throws(LoopbackError) -> LoopbackSocket {
        let socket = LoopbackSocket(fd: Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        guard socket.fd >= 0 else { throw LoopbackError("socket: errno \(errno)") }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket.fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw LoopbackError("connect to 127.0.0.1:\(port): errno \(errno)") }
        socket.noDelay()
        return socket
    }

    /// The next connection, or nil when the listening socket is closed or fails.
    func accept() -> LoopbackSocket? {
        let fd = Glibc.accept(self.fd, nil, nil)
        guard fd >= 0 else { return nil }
        let socket = LoopbackSocket(fd: fd)
        socket.noDelay()
        return socket
    }

    /// Sends all of `bytes`; false when the peer is gone.
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }

    /// Reads one HTTP message (head and a `Content-Length` body) from the connection into
    /// `buffer`, which keeps any bytes past it for the next message; nil when the peer closed.
    func readMessage(_ buffer: inout [UInt8]) -> HTTPMessageBytes? {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            if let message = HTTPMessageBytes.take(from: &buffer) { return message }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    private func noDelay() {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// A socket call that failed, and how.
struct LoopbackError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One HTTP/1.1 message as read off a connection: its first line and its body.
struct HTTPMessageBytes {
    /// The request or status line.
    var firstLine: String
    /// The body (`Content-Length` bytes after the head).
    var body: [UInt8]

    /// The status of a response's first line (`HTTP/1.1 201 Created` → 201), 0 when it has none.
    var status: Int {
        let parts = firstLine.split(separator: " ")
        return parts.count > 1 ? Int(parts[1]) ?? 0 : 0
    }

    /// The first complete message at the start of `buffer`, removed from it; nil until the
    /// head and the body its `Content-Length` announces are all there.
    static func take(from buffer: inout [UInt8]) -> HTTPMessageBytes? {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        guard buffer.count >= 4, let headEnd = (0...(buffer.count - 4)).first(where: { buffer[$0..<($0 + 4)].elementsEqual(end) }) else { return nil }
        let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        var length = 0
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].filter { $0 != " " && $0 != "\t" }) ?? 0
            }
        }
        let bodyStart = headEnd + 4
        guard buffer.count >= bodyStart + length else { return nil }
        let message = HTTPMessageBytes(firstLine: String(lines.first ?? ""), body: Array(buffer[bodyStart..<(bodyStart + length)]))
        buffer.removeFirst(bodyStart + length)
        return message
    }
}
