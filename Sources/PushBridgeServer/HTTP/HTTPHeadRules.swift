/// The rules a request head must meet before anything reads its body, beyond what
/// libmicrohttpd checks: one unambiguous body length, and no control characters. A head that
/// breaks one is answered 400 and its connection closed (a front proxy that framed the
/// request differently would otherwise have the rest parsed as a next request).
enum HTTPHeadRules {
    /// The first rule `headers` break, as the header's name and the rule, or nil.
    static func problem(in headers: [(name: String, value: String)]) -> (field: String, rule: String)? {
        var contentLengths = 0
        var transferEncoding = false
        for header in headers {
            if let byte = header.name.utf8.first(where: isControl) ?? header.value.utf8.first(where: isControl) {
                return ("header \(printable(header.name))", "must not contain control characters (found byte 0x\(hex(byte)))")
            }
            switch header.name.lowercased() {
            case "content-length": contentLengths += 1
            case "transfer-encoding": transferEncoding = true
            default: break
            }
        }
        if contentLengths > 1 {
            return ("header Content-Length", "must be sent once; the request had \(contentLengths)")
        }
        if contentLengths == 1 && transferEncoding {
            return ("header Transfer-Encoding", "must not be sent together with Content-Length")
        }
        return nil
    }

    /// A byte below 0x20 other than a tab, or DEL.
    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 16 ? "0" + digits : digits
    }

    /// `name` with control characters shown as `?`, so the error never carries them.
    private static func printable(_ name: String) -> String {
        String(decoding: name.utf8.map { isControl($0) ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
    }
}
