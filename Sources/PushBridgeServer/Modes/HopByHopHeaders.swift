/// The header fields that belong to one HTTP hop and never cross PushBridge when it passes a
/// request through to a legacy provider, or the provider's answer back to the caller: the
/// standard hop-by-hop set (RFC 9110 §7.6.1, plus `Proxy-Connection`, `Keep-Alive` and
/// `HTTP2-Settings`), the framing fields the sending side computes itself, and every field
/// named in a `Connection` header's value. One rule, used in both directions.
enum HopByHopHeaders {
    /// The fields that are always one hop's (lower-cased).
    static let standard: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authorization", "http2-settings",
        // Framing the next hop computes itself (curl on the way out, libmicrohttpd on the way back).
        "host", "content-length", "expect",
    ]

    /// `headers` without the hop-by-hop fields: the standard set and every name the
    /// `Connection` headers list (comma-separated, any case, any number of them).
    static func strip(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        let named = listedInConnection(headers)
        return headers.filter { header in
            let name = header.name.lowercased()
            return !standard.contains(name) && !named.contains(name)
        }
    }

    /// The field names the `Connection` headers of `headers` list, lower-cased.
    static func listedInConnection(_ headers: [(name: String, value: String)]) -> Set<String> {
        var names: Set<String> = []
        for header in headers where header.name.lowercased() == "connection" {
            for token in header.value.split(separator: ",") {
                let name = String(token.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()).lowercased()
                if !name.isEmpty { names.insert(name) }
            }
        }
        return names
    }
}
