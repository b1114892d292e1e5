import PushBridgeCore

/// One request from captured traffic: JSON lines of `{"method","path","headers","body"}`
/// (`body` a JSON value, sent re-encoded, or a string, sent as is) or a HAR file's
/// `log.entries[].request` (`url`, `method`, `headers[]`, `postData.text`).
public struct CapturedRequest: Sendable, Equatable {
    /// `POST`, …
    public var method: String
    /// The path (a HAR URL's path and query).
    public var path: String
    /// Header names and values (credentials are fingerprinted before the audit sees them).
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]

    /// A request.
    public init(method: String, path: String, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// Equal when method, path, headers and body are.
    public static func == (a: CapturedRequest, b: CapturedRequest) -> Bool {
        a.method == b.method && a.path == b.path && a.body == b.body && a.headers.elementsEqual(b.headers) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Why a capture could not be read.
    public struct ParseError: Error, CustomStringConvertible {
        /// Where and what.
        public var description: String
    }

    /// Parses a HAR file (a JSON object with `log`) or JSON lines (blank lines skipped); an
    /// entry that cannot be read is an error naming it.
    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> [CapturedRequest] {
        let traffic = try read(bytes)
        if let first = traffic.unreadable.first { throw ParseError(description: first.description) }
        return traffic.requests
    }

    /// Reads a HAR file (a JSON object with `log`) or JSON lines (blank lines skipped): every
    /// entry that can be read as a request, and every one that cannot, named with its reason.
    /// Throws only when the file as a whole is not a capture (a HAR without `log.entries`).
    public static func read(_ bytes: [UInt8]) throws(ParseError) -> CapturedTraffic {
        let firstNonSpace = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        if firstNonSpace == UInt8(ascii: "{"), let whole = try? JSONParser.parse(bytes), let log = whole.objectValue?["log"]?.objectValue {
            return try har(log)
        }
        var traffic = CapturedTraffic(requests: [], unreadable: [])
        for (number, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { continue }
            let unreadable = { (reason: String) in traffic.unreadable.append(.init(entry: "line \(number + 1)", reason: reason)) }
            let value: JSONValue
            do { value = try JSONParser.parse(Array(line)) } catch { unreadable("is not JSON: \(error)"); continue }
            guard let object = value.objectValue, let path = object["path"]?.stringValue else {
                unreadable("expected an object with a \"path\"")
                continue
            }
            let body: [UInt8]
            switch object["body"] {
            case .string(let text)?: body = Array(text.utf8)
            case nil, .null?: body = []
            case let other?: body = JSONWriter.bytes(other)
            }
            traffic.requests.append(CapturedRequest(method: object["method"]?.stringValue ?? "POST", path: path, headers: headers(object["headers"]), body: body))
        }
        return traffic
    }

    private static func har(_ log: JSONObject) throws(ParseError) -> CapturedTraffic {
        guard let entries = log["entries"]?.arrayValue else { throw ParseError(description: "HAR: log.entries is missing") }
        var traffic = CapturedTraffic(requests: [], unreadable: [])
        for (index, entry) in entries.enumerated() {
            let unreadable = { (reason: String) in traffic.unreadable.append(.init(entry: "log.entries[\(index)]", reason: reason)) }
            guard let request = entry.objectValue?["request"]?.objectValue else { unreadable("has no request object"); continue }
            guard let url = request["url"]?.stringValue else { unreadable("request.url is missing or not a string"); continue }
            let postData = request["postData"].flatMap { $0 == .null ? nil : $0 }
            let text = postData?.objectValue?["text"]
            if postData != nil, postData?.objectValue == nil || (text != nil && text?.stringValue == nil) {
                unreadable("request.postData.text is not a string")
                continue
            }
            traffic.requests.append(CapturedRequest(method: request["method"]?.stringValue ?? "POST", path: pathOf(url), headers: headers(request["headers"]),
                                                    body: Array((text?.stringValue ?? "").utf8)))
        }
        return traffic
    }

    /// `https://host/a/b?q` → `/a/b?q`; a path stays as it is.
    static func pathOf(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return "/" }
        return String(rest[slash...])
    }

    /// An object `{name: value}` or a HAR array `[{"name","value"}]`.
    private static func headers(_ value: JSONValue?) -> [(name: String, value: String)] {
        switch value {
        case .object(let object)?: object.members.compactMap { m in m.value.stringValue.map { (name: m.key.lowercased(), value: $0) } }
        case .array(let array)?: array.compactMap { h in
            guard let o = h.objectValue, let n = o["name"]?.stringValue, let v = o["value"]?.stringValue else { return nil }
            return (name: n.lowercased(), value: v)
        }
        default: []
        }
    }
}
