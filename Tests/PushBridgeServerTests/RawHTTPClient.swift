import Foundation
import Glibc

/// A response as read off the wire by ``RawHTTPClient``.
struct RawHTTPResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Sends raw bytes to 127.0.0.1 over a blocking POSIX socket on its own thread (so a slow
/// server never starves the cooperative pool) and reads the answer until the server closes.
enum RawHTTPClient {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// A request with `Connection: close` and a Content-Length for `body`.
    static func send(port: UInt16, method: String = "GET", target: String = "/", headers: [(String, String)] = [], body: [UInt8] = []) async throws -> RawHTTPResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return try await exchange(port: port, bytes: Array(head.utf8) + body)
    }

    /// Writes `bytes`, reads until EOF, parses one response.
    static func exchange(port: UInt16, bytes: [UInt8], timeoutSeconds: Int = 10) async throws -> RawHTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try blockingExchange(port: port, bytes: bytes, timeoutSeconds: timeoutSeconds) })
            }
            thread.start()
        }
    }

    /// Writes `bytes`, reads until EOF, and returns every byte the server sent (several
    /// responses, if it answered several requests).
    static func exchangeBytes(port: UInt16, bytes: [UInt8], timeoutSeconds: Int = 10) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try blockingReceive(port: port, bytes: bytes, timeoutSeconds: timeoutSeconds) })
            }
            thread.start()
        }
    }

    private static func blockingExchange(port: UInt16, bytes: [UInt8], timeoutSeconds: Int) throws -> RawHTTPResponse {
        try parse(try blockingReceive(port: port, bytes: bytes, timeoutSeconds: timeoutSeconds))
    }

    private static func blockingReceive(port: UInt16, bytes: [UInt8], timeoutSeconds: Int) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connectLoopback(fd, port: port) == 0 else { throw Failure(description: "connect failed: errno \(errno)") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break } // the server may answer early and stop reading
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received += buffer[0..<n]; continue }
            if n == 0 || !received.isEmpty { break }
            throw Failure(description: "recv failed: errno \(errno)")
        }
        return received
    }

    /// The first response in `bytes`.
    static func parse(_ bytes: [UInt8]) throws -> RawHTTPResponse {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
            throw Failure(description: "no complete response head in \(bytes.count) bytes")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(lines[0])") }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(bytes[(end + 4)...])
        if let length = headers.first(where: { $0.name.lowercased() == "content-length" }).flatMap({ Int($0.value) }) {
            body = Array(body.prefix(length))
        }
        return RawHTTPResponse(status: status, headers: headers, body: body)
    }
}
