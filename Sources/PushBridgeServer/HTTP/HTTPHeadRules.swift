/// The rules a request head must meet before anything reads its body, beyond what
/// libmicrohttpd checks (RFC 9110 and 9112): a method and header names that are tokens, a
/// target without control characters or spaces, one `Host`, one unambiguous body length, no
/// control characters in values, no content coding the server does not decode, and a head
/// within the configured sizes. A head that breaks one is answered with ``HeadProblem/status``
/// and its connection closed (a front proxy that framed the request differently would
/// otherwise have the rest parsed as a next request).
enum HTTPHeadRules {
    /// A broken rule: the part of the head it concerns, the rule, and the status it is answered with.
    struct HeadProblem: Equatable {
        /// `header Content-Length`, `method`, `request target`, …
        var field: String
        /// What the part must be.
        var rule: String
        /// 400, or 501 (a transfer coding the server does not implement), 415 (a content
        /// coding it does not decode), 431 (head too large), 414 (target too long).
        var status: Int = 400
    }

    /// The sizes a head must stay within; nil leaves that size unchecked.
    struct Limits {
        /// The most bytes of the head as received (request line, headers, blank line).
        var headBytes: Int?
        /// The most bytes of the request target.
        var targetBytes: Int?
    }

    /// The first rule the request line and `headers` break, or nil. `headBytes` is the size
    /// of the head as received; `version` the request's HTTP version (`HTTP/1.1`).
    static func problem(method: String, target: String, version: String, headBytes: Int, headers: [(name: String, value: String)],
                        limits: Limits) -> HeadProblem? {
        if let most = limits.targetBytes, target.utf8.count > most {
            return HeadProblem(field: "request target", rule: "must be at most \(most) bytes; it had \(target.utf8.count)", status: 414)
        }
        if let most = limits.headBytes, headBytes > most {
            return HeadProblem(field: "request head", rule: "must be at most \(most) bytes; it had \(headBytes)", status: 431)
        }
        if method.isEmpty || !method.utf8.allSatisfy(isTokenCharacter) {
            return HeadProblem(field: "method", rule: "must be a token (letters, digits and !#$%&'*+-.^_`|~), like POST")
        }
        if let byte = target.utf8.first(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return HeadProblem(field: "request target", rule: "must not contain spaces or control characters (found byte 0x\(hex(byte)))")
        }
        if let problem = problem(in: headers) { return problem }
        if version.uppercased() == "HTTP/1.0", headers.contains(where: { $0.name.lowercased() == "transfer-encoding" }) {
            // RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
            return HeadProblem(field: "header Transfer-Encoding", rule: "must not be sent in an HTTP/1.0 request")
        }
        // Counted, not filtered into an array of their own (an allocation per request).
        let hosts = headers.reduce(0) { $0 + ($1.name.lowercased() == "host" ? 1 : 0) }
        if hosts > 1 {
            return HeadProblem(field: "header Host", rule: "must be sent once; the request had \(hosts)")
        }
        if hosts == 0 && version.uppercased() != "HTTP/1.0" {
            return HeadProblem(field: "header Host", rule: "is required in an HTTP/1.1 request")
        }
        if hosts == 1, let host = headers.first(where: { $0.name.lowercased() == "host" }), !host.value.utf8.allSatisfy(isHostCharacter) {
            return HeadProblem(field: "header Host", rule: "must be a host name or address with an optional port")
        }
        return nil
    }

    /// The first rule `headers` break, or nil.
    static func problem(in headers: [(name: String, value: String)]) -> HeadProblem? {
        var contentLengths = 0
        var transferEncodings: [String] = []
        var contentEncodings: [String] = []
        for header in headers {
            if let byte = header.name.utf8.first(where: isControl) ?? header.value.utf8.first(where: isControl) {
                return HeadProblem(field: "header \(printable(header.name))", rule: "must not contain control characters (found byte 0x\(hex(byte)))")
            }
            if header.name.isEmpty || !header.name.utf8.allSatisfy(isTokenCharacter) {
                return HeadProblem(field: "header \(printable(header.name))",
                                   rule: "the name must be a token: no spaces before the colon, no separators")
            }
            switch header.name.lowercased() {
            case "content-length": contentLengths += 1
            case "transfer-encoding": transferEncodings.append(header.value)
            case "content-encoding": contentEncodings.append(header.value)
            default: break
            }
        }
        if contentLengths > 1 {
            return HeadProblem(field: "header Content-Length", rule: "must be sent once; the request had \(contentLengths)")
        }
        if !transferEncodings.isEmpty {
            if contentLengths == 1 {
                return HeadProblem(field: "header Transfer-Encoding", rule: "must not be sent together with Content-Length")
            }
            if transferEncodings.count > 1 {
                return HeadProblem(field: "header Transfer-Encoding", rule: "must be sent once; the request had \(transferEncodings.count)")
            }
            if let problem = transferCodingProblem(transferEncodings[0]) { return problem }
        }
        if let problem = contentCodingProblem(contentEncodings) { return problem }
        return nil
    }

    /// `Transfer-Encoding` must be exactly `chunked`: chunked not last, or twice, leaves the
    /// body's end unknown (400); any other coding is one the server does not implement (501).
    private static func transferCodingProblem(_ value: String) -> HeadProblem? {
        let codings = codings(value)
        let field = "header Transfer-Encoding"
        if codings.contains(where: \.isEmpty) || codings.isEmpty {
            return HeadProblem(field: field, rule: "must name its codings, separated by commas")
        }
        let chunked = codings.filter { $0 == "chunked" }.count
        if chunked > 1 || (chunked == 1 && codings.last != "chunked") {
            return HeadProblem(field: field, rule: "chunked must be the last coding and appear once")
        }
        if let other = codings.first(where: { $0 != "chunked" }) {
            return HeadProblem(field: field, rule: "only chunked is supported, not \(printable(other))", status: 501)
        }
        return nil
    }

    /// The server hands the body on as sent: a content coding other than `identity` is refused
    /// (415) rather than read as JSON.
    private static func contentCodingProblem(_ values: [String]) -> HeadProblem? {
        let codings = values.flatMap(codings).filter { !$0.isEmpty }
        guard let other = codings.first(where: { $0 != "identity" }) else { return nil }
        return HeadProblem(field: "header Content-Encoding",
                           rule: "\(printable(other)) is not supported; send the body uncompressed (identity)", status: 415)
    }

    /// The comma-separated codings of a header value, trimmed and lower-cased.
    private static func codings(_ value: String) -> [String] {
        value.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: [" ", "\t"]).lowercased()
        }
    }

    /// RFC 9110 `tchar`: `!#$%&'*+-.^_`|~`, digits and letters.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// A byte of `uri-host [ ":" port ]` (RFC 3986 reg-name, IPv4, IP-literal).
    private static func isHostCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        default: "-._~!$&'()*+,;=%:[]".utf8.contains(byte)
        }
    }

    /// A byte below 0x20 other than a tab, or DEL.
    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 16 ? "0" + digits : digits
    }

    /// `text` with control characters shown as `?`, so the error never carries them.
    private static func printable(_ text: String) -> String {
        String(decoding: text.utf8.map { isControl($0) ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
    }
}
