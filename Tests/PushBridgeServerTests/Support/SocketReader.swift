#if canImport(Glibc)
import Glibc
#endif

/// Reads HTTP/1.1 requests (Content-Length bodies only) from a blocking socket.
struct SocketReader {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// The next request, or `nil` when the peer closed or sent garbage.
    mutating func readRequest() -> TestHTTPServer.Received? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.firstRange(of: terminator)?.lowerBound
            if headEnd == nil, !fill() { return nil }
        }
        guard let end = headEnd else { return nil }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + terminator.count)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            return (name: line[..<colon].lowercased(), value: String(value))
        }
        let length = headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
        while buffer.count < length { if !fill() { return nil } }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return .init(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
    }

    /// Blocks until the peer closes (or the server shuts the socket down).
    mutating func waitForClose() { while fill() { buffer.removeAll() } }

    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16384)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 && errno == EINTR { return true }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[..<n])
        return true
    }
}
