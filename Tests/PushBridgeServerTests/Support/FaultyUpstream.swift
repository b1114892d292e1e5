import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One way an upstream can misbehave.
enum UpstreamFault: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Nothing listens: the connection is refused (the proxy points at a closed port).
    case refuse
    /// Half an answer, then a TCP reset.
    case reset
    /// Reads the request and never answers.
    case stall
    /// Headers at once, then one body byte every 100 ms: never finishes within a deadline.
    case drip
    /// 503 with an HTML body.
    case html503
    /// 200 whose body is not JSON.
    case invalidJSON
    /// 429 with `Retry-After: 1`.
    case tooMany

    var description: String { rawValue }
}

/// An OpenPush stand-in on 127.0.0.1 built on raw sockets, so it can break a connection the way
/// a real network does. A request whose body contains ``marker`` gets `fault`; every other one
/// gets a well-formed `201 {"id": "msg-N"}` at once. Every request read is recorded.
final class FaultyUpstream: Sendable {
    /// The string that selects a request for the fault.
    static let marker = "FAULT_MARK"

    let fault: UpstreamFault
    private let server: RawSocketServer

    init(_ fault: UpstreamFault) throws {
        self.fault = fault
        server = try RawSocketServer { request, fd, reader in
            let body = String(decoding: request.body, as: UTF8.self)
            guard body.contains(Self.marker) else {
                return RawSocketServer.write(fd, status: "201 Created", headers: ["Content-Type: application/json"],
                                             body: Array(#"{"id":"msg-\#(UUID().uuidString.prefix(8))"}"#.utf8))
            }
            return Self.misbehave(fault, fd: fd, reader: &reader)
        }
    }

    var baseURL: String { "http://127.0.0.1:\(server.port)" }
    /// Requests read so far, in order.
    var received: [TestHTTPServer.Received] { server.received }
    /// The requests that carried the marker.
    var faulted: [TestHTTPServer.Received] { received.filter { String(decoding: $0.body, as: UTF8.self).contains(Self.marker) } }
    func stop() { server.stop() }

    /// Does `fault` on `fd`; `false`: the connection is over.
    private static func misbehave(_ fault: UpstreamFault, fd: Int32, reader: inout SocketReader) -> Bool {
        switch fault {
        case .refuse:
            return false
        case .reset:
            _ = RawSocketServer.sendAll(fd, Array("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"id\":\"ms".utf8))
            var hard = linger(l_onoff: 1, l_linger: 0) // close() now sends RST
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, socklen_t(MemoryLayout<linger>.size))
            return false
        case .stall:
            reader.waitForClose()
            return false
        case .drip:
            guard RawSocketServer.sendAll(fd, Array("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n".utf8)) else { return false }
            for _ in 0..<100 { // bounded: 10 s at most
                usleep(100_000)
                guard RawSocketServer.sendAll(fd, [UInt8(ascii: " ")]) else { return false }
            }
            return false
        case .html503:
            return RawSocketServer.write(fd, status: "503 Service Unavailable", headers: ["Content-Type: text/html"],
                                         body: Array("<html><body><h1>503 Service Temporarily Unavailable</h1><hr>nginx</body></html>".utf8))
        case .invalidJSON:
            return RawSocketServer.write(fd, status: "200 OK", headers: ["Content-Type: application/json"], body: Array(#"{"id": "msg-1", "#.utf8))
        case .tooMany:
            return RawSocketServer.write(fd, status: "429 Too Many Requests", headers: ["Retry-After: 1", "Content-Type: application/json"],
                                         body: Array(#"{"errors":["rate limit exceeded"]}"#.utf8))
        }
    }
}
