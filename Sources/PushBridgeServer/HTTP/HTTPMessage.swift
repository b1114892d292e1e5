import Foundation
import PushBridgeCore

/// An inbound HTTP request, fully read (the server enforces the body limit before this exists).
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path with its query string, as sent.
    public var target: String { didSet { path = Self.path(of: target) } }
    /// The path without the query string (kept with ``target``, computed once).
    public private(set) var path: String
    /// Header names lower-cased, in arrival order.
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]
    /// The peer address, e.g. `127.0.0.1`.
    public var remoteAddress: String
    /// The id and arrival time the server's exit gave the request at its request line
    /// (``HTTPServerExit/arrived()``); nil when the server has no exit or the request was
    /// made in-process.
    public var ticket: HTTPRequestTicket?

    /// A request. `headers` is taken (consumed): names not in lower case are lower-cased where
    /// they are, so headers held by nothing else are not copied into a new array (issue 31).
    public init(method: String, target: String, headers: consuming [(name: String, value: String)] = [], body: [UInt8] = [],
                remoteAddress: String = "127.0.0.1", ticket: HTTPRequestTicket? = nil) {
        self.ticket = ticket
        self.method = method
        self.target = target
        self.path = Self.path(of: target)
        var headers = headers
        for index in headers.indices where !Self.isLowercased(headers[index].name) {
            headers[index].name = headers[index].name.lowercased()
        }
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// Whether `name` is its own `lowercased()` for certain: ASCII without `A`–`Z`. Any other
    /// name (non-ASCII included) is lower-cased.
    static func isLowercased(_ name: String) -> Bool {
        name.utf8.allSatisfy { $0 < 0x80 && !($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) }
    }

    private static func path(of target: String) -> String {
        guard target.containsUTF8(UInt8(ascii: "?")), let q = target.firstIndex(of: "?") else { return target }
        return String(target[..<q])
    }

    /// The query parameters (not percent-decoded beyond `+`/`%XX`).
    public var query: [String: String] {
        guard let q = target.firstIndex(of: "?") else { return [:] }
        var out: [String: String] = [:]
        for pair in target[target.index(after: q)...].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            let decode = { (s: Substring) in PathEncoding.decodeSegment(Substring(s.replacingOccurrences(of: "+", with: " "))) ?? String(s) }
            out[decode(kv[0])] = kv.count > 1 ? decode(kv[1]) : ""
        }
        return out
    }

    /// The first value of a header (case-insensitive name).
    public func header(_ name: String) -> String? {
        let n = name.lowercased()
        return headers.first { $0.name == n }?.value
    }
}

/// An HTTP response.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Headers to send (Content-Length is added by the server).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// A response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ status: Int, _ value: JSONValue, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: JSONWriter.bytes(value))
    }

    /// The first value of a header (case-insensitive name).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.isASCIICaseInsensitive(name) }?.value
    }
}

/// What serves requests: called once per request, on any thread, may suspend.
public typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPResponse
